#include "mcp_native/mcp/text_mirror.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace {

std::string mirror(const std::string& prefix, const std::string& json) {
  mcp_native::JsonWriter w;
  w.append(prefix);
  const std::size_t start = w.size();
  w.append(json);
  w.append("tail");
  mcp_native::append_escaped_copy(w, start, start + json.size());
  return std::string(w.view().substr(start + json.size() + 4));
}

// The general escape of the writer is the reference: on JSON text both must agree.
std::string reference(const std::string& json) {
  mcp_native::JsonWriter w;
  w.write_escaped(json);
  return std::string(w.view());
}

TEST(TextMirror, EscapesQuotesAndBackslashesOnly) {
  EXPECT_EQ(mirror("x", R"({"a":"b\"c\\d\n"})"), R"({\"a\":\"b\\\"c\\\\d\\n\"})");
  EXPECT_EQ(mirror("", ""), "");
  EXPECT_EQ(mirror("", "[1,2.5,null]"), "[1,2.5,null]");
  EXPECT_EQ(mirror("", "\"caf\xc3\xa9 \xf0\x9f\x98\x80\""), "\\\"caf\xc3\xa9 \xf0\x9f\x98\x80\\\"");
}

using mcp_native::MirrorKernel;

// Each kernel this CPU can run; the best one again afterwards.
class TextMirrorKernel : public testing::TestWithParam<MirrorKernel> {
 protected:
  void SetUp() override {
    if (!mcp_native::use_mirror_kernel(GetParam())) GTEST_SKIP() << "this CPU lacks the instructions";
  }
  void TearDown() override {
    for (MirrorKernel k : {MirrorKernel::kSsse3, MirrorKernel::kPortable})
      if (mcp_native::use_mirror_kernel(k)) break;
  }
};

INSTANTIATE_TEST_SUITE_P(Kernels, TextMirrorKernel, testing::Values(MirrorKernel::kPortable, MirrorKernel::kSsse3),
                         [](const testing::TestParamInfo<MirrorKernel>& info) {
                           return std::string(info.param == MirrorKernel::kSsse3 ? "ssse3" : "portable");
                         });

TEST_P(TextMirrorKernel, MatchesTheGeneralEscapeAtEveryLengthAndOffset) {
  // Every length around the 16-byte blocks, with escapes at every position, and growth
  // of the buffer while the source lies inside it.
  const std::string alphabet = "ab\"\\{}:,0 \xc3\xa9";
  for (std::size_t len = 0; len < 100; ++len) {
    for (std::size_t shift = 0; shift < alphabet.size(); ++shift) {
      std::string json;
      for (std::size_t i = 0; i < len; ++i) json += alphabet[(i * 7 + shift) % alphabet.size()];
      EXPECT_EQ(mirror(std::string(shift, 'p'), json), reference(json)) << json;
    }
  }
  // Every escape pattern of the 8-byte halves, in random text.
  std::uint32_t seed = 12345;
  for (int round = 0; round < 200; ++round) {
    std::string json;
    for (int i = 0; i < 333; ++i) {
      seed = seed * 1664525u + 1013904223u;
      json += alphabet[(seed >> 24) % 4];  // a, b, ", \ : escapes half of the time
    }
    EXPECT_EQ(mirror("", json), reference(json)) << json;
  }
  const std::string big(100000, '"');
  EXPECT_EQ(mirror("", big), reference(big));
}

TEST(McpToolResult, WritesTheWrapperAsJsonDumpsDoes) {
  auto wrapper = [](std::string_view type, std::string_view content, std::optional<std::string_view> structured,
                    bool mirror) {
    mcp_native::JsonWriter w;
    mcp_native::append_mcp_tool_result(w, type, content, structured, mirror);
    return std::string(w.view());
  };
  // s = json.dumps({"a": "x\"y\\"}); json.dumps({"type": "text", "content":
  // json.dumps({"type": "text", "text": s}), "structuredContent": s})
  EXPECT_EQ(
      wrapper("text", "", R"({"a": "x\"y\\"})", true),
      R"({"type": "text", "content": "{\"type\": \"text\", \"text\": \"{\\\"a\\\": \\\"x\\\\\\\"y\\\\\\\\\\\"}\"}", )"
      R"("structuredContent": "{\"a\": \"x\\\"y\\\\\"}"})");
  EXPECT_EQ(wrapper("image", R"({"type": "image"})", std::nullopt, false),
            R"({"type": "image", "content": "{\"type\": \"image\"}", "structuredContent": null})");
  EXPECT_EQ(wrapper("call_tool_result", R"({"content": []})", "{}", false),
            R"({"type": "call_tool_result", "content": "{\"content\": []}", "structuredContent": "{}"})");
}

}  // namespace
