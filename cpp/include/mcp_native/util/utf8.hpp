// UTF-8: decoding and encoding code points, counting them, validating text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace mcp_native::utf8 {

/// True if `s` is valid UTF-8 (RFC 3629: no overlongs, no surrogates, nothing beyond U+10FFFF).
bool is_valid(std::string_view s) noexcept;

/// Number of code points in `s` (valid UTF-8): the bytes that do not continue a sequence.
std::size_t length(std::string_view s) noexcept;

/// Returned by decode() for malformed input.
inline constexpr uint32_t kInvalid = UINT32_MAX;

/// Decodes the code point starting at s[i] (i < s.size()) and advances i past it; kInvalid for
/// malformed UTF-8 (truncated, overlong, surrogate, beyond U+10FFFF).
inline uint32_t decode(std::string_view s, size_t& i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  uint32_t c = byte(i++);
  if (c < 0x80) return c;
  int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : -1;
  if (extra < 0 || c > 0xF4) return kInvalid;
  c &= 0x3Fu >> extra;
  for (int k = 0; k < extra; ++k) {
    if (i >= s.size() || (byte(i) & 0xC0) != 0x80) return kInvalid;
    c = (c << 6) | (byte(i++) & 0x3F);
  }
  static constexpr uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
  if (c < kMin[extra] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return kInvalid;
  return c;
}

/// Appends the UTF-8 encoding of the code point c (not a surrogate, at most U+10FFFF).
inline void append(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

}  // namespace mcp_native::utf8
