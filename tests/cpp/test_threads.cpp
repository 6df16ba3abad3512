// Many threads on shared objects and functions of the core at once: one compiled program
// evaluated by every thread (both instance views, verdicts and errors), schema compilation with
// the shared metaschema cache, the JSON writer and layouts, the JSON-RPC and SSE codecs, tool
// results and their text mirror. Every result must equal the single-threaded one. Built with
// ThreadSanitizer (scripts/test --tsan --cpp-only), any data race fails the run.
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "dom_view.hpp"
#include "mcp_native/json/indent.hpp"
#include "mcp_native/json/writer.hpp"
#include "mcp_native/mcp/jsonrpc.hpp"
#include "mcp_native/mcp/sse.hpp"
#include "mcp_native/mcp/text_mirror.hpp"
#include "mcp_native/schema/regex.hpp"
#include "mcp_native/schema/text_views.hpp"
#include "tape_json.hpp"

namespace rpc = mcp_native::jsonrpc;
namespace sse = mcp_native::sse;
using namespace mcp_native::schema;

namespace {

constexpr int kThreads = 8;

// Runs work(k) on kThreads threads released together, rounds times each; fails the test with
// the first exception a thread met.
void hammer(int rounds, const std::function<void(int)>& work) {
  std::barrier start(kThreads);
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int k = 0; k < kThreads; ++k) {
    threads.emplace_back([&, k] {
      start.arrive_and_wait();
      try {
        for (int r = 0; r < rounds; ++r) work(k);
      } catch (const std::exception& e) {
        failures[k] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int k = 0; k < kThreads; ++k) EXPECT_EQ(failures[k], "") << "thread " << k;
}

const char* const kSchema = R"({
  "type": "object",
  "properties": {
    "rows": {"type": "array", "items": {"$ref": "#/$defs/row"}},
    "tag": {"anyOf": [{"type": "string", "pattern": "^[a-z]+(-[0-9]+)?$"}, {"type": "null"}]},
    "mail": {"type": "string", "format": "email"},
    "when": {"type": "string", "format": "date-time"}
  },
  "patternProperties": {"^x-[a-z]+\\d*$": {"type": "integer"}},
  "required": ["rows"],
  "$defs": {
    "row": {
      "type": "object",
      "properties": {
        "id": {"type": "integer", "minimum": 0},
        "name": {"type": "string", "maxLength": 40, "pattern": "\\p{L}"},
        "score": {"type": "number", "multipleOf": 0.25}
      },
      "required": ["id"],
      "additionalProperties": false
    }
  }
})";

// Instances: valid ones and ones failing in various places (regexes, formats, numbers, $ref).
std::vector<std::string> instances() {
  std::vector<std::string> out;
  for (int i = 0; i < 24; ++i) {
    std::string rows;
    for (int j = 0; j < 30; ++j) {
      if (j) rows += ",";
      const int id = (i % 4 == 1 && j == i) ? -1 : j;
      const char* name = (i % 5 == 2 && j == 3) ? "1234" : "nämé";
      rows += R"({"id":)" + std::to_string(id) + R"(,"name":")" + name + R"(","score":)" +
              ((i % 6 == 3 && j == 7) ? "0.3" : "1.75") + (i % 7 == 4 && j == 2 ? R"(,"extra":true)" : "") + "}";
    }
    const std::string tag = i % 3 == 0 ? "null" : i % 3 == 1 ? R"("abc-12")" : R"("Abc")";
    const std::string mail = i % 8 == 5 ? R"("not an address")" : R"("a.b@example.com")";
    const std::string when = i % 9 == 6 ? R"("2024-02-30T10:00:00Z")" : R"("2024-02-29T10:00:00Z")";
    const std::string x = i % 10 == 7 ? R"("x-n1":"s")" : R"("x-n1":1)";
    out.push_back(R"({"rows":[)" + rows + R"(],"tag":)" + tag + R"(,"mail":)" + mail + R"(,"when":)" + when + "," + x +
                  "}");
  }
  return out;
}

// What a program says of an instance: the verdicts of both views and the errors, flattened.
std::string evaluate(const Program& prog, simdjson::dom::parser& parser, const std::string& text) {
  simdjson::padded_string padded(text);
  simdjson::dom::element doc = parser.parse(padded).value();
  std::string out;
  DomView::Env env;
  Counters c;
  Evaluator<DomView, false> quick(prog, env, c);
  out += quick.run(doc) ? "valid" : "invalid";
  TapeView::Env tenv;
  Counters tc;
  Evaluator<TapeView, true> full(prog, tenv, tc);
  out += full.run(mcp_native::tape::root(parser.doc)) ? " valid" : " invalid";
  for (auto& e : full.errors) out += "\n" + e.keyword + " " + pointer(e.instance_path) + " " + pointer(e.schema_path);
  return out;
}

Options with_formats() {
  Options o;
  o.formats = true;
  return o;
}

}  // namespace

