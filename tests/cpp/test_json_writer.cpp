#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <simdjson.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mcp_native/json/indent.hpp"
#include "mcp_native/json/syntax.hpp"
#include "mcp_native/json/writer.hpp"

using mcp_native::JsonWriter;

namespace {

std::string fmt(double v) {
  char buf[mcp_native::kMaxDoubleChars];
  return {buf, mcp_native::format_double(v, buf)};
}

// The significant digits and the decimal exponent of the first one, from a number's text in
// any notation ("22.5", "2.25e+01" and "0.0225e3" give {"225", 1}).
std::pair<std::string, int> digits_of(const std::string& text) {
  std::string digits;
  int point = -1, exp = 0;
  size_t i = text[0] == '-' ? 1 : 0;
  for (; i < text.size() && text[i] != 'e'; ++i) {
    if (text[i] == '.')
      point = static_cast<int>(digits.size());
    else
      digits += text[i];
  }
  if (i < text.size()) exp = std::stoi(text.substr(i + 1));
  if (point < 0) point = static_cast<int>(digits.size());
  const size_t lead = digits.find_first_not_of('0');
  digits = digits.substr(lead);
  digits.erase(digits.find_last_not_of('0') + 1);
  return {digits, point - 1 - static_cast<int>(lead) + exp};
}

// The shortest round-trip text of v, by the standard library.
std::string shortest(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  return {buf, r.ptr};
}

std::string str(std::string_view s) {
  JsonWriter w;
  w.write_string(s);
  return std::string(w.view());
}

}  // namespace

