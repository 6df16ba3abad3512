#include "mcp_native/text_mirror.hpp"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mcp_native {
namespace {

// Appends `c`, after a backslash if it is `"` or `\`; branch-free, as JSON text is dense with
// quotes (every key has two).
inline char* put_escaped(char* out, unsigned char c) {
  *out = '\\';
  out += (c == '"') | (c == '\\');
  *out++ = static_cast<char>(c);
  return out;
}

}  // namespace

void append_escaped_copy(JsonWriter& w, std::size_t start, std::size_t end) {
  const std::size_t n = end - start;
  char* const out0 = w.extend(2 * n);  // may move the buffer: take the source pointer after it
  const auto* s = reinterpret_cast<const unsigned char*>(w.data() + start);
  char* out = out0;
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    const int mask = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
    if (mask == 0) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out), v);
      out += 16;
    } else {
      for (std::size_t j = 0; j < 16; ++j) out = put_escaped(out, s[i + j]);
    }
  }
#endif
  for (; i < n; ++i) out = put_escaped(out, s[i]);
  w.commit(static_cast<std::size_t>(out - out0));
}

}  // namespace mcp_native