TEST(Threads, OneProgramEvaluatedByEveryThread) {
  const auto prog = compile(parse_json(kSchema), with_formats());
  const std::vector<std::string> docs = instances();
  std::vector<std::string> expected;
  {
    simdjson::dom::parser parser;
    for (auto& d : docs) expected.push_back(evaluate(*prog, parser, d));
  }
  // Both verdicts, and some failures of each kind, or the test proves little.
  EXPECT_NE(expected[0].find("valid valid"), std::string::npos);
  EXPECT_NE(expected[1].find("minimum"), std::string::npos);
  EXPECT_NE(expected[2].find("pattern"), std::string::npos);
  EXPECT_NE(expected[5].find("format"), std::string::npos);
  hammer(3, [&](int k) {
    simdjson::dom::parser parser;  // one per thread: a parser holds its last document
    for (std::size_t i = 0; i < docs.size(); ++i) {
      const std::size_t at = (i + static_cast<std::size_t>(k)) % docs.size();  // each thread its own order
      if (evaluate(*prog, parser, docs[at]) != expected[at])
        throw std::runtime_error("result of doc " + std::to_string(at));
    }
  });
}

TEST(Threads, OneRegexSearchedByEveryThread) {
  const mcp_native::Regex re("^(\\p{Lu}\\p{Ll}+ )+[0-9]{2,}$");
  const std::vector<std::string> subjects = {"Über Straße 12", "über 12", "A 1", "Ab Cd 123", "Ab Cd 12x"};
  std::vector<bool> expected;
  for (auto& s : subjects) expected.push_back(re.search(s));
  hammer(200, [&](int) {
    for (std::size_t i = 0; i < subjects.size(); ++i)
      if (re.search(subjects[i]) != expected[i]) throw std::runtime_error("search " + subjects[i]);
  });
}

TEST(Threads, CompilesWithTheSharedMetaschemaCache) {
  // The threads compile first, so that they meet the metaschema cache empty (each test runs in a
  // process of its own under ctest).
  const std::vector<std::string> schemas = {
      kSchema,
      R"({"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"a":{"type":"integer"}}})",
      R"({"$schema":"http://json-schema.org/draft-06/schema#","const":{"a":[1,2]}})",
      R"({"$schema":"http://json-schema.org/draft-07/schema#","if":{"type":"string"},"then":{"minLength":2}})",
      R"({"$schema":"https://json-schema.org/draft/2019-09/schema","$recursiveAnchor":true,"items":{"$recursiveRef":"#"}})",
      R"({"type":12})",
      R"({"pattern":"("})",
  };
  const std::vector<std::string> probes = {R"({"rows":[],"a":1})", R"("x")", R"([[["y"]]])", R"({"a":[1,2]})"};
  auto outcome = [&](const std::string& schema) {
    try {
      const auto prog = compile(parse_json(schema), with_formats());
      simdjson::dom::parser parser;
      std::string out = "compiled";
      for (auto& p : probes) out += " | " + evaluate(*prog, parser, p);
      return out;
    } catch (const SchemaError& e) {
      return std::string("SchemaError: ") + e.what();
    }
  };
  std::vector<std::vector<std::string>> seen(kThreads);
  hammer(1, [&](int k) {
    for (std::size_t i = 0; i < schemas.size(); ++i)
      seen[k].push_back(outcome(schemas[(i + static_cast<std::size_t>(k)) % schemas.size()]));
  });
  for (int k = 0; k < kThreads; ++k) {
    ASSERT_EQ(seen[k].size(), schemas.size());
    for (std::size_t i = 0; i < schemas.size(); ++i)
      EXPECT_EQ(seen[k][i], outcome(schemas[(i + static_cast<std::size_t>(k)) % schemas.size()])) << k << " " << i;
  }
  EXPECT_EQ(outcome(schemas[5]).rfind("SchemaError", 0), 0u);
}

