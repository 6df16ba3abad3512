#include "mcp_native/formats.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

namespace formats = mcp_native::formats;

namespace {

std::filesystem::path suite_dir() {
  const char* env = std::getenv("MCP_NATIVE_SHARED");
  std::filesystem::path shared = env && *env ? env : MCP_NATIVE_SHARED_DIR;
  return shared / "json-schema-test-suite" / "tests";
}

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
