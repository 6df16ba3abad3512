#include "mcp_native/json/writer.hpp"

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

// The escape of every byte that needs one, padded to 8 bytes so that it is written with a
// single store; json.dumps uses lowercase hex.
struct Escape {
  char text[7];
  unsigned char len;
};
constexpr auto kEscapeText = [] {
  struct Table {
    Escape v[256] = {};
  } t;
  constexpr char kHex[] = "0123456789abcdef";
  for (int c = 0; c < 256; ++c) {
    const char e = kEscape.v[c];
    if (e == 0) continue;
    Escape& x = t.v[c];
    x.text[0] = '\\';
    x.text[1] = e;
    x.len = 2;
    if (e == 'u') {
      x.text[2] = '0';
      x.text[3] = '0';
      x.text[4] = kHex[c >> 4];
      x.text[5] = kHex[c & 15];
      x.len = 6;
    }
  }
  return t;
}();

// Writes the escape of `c` at `p` (8 bytes of room); returns its length (2 or 6).
inline std::size_t write_escape(char* p, unsigned char c) {
  std::memcpy(p, &kEscapeText.v[c], 8);
  return kEscapeText.v[c].len;
}

}  // namespace

std::size_t escaped_size(std::string_view utf8) noexcept {
  std::size_t n = utf8.size();
  for (unsigned char c : utf8) {
    if (needs_escape(c)) n += kEscape.v[c] == 'u' ? 5 : 1;
  }
  return n;
}

void append_json_string(std::string& out, std::string_view utf8) {
  const std::size_t start = out.size();
  out.resize(start + escaped_size(utf8) + 2 + 8);  // (write_escape stores 8 bytes)
  char* p = out.data() + start;
  *p++ = '"';
  for (const char c : utf8) {
    const auto byte = static_cast<unsigned char>(c);
    if (needs_escape(byte))
      p += write_escape(p, byte);
    else
      *p++ = c;
  }
  *p++ = '"';
  out.resize(static_cast<std::size_t>(p - out.data()));
}

void JsonWriter::grow(std::size_t extra) {
  if (storage_ != nullptr) {
    buf_ = storage_->grow(buf_, len_, len_ + extra, cap_);
    return;
  }
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

constexpr std::uint64_t kPow10[20] = {1ULL,
                                      10ULL,
                                      100ULL,
                                      1000ULL,
                                      10000ULL,
                                      100000ULL,
                                      1000000ULL,
                                      10000000ULL,
                                      100000000ULL,
                                      1000000000ULL,
                                      10000000000ULL,
                                      100000000000ULL,
                                      1000000000000ULL,
                                      10000000000000ULL,
                                      100000000000000ULL,
                                      1000000000000000ULL,
                                      10000000000000000ULL,
                                      100000000000000000ULL,
                                      1000000000000000000ULL,
                                      10000000000000000000ULL};

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

std::size_t format_int(std::int64_t v, char* buf) noexcept {
  if (v >= 0) return write_decimal(buf, static_cast<std::uint64_t>(v));
  *buf = '-';
  // Negate in unsigned arithmetic: -INT64_MIN overflows int64.
  return 1 + write_decimal(buf + 1, ~static_cast<std::uint64_t>(v) + 1);
}

void JsonWriter::write_int(std::int64_t v) {
  char* p = extend(20);
  len_ += format_int(v, p);
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
  const char* s = utf8.data();
  const char* const end = s + utf8.size();
  // The text goes in chunks, each with room reserved for its worst case (6 bytes per input byte)
  // plus a 16-byte block of slack: the loop below then never checks for room, whole 16-byte
  // blocks and 8-byte escapes may be stored past what is kept.
  constexpr std::size_t kChunk = 4096;
  do {
    const std::size_t chunk = static_cast<std::size_t>(end - s) < kChunk ? static_cast<std::size_t>(end - s) : kChunk;
    reserve(chunk * 6 + 16);
    char* out = buf_ + len_;
    const char* const chunk_end = s + chunk;
    while (s < chunk_end) {
      const std::size_t left = static_cast<std::size_t>(chunk_end - s);
#if defined(__SSE2__)
      // Copy 16 bytes, then find the first byte among them that needs an escape.
      __m128i v;
      if (end - s >= 16 || (MCP_NATIVE_PAGE_READS && in_page(s, 16))) {
        // A 16-byte load that stays within one page cannot fault, even past the text's end.
        v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
      } else {
        alignas(16) char tail[16] = {};
        std::memcpy(tail, s, static_cast<std::size_t>(end - s));
        v = _mm_load_si128(reinterpret_cast<const __m128i*>(tail));
      }
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out), v);
      unsigned mask = escape_mask(v);
      if (left < 16) mask &= (1u << left) - 1;  // bytes past the chunk are not ours yet
      if (mask == 0) {
        const std::size_t step = left < 16 ? left : 16;
        s += step;
        out += step;
        continue;
      }
      const std::size_t run = static_cast<std::size_t>(__builtin_ctz(mask));
#else
      std::size_t run = 0;
      while (run < left && !needs_escape(static_cast<unsigned char>(s[run]))) out[run] = s[run], ++run;
      if (run == left) {
        s += run;
        out += run;
        continue;
      }
#endif
      s += run;
      out += run;
      out += write_escape(out, static_cast<unsigned char>(*s++));
    }
    len_ = static_cast<std::size_t>(out - buf_);
  } while (s < end);
}

