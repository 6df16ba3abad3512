#include "mcp_native/json/indent.hpp"

#include <algorithm>
#include <cstring>

namespace mcp_native {
namespace {

void newline(JsonWriter& out, unsigned indent, std::size_t depth) {
  const std::size_t n = indent * depth;
  char* p = out.extend(n + 1);
  p[0] = '\n';
  std::memset(p + 1, ' ', n);
  out.commit(n + 1);
}

// The offset just past the string that opens at offset `open` (its closing quote is the first
// one not escaped by a backslash).
std::size_t string_end(std::string_view text, std::size_t open) {
  std::size_t p = open + 1;
  for (;;) {
    p = text.find('"', p);
    if (p == std::string_view::npos) return text.size();
    std::size_t b = p;
    while (text[b - 1] == '\\') --b;
    ++p;
    if ((p - 1 - b) % 2 == 0) return p;
  }
}

bool is_number_byte(char c) { return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e'; }

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

// Copies `compact` with its floats respelled for pydantic (append_pydantic_float).
void respell_compact(JsonWriter& out, std::string_view compact) {
  std::size_t done = 0;
  for (std::size_t i = 0; i < compact.size();) {
    const char c = compact[i];
    if (c == '"') {
      i = string_end(compact, i);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      std::size_t j = i + 1;
      while (j < compact.size() && is_number_byte(compact[j])) ++j;
      const std::string_view token = compact.substr(i, j - i);
      const std::size_t e = token.find('e');
      if (e != std::string_view::npos) {
        out.append(compact.substr(done, i - done));
        append_pydantic_float(out, token, e);
        done = j;
      }
      i = j;
    } else {
      ++i;
    }
  }
  out.append(compact.substr(done));
}

}  // namespace

void append_indented(JsonWriter& out, std::string_view compact, std::optional<unsigned> indent, FloatSpelling floats) {
  if (!indent) {
    if (floats == FloatSpelling::kRepr) return out.append(compact);
    respell_compact(out, compact);
    return;
  }
  const char* s = compact.data();
  const char* const end = s + compact.size();
  std::size_t depth = 0;
  out.reserve(compact.size() + compact.size() / 4);
  while (s < end) {
    const char c = *s;
    switch (c) {
      case '{':
      case '[':
        if (s + 1 < end && (s[1] == '}' || s[1] == ']')) {  // an empty container stays on its line
          out.put(c);
          out.put(s[1]);
          s += 2;
          continue;
        }
        out.put(c);
        newline(out, *indent, ++depth);
        ++s;
        continue;
      case '}':
      case ']':
        newline(out, *indent, --depth);
        out.put(c);
        ++s;
        continue;
      case ',':
        out.put(',');
        newline(out, *indent, depth);
        ++s;
        continue;
      case ':':
        out.append(": ");
        ++s;
        continue;
      case '"': {
        const std::size_t open = static_cast<std::size_t>(s - compact.data());
        const std::size_t close = string_end(compact, open);
        out.append(compact.substr(open, close - open));
        s = compact.data() + close;
        continue;
      }
      default: {
        // A number ([-0-9][0-9.eE+-]*), or true/false/null (letters).
        const char* p = s + 1;
        const bool number = c == '-' || (c >= '0' && c <= '9');
        while (p < end && (number ? is_number_byte(*p) : (*p >= 'a' && *p <= 'z'))) ++p;
        const std::string_view token{s, static_cast<std::size_t>(p - s)};
        const std::size_t e = number ? token.find('e') : std::string_view::npos;
        if (floats == FloatSpelling::kPydantic && e != std::string_view::npos) {
          append_pydantic_float(out, token, e);
        } else {
          out.append(token);
        }
        s = p;
        continue;
      }
    }
  }
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
