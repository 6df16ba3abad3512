#include "mcp_native/schema/formats.hpp"
#include "suite.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdlib>
#include <filesystem>
#include <arpa/inet.h>

#include <iterator>
#include <map>
#include <random>
#include <string>

namespace formats = mcp_native::formats;

namespace {

bool check(std::string_view format, std::string_view value) {
  formats::Checker checker = formats::find(format);
  EXPECT_NE(checker, nullptr) << format;
  return checker && checker(value);
}

}  // namespace

// Every test of optional/format/*.json in all five drafts: a string instance is valid when the
// checker for the schema's format accepts it (unknown formats accept everything); other
// instances are always valid.
TEST(FormatSuite, OfficialFormatTests) {
  const char* drafts[] = {"draft4", "draft6", "draft7", "draft2019-09", "draft2020-12"};
  simdjson::dom::parser parser;
  std::map<std::string, std::pair<int, int>> counts;  // format -> (passed, total)
  int passed = 0, total = 0;
  for (const char* draft : drafts) {
    auto dir = suite_dir() / draft / "optional" / "format";
    ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
    for (const auto& file : std::filesystem::directory_iterator(dir)) {
      simdjson::dom::element root;
      ASSERT_EQ(parser.load(file.path().string()).get(root), simdjson::SUCCESS) << file.path();
      for (simdjson::dom::object group : root.get_array()) {
        std::string_view format;
        if (group["schema"]["format"].get(format) != simdjson::SUCCESS) continue;
        formats::Checker checker = formats::find(format);
        if (!checker) {
          // Only the suite's deliberately unknown format may be missing.
          EXPECT_EQ(format, "unknown") << draft << ": no checker for format " << format;
        }
        for (simdjson::dom::object test : group["tests"].get_array()) {
          std::string_view data;
          bool valid = true;
          if (test["data"].get(data) == simdjson::SUCCESS && checker) valid = checker(data);
          bool expected = test["valid"].get_bool();
          EXPECT_EQ(valid, expected) << draft << "/" << file.path().filename().string() << ": "
                                     << std::string_view(group["description"].get_string()) << " / "
                                     << std::string_view(test["description"].get_string());
          auto& [p, t] = counts[std::string(format)];
          p += valid == expected;
          ++t;
          passed += valid == expected;
          ++total;
        }
      }
    }
  }
  for (const auto& [format, c] : counts) std::printf("  %-22s %d/%d\n", format.c_str(), c.first, c.second);
  std::printf("format suite: %d/%d passed\n", passed, total);
  RecordProperty("passed", passed);
  RecordProperty("total", total);
  EXPECT_GE(total, 1500);  // guards against silently skipping the suite
}

TEST(Formats, UnknownNamesHaveNoChecker) {
  EXPECT_EQ(formats::find("unknown"), nullptr);
  EXPECT_EQ(formats::find(""), nullptr);
  EXPECT_EQ(formats::find("Date-Time"), nullptr);  // names are case-sensitive
  EXPECT_NE(formats::find("date-time"), nullptr);
}

// The IP checkers agree with the C library's parser on random strings built from the tokens
// that matter (digits, hex, separators, out-of-range and zero-padded numbers).
TEST(Formats, IpAddressesAgreeWithInetPton) {
  formats::Checker v4 = formats::find("ipv4"), v6 = formats::find("ipv6");
  const char* tokens[] = {"0",    "1",     "9", "25", "255", "256",     "01",      "00", "a", "ff",
                          "ffff", "fffff", ":", "::", ".",   "1.2.3.4", "0.0.0.0", "g",  " "};
  std::mt19937 rng(12345);
  int valid6 = 0;
  for (int n = 0; n < 200000; ++n) {
    std::string s;
    for (int k = 1 + static_cast<int>(rng() % 12); k > 0; --k) s += tokens[rng() % std::size(tokens)];
    unsigned char buffer[16];
    bool expect4 = inet_pton(AF_INET, s.c_str(), buffer) == 1, expect6 = inet_pton(AF_INET6, s.c_str(), buffer) == 1;
    ASSERT_EQ(v4(s), expect4) << s;
    ASSERT_EQ(v6(s), expect6) << s;
    valid6 += expect6;
  }
  EXPECT_GT(valid6, 1000);  // the generator reaches valid addresses too
}

