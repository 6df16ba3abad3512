#include "mcp_native/json_writer.hpp"

#include <cmath>

#include <fmt/format.h>

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

namespace {

constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

constexpr std::uint64_t kPow10[20] = {
    1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL,
    1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
    100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
    1000000000000000000ULL, 10000000000000000000ULL};

// Number of decimal digits of v: log10 estimated from the bit length, then corrected.
inline int decimal_length(std::uint64_t v) {
  const int t = ((64 - __builtin_clzll(v | 1)) * 1233) >> 12;
  return t - ((v | 1) < kPow10[t]) + 1;  // v | 1: zero has one digit
}

// Writes v < 10^8 in decimal at p, two digits at a time (32-bit arithmetic); returns the end.
inline char* write_small(char* p, std::uint32_t v) {
  char* end = p + decimal_length(v);
  char* q = end;
  while (v >= 100) {
    q -= 2;
    std::memcpy(q, kDigitPairs + v % 100 * 2, 2);
    v /= 100;
  }
  if (v >= 10) {
    std::memcpy(q - 2, kDigitPairs + v * 2, 2);
  } else {
    q[-1] = static_cast<char>('0' + v);
  }
  return end;
}

// Writes exactly 8 decimal digits of v < 10^8 (with leading zeros).
inline void write_8_digits(char* p, std::uint32_t v) {
  const std::uint32_t a = v / 10000, b = v % 10000;
  std::memcpy(p, kDigitPairs + a / 100 * 2, 2);
  std::memcpy(p + 2, kDigitPairs + a % 100 * 2, 2);
  std::memcpy(p + 4, kDigitPairs + b / 100 * 2, 2);
  std::memcpy(p + 6, kDigitPairs + b % 100 * 2, 2);
}

// Writes v in decimal at p; returns the length.
inline std::size_t write_decimal(char* p, std::uint64_t v) {
  if (v < 100000000) return static_cast<std::size_t>(write_small(p, static_cast<std::uint32_t>(v)) - p);
  if (v >= 1000000000000000ULL && v < 100000000000000000ULL) {
    // 16 or 17 digits, the usual length of float digits: fixed 8-digit blocks have no serial
    // chain of divisions.
    auto hi = static_cast<std::uint32_t>(v / 100000000);
    const bool longer = hi >= 100000000;
    if (longer) {
      *p = static_cast<char>('0' + hi / 100000000);
      hi %= 100000000;
    }
    write_8_digits(p + longer, hi);
    write_8_digits(p + longer + 8, static_cast<std::uint32_t>(v % 100000000));
    return 16 + longer;
  }
  char* e;
  if (v < 10000000000000000ULL) {
    e = write_small(p, static_cast<std::uint32_t>(v / 100000000));
  } else {
    e = write_small(p, static_cast<std::uint32_t>(v / 10000000000000000ULL));
    write_8_digits(e, static_cast<std::uint32_t>(v / 100000000 % 100000000));
    e += 8;
  }
  write_8_digits(e, static_cast<std::uint32_t>(v % 100000000));
  return static_cast<std::size_t>(e + 8 - p);
}

}  // namespace

void JsonWriter::write_int(std::int64_t v) {
  char* p = extend(20);
  if (v < 0) {
    *p++ = '-';
    ++len_;
    // Negate in unsigned arithmetic: -INT64_MIN overflows int64.
    len_ += write_decimal(p, ~static_cast<std::uint64_t>(v) + 1);
  } else {
    len_ += write_decimal(p, static_cast<std::uint64_t>(v));
  }
}

