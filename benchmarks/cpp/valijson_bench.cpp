// valijson_bench: times valijson (nlohmann adapter) on one schema and one instance, the C++ peer
// of benchmarks/bench_schema.py.
//
// Usage: valijson_bench SCHEMA.json INSTANCE.json [REPEATS=5] [MIN_MS_PER_REPEAT=50]
// (the schema is read as draft-07)
// Prints one JSON object: {"valid": bool, "validate_ns": min ns/op over repeats,
// "compile_ns": min ns to build valijson's schema, "iterations": validations per repeat
// (1 with no repeats when a single validation takes over a second)}
// or {"error": "..."} (exit 1) when valijson rejects the schema.

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

namespace {

using nlohmann::json;
using valijson::adapters::NlohmannJsonAdapter;
using Clock = std::chrono::steady_clock;

json load(const char* path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw std::runtime_error(std::string("cannot open ") + path);
    }
    return json::parse(in);
}

double ns_since(Clock::time_point start) {
    return std::chrono::duration<double, std::nano>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3 || argc > 5) {
        std::cerr << "usage: " << argv[0] << " SCHEMA.json INSTANCE.json [REPEATS=5] [MIN_MS_PER_REPEAT=50]\n";
        return 2;
    }
    const int repeats = std::max(1, argc > 3 ? std::atoi(argv[3]) : 5);
    const double min_ns = 1e6 * std::max(1, argc > 4 ? std::atoi(argv[4]) : 50);
    const auto version = valijson::SchemaParser::kDraft7;
    try {
        const json schema_doc = load(argv[1]);
        const json instance = load(argv[2]);

        double compile_ns = std::numeric_limits<double>::infinity();
        for (int r = 0; r < repeats; ++r) {
            valijson::Schema scratch;
            valijson::SchemaParser parser(version);
            auto start = Clock::now();
            parser.populateSchema(NlohmannJsonAdapter(schema_doc), scratch);
            compile_ns = std::min(compile_ns, ns_since(start));
        }

        valijson::Schema schema;
        valijson::SchemaParser(version).populateSchema(NlohmannJsonAdapter(schema_doc), schema);
        valijson::Validator validator;
        const NlohmannJsonAdapter target(instance);
        // The first call also fills valijson's regex cache; it calibrates the batch size so that
        // one repeat lasts about MIN_MS_PER_REPEAT. A call slower than a second is reported as it
        // is: repeating it would take minutes (valijson is exponential on some schemas).
        auto start = Clock::now();
        bool valid = validator.validate(schema, target, nullptr);
        double best = ns_since(start);
        long iterations = 1;
        if (best < 1e9) {
            iterations = std::max(1L, static_cast<long>(min_ns / std::max(1.0, best)));
            best = std::numeric_limits<double>::infinity();
            for (int r = 0; r < repeats; ++r) {
                start = Clock::now();
                for (long i = 0; i < iterations; ++i) {
                    valid = validator.validate(schema, target, nullptr);
                }
                best = std::min(best, ns_since(start) / static_cast<double>(iterations));
            }
        }
        std::cout << json{{"valid", valid},
                          {"validate_ns", best},
                          {"compile_ns", compile_ns},
                          {"iterations", iterations}}
                         .dump()
                  << '\n';
    } catch (const std::exception& e) {
        std::cout << json{{"error", e.what()}}.dump(-1, ' ', false, json::error_handler_t::replace)
                  << '\n';
        return 1;
    }
    return 0;
}