// RFC 3492 section 7.1 samples: the U-label is valid exactly when its A-label is.
TEST(Formats, PunycodeSamples) {
  const std::pair<const char*, const char*> samples[] = {
      {"\xE4\xBB\x96\xE4\xBB\xAC\xE4\xB8\xBA\xE4\xBB\x80\xE4\xB9\x88\xE4\xB8\x8D\xE8\xAF\xB4\xE4\xB8\xAD\xE6\x96\x87",
       "ihqwcrb4cv8a8dqg056pqjye"},
      {"\xD0\xBF\xD0\xBE\xD1\x87\xD0\xB5\xD0\xBC\xD1\x83\xD0\xB6\xD0\xB5\xD0\xBE\xD0\xBD\xD0\xB8\xD0\xBD\xD0\xB5"
       "\xD0\xB3\xD0\xBE\xD0\xB2\xD0\xBE\xD1\x80\xD1\x8F\xD1\x82\xD0\xBF\xD0\xBE\xD1\x80\xD1\x83\xD1\x81\xD1\x81"
       "\xD0\xBA\xD0\xB8",
       "b1abfaaepdrnnbgefbadotcwatmq2g4l"},
      {"\xE3\x81\xAA\xE3\x81\x9C\xE3\x81\xBF\xE3\x82\x93\xE3\x81\xAA\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E\xE3\x82\x92"
       "\xE8\xA9\xB1\xE3\x81\x97\xE3\x81\xA6\xE3\x81\x8F\xE3\x82\x8C\xE3\x81\xAA\xE3\x81\x84\xE3\x81\xAE\xE3\x81\x8B",
       "n8jok5ay5dzabd5bym9f0cm5685rrjetr6pdxa"},
  };
  for (const auto& [u_label, punycode] : samples) {
    std::string a_label = std::string("xn--") + punycode;
    EXPECT_TRUE(check("idn-hostname", u_label)) << punycode;
    EXPECT_TRUE(check("hostname", a_label)) << a_label;
    EXPECT_TRUE(check("idn-hostname", a_label + ".example")) << a_label;
    EXPECT_FALSE(check("hostname", u_label)) << punycode;  // hostname is ASCII only
    std::string truncated = a_label.substr(0, a_label.size() - 1);
    EXPECT_FALSE(check("hostname", truncated)) << truncated;  // decodes to other code points
  }
}

TEST(Formats, MalformedUtf8IsInvalidNotACrash) {
  for (const char* name : {"idn-hostname", "idn-email", "iri", "iri-reference", "uri-template"}) {
    EXPECT_FALSE(check(name, "a\xC3")) << name;
    EXPECT_FALSE(check(name, "a\xED\xA0\x80")) << name;  // an encoded surrogate
    EXPECT_FALSE(check(name, "\xF8\x88\x80\x80\x80")) << name;
  }
}

