#include "mcp_native/regex.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

namespace mcp_native {

struct Regex::Impl {
  pcre2_code* code = nullptr;
  ~Impl() { pcre2_code_free(code); }
};

Regex::Regex(std::string_view pattern) : pattern_(pattern) {
  int err = 0;
  PCRE2_SIZE off = 0;
  auto impl = std::make_shared<Impl>();
  impl->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                             PCRE2_UTF | PCRE2_DOLLAR_ENDONLY, &err, &off, nullptr);
  if (!impl->code) throw RegexError("invalid regular expression");
  impl_ = std::move(impl);
}

bool Regex::search(std::string_view s) const {
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(impl_->code, nullptr);
  int rc = pcre2_match(impl_->code, reinterpret_cast<PCRE2_SPTR>(s.data()), s.size(), 0, 0, md, nullptr);
  pcre2_match_data_free(md);
  return rc >= 0;
}

bool Regex::is_valid(std::string_view pattern) noexcept {
  try {
    Regex r(pattern);
    return true;
  } catch (...) {
    return false;
  }
}

}  // namespace mcp_native
