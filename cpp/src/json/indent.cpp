#include "mcp_native/json/indent.hpp"

#include <algorithm>
#include <cstring>

namespace mcp_native {
namespace {

// `num` is a float in repr's scientific layout, [-]d[.ddd]e(+|-)XX. pydantic-core writes
// positive exponents as repr does, but negative ones without zero padding ("1e-07" is "1e-7"),
// and exponent -5 as a plain decimal ("2.5e-05" is "0.000025").
void append_pydantic_float(JsonWriter& out, std::string_view num, std::size_t e) {
  if (num[e + 1] != '-') {
    out.append(num);
    return;
  }
  std::string_view mantissa = num.substr(0, e);
  std::string_view digits = num.substr(e + 2);
  while (digits.size() > 1 && digits[0] == '0') digits.remove_prefix(1);
  if (digits == "5") {
    if (mantissa[0] == '-') {
      out.put('-');
      mantissa.remove_prefix(1);
    }
    out.append("0.0000");
    out.put(mantissa[0]);
    if (mantissa.size() > 2) out.append(mantissa.substr(2));  // the digits after "d."
    return;
  }
  out.append(mantissa);
  out.append("e-");
  out.append(digits);
}

}  // namespace

void JsonLayout::line(JsonWriter& out, char lead, std::size_t depth) {
  // The indentation goes in whole blocks of spaces, stored past its end into reserved room:
  // fixed-size copies rather than a memset call for a few bytes on every line.
  static constexpr std::size_t kBlock = 16;
  static constexpr char kSpaces[kBlock + 1] = "                ";
  const std::size_t n = indent_ * depth;
  char* p = out.extend(n + 2 + kBlock);
  char* const start = p;
  *p = lead;
  p += lead != 0;
  *p++ = '\n';
  for (std::size_t i = 0; i < n; i += kBlock) std::memcpy(p + i, kSpaces, kBlock);
  out.commit(static_cast<std::size_t>(p - start) + n);
}

void JsonLayout::write_double(JsonWriter& out, double v) {
  if (floats_ == FloatSpelling::kRepr) {
    out.write_double(v);
    return;
  }
  char buf[kMaxDoubleChars];
  const std::string_view num(buf, format_double(v, buf));
  const std::size_t e = num.find('e');
  if (e == std::string_view::npos) return out.append(num);
  append_pydantic_float(out, num, e);
}

namespace {

char* put_u_escape(char* p, unsigned unit) {
  static constexpr char kHex[] = "0123456789abcdef";
  p[0] = '\\';
  p[1] = 'u';
  p[2] = kHex[(unit >> 12) & 0xf];
  p[3] = kHex[(unit >> 8) & 0xf];
  p[4] = kHex[(unit >> 4) & 0xf];
  p[5] = kHex[unit & 0xf];
  return p + 6;
}

}  // namespace

void append_python_default(JsonWriter& out, std::string_view compact) {
  // One pass over the bytes, a block at a time into room for its worst case (a byte becomes at
  // most 6: DEL as \u007f); a block ends on a character boundary. What is carried from one block
  // to the next: whether a string is open and whether its last byte was an escaping backslash.
  constexpr std::size_t kBlock = 4096;
  const auto* s = reinterpret_cast<const unsigned char*>(compact.data());
  const std::size_t n = compact.size();
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < n;) {
    std::size_t end = std::min(n, i + kBlock);
    while (end < n && (s[end] & 0xc0) == 0x80) ++end;
    char* const start = out.extend(6 * (end - i));
    char* p = start;
    while (i < end) {
      const unsigned char c = s[i];
      if (!in_string) {
        *p++ = static_cast<char>(c);
        ++i;
        if (c == ',' || c == ':') *p++ = ' ';
        in_string = c == '"';
      } else if (escaped) {
        *p++ = static_cast<char>(c);
        ++i;
        escaped = false;
      } else if (c < 0x7f) {
        *p++ = static_cast<char>(c);
        ++i;
        escaped = c == '\\';
        in_string = c != '"';
      } else if (c == 0x7f) {
        p = put_u_escape(p, c);
        ++i;
      } else {
        const std::size_t len = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
        unsigned cp = c & (len == 2 ? 0x1fu : len == 3 ? 0x0fu : 0x07u);
        for (std::size_t k = 1; k < len; ++k) cp = (cp << 6) | (s[i + k] & 0x3fu);
        if (cp >= 0x10000) {
          cp -= 0x10000;
          p = put_u_escape(p, 0xd800 | (cp >> 10));
          p = put_u_escape(p, 0xdc00 | (cp & 0x3ff));
        } else {
          p = put_u_escape(p, cp);
        }
        i += len;
      }
    }
    out.commit(static_cast<std::size_t>(p - start));
  }
}

}  // namespace mcp_native