void JsonWriter::write_string_slow(std::string_view utf8) {
  reserve(utf8.size() + 2);
  buf_[len_++] = '"';
  write_escaped(utf8);
  buf_[len_++] = '"';  // write_escaped left at least 16 bytes of slack
}

#if defined(__SSE2__)
namespace {

// The 8 decimal digits of a < 10^8 and b < 10^8, as 16 ASCII bytes, without any division
// instruction. Each half is split into two 4-digit numbers y (scalar), and every 16-bit lane of
// a 4-lane group computes one of y/1000, y/100, y/10, y by a multiply-high with a magic constant
// and a second multiply-high by a power of two (SSE2 has no per-lane shift). Inputs are scaled
// by 4 first so that the last lane can compute y itself as (4y * 2^15 >> 16) * 2^15 >> 16.
// Each digit is then its quotient minus 10 times the quotient of the lane before it.
// (Constants checked exhaustively for y < 10000.)
inline __m128i digits_16(std::uint32_t a, std::uint32_t b) {
  const std::uint32_t a_hi = a / 10000, a_lo = a % 10000, b_hi = b / 10000, b_lo = b % 10000;
  const __m128i ys = _mm_set_epi32(static_cast<int>(b_lo * 4), static_cast<int>(b_hi * 4), static_cast<int>(a_lo * 4),
                                   static_cast<int>(a_hi * 4));
  // Each 32-bit lane holds one 4y: spread to 4 equal 16-bit lanes per group, per 64-bit half.
  const __m128i lo = _mm_unpacklo_epi32(ys, ys);  // a_hi a_hi a_lo a_lo (32-bit lanes)
  const __m128i hi = _mm_unpackhi_epi32(ys, ys);  // b_hi b_hi b_lo b_lo
  // 32-bit lanes hold 4y in their low 16 bits: copy them to the high 16 bits.
  const __m128i lo16 = _mm_or_si128(lo, _mm_slli_epi32(lo, 16));
  const __m128i hi16 = _mm_or_si128(hi, _mm_slli_epi32(hi, 16));
  const __m128i mul = _mm_set_epi16(static_cast<short>(0x8000), static_cast<short>(52429), 5243, 8389,
                                    static_cast<short>(0x8000), static_cast<short>(52429), 5243, 8389);
  const __m128i shift =
      _mm_set_epi16(static_cast<short>(0x8000), 2048, 2048, 128, static_cast<short>(0x8000), 2048, 2048, 128);
  const __m128i ten = _mm_set1_epi16(10);
  const __m128i q_lo = _mm_mulhi_epu16(_mm_mulhi_epu16(lo16, mul), shift);
  const __m128i q_hi = _mm_mulhi_epu16(_mm_mulhi_epu16(hi16, mul), shift);
  // Within each 64-bit group, lane i minus 10 * lane i-1 (lane 0 minus 0).
  const __m128i d_lo = _mm_sub_epi16(q_lo, _mm_mullo_epi16(_mm_slli_epi64(q_lo, 16), ten));
  const __m128i d_hi = _mm_sub_epi16(q_hi, _mm_mullo_epi16(_mm_slli_epi64(q_hi, 16), ten));
  return _mm_add_epi8(_mm_packus_epi16(d_lo, d_hi), _mm_set1_epi8('0'));
}

// Lays out |v| = sig * 10^(e - n + 1) like Python's repr at `out` (n significant digits, no
// trailing zeros; e is the decimal exponent of the first digit). Returns the end of the text.
char* layout_digits(char* out, std::uint64_t sig, int n, int e) noexcept {
  // The digits as one vector: a 17th (leading) digit is written on its own, the rest are padded
  // with zeros to 16 digits, so that every layout below is made of whole 16-byte stores.
  // Python's repr: positional for 1e-4 <= |v| < 1e16, else d.ddde[+-]XX.
  char first = 0;
  if (n == 17) {
    first = static_cast<char>('0' + sig / 10000000000000000ULL);
    sig %= 10000000000000000ULL;
  } else {
    sig *= kPow10[16 - n];
  }
  const __m128i d = digits_16(static_cast<std::uint32_t>(sig / 100000000), static_cast<std::uint32_t>(sig % 100000000));
  auto store = [](char* p, __m128i x) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), x); };

  if (e < -4 || e >= 16) {
    if (n == 17) {
      out[0] = first;
      out[1] = '.';
      store(out + 2, d);
    } else {
      store(out + 1, d);
      out[0] = static_cast<char>(_mm_cvtsi128_si32(d));
      out[1] = '.';
    }
    out += n > 1 ? n + 1 : 1;
    *out++ = 'e';
    *out++ = e < 0 ? '-' : '+';
    const int a = e < 0 ? -e : e;
    if (a >= 100) *out++ = static_cast<char>('0' + a / 100);
    *out++ = static_cast<char>('0' + a / 10 % 10);
    *out++ = static_cast<char>('0' + a % 10);
  } else if (e < 0) {  // "0.00012345"
    std::memcpy(out, "0.000", 5);
    out += 1 - e;
    if (n == 17) *out++ = first;
    store(out, d);
    out += n == 17 ? 16 : n;
  } else if (n <= e + 1) {  // integral, "1500.0" (n < 17 as e < 16): the padding is the zeros
    store(out, d);
    out += e + 1;
    out[0] = '.';
    out[1] = '0';
    out += 2;
  } else {  // "123.45": digits up to e, then '.', then the rest one byte further
    char* const end = out + n + 1;
    if (n == 17) {
      *out++ = first;
      --e;
    }
    if (e < 0) {
      out[0] = '.';
      store(out + 1, d);
    } else {
      // Bytes at index <= e from d, the dot at e + 1, beyond from d shifted by one byte.
      const __m128i idx = _mm_set_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
      const __m128i in_int = _mm_cmpgt_epi8(_mm_set1_epi8(static_cast<char>(e + 1)), idx);
      const __m128i at_dot = _mm_cmpeq_epi8(_mm_set1_epi8(static_cast<char>(e + 1)), idx);
      const __m128i frac = _mm_andnot_si128(_mm_or_si128(in_int, at_dot), _mm_slli_si128(d, 1));
      const __m128i text =
          _mm_or_si128(_mm_or_si128(_mm_and_si128(in_int, d), frac), _mm_and_si128(at_dot, _mm_set1_epi8('.')));
      store(out + 1, d);  // only its last byte survives: the 16th digit, past the shifted copy
      store(out, text);
    }
    out = end;
  }
  return out;
}

}  // namespace

