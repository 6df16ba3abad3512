#include "mcp_native/json_writer.hpp"

#include <charconv>
#include <cmath>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mcp_native {
namespace {

// For each byte: 0 if copied raw, else the letter after the backslash ('u' for \u00XX).
constexpr auto kEscape = [] {
  struct Table {
    char v[256] = {};
  } t;
  for (int c = 0; c < 0x20; ++c) t.v[c] = 'u';
  t.v['\b'] = 'b';
  t.v['\f'] = 'f';
  t.v['\n'] = 'n';
  t.v['\r'] = 'r';
  t.v['\t'] = 't';
  t.v['"'] = '"';
  t.v['\\'] = '\\';
  return t;
}();

inline bool needs_escape(unsigned char c) { return kEscape.v[c] != 0; }

// Writes the escape of `c` at `p`; returns its length (2 or 6). json.dumps uses lowercase hex.
inline std::size_t write_escape(char* p, unsigned char c) {
  const char e = kEscape.v[c];
  p[0] = '\\';
  p[1] = e;
  if (e != 'u') return 2;
  static constexpr char kHex[] = "0123456789abcdef";
  p[2] = '0';
  p[3] = '0';
  p[4] = kHex[c >> 4];
  p[5] = kHex[c & 15];
  return 6;
}

// Length of the leading run of `s[0..n)` that needs no escaping.
inline std::size_t plain_prefix(const unsigned char* s, std::size_t n) {
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  // Bytes < 0x20: unsigned min(x, 0x1f) == x.
  const __m128i limit = _mm_set1_epi8(0x1f);
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    const __m128i bad = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
        _mm_cmpeq_epi8(_mm_min_epu8(v, limit), v));
    const int mask = _mm_movemask_epi8(bad);
    if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  while (i < n && !needs_escape(s[i])) ++i;
  return i;
}

}  // namespace

std::size_t escaped_size(std::string_view utf8) noexcept {
  std::size_t n = utf8.size();
  for (unsigned char c : utf8) {
    if (needs_escape(c)) n += kEscape.v[c] == 'u' ? 5 : 1;
  }
  return n;
}

void JsonWriter::grow(std::size_t extra) {
  std::size_t cap = cap_ ? cap_ : 256;
  while (cap - len_ < extra) cap *= 2;
  void* p = std::realloc(buf_, cap);
  if (p == nullptr) throw std::bad_alloc();
  buf_ = static_cast<char*>(p);
  cap_ = cap;
}

void JsonWriter::write_int(std::int64_t v) {
  char* p = extend(20);
  len_ += static_cast<std::size_t>(std::to_chars(p, p + 20, v).ptr - p);
}

void JsonWriter::write_uint(std::uint64_t v) {
  char* p = extend(20);
  len_ += static_cast<std::size_t>(std::to_chars(p, p + 20, v).ptr - p);
}

bool JsonWriter::write_double(double v) {
  if (!std::isfinite(v)) return false;
  char* p = extend(kMaxDoubleChars);
  len_ += format_double(v, p);
  return true;
}

void JsonWriter::write_escaped(std::string_view utf8) {
  const auto* s = reinterpret_cast<const unsigned char*>(utf8.data());
  std::size_t n = utf8.size();
  // Room for the text if nothing needs escaping; each escape reserves its own extra room.
  reserve(n);
  while (true) {
    const std::size_t run = plain_prefix(s, n);
    std::memcpy(buf_ + len_, s, run);
    len_ += run;
    if (run == n) return;
    reserve(n - run + 5);
    len_ += write_escape(buf_ + len_, s[run]);
    s += run + 1;
    n -= run + 1;
  }
}

void JsonWriter::write_string(std::string_view utf8) {
  reserve(utf8.size() + 2);
  buf_[len_++] = '"';
  write_escaped(utf8);
  put('"');
}

std::size_t format_double(double v, char* buf) noexcept {
  // Shortest round-trip digits in scientific form, e.g. "-1.2345e-07", then re-laid out the
  // way Python's float repr does: positional for 1e-4 <= |v| < 1e16, else d.ddde[+-]XX.
  char sci[kMaxDoubleChars];
  char* end = std::to_chars(sci, sci + sizeof sci, v, std::chars_format::scientific).ptr;
  const char* p = sci;
  char* out = buf;
  if (*p == '-') *out++ = *p++;
  char digits[20];
  int n = 0;
  digits[n++] = *p++;
  if (*p == '.') {
    ++p;
    while (*p != 'e') digits[n++] = *p++;
  }
  ++p;  // 'e'
  int exp = 0;
  std::from_chars(*p == '+' ? p + 1 : p, end, exp);

  if (exp < -4 || exp >= 16) {
    *out++ = digits[0];
    if (n > 1) {
      *out++ = '.';
      std::memcpy(out, digits + 1, static_cast<std::size_t>(n - 1));
      out += n - 1;
    }
    *out++ = 'e';
    *out++ = exp < 0 ? '-' : '+';
    const int a = exp < 0 ? -exp : exp;
    if (a >= 100) *out++ = static_cast<char>('0' + a / 100);
    *out++ = static_cast<char>('0' + a / 10 % 10);
    *out++ = static_cast<char>('0' + a % 10);
  } else if (exp >= 0) {
    const int int_digits = exp + 1;
    if (n <= int_digits) {
      std::memcpy(out, digits, static_cast<std::size_t>(n));
      out += n;
      for (int i = n; i < int_digits; ++i) *out++ = '0';
      *out++ = '.';
      *out++ = '0';
    } else {
      std::memcpy(out, digits, static_cast<std::size_t>(int_digits));
      out += int_digits;
      *out++ = '.';
      std::memcpy(out, digits + int_digits, static_cast<std::size_t>(n - int_digits));
      out += n - int_digits;
    }
  } else {
    *out++ = '0';
    *out++ = '.';
    for (int i = -1; i > exp; --i) *out++ = '0';
    std::memcpy(out, digits, static_cast<std::size_t>(n));
    out += n;
  }
  return static_cast<std::size_t>(out - buf);
}

}  // namespace mcp_native
