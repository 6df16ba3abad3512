#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mcp_native/mcp/jsonrpc.hpp"
#include "tape_json.hpp"

namespace rpc = mcp_native::jsonrpc;

namespace {

// A flattened copy of a message, comparable after the callback returns.
struct Seen {
  rpc::MessageKind kind;
  std::string id;  // "" absent, "i:<n>", "u:<n>", "s:<text>", "j:<json>"
  std::string method;
  std::string body;  // minified body or ""
  int code = 0;
  std::string response;
  bool exact = true;
  std::string line;  // the line, for messages that are not Invalid

  bool operator==(const Seen&) const = default;
};

std::string id_text(const rpc::RequestId& id) {
  switch (id.kind) {
    case rpc::RequestId::Kind::Absent: return "";
    case rpc::RequestId::Kind::Int: return "i:" + std::to_string(id.int_value);
    case rpc::RequestId::Kind::UInt: return "u:" + std::to_string(id.uint_value);
    case rpc::RequestId::Kind::String: return "s:" + std::string(id.string_value);
    case rpc::RequestId::Kind::Json: return "j:" + std::string(id.string_value);
  }
  return "?";
}

struct Collect : rpc::MessageSink {
  std::vector<Seen> seen;
  void on_message(const rpc::Message& m) override {
    Seen s{m.kind,
           id_text(m.id),
           std::string(m.method),
           m.has_body ? mcp_native::tape_json(m.body) : "",
           m.error_code,
           std::string(m.response),
           m.exact,
           std::string(m.line)};
    seen.push_back(std::move(s));
  }
};

std::vector<Seen> decode(const std::vector<std::string>& chunks, std::size_t max = 1 << 20,
                         mcp_native::ProtocolVersion v = mcp_native::ProtocolVersion::v2025_11_25) {
  rpc::Decoder d(max, v);
  Collect c;
  for (const auto& chunk : chunks) d.feed(chunk, c);
  d.close(c);
  return c.seen;
}

Seen one(const std::string& line, mcp_native::ProtocolVersion v = mcp_native::ProtocolVersion::v2025_11_25) {
  auto all = decode({line + "\n"}, 1 << 20, v);
  EXPECT_EQ(all.size(), 1u) << line;
  return all.empty() ? Seen{} : all[0];
}

}  // namespace

TEST(JsonRpcDecoder, ClassifiesTheFourKinds) {
  auto r = one(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}})");
  EXPECT_EQ(r.kind, rpc::MessageKind::Request);
  EXPECT_EQ(r.id, "i:1");
  EXPECT_EQ(r.method, "tools/call");
  EXPECT_EQ(r.body, R"({"name":"x"})");

  auto n = one(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  EXPECT_EQ(n.kind, rpc::MessageKind::Notification);
  EXPECT_EQ(n.id, "");
  EXPECT_EQ(n.body, "");

  auto ok = one(R"({"jsonrpc":"2.0","id":"a\"b","result":{}})");
  EXPECT_EQ(ok.kind, rpc::MessageKind::Response);
  EXPECT_EQ(ok.id, "s:a\"b");

  auto err = one(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"no"}})");
  EXPECT_EQ(err.kind, rpc::MessageKind::ErrorResponse);
  EXPECT_EQ(err.id, "");
  EXPECT_EQ(one(R"({"jsonrpc":"2.0","id":18446744073709551615,"result":{}})").id, "u:18446744073709551615");
}

TEST(JsonRpcDecoder, ParseErrorResponse) {
  auto bad = one("{bad");
  EXPECT_EQ(bad.kind, rpc::MessageKind::Invalid);
  EXPECT_EQ(bad.code, rpc::kParseError);
  EXPECT_EQ(bad.response,
            R"({"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error","data":"invalid JSON: syntax error"}})"
            "\n");
  // 2025-06-18 follows JSON-RPC 2.0 literally: an unknown id is null.
  auto old = one("{bad", mcp_native::ProtocolVersion::v2025_06_18);
  EXPECT_EQ(old.response.rfind(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,)", 0), 0u) << old.response;
  EXPECT_EQ(one("\"\xff\"").code, rpc::kParseError);
  EXPECT_EQ(one(std::string(2000, '[') + std::string(2000, ']')).code, rpc::kParseError);
}

TEST(JsonRpcDecoder, InvalidEnvelopesKeepTheReadableId) {
  struct Case {
    const char* line;
    const char* id;
  } cases[] = {
      {R"({"jsonrpc":"1.0","id":3,"method":"m"})", "i:3"},
      {R"({"id":3,"method":"m"})", "i:3"},
      {R"({"jsonrpc":"2.0","id":"x","method":5})", "s:x"},
      {R"({"jsonrpc":"2.0","id":3,"method":"m","params":[1]})", "i:3"},
      {R"({"jsonrpc":"2.0","id":true,"method":"m"})", ""},
      {R"({"jsonrpc":"2.0","id":1.5,"method":"m"})", ""},
      {R"({"jsonrpc":"2.0","id":null,"method":"m"})", ""},
      {R"({"jsonrpc":"2.0","id":{},"method":"m"})", ""},
      {R"({"jsonrpc":"2.0","id":[1],"method":"m"})", ""},
      {R"({"jsonrpc":"2.0","id":4})", "i:4"},
      {R"({"jsonrpc":"2.0","id":4,"result":[]})", "i:4"},
      {R"({"jsonrpc":"2.0","result":{}})", ""},
      {R"({"jsonrpc":"2.0","id":4,"result":{},"error":{"code":1,"message":"m"}})", "i:4"},
      {R"({"jsonrpc":"2.0","id":4,"error":{"code":"1","message":"m"}})", "i:4"},
      {R"({"jsonrpc":"2.0","id":4,"method":"m","result":{}})", "i:4"},
      {R"([{"jsonrpc":"2.0","id":4,"method":"m"}])", ""},
      {R"("hello")", ""},
  };
  for (const auto& c : cases) {
    auto s = one(c.line);
    EXPECT_EQ(s.kind, rpc::MessageKind::Invalid) << c.line;
    EXPECT_EQ(s.code, rpc::kInvalidRequest) << c.line;
    EXPECT_EQ(s.id, c.id) << c.line;
  }
}

TEST(JsonRpcDecoder, LineEndingsBlankLinesAndFinalLine) {
  const std::string a = R"({"jsonrpc":"2.0","method":"a"})";
  const std::string b = R"({"jsonrpc":"2.0","method":"b"})";
  auto got = decode({"\n\r\n  \n" + a + "\r\n\n" + b});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].method, "a");
  EXPECT_EQ(got[1].method, "b");
}

