// ECMA-262 translation to PCRE2 and the format checkers: input is `pattern NUL subject`.
// Invariants: a pattern the constructor takes is_valid; matching ends (or hits the limits);
// the format hierarchy holds (a uri is an iri and a uri-reference, ...).
#include <simdjson.h>

#include "fuzz_common.hpp"
#include "mcp_native/schema/formats.hpp"
#include "mcp_native/schema/regex.hpp"

using namespace mcp_native;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto [pattern, subject] = split_nul({reinterpret_cast<const char*>(data), size});
  if (!simdjson::validate_utf8(pattern.data(), pattern.size())) return 0;
  const bool valid = Regex::is_valid(pattern);
  try {
    Regex re(pattern);
    FUZZ_CHECK(valid, "compiled but not is_valid: %s", std::string(pattern).c_str());
    if (simdjson::validate_utf8(subject.data(), subject.size())) {
      try {
        re.search(subject);
      } catch (const RegexLimitError&) {
      }
    }
  } catch (const RegexError&) {
  }
  for (std::string_view s : {pattern, subject}) {
    if (!simdjson::validate_utf8(s.data(), s.size())) continue;
    bool is[32] = {};
    int i = 0;
    for (const char* name : {"uri", "iri", "uri-reference", "iri-reference", "date-time", "date", "time", "duration",
                             "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6", "uuid", "uri-template",
                             "json-pointer", "relative-json-pointer", "regex"}) {
      is[i++] = formats::find(name)(s);
    }
    const std::string text(s);
    FUZZ_CHECK(!is[0] || (is[1] && is[2]), "uri but not iri/uri-reference: %s", text.c_str());
    FUZZ_CHECK(!is[1] || is[3], "iri but not iri-reference: %s", text.c_str());
    FUZZ_CHECK(!is[2] || is[3], "uri-reference but not iri-reference: %s", text.c_str());
    FUZZ_CHECK(!is[8] || is[9], "email but not idn-email: %s", text.c_str());
    FUZZ_CHECK(is[18] == Regex::is_valid(s), "format regex disagrees with Regex::is_valid: %s", text.c_str());
  }
  return 0;
}