TEST(JsonWriterFloat, LaidOutLikePythonRepr) {
  // Expected strings are repr(float) from CPython.
  EXPECT_EQ(fmt(0.0), "0.0");
  EXPECT_EQ(fmt(-0.0), "-0.0");
  EXPECT_EQ(fmt(1.0), "1.0");
  EXPECT_EQ(fmt(-2.5), "-2.5");
  EXPECT_EQ(fmt(0.1), "0.1");
  EXPECT_EQ(fmt(100.0), "100.0");
  EXPECT_EQ(fmt(123456.789), "123456.789");
  EXPECT_EQ(fmt(1e15), "1000000000000000.0");
  EXPECT_EQ(fmt(9999999999999998.0), "9999999999999998.0");
  EXPECT_EQ(fmt(1e16), "1e+16");
  EXPECT_EQ(fmt(1.5e16), "1.5e+16");
  EXPECT_EQ(fmt(123456789012345680.0), "1.2345678901234568e+17");
  EXPECT_EQ(fmt(1e22), "1e+22");
  EXPECT_EQ(fmt(1e100), "1e+100");
  EXPECT_EQ(fmt(1e-4), "0.0001");
  EXPECT_EQ(fmt(0.00012345), "0.00012345");
  EXPECT_EQ(fmt(1e-5), "1e-05");
  EXPECT_EQ(fmt(1.5e-7), "1.5e-07");
  EXPECT_EQ(fmt(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(fmt(5e-324), "5e-324");
  EXPECT_EQ(fmt(-2.2250738585072014e-308), "-2.2250738585072014e-308");
  EXPECT_EQ(fmt(std::numeric_limits<double>::max()), "1.7976931348623157e+308");
  // 17 significant digits (the first one is written apart from the other 16) in each layout.
  EXPECT_EQ(fmt(0.30000000000000004), "0.30000000000000004");
  EXPECT_EQ(fmt(1.0000000000000002), "1.0000000000000002");
  EXPECT_EQ(fmt(12.345678901234567), "12.345678901234567");
  EXPECT_EQ(fmt(123456789.12345678), "123456789.12345678");
  EXPECT_EQ(fmt(1234567890123456.8), "1234567890123456.8");
  EXPECT_EQ(fmt(0.00012345678901234567), "0.00012345678901234567");
  EXPECT_EQ(fmt(1.2345678901234568e-05), "1.2345678901234568e-05");
  EXPECT_EQ(fmt(-65.61361699999998), "-65.61361699999998");
}

TEST(JsonWriterFloat, ShortDecimalsGetTheShortestDigits) {
  // Values written with up to 8 decimals, up to and past 2^32 (where the short path stops),
  // and their neighbours one ulp away (which the short path must leave to Dragonbox).
  std::uint64_t r = 0x2545F4914F6CDD1DULL;
  const double bounds[] = {1, 100, 1e4, 4294967296.0, 1e10};
  for (int i = 0; i < 300000; ++i) {
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
    const int decimals = static_cast<int>(r % 9);
    const double top = bounds[(r >> 8) % 5];
    const auto m = static_cast<std::uint64_t>(static_cast<double>(r >> 11) / 0x1p53 * top * std::pow(10.0, decimals));
    const std::string text = std::to_string(m) + "e-" + std::to_string(decimals);
    const double v = std::strtod(text.c_str(), nullptr);
    for (double x : {v, -v, std::nextafter(v, 0.0), std::nextafter(v, 1e300)}) {
      const std::string ours = fmt(x);
      ASSERT_EQ(std::strtod(ours.c_str(), nullptr), x) << ours;
      if (x != 0) {
        ASSERT_EQ(digits_of(ours), digits_of(shortest(x))) << ours << " vs " << shortest(x);
      }
    }
  }
  EXPECT_EQ(fmt(22.5), "22.5");
  EXPECT_EQ(fmt(65.0), "65.0");
  EXPECT_EQ(fmt(0.000001), "1e-06");
  EXPECT_EQ(fmt(4294967295.999999), "4294967295.999999");
  EXPECT_EQ(fmt(4294967296.000001), "4294967296.000001");
}

TEST(JsonWriterFloat, RoundTrips) {
  std::uint64_t bits = 0x9E3779B97F4A7C15ULL;
  for (int i = 0; i < 100000; ++i) {
    bits = bits * 6364136223846793005ULL + 1442695040888963407ULL;
    double v;
    std::memcpy(&v, &bits, sizeof v);
    if (!std::isfinite(v)) continue;
    const std::string s = fmt(v);
    ASSERT_EQ(std::strtod(s.c_str(), nullptr), v) << s;
  }
}

TEST(JsonWriterFloat, RejectsNonFinite) {
  JsonWriter w;
  EXPECT_FALSE(w.write_double(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_FALSE(w.write_double(std::numeric_limits<double>::infinity()));
  EXPECT_FALSE(w.write_double(-std::numeric_limits<double>::infinity()));
  EXPECT_EQ(w.size(), 0u);
  EXPECT_TRUE(w.write_double(2.0));
  EXPECT_EQ(w.view(), "2.0");
}

TEST(JsonWriterInt, Extremes) {
  JsonWriter w;
  w.write_int(0);
  w.put(',');
  w.write_int(-1);
  w.put(',');
  w.write_int(std::numeric_limits<std::int64_t>::min());
  w.put(',');
  w.write_int(std::numeric_limits<std::int64_t>::max());
  w.put(',');
  w.write_uint(std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(w.view(), "0,-1,-9223372036854775808,9223372036854775807,18446744073709551615");
}

TEST(JsonWriterInt, EveryDigitCount) {
  // 10^k - 1 and 10^k for every k: the digit count is derived from the bit length.
  std::uint64_t p = 1;
  for (int k = 1; k <= 19; ++k) {
    p *= 10;
    for (std::uint64_t v : {p - 1, p, p + 1}) {
      JsonWriter w;
      w.write_uint(v);
      EXPECT_EQ(w.view(), std::to_string(v));
      w.clear();
      w.write_int(-static_cast<std::int64_t>(v % (std::uint64_t{1} << 63)));
      EXPECT_EQ(w.view(), std::to_string(-static_cast<std::int64_t>(v % (std::uint64_t{1} << 63))));
    }
  }
}

TEST(JsonWriterString, EscapesLikeJsonDumps) {
  EXPECT_EQ(str(""), "\"\"");
  EXPECT_EQ(str("plain"), "\"plain\"");
  EXPECT_EQ(str("a\"b\\c/d"), "\"a\\\"b\\\\c/d\"");
  EXPECT_EQ(str("\b\f\n\r\t"), "\"\\b\\f\\n\\r\\t\"");
  EXPECT_EQ(str(std::string_view("\x00\x01\x1f\x7f", 4)), "\"\\u0000\\u0001\\u001f\x7f\"");
  EXPECT_EQ(str("\x0b\x1b"), "\"\\u000b\\u001b\"");
  // Non-ASCII is copied raw (ensure_ascii=False).
  EXPECT_EQ(str("\xc3\xa9\xe2\x80\xa8\xf0\x9f\x98\x80"), "\"\xc3\xa9\xe2\x80\xa8\xf0\x9f\x98\x80\"");
}

namespace {

// The quoted JSON string of `in` as json.dumps(ensure_ascii=False) writes it, byte by byte.
std::string json_quoted(std::string_view in) {
  static const char* const kShort[32] = {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                         nullptr, "\\b",   "\\t",   "\\n",   nullptr, "\\f",   "\\r"};
  std::string out = "\"";
  for (unsigned char c : in) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char u[8];
      std::snprintf(u, sizeof u, "\\u%04x", c);
      out += kShort[c] != nullptr ? kShort[c] : u;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + '"';
}

}  // namespace

TEST(JsonWriterString, EveryPositionInLongRuns) {
  // Exercise the 16-byte scan: one special byte at each offset of a long run.
  for (std::size_t len : {15u, 16u, 17u, 31u, 32u, 33u, 100u}) {
    for (std::size_t at = 0; at < len; ++at) {
      for (char special : {'"', '\\', '\n', '\x01'}) {
        std::string in(len, 'x');
        in[at] = special;
        ASSERT_EQ(str(in), json_quoted(in)) << len << " " << at;
      }
    }
  }
}

TEST(JsonWriterString, EscapedSizeMatchesAndWriteEscapedHasNoQuotes) {
  const std::string_view in = "{\"text\":\"a\\nb\"}\n\x02";
  JsonWriter w;
  w.write_escaped(in);
  EXPECT_EQ(w.view(), "{\\\"text\\\":\\\"a\\\\nb\\\"}\\n\\u0002");
  EXPECT_EQ(mcp_native::escaped_size(in), w.size());
}

TEST(JsonWriterBuffer, GrowsAndReuses) {
  JsonWriter w;
  std::string big(100000, 'a');
  big[50000] = '"';
  w.write_string(big);
  EXPECT_EQ(w.size(), big.size() + 3);
  const std::size_t cap = w.capacity();
  w.clear();
  EXPECT_EQ(w.size(), 0u);
  w.append("[]");
  EXPECT_EQ(w.view(), "[]");
  EXPECT_EQ(w.capacity(), cap);
  w.write_null();
  w.write_bool(true);
  w.write_bool(false);
  EXPECT_EQ(w.view(), "[]nulltruefalse");
}

// A storage that hands out a fresh block of exactly the size asked for at each growth (keeping
// them all) and checks that the writer passes its current buffer.
class ExactStorage final : public mcp_native::WriterStorage {
 public:
  char* grow(char* buf, std::size_t len, std::size_t need, std::size_t& cap) override {
    EXPECT_GT(need, len);
    EXPECT_EQ(buf, block_.empty() ? first_ : block_.back().get());
    block_.push_back(std::make_unique<char[]>(need));
    if (len != 0) std::memcpy(block_.back().get(), buf, len);
    cap = need;
    return block_.back().get();
  }
  char* first_ = nullptr;
  std::vector<std::unique_ptr<char[]>> block_;
};

TEST(JsonWriterBuffer, WritesIntoAndGrowsThroughAStorage) {
  char first[8];
  ExactStorage storage;
  storage.first_ = first;
  {
    JsonWriter w(storage, first, sizeof first);
    w.append("[true,");
    EXPECT_TRUE(storage.block_.empty());
    EXPECT_EQ(w.data(), first);  // the text starts in the given buffer
    std::string expect = "[true,";
    for (int i = 0; i < 300; ++i) {
      w.write_string("x\"");
      w.put(',');
      w.write_int(-i);
      w.put(',');
      expect += "\"x\\\"\"," + std::to_string(-i) + ",";
    }
    w.write_double(0.5);
    w.put(']');
    expect += "0.5]";
    EXPECT_EQ(w.view(), expect);
    EXPECT_GT(storage.block_.size(), 1u);
    EXPECT_EQ(w.data(), storage.block_.back().get());
    EXPECT_LE(w.size(), w.capacity());
  }
  // The writer freed none of the storage's blocks (unique_ptr frees them exactly once).
  EXPECT_FALSE(storage.block_.empty());
}

TEST(JsonWriterBuffer, StorageStartingWithNoBuffer) {
  ExactStorage storage;
  JsonWriter w(storage, nullptr, 0);
  w.write_null();
  EXPECT_EQ(w.view(), "null");
  EXPECT_EQ(storage.block_.size(), 1u);
}

TEST(JsonSyntax, FindsFirstError) {
  using mcp_native::find_json_error;
  EXPECT_FALSE(find_json_error("{\"a\":[1,2.5e-3,\"x\\u00e9\",true,null,{}]}", 1024).found);
  EXPECT_FALSE(find_json_error(" 123456789012345678901234567890 ", 1024).found);
  EXPECT_FALSE(find_json_error("\"\\ud800\"", 1024).found);
  struct Case {
    std::string_view doc;
    std::size_t offset;
    std::string_view message;
  };
  for (const Case& c : {
           Case{"", 0, "Expecting value"},
           Case{"[1,]", 3, "Expecting value"},
           Case{"[1 2]", 3, "Expecting ',' delimiter"},
           Case{"{\"a\" 1}", 5, "Expecting ':' delimiter"},
           Case{"{1:2}", 1, "Expecting property name enclosed in double quotes"},
           Case{"[] x", 3, "Extra data"},
           Case{"[NaN]", 1, "NaN and Infinity are not valid JSON"},
           Case{"-Infinity", 0, "NaN and Infinity are not valid JSON"},
           Case{"[01]", 2, "Expecting ',' delimiter"},
           Case{"1.", 0, "Invalid number"},
           Case{"\"ab", 0, "Unterminated string starting at"},
           Case{"\"a\tb\"", 2, "Invalid control character at"},
           Case{"\"\\q\"", 1, "Invalid \\escape"},
           Case{"\"\\u12\"", 1, "Invalid \\uXXXX escape"},
           Case{"\"\xed\xa0\x80\"", 1, "Invalid UTF-8 byte"},
           Case{"\"\xf4\x90\x80\x80\"", 1, "Invalid UTF-8 byte"},
           Case{"[[[1]]]", 2, "Maximum nesting depth exceeded"},
       }) {
    const auto e = find_json_error(c.doc, c.message.starts_with("Maximum") ? 2 : 1024);
    EXPECT_TRUE(e.found) << c.doc;
    EXPECT_EQ(e.offset, c.offset) << c.doc;
    EXPECT_EQ(std::string_view(e.message), c.message) << c.doc;
  }
}

TEST(JsonWriterString, ShortTextAtTheEndOfAPage) {
  // Short tails may be read 16 bytes at a time, but never across into an unmapped page.
  const long page = sysconf(_SC_PAGESIZE);
  auto* mem = static_cast<char*>(mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(mem, MAP_FAILED);
  ASSERT_EQ(mprotect(mem + page, page, PROT_NONE), 0);
  for (std::size_t len = 0; len < 20; ++len) {
    char* s = mem + page - len;
    std::memset(s, 'a', len);
    if (len > 2) s[len - 2] = '"';
    std::string expected(len + 2, 'a');  // (not "\"" + ... + "\"": GCC 12 misreports it, -Wrestrict)
    expected.front() = expected.back() = '"';
    if (len > 2) expected.replace(len - 1, 1, "\\\"");
    EXPECT_EQ(str({s, len}), expected) << len;
  }
  munmap(mem, 2 * page);
}

TEST(JsonWriterString, DenseEscapesMatchAByteByByteReference) {
  // Random texts over a small alphabet full of characters that need escapes.
  const std::string alphabet = std::string("ab\"\\\n\t\x01\x1f\x7f \xc3\xa9", 12);
  std::uint64_t state = 12345;
  for (int round = 0; round < 2000; ++round) {
    std::string in;
    state = state * 6364136223846793005ULL + 1;
    // 0..511 bytes, or (every 10th round) 4000..4255, across the writer's 4096-byte chunks.
    const std::size_t len = round % 10 == 0 ? 4000 + (state >> 56) : state >> 55;
    for (std::size_t i = 0; i < len; ++i) {
      state = state * 6364136223846793005ULL + 1;
      in += alphabet[(state >> 33) % alphabet.size()];
    }
    JsonWriter w;
    w.append("[");  // an unaligned start in the buffer
    w.write_string(in);
    ASSERT_EQ(w.view().substr(1), json_quoted(in)) << round;
  }
}

namespace {

// Writes `e` in one walk with `layout`, as the walk over Python objects does.
void write_laid_out(JsonWriter& w, mcp_native::JsonLayout& layout, simdjson::dom::element e) {
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY: {
      const simdjson::dom::array items = e.get_array().value();
      if (items.size() == 0) return w.append("[]");
      layout.open(w, '[');
      bool first = true;
      for (auto x : items) {
        if (!first) layout.comma(w);
        first = false;
        write_laid_out(w, layout, x);
      }
      return layout.close(w, ']');
    }
    case simdjson::dom::element_type::OBJECT: {
      const simdjson::dom::object members = e.get_object().value();
      if (members.size() == 0) return w.append("{}");
      layout.open(w, '{');
      bool first = true;
      for (auto [k, v] : members) {
        if (!first) layout.comma(w);
        first = false;
        w.write_string(k);
        layout.colon(w);
        write_laid_out(w, layout, v);
      }
      return layout.close(w, '}');
    }
    case simdjson::dom::element_type::DOUBLE: return layout.write_double(w, e.get_double().value());
    case simdjson::dom::element_type::INT64: return w.write_int(e.get_int64().value());
    case simdjson::dom::element_type::STRING: return w.write_string(e.get_string().value());
    case simdjson::dom::element_type::BOOL: return w.write_bool(e.get_bool().value());
    case simdjson::dom::element_type::NULL_VALUE: return w.write_null();
    default: FAIL() << "no such value in these tests";
  }
}

std::string laid_out(std::string_view json, std::optional<unsigned> indent, mcp_native::FloatSpelling floats) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  EXPECT_FALSE(parser.parse(simdjson::padded_string(json)).get(root)) << json;
  JsonWriter w;
  mcp_native::JsonLayout layout(indent, floats);
  write_laid_out(w, layout, root);
  return std::string(w.view());
}

}  // namespace

TEST(JsonIndent, LaysOutLikeJsonDumpsIndent) {
  using mcp_native::FloatSpelling;
  EXPECT_EQ(laid_out(R"({"a":[1,{"b":[]},{}],"c":"x,y:{[\"]}\\"})", 2, FloatSpelling::kRepr),
            "{\n  \"a\": [\n    1,\n    {\n      \"b\": []\n    },\n    {}\n  ],\n  \"c\": \"x,y:{[\\\"]}\\\\\"\n}");
  EXPECT_EQ(laid_out("[true,false,null]", 0, FloatSpelling::kRepr), "[\ntrue,\nfalse,\nnull\n]");
  EXPECT_EQ(laid_out("[]", 4, FloatSpelling::kRepr), "[]");
  EXPECT_EQ(laid_out(R"({"e":1e-05,"f":[[1]]})", std::nullopt, FloatSpelling::kRepr), R"({"e":1e-05,"f":[[1]]})");
}

TEST(JsonIndent, LaysOutLikeJsonDumpsDefault) {
  auto python = [](std::string_view compact) {
    JsonWriter w;
    mcp_native::append_python_default(w, compact);
    return std::string(w.view());
  };
  // json.dumps({"a": [1, {}], "k:,": "v, :"}) and json.dumps(["\u00e9\x7f\U0001f600\n", 1e-05]).
  EXPECT_EQ(python(R"({"a":[1,{}],"k:,":"v, :"})"), R"({"a": [1, {}], "k:,": "v, :"})");
  EXPECT_EQ(python("[\"\xc3\xa9\x7f\xf0\x9f\x98\x80\\n\",1e-05]"), R"(["\u00e9\u007f\ud83d\ude00\n", 1e-05])");
  EXPECT_EQ(python(R"("a\"b\\")"), R"("a\"b\\")");
  EXPECT_EQ(python("[]"), "[]");
}

TEST(JsonIndent, SpellsFloatsLikePydantic) {
  using mcp_native::FloatSpelling;
  // Exponent -5 as a plain decimal, other negative exponents unpadded, positive ones as repr.
  EXPECT_EQ(
      laid_out(R"([1e-05,-2.5e-05,1.5e-07,-1e-300,1e+16,0.0001,2.5,"1e-05"])", std::nullopt, FloatSpelling::kPydantic),
      R"([0.00001,-0.000025,1.5e-7,-1e-300,1e+16,0.0001,2.5,"1e-05"])");
  EXPECT_EQ(laid_out(R"({"k":9.5e-05})", 1, FloatSpelling::kPydantic), "{\n \"k\": 0.000095\n}");
}

// The std::string form escapes exactly as the writer does, after what `out` already holds.
TEST(JsonWriter, AppendJsonStringEscapesAsWriteString) {
  std::string text;
  for (int c = 1; c < 128; ++c) text += static_cast<char>(c);
  text += "\xc3\xa9\xf0\x9f\x98\x80";
  for (std::size_t n = 0; n <= text.size(); ++n) {
    const std::string_view s(text.data(), n);
    mcp_native::JsonWriter w;
    w.write_string(s);
    std::string out = "prefix";
    mcp_native::append_json_string(out, s);
    EXPECT_EQ(out, "prefix" + std::string(w.view())) << n;
  }
}