TEST(JsonRpcDecoder, EverySplitGivesTheSameMessages) {
  const std::string stream =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"k\":\"v\\n\"}}\r\n"
      "{bad}\n\n"
      "{\"jsonrpc\":\"2.0\",\"id\":\"z\",\"result\":{\"x\":[1,2]}}\n"
      "[]\n"
      "{\"jsonrpc\":\"2.0\",\"method\":\"n\"}";
  const auto whole = decode({stream});
  ASSERT_EQ(whole.size(), 5u);
  for (std::size_t i = 0; i <= stream.size(); ++i) {
    EXPECT_EQ(decode({stream.substr(0, i), stream.substr(i)}), whole) << "split at " << i;
    for (std::size_t j = i; j <= stream.size(); j += 7) {
      EXPECT_EQ(decode({stream.substr(0, i), stream.substr(i, j - i), stream.substr(j)}), whole);
    }
  }
}

TEST(JsonRpcDecoder, OversizedLinesAreReportedAndSkipped) {
  const std::string ok = R"({"jsonrpc":"2.0","method":"ok"})";  // 31 bytes
  ASSERT_EQ(ok.size(), 31u);
  // Exactly at the limit, with either line ending: accepted.
  EXPECT_EQ(decode({ok + "\r\n"}, 31).at(0).kind, rpc::MessageKind::Notification);
  EXPECT_EQ(decode({ok + "\r", "\n"}, 31).at(0).kind, rpc::MessageKind::Notification);
  // One byte over: Invalid, then the next line decodes.
  const std::string big = R"({"jsonrpc":"2.0","method":"ok2"})";
  auto got = decode({big + "\n" + ok + "\n"}, 31);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].kind, rpc::MessageKind::Invalid);
  EXPECT_EQ(got[0].code, rpc::kInvalidRequest);
  EXPECT_EQ(got[1].method, "ok");

  // A long line arriving in pieces is reported once, early, and never buffered whole.
  rpc::Decoder d(1000, mcp_native::ProtocolVersion::v2025_11_25);
  Collect c;
  d.feed("{\"x\":\"", c);
  for (int i = 0; i < 1000; ++i) {
    d.feed(std::string(500, 'a'), c);
    EXPECT_LE(d.pending_bytes(), 1001u);
  }
  ASSERT_EQ(c.seen.size(), 1u);
  EXPECT_EQ(c.seen[0].kind, rpc::MessageKind::Invalid);
  d.feed("\"}\n" + ok + "\n", c);
  d.close(c);
  ASSERT_EQ(c.seen.size(), 2u);
  EXPECT_EQ(c.seen[1].method, "ok");
}

TEST(JsonRpcDecoder, ErrorResponseEscapesStringIds) {
  std::string out;
  rpc::RequestId id;
  id.kind = rpc::RequestId::Kind::String;
  id.string_value = "a\"\\\n\x01";
  rpc::write_error_response(out, mcp_native::ProtocolVersion::v2026_07_28, id, rpc::kInvalidRequest, "Invalid Request",
                            "");
  EXPECT_EQ(out, R"({"jsonrpc":"2.0","id":"a\"\\\n\u0001","error":{"code":-32600,"message":"Invalid Request"}})"
                 "\n");
}