// Relations between formats that must hold on any input, checked on random strings.
TEST(Formats, FormatRelationsOnRandomStrings) {
  auto f = [](const char* name) { return formats::find(name); };
  auto uri = f("uri"), uri_ref = f("uri-reference"), iri = f("iri"), iri_ref = f("iri-reference");
  auto host = f("hostname"), idn_host = f("idn-hostname"), email = f("email"), idn_email = f("idn-email");
  auto date_time = f("date-time"), date = f("date"), time = f("time");
  const char* tokens[] = {"a", "Z",  "0",  "9",          "-",       ".",    ":", "/", "?", "#", "@",
                          "[", "]",  "%",  "%41",        "//",      "xn--", "T", "z", "+", "é", "\xE3\x80\x82",
                          " ", "\"", "12", "2020-02-29", "23:59:60"};
  std::mt19937 rng(99);
  int counts[4] = {0, 0, 0, 0};
  for (int n = 0; n < 200000; ++n) {
    std::string s;
    for (int k = 1 + static_cast<int>(rng() % 8); k > 0; --k) s += tokens[rng() % std::size(tokens)];
    if (uri(s)) {
      ++counts[0];
      ASSERT_TRUE(uri_ref(s) && iri(s)) << s;
    }
    if (uri_ref(s)) {
      ASSERT_TRUE(iri_ref(s)) << s;
    }
    if (iri(s)) {
      ASSERT_TRUE(iri_ref(s)) << s;
    }
    if (host(s)) {
      ++counts[1];
      ASSERT_TRUE(idn_host(s)) << s;
    }
    if (email(s)) {
      ++counts[2];
      ASSERT_TRUE(idn_email(s)) << s;
    }
    if (date_time(s)) {
      ++counts[3];
      ASSERT_TRUE(date(s.substr(0, 10)) && time(s.substr(11))) << s;
    }
  }
  for (int c : counts) EXPECT_GT(c, 0);
}

TEST(Formats, HugeInputsAreRejectedNotSlow) {
  std::string dots;
  for (int i = 0; i < 100000; ++i) dots += "\xE3\x83\xBB";  // KATAKANA MIDDLE DOT
  EXPECT_FALSE(check("idn-hostname", dots));
  EXPECT_FALSE(check("idn-hostname", dots.substr(0, 64 * 3)));  // one label of 64
  EXPECT_FALSE(check("hostname", "xn--" + std::string(100000, 'a')));
  EXPECT_FALSE(check("idn-email", "a@" + dots));
}

TEST(Formats, CasesBeyondTheSuite) {
  struct Case {
    const char* format;
    std::string value;
    bool valid;
  };
  const Case cases[] = {
      {"email", std::string(64, 'a') + "@example.com", true},
      {"email", std::string(65, 'a') + "@example.com", false},
      {"email", "a@xn--ihqwcrb4cv8a8dqg056pqjye.example", true},
      {"email", "\"a\\\"b\"@example.com", true},
      {"email", "a@[IPv6:2001:db8::1]", true},
      {"date-time", "2016-12-31T23:59:60.5+00:00", true},
      {"date-time", "2016-12-31T18:59:60-05:00", true},
      {"date-time", "2016-12-31T23:59:60+01:00", false},
      {"date", "2000-02-29", true},
      {"date", "1900-02-29", false},
      {"time", "23:59:59.", false},
      {"duration", "P1Y2M3DT4H5M6S", true},
      {"duration", "P1YT1S", true},
      {"duration", "PT1H1D", false},
      {"duration", "P1DT1HT1M", false},
      {"hostname",
       std::string(63, 'a') + "." + std::string(63, 'b') + "." + std::string(63, 'c') + "." + std::string(61, 'd'),
       true},  // 253 octets
      {"hostname",
       std::string(63, 'a') + "." + std::string(63, 'b') + "." + std::string(63, 'c') + "." + std::string(62, 'd'),
       false},
      {"idn-hostname", "M\xC3\xBCnchen.de", false},  // upper case is DISALLOWED in a U-label
      {"idn-hostname", "m\xC3\xBCnchen.de", true},
      {"uri", "http://[v7.a:b]/", true},
      {"uri", "http://[v7.]/", false},
      {"uri", "s://h:/p", true},  // an empty port is allowed
      {"uri-reference", "a/b:c", true},
      {"iri", "http://example.com/\xEE\x80\x80", false},  // private use only in the query
      {"iri", "http://example.com/?\xEE\x80\x80", true},
      {"uri-template", "{+a,b.c*,d:9999}", true},
      {"uri-template", "{a", false},
      {"relative-json-pointer", "0", true},
      {"relative-json-pointer", "0/", true},
      {"json-pointer", "/~01", true},
      {"regex", "(?<=a+)b", true},
      {"regex", "a{", false},
  };
  for (const auto& c : cases) EXPECT_EQ(check(c.format, c.value), c.valid) << c.format << ": " << c.value;
}