namespace {

// The JSON-RPC messages of a stream, flattened.
struct Collect : rpc::MessageSink {
  std::string seen;
  void on_message(const rpc::Message& m) override {
    seen += std::to_string(static_cast<int>(m.kind)) + " " + std::string(m.method) + " " +
            (m.has_body ? mcp_native::tape_json(m.body) : "") + " " + std::string(m.response) + "\n";
  }
};

std::string json_rpc_stream(int seed) {
  std::string s;
  for (int i = 0; i < 40; ++i) {
    s += R"({"jsonrpc":"2.0","id":)" + std::to_string(seed * 100 + i) +
         R"(,"method":"tools/call","params":{"name":"t","arguments":{"x":[1.5,"é",null,)" + std::to_string(i) +
         "]}}}\n";
    if (i % 7 == 3) s += "{\"jsonrpc\":\"2.0\",\"id\":\n";  // broken
    if (i % 11 == 5)
      s += R"({"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{}})"
           "\n";  // big id
  }
  return s;
}

std::string decode_rpc(const std::string& stream, std::size_t piece) {
  rpc::Decoder d(1 << 20, mcp_native::ProtocolVersion::v2025_11_25);
  Collect c;
  for (std::size_t at = 0; at < stream.size(); at += piece) d.feed(std::string_view(stream).substr(at, piece), c);
  d.close(c);
  return c.seen;
}

struct Events : sse::EventSink {
  std::string seen;
  void on_event(const sse::Event& e) override {
    seen += std::string(e.type) + "|" + std::string(e.data) + "|" + std::string(e.id) + "\n";
  }
};

std::string sse_round_trip(int seed) {
  std::string stream;
  for (int i = 0; i < 30; ++i) {
    const std::string id = std::to_string(seed * 1000 + i);
    const std::string_view id_view = id;
    sse::write_event(stream, "line one\r\nline " + id + "\nlast", i % 2 ? "message" : "update", &id_view,
                     i % 5 ? "" : "1500");
  }
  sse::Decoder d;
  Events e;
  for (std::size_t at = 0; at < stream.size(); at += 37) d.feed(std::string_view(stream).substr(at, 37), e);
  d.close();
  return e.seen + std::string(d.last_event_id());
}

// A document written by JsonWriter, then laid out as Python's json.dumps does, then as the
// tool result of Azure's MCP extension (text mirror included).
std::string tool_result(int seed) {
  mcp_native::JsonWriter w;
  w.put('{');
  w.write_string("rows");
  w.put(':');
  w.put('[');
  for (int i = 0; i < 50; ++i) {
    if (i) w.put(',');
    w.write_int(seed * 1000 - i);
    w.put(',');
    w.write_double(0.1 * i + seed);
    w.put(',');
    w.write_string("q\"u\\o\tte ü 𝄞 " + std::to_string(i));
  }
  w.append("]}");
  mcp_native::JsonWriter py;
  mcp_native::append_python_default(py, w.view());
  mcp_native::JsonWriter out;
  mcp_native::append_mcp_tool_result(out, "json", py.view(), py.view(), seed % 2 == 0);
  std::string error;
  rpc::RequestId id;
  id.kind = rpc::RequestId::Kind::Int;
  id.int_value = seed;
  rpc::write_error_response(error, mcp_native::ProtocolVersion::v2025_06_18, id, rpc::kInvalidParams, "Invalid params",
                            "at /rows/3");
  return std::string(out.view()) + "\n" + error;
}

}  // namespace