#else

namespace {

// Lays out |v| = sig * 10^(e - n + 1) like Python's repr at `out` (n significant digits, no
// trailing zeros; e is the decimal exponent of the first digit). Returns the end of the text.
char* layout_digits(char* out, std::uint64_t sig, int n, int e) noexcept {
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
  return out;
}

}  // namespace

#endif

namespace {

// Most floats in tool results were written with a few decimals (prices, scores, coordinates).
// When a < 2^32 and a = m / 10^6 (correctly rounded) for an integer m, the digits of m
// (trailing zeros dropped) are the shortest that read back as a, so Dragonbox is not needed:
// m's decimal reads back as a, and a decimal with fewer digits lies at least 10^-6 from it,
// while two decimals that both read back as a lie within an ulp of a (at most 2^-21) of each
// other. Sets *sig = m.
[[gnu::always_inline]] inline bool short_decimal(double a, std::uint64_t* sig) noexcept {
  if (!(a < 4294967296.0)) return false;
  const double x = a * 1e6;
  const auto m = static_cast<std::int64_t>(x + 0.5);  // (signed: one instruction)
  // x == m holds for some 97% of such decimals (the rest take the long way) and fails for most
  // values an ulp or two away from one (results of arithmetic on such decimals, as in GeoJSON):
  // tested first, it keeps those from the division and its branch, which mispredicts on a mix.
  if (x != static_cast<double>(m) || static_cast<double>(m) / 1e6 != a) return false;
  *sig = static_cast<std::uint64_t>(m);
  return true;
}

}  // namespace

std::size_t format_double(double v, char* buf) noexcept {
  char* out = buf;
  if (std::signbit(v)) *out++ = '-';
  if (v == 0) {
    out[0] = '0';
    out[1] = '.';
    out[2] = '0';
    return static_cast<std::size_t>(out + 3 - buf);
  }
  // Shortest round-trip digits, v = sig * 10^exp with no trailing zeros in sig (so that n below
  // counts significant digits only): a short decimal's own, else Dragonbox's (as {fmt}
  // implements it; its formatting front end is generic and slow, so layout_digits() lays the
  // text out).
  const double a = std::fabs(v);
  std::uint64_t sig;
  int exp;
  if (short_decimal(a, &sig)) {
    exp = -6 + fmt::detail::dragonbox::remove_trailing_zeros(sig);
  } else {
    const auto dec = fmt::detail::dragonbox::to_decimal(a);
    sig = dec.significand;
    exp = dec.exponent;
    while (sig % 10 == 0) {
      sig /= 10;
      ++exp;
    }
  }
  const int n = decimal_length(sig);
  const int e = exp + n - 1;  // decimal exponent of the first digit
  return static_cast<std::size_t>(layout_digits(out, sig, n, e) - buf);
}

}  // namespace mcp_native
