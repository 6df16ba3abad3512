#include "mcp_native/util/utf8.hpp"

#include <simdjson.h>

namespace mcp_native::utf8 {

bool is_valid(std::string_view s) noexcept { return simdjson::validate_utf8(s.data(), s.size()); }

std::size_t length(std::string_view s) noexcept {
  std::size_t n = 0;
  for (const unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace mcp_native::utf8