TEST(Threads, CodecsOnTheSameAndDifferentDocuments) {
  std::vector<std::string> streams, rpc_expected, sse_expected, results_expected;
  for (int s = 0; s < kThreads; ++s) {
    streams.push_back(json_rpc_stream(s));
    rpc_expected.push_back(decode_rpc(streams[s], 1 << 20));
    sse_expected.push_back(sse_round_trip(s));
    results_expected.push_back(tool_result(s));
  }
  EXPECT_EQ(decode_rpc(streams[0], 13), rpc_expected[0]);
  hammer(4, [&](int k) {
    // The same document as every other thread, then a document of its own.
    for (int s : {0, k}) {
      if (decode_rpc(streams[s], 64 + 17 * static_cast<std::size_t>(k)) != rpc_expected[s])
        throw std::runtime_error("jsonrpc " + std::to_string(s));
      if (sse_round_trip(s) != sse_expected[s]) throw std::runtime_error("sse " + std::to_string(s));
      if (tool_result(s) != results_expected[s]) throw std::runtime_error("tool result " + std::to_string(s));
    }
  });
}

TEST(Threads, MirrorKernelSwitchedWhileOthersEscape) {
  // use_mirror_kernel changes process-wide state: every kernel must give the same text, and a
  // switch while other threads escape must be no race.
  const std::string expected = tool_result(2);
  hammer(20, [&](int k) {
    if (k == 0) {
      mcp_native::use_mirror_kernel(mcp_native::MirrorKernel::kPortable);
      mcp_native::use_mirror_kernel(mcp_native::MirrorKernel::kSsse3);
    }
    if (tool_result(2) != expected) throw std::runtime_error("tool result");
  });
}

TEST(Threads, DecoderRefusesUseFromItsOwnCallback) {
  // A decoder is not shared while in use: one fed again from inside its own sink (the way a
  // second thread would meet it mid-feed) says so instead of corrupting its buffer.
  rpc::Decoder d(1 << 20, mcp_native::ProtocolVersion::v2025_11_25);
  struct Reenter : rpc::MessageSink {
    rpc::Decoder* d;
    std::string error;
    void on_message(const rpc::Message&) override {
      Collect inner;
      try {
        d->feed("{}\n", inner);
      } catch (const std::logic_error& e) {
        error = e.what();
      }
    }
  } sink;
  sink.d = &d;
  d.feed(R"({"jsonrpc":"2.0","method":"ping"})"
         "\n",
         sink);
  EXPECT_NE(sink.error.find("in use"), std::string::npos) << sink.error;
  // Still usable afterwards.
  Collect c;
  d.feed(R"({"jsonrpc":"2.0","method":"ping"})"
         "\n",
         c);
  EXPECT_NE(c.seen.find("ping"), std::string::npos);

  sse::Decoder sd;
  struct ReenterSse : sse::EventSink {
    sse::Decoder* d;
    std::string error;
    void on_event(const sse::Event&) override {
      Events inner;
      try {
        d->feed("data: x\n\n", inner);
      } catch (const std::logic_error& e) {
        error = e.what();
      }
    }
  } ssink;
  ssink.d = &sd;
  sd.feed("data: a\n\n", ssink);
  EXPECT_NE(ssink.error.find("in use"), std::string::npos) << ssink.error;
  Events e;
  sd.feed("data: b\n\n", e);
  EXPECT_EQ(e.seen, "message|b|\n");
}