void JsonWriter::write_uint(std::uint64_t v) {
  char* p = extend(20);
  len_ += write_decimal(p, v);
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
  // Room for the text if nothing needs escaping, plus a 16-byte block of slack so that whole
  // blocks can be stored; each escape reserves its own extra room.
  reserve(n + 16);
  char* out = buf_ + len_;
  while (true) {
#if defined(__SSE2__)
    // Copy 16 bytes at a time, stopping at the first byte that needs an escape. In a short tail
    // the bytes beyond the text are masked out (and overwritten later or never committed).
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i limit = _mm_set1_epi8(0x1f);  // bytes < 0x20: unsigned min(x, 0x1f) == x
    unsigned mask = 0;
    while (n > 0) {
      __m128i v;
      unsigned live = 0xFFFF;
      if (n >= 16 || (reinterpret_cast<std::uintptr_t>(s) & 4095) <= 4096 - 16) {
        // A 16-byte load that stays within one page cannot fault, even past the text's end.
        v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
        if (n < 16) live = (1u << n) - 1;
      } else {
        alignas(16) unsigned char tail[16] = {};
        std::memcpy(tail, s, n);
        v = _mm_load_si128(reinterpret_cast<const __m128i*>(tail));
        live = (1u << n) - 1;
      }
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out), v);
      const __m128i bad = _mm_or_si128(
          _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
          _mm_cmpeq_epi8(_mm_min_epu8(v, limit), v));
      mask = static_cast<unsigned>(_mm_movemask_epi8(bad)) & live;
      if (mask != 0) break;
      const std::size_t step = n < 16 ? n : 16;
      s += step;
      out += step;
      n -= step;
    }
    if (mask == 0) {
      len_ = static_cast<std::size_t>(out - buf_);
      return;
    }
    const std::size_t run = static_cast<std::size_t>(__builtin_ctz(mask));
#else
    std::size_t run = 0;
    while (run < n && !needs_escape(s[run])) out[run] = static_cast<char>(s[run]), ++run;
    if (run == n) {
      len_ = static_cast<std::size_t>(out + run - buf_);
      return;
    }
#endif
    s += run;
    n -= run;
    len_ = static_cast<std::size_t>(out + run - buf_);
    reserve(n + 5 + 16);  // the escape (6 bytes for 1) and the rest
    len_ += write_escape(buf_ + len_, *s);
    out = buf_ + len_;
    ++s;
    --n;
  }
}

void JsonWriter::write_string_slow(std::string_view utf8) {
  reserve(utf8.size() + 2);
  buf_[len_++] = '"';
  write_escaped(utf8);
  buf_[len_++] = '"';  // write_escaped left at least 16 bytes of slack
}

std::size_t format_double(double v, char* buf) noexcept {
  char* out = buf;
  if (std::signbit(v)) *out++ = '-';
  if (v == 0) {
    out[0] = '0';
    out[1] = '.';
    out[2] = '0';
    return static_cast<std::size_t>(out + 3 - buf);
  }
  // Shortest round-trip digits (Dragonbox, as {fmt} implements it): v = sig * 10^exp. Its
  // formatting front end is generic and slow, so the layout is done here.
  auto dec = fmt::detail::dragonbox::to_decimal(std::fabs(v));
  std::uint64_t sig = dec.significand;
  int exp = dec.exponent;
  while (sig % 10 == 0) {  // so that n below counts significant digits only
    sig /= 10;
    ++exp;
  }
  const int n = decimal_length(sig);
  const int e = exp + n - 1;  // decimal exponent of the first digit

  // Python's repr: positional for 1e-4 <= |v| < 1e16, else d.ddde[+-]XX. The digits are
  // written in place and only single bytes are moved afterwards: reading back wider blocks
  // just stored in pieces would stall on store forwarding.
  if (e < -4 || e >= 16) {
    write_decimal(out + 1, sig);
    out[0] = out[1];
    if (n > 1) {
      out[1] = '.';
      out += n + 1;
    } else {
      out += 1;
    }
    *out++ = 'e';
    *out++ = e < 0 ? '-' : '+';
    const int a = e < 0 ? -e : e;
    if (a >= 100) *out++ = static_cast<char>('0' + a / 100);
    *out++ = static_cast<char>('0' + a / 10 % 10);
    *out++ = static_cast<char>('0' + a % 10);
  } else if (e >= 0 && n <= e + 1) {  // integral: "1500.0"
    write_decimal(out, sig);
    std::memset(out + n, '0', 16);
    out += e + 1;
    out[0] = '.';
    out[1] = '0';
    out += 2;
  } else if (e >= 0) {  // "123.45": the integer digits move one byte left to make room
    write_decimal(out + 1, sig);
    for (int i = 0; i <= e; ++i) out[i] = out[i + 1];
    out[e + 1] = '.';
    out += n + 1;
  } else {  // "0.00012345"
    std::memcpy(out, "0.000", 5);
    out += 1 - e;
    out += write_decimal(out, sig);
  }
  return static_cast<std::size_t>(out - buf);
}

}  // namespace mcp_native
