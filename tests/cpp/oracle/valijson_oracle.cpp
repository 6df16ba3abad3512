// valijson_oracle: valijson's verdicts on JSON Schema cases, the reference side of
// tests/python/test_differential.py.
//
// Usage: valijson_oracle CASES.json
//   CASES.json is a JSON array of {"schema": S, "instances": [I...]}; schemas are read as draft-07.
// Output: one JSON line per case, in order:
//   {"valid": [true, false, {"error": "..."}, ...]}   one entry per instance; an object when
//                                                       valijson threw while validating it
//   {"schema_error": "..."}                             when valijson rejected the schema
// Exit status: 0 when every case was answered, 2 on a usage or input error.

#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

namespace {

using nlohmann::json;
using valijson::adapters::NlohmannJsonAdapter;

json run_case(const json& c) {
  if (!c.is_object() || !c.contains("schema") || !c.contains("instances") || !c["instances"].is_array()) {
    return {{"schema_error", "case must be an object with \"schema\" and an \"instances\" array"}};
  }
  valijson::Schema schema;
  try {
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    parser.populateSchema(NlohmannJsonAdapter(c["schema"]), schema);
  } catch (const std::exception& e) {
    return {{"schema_error", e.what()}};
  }
  json verdicts = json::array();
  // One validator per case: it caches compiled regexes, as a long-lived user would.
  valijson::Validator validator;
  for (const json& instance : c["instances"]) {
    try {
      verdicts.push_back(validator.validate(schema, NlohmannJsonAdapter(instance), nullptr));
    } catch (const std::exception& e) {
      verdicts.push_back({{"error", e.what()}});
    }
  }
  return {{"valid", verdicts}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " CASES.json\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "valijson_oracle: cannot open " << argv[1] << "\n";
    return 2;
  }
  json cases;
  try {
    cases = json::parse(in);
  } catch (const std::exception& e) {
    std::cerr << "valijson_oracle: " << argv[1] << ": " << e.what() << "\n";
    return 2;
  }
  if (!cases.is_array()) {
    std::cerr << "valijson_oracle: " << argv[1] << ": expected a JSON array of cases\n";
    return 2;
  }
  for (const json& c : cases) {
    // Messages may quote schema text; replace invalid UTF-8 rather than fail to print.
    std::cout << run_case(c).dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
  }
  return 0;
}