TEST(JsonRpcDecoder, ProtocolVersionNames) {
  using mcp_native::ProtocolVersion;
  EXPECT_EQ(mcp_native::parse_protocol_version("2024-11-05"), ProtocolVersion::v2024_11_05);
  EXPECT_EQ(mcp_native::parse_protocol_version("2025-03-26"), ProtocolVersion::v2025_03_26);
  EXPECT_EQ(mcp_native::parse_protocol_version("2025-06-18"), ProtocolVersion::v2025_06_18);
  EXPECT_EQ(mcp_native::parse_protocol_version("2026-07-28"), ProtocolVersion::v2026_07_28);
  EXPECT_FALSE(mcp_native::parse_protocol_version("2024-11-04").has_value());
  EXPECT_FALSE(mcp_native::parse_protocol_version("").has_value());
  // Error responses need an id up to 2025-06-18; only 2025-03-26 has batches.
  EXPECT_TRUE(mcp_native::error_id_required(ProtocolVersion::v2024_11_05));
  EXPECT_TRUE(mcp_native::error_id_required(ProtocolVersion::v2025_06_18));
  EXPECT_FALSE(mcp_native::error_id_required(ProtocolVersion::v2025_11_25));
  EXPECT_TRUE(mcp_native::allows_batches(ProtocolVersion::v2025_03_26));
  EXPECT_FALSE(mcp_native::allows_batches(ProtocolVersion::v2025_06_18));
}

TEST(JsonRpcDecoder, RandomBytesInRandomPiecesDecodeLikeOneFeed) {
  // Fragments of JSON-RPC text and junk, glued at random and fed in random pieces: the same
  // messages as one feed, and no crash (this test also runs under the sanitizers).
  const std::vector<std::string> parts = {R"({"jsonrpc":"2.0")",
                                          R"(,"id":1)",
                                          R"(,"id":"x")",
                                          R"(,"method":"m")",
                                          R"(,"params":{"a":[1,2]})",
                                          R"(,"result":{})",
                                          R"(,"error":{"code":1,"message":"e"})",
                                          "}",
                                          "{",
                                          "[",
                                          "]",
                                          "\n",
                                          "\r\n",
                                          "\r",
                                          " ",
                                          "\"",
                                          "\\",
                                          "\xff",
                                          "\xc3\xa9",
                                          "1e999",
                                          "null",
                                          std::string(1, '\0')};
  std::uint64_t state = 42;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::size_t>(state >> 33);
  };
  for (int round = 0; round < 3000; ++round) {
    std::string stream;
    const std::size_t n = next() % 40;
    for (std::size_t i = 0; i < n; ++i) stream += parts[next() % parts.size()];
    const std::size_t max = 8 + next() % 64;
    const auto whole = decode({stream}, max);
    std::vector<std::string> pieces;
    for (std::size_t p = 0; p < stream.size();) {
      const std::size_t len = 1 + next() % 9;
      pieces.push_back(stream.substr(p, len));
      p += len;
    }
    ASSERT_EQ(decode(pieces, max), whole) << stream;
  }
}

TEST(JsonRpcDecoder, ValidJsonBeyondSimdjsonIsClassifiedOnPlaceholders) {
  // An escaped lone surrogate, integers beyond 64 bits, a number beyond the double range.
  const std::string line =
      R"({"jsonrpc":"2.0", "id" : 123456789012345678901234567890 ,"method":"m\ud800","params":{"a":1e400,"b":"\udc00x"}})";
  auto r = one(line);
  EXPECT_EQ(r.kind, rpc::MessageKind::Request);
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.line, line);
  EXPECT_EQ(r.method, "m\xef\xbf\xbd");  // the placeholder: the caller reads the line instead
  EXPECT_EQ(r.body,
            "{\"a\":0.0,\"b\":\"\xef\xbf\xbd"
            "x\"}");

  // Surrogate pairs and plain values stay; the line is exact when simdjson reads it.
  auto pair = one(R"({"jsonrpc":"2.0","method":"\ud83d\ude00","params":{"n":12345678901234567890}})");
  EXPECT_TRUE(pair.exact);
  EXPECT_EQ(pair.method, "\xf0\x9f\x98\x80");
}

TEST(JsonRpcDecoder, InvalidMessagesBeyondSimdjsonAnswerWithTheIdAsWritten) {
  auto big = one(R"({"jsonrpc":"2.0","id":123456789012345678901234567890,"method":7})");
  EXPECT_EQ(big.kind, rpc::MessageKind::Invalid);
  EXPECT_TRUE(big.exact);
  EXPECT_EQ(big.id, "j:123456789012345678901234567890");
  EXPECT_EQ(big.response.rfind(R"({"jsonrpc":"2.0","id":123456789012345678901234567890,"error":{"code":-32600,)", 0),
            0u)
      << big.response;
  auto str = one(R"({"jsonrpc":"1.0","id": "a\ud800" ,"result":{}})");
  EXPECT_EQ(str.id, R"(j:"a\ud800")");
  // An id left alone by the placeholders is read as usual.
  auto plain = one(R"({"jsonrpc":"2.0","id":"a","method":7,"params":{"x":"\ud800"}})");
  EXPECT_EQ(plain.id, "s:a");
  // Still invalid JSON: the first error, where it is.
  auto bad = one(R"({"jsonrpc":"2.0","method":"\ud800","params":{"a":01}})");
  EXPECT_EQ(bad.code, rpc::kParseError);
  EXPECT_NE(bad.response.find("at byte 50"), std::string::npos) << bad.response;
}
