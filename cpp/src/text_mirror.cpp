#include "mcp_native/text_mirror.hpp"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mcp_native {
namespace {

#if !defined(__SSE2__)
// Appends `c`, after a backslash if it is `"` or `\`, without a branch.
inline char* put_escaped(char* out, unsigned char c) {
  *out = '\\';
  out += (c == '"') | (c == '\\');
  *out++ = static_cast<char>(c);
  return out;
}
#endif

}  // namespace

void append_escaped_copy(JsonWriter& w, std::size_t start, std::size_t end) {
  const std::size_t n = end - start;
  // Room for the doubled text and 32 bytes of slack: the block copies below load and store
  // whole 16-byte registers and keep only the bytes they need, so they may read up to 31 bytes
  // past `end` (inside the buffer, whose capacity now exceeds end + 2n + 32) and write up to 16
  // past the escaped text.
  char* const out0 = w.extend(2 * n + 32);  // may move the buffer: take the source after it
  const auto* s = reinterpret_cast<const unsigned char*>(w.data() + start);
  char* out = out0;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  for (std::size_t i = 0; i < n; i += 16) {
    const unsigned char* block = s + i;
    const unsigned len = n - i < 16 ? static_cast<unsigned>(n - i) : 16;
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block));
    unsigned mask = static_cast<unsigned>(
        _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash))));
    mask &= (1u << len) - 1;
    // The plain run before each escape is copied as one 16-byte move.
    unsigned pos = 0;
    while (mask != 0) {
      const unsigned p = static_cast<unsigned>(__builtin_ctz(mask));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + pos)));
      out += p - pos;
      *out++ = '\\';
      *out++ = static_cast<char>(block[p]);
      pos = p + 1;
      mask &= mask - 1;
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + pos)));
    out += len - pos;
  }
#else
  for (std::size_t i = 0; i < n; ++i) out = put_escaped(out, s[i]);
#endif
  w.commit(static_cast<std::size_t>(out - out0));
}

}  // namespace mcp_native
