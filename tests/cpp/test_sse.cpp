#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mcp_native/mcp/sse.hpp"
#include "mcp_native/util/utf8.hpp"

namespace sse = mcp_native::sse;

namespace {

struct Seen {
  std::string type, data, id, retry;
  bool operator==(const Seen&) const = default;
};

struct Collect : sse::EventSink {
  std::vector<Seen> seen;
  void on_event(const sse::Event& e) override {
    seen.push_back({std::string(e.type), std::string(e.data), std::string(e.id), std::string(e.retry_digits)});
  }
};

std::vector<Seen> parse(const std::vector<std::string>& chunks) {
  sse::Decoder d;
  Collect c;
  for (const auto& chunk : chunks) d.feed(chunk, c);
  d.close();
  return c.seen;
}

}  // namespace

TEST(SseDecoder, FieldsAndDispatch) {
  using namespace std::string_literals;
  auto got = parse(
      {"\xEF\xBB\xBF: comment\nretry: 10\nid: 7\nevent: e\ndata: a\ndata:  b\n\ndata\n\nid: x\0y\nevent: z\n\ndata: q\n\n"s});
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], (Seen{"e", "a\n b", "7", "10"}));
  EXPECT_EQ(got[1], (Seen{"message", "", "7", "10"}));
  EXPECT_EQ(got[2], (Seen{"message", "q", "7", "10"}));  // the id with NUL was ignored
}

TEST(SseDecoder, EverySplitGivesTheSameEvents) {
  const std::string stream =
      "\xEF\xBB\xBF"
      "data: 1\r\n\r\ndata: 2\r\rid: a\nretry: x\ndata:3\n\ndata: unfinished\n";
  const auto whole = parse({stream});
  ASSERT_EQ(whole.size(), 3u);
  for (std::size_t i = 0; i <= stream.size(); ++i) {
    for (std::size_t j = i; j <= stream.size(); ++j) {
      EXPECT_EQ(parse({stream.substr(0, i), stream.substr(i, j - i), stream.substr(j)}), whole) << i << " " << j;
    }
  }
}

TEST(SseDecoder, CarriageReturnOnlyStreamIsLinear) {
  std::string stream;
  for (int i = 0; i < 100000; ++i) stream += "data: x\r\r";
  EXPECT_EQ(parse({stream}).size(), 100000u);
}

TEST(SseEncoder, WritesOneDataLinePerLine) {
  std::string out;
  const std::string_view id = "42";
  sse::write_event(out, "a\r\nb\rc\n", "ping", &id, "100");
  EXPECT_EQ(out, "event: ping\nid: 42\nretry: 100\ndata: a\ndata: b\ndata: c\ndata: \n\n");
  EXPECT_TRUE(sse::has_line_break("a\rb"));
  EXPECT_FALSE(sse::has_line_break("ab"));
  EXPECT_FALSE(mcp_native::utf8::is_valid("\xC0\xAF"));
  EXPECT_TRUE(mcp_native::utf8::is_valid("caf\xC3\xA9"));
}

TEST(SseDecoder, RandomBytesInRandomPiecesParseLikeOneFeed) {
  const std::vector<std::string> parts = {
      "data", "event", "id", "retry",        ":",    " ",    "\r",   "\n",
      "\r\n", "x",     "12", "\xEF\xBB\xBF", "\xC3", "\xA9", "\xFF", std::string(1, '\0')};
  std::uint64_t state = 7;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::size_t>(state >> 33);
  };
  for (int round = 0; round < 3000; ++round) {
    std::string stream;
    const std::size_t n = next() % 50;
    for (std::size_t i = 0; i < n; ++i) stream += parts[next() % parts.size()];
    const auto whole = parse({stream});
    std::vector<std::string> pieces;
    for (std::size_t p = 0; p < stream.size();) {
      const std::size_t len = 1 + next() % 5;
      pieces.push_back(stream.substr(p, len));
      p += len;
    }
    ASSERT_EQ(parse(pieces), whole);
  }
}
