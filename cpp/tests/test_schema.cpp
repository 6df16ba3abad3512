// Core engine tests on the simdjson DOM view.
#include <gtest/gtest.h>

#include "mcp_native/schema_dom.hpp"

using namespace mcp_native::schema;

namespace {

bool valid(const std::string& schema, const std::string& instance, Options o = {}) {
  auto prog = compile(parse_json(schema), o);
  simdjson::dom::parser parser;
  simdjson::padded_string text(instance);
  auto doc = parser.parse(text).value();
  DomView::Env env;
  Counters c;
  Evaluator<DomView, false> ev(*prog, env, c);
  return ev.run(doc);
}

}  // namespace

TEST(Schema, TypesAndNumbers) {
  EXPECT_TRUE(valid(R"({"type":"integer"})", "1.0"));
  EXPECT_FALSE(valid(R"({"type":"integer"})", "1.5"));
  EXPECT_FALSE(valid(R"({"type":"number"})", "\"65\""));
  EXPECT_TRUE(valid(R"({"multipleOf":0.0001})", "0.0075"));
  EXPECT_FALSE(valid(R"({"multipleOf":0.0001})", "0.00751"));
  EXPECT_FALSE(valid(R"({"type":"integer","multipleOf":0.123456789})", "1e308"));
  EXPECT_TRUE(valid(R"({"const":1})", "1.0"));
  EXPECT_FALSE(valid(R"({"const":1})", "true"));
}

TEST(Schema, ObjectsAndRefs) {
  const char* s = R"({"$defs":{"n":{"type":"number"}},"type":"object","required":["a"],
                      "properties":{"a":{"$ref":"#/$defs/n"}},"additionalProperties":false})";
  EXPECT_TRUE(valid(s, R"({"a":1})"));
  EXPECT_FALSE(valid(s, R"({"a":"1"})"));
  EXPECT_FALSE(valid(s, R"({"a":1,"b":2})"));
  EXPECT_FALSE(valid(s, R"({})"));
}

TEST(Schema, Unevaluated) {
  const char* s = R"({"allOf":[{"properties":{"a":true}}],"unevaluatedProperties":false})";
  EXPECT_TRUE(valid(s, R"({"a":1})"));
  EXPECT_FALSE(valid(s, R"({"a":1,"b":1})"));
}

TEST(Schema, Errors) {
  EXPECT_THROW(compile(parse_json(R"({"$ref":"http://example.com/x"})"), {}), SchemaError);
  EXPECT_THROW(compile(parse_json(R"({"$ref":"#"})"), {}), SchemaError);
  EXPECT_THROW(compile(parse_json(R"({"$schema":"http://example.com/s"})"), {}), SchemaError);
  EXPECT_THROW(compile(parse_json(R"({"type":12})"), {}), SchemaError);
  EXPECT_THROW(compile(parse_json(R"({"pattern":"("})"), {}), SchemaError);
}

TEST(Schema, Metaschemas) {
  for (auto& [uri, text] : metaschemas()) {
    Options o;
    EXPECT_NO_THROW(compile(parse_json(R"({"$ref":")" + std::string(uri) + "\"}"), o)) << uri;
  }
  EXPECT_TRUE(valid(R"({"$ref":"https://json-schema.org/draft/2020-12/schema"})", R"({"type":"string"})"));
  EXPECT_FALSE(valid(R"({"$ref":"https://json-schema.org/draft/2020-12/schema"})", R"({"type":12})"));
}
