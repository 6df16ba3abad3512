#include "mcp_native/text_mirror.hpp"

#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define MCP_NATIVE_MIRROR_SSSE3 1
#endif

namespace mcp_native {
namespace {

// Appends `c`, after a backslash if it is `"` or `\`, without a branch.
inline char* put_escaped(char* out, unsigned char c) {
  *out = '\\';
  out += (c == '"') | (c == '\\');
  *out++ = static_cast<char>(c);
  return out;
}

char* escape_bytes(const unsigned char* s, std::size_t n, char* out) {
  for (std::size_t i = 0; i < n; ++i) out = put_escaped(out, s[i]);
  return out;
}

#if MCP_NATIVE_MIRROR_SSSE3
// Serialized JSON is dense in quotes (every key has two): about one byte in six needs a
// backslash. Instead of a branch per escape, each 8 bytes are expanded with one byte shuffle:
// the table entry for the 8-bit mask of bytes to escape maps every output byte to its source,
// either one of the 8 bytes (0-7) or the backslash placed in lane 8.
struct ExpandTable {
  alignas(16) unsigned char shuffle[256][16];
  unsigned char length[256];  // 8 + the number of escapes
};

constexpr ExpandTable make_expand_table() {
  ExpandTable t{};
  for (unsigned mask = 0; mask < 256; ++mask) {
    unsigned pos = 0;
    for (unsigned j = 0; j < 8; ++j) {
      if (mask & (1u << j)) t.shuffle[mask][pos++] = 8;
      t.shuffle[mask][pos++] = static_cast<unsigned char>(j);
    }
    t.length[mask] = static_cast<unsigned char>(pos);
    for (; pos < 16; ++pos) t.shuffle[mask][pos] = 0x80;  // zero, overwritten by what follows
  }
  return t;
}

constexpr ExpandTable kExpand = make_expand_table();

[[gnu::target("ssse3")]] char* escape_ssse3(const unsigned char* s, std::size_t n, char* out) {
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    const auto mask = static_cast<unsigned>(
        _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash))));
    if (mask == 0) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out), v);
      out += 16;
      continue;
    }
    const unsigned lo = mask & 0xff, hi = mask >> 8;
    const __m128i lo_src = _mm_unpacklo_epi64(v, backslash);  // bytes 0-7, then backslashes
    const __m128i hi_src = _mm_unpackhi_epi64(v, backslash);  // bytes 8-15, then backslashes
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out),
                     _mm_shuffle_epi8(lo_src, _mm_load_si128(reinterpret_cast<const __m128i*>(kExpand.shuffle[lo]))));
    out += kExpand.length[lo];
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out),
                     _mm_shuffle_epi8(hi_src, _mm_load_si128(reinterpret_cast<const __m128i*>(kExpand.shuffle[hi]))));
    out += kExpand.length[hi];
  }
  return escape_bytes(s + i, n - i, out);
}

bool have_ssse3() {
  __builtin_cpu_init();  // this runs among static initializers, maybe before libgcc's own
  return __builtin_cpu_supports("ssse3");
}
const bool kHaveSsse3 = have_ssse3();
#endif

}  // namespace

void append_escaped_copy(JsonWriter& w, std::size_t start, std::size_t end) {
  const std::size_t n = end - start;
  // Room for the doubled text plus 16 bytes: each 8 source bytes are stored as a whole 16-byte
  // register, of which only the expanded bytes are kept.
  char* const out0 = w.extend(2 * n + 16);  // may move the buffer: take the source after it
  const auto* s = reinterpret_cast<const unsigned char*>(w.data() + start);
#if MCP_NATIVE_MIRROR_SSSE3
  char* const out = kHaveSsse3 ? escape_ssse3(s, n, out0) : escape_bytes(s, n, out0);
#else
  char* const out = escape_bytes(s, n, out0);
#endif
  w.commit(static_cast<std::size_t>(out - out0));
}

}  // namespace mcp_native
