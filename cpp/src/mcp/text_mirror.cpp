#include "mcp_native/mcp/text_mirror.hpp"

#include <atomic>
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
  unsigned char escapes[256];  // the number of bits set
};

constexpr ExpandTable make_expand_table() {
  ExpandTable t{};
  for (unsigned mask = 0; mask < 256; ++mask) {
    unsigned pos = 0;
    for (unsigned j = 0; j < 8; ++j) {
      if (mask & (1u << j)) t.shuffle[mask][pos++] = 8;
      t.shuffle[mask][pos++] = static_cast<unsigned char>(j);
    }
    t.escapes[mask] = static_cast<unsigned char>(pos - 8);
    for (; pos < 16; ++pos) t.shuffle[mask][pos] = 0x80;  // zero, overwritten by what follows
  }
  return t;
}

constexpr ExpandTable kExpand = make_expand_table();

// Expands the 16 bytes at `s` of which the first `len` count (1 to 16) and returns the new end of
// the output. Writes 32 bytes at `out` whatever `len` is.
[[gnu::target("ssse3")]] inline char* expand_block(const unsigned char* s, unsigned len, char* out) {
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
  unsigned mask = static_cast<unsigned>(
      _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, backslash))));
  mask &= (1u << len) - 1;
  if (len == 16 && mask == 0) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), v);
    return out + 16;
  }
  const unsigned lo = mask & 0xff, hi = mask >> 8;
  const unsigned lo_len = len < 8 ? len : 8;
  const __m128i lo_src = _mm_unpacklo_epi64(v, backslash);  // bytes 0-7, then backslashes
  const __m128i hi_src = _mm_unpackhi_epi64(v, backslash);  // bytes 8-15, then backslashes
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out),
                   _mm_shuffle_epi8(lo_src, _mm_load_si128(reinterpret_cast<const __m128i*>(kExpand.shuffle[lo]))));
  out += lo_len + kExpand.escapes[lo];
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out),
                   _mm_shuffle_epi8(hi_src, _mm_load_si128(reinterpret_cast<const __m128i*>(kExpand.shuffle[hi]))));
  return out + (len - lo_len) + kExpand.escapes[hi];
}

// Reads up to 15 bytes past s + n (the caller guarantees they are readable).
[[gnu::target("ssse3")]] char* escape_ssse3(const unsigned char* s, std::size_t n, char* out) {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) out = expand_block(s + i, 16, out);
  return i < n ? expand_block(s + i, static_cast<unsigned>(n - i), out) : out;
}
#endif

// (An AVX2 kernel, 32 bytes a step, ran 9% fewer instructions and no faster: the expansion is
// bound by its stores.)
using Kernel = char* (*)(const unsigned char*, std::size_t, char*);

Kernel kernel_for(MirrorKernel k) {
#if MCP_NATIVE_MIRROR_SSSE3
  __builtin_cpu_init();  // this may run among static initializers, before libgcc's own
  if (k == MirrorKernel::kSsse3) return __builtin_cpu_supports("ssse3") ? escape_ssse3 : nullptr;
#endif
  return k == MirrorKernel::kPortable ? escape_bytes : nullptr;
}

Kernel best_kernel() {
  const Kernel f = kernel_for(MirrorKernel::kSsse3);
  return f != nullptr ? f : escape_bytes;
}

// Process-wide, switched by use_mirror_kernel() while other threads may escape: atomic (a relaxed
// load is a plain load on x86, nothing on the hot path), and every kernel writes the same bytes.
std::atomic<Kernel> g_kernel{best_kernel()};

}  // namespace

void append_escaped_copy(JsonWriter& w, std::size_t start, std::size_t end) {
  const std::size_t n = end - start;
  // Room for the doubled text plus 32 bytes: each 8 source bytes are stored as a whole 16-byte
  // register, of which only the expanded bytes are kept. The source is read in whole 16-byte
  // blocks, up to 15 bytes past `end`: inside the reserved room.
  char* const out0 = w.extend(2 * n + 32);  // may move the buffer: take the source after it
  const auto* s = reinterpret_cast<const unsigned char*>(w.data() + start);
  char* const out = g_kernel.load(std::memory_order_relaxed)(s, n, out0);
  w.commit(static_cast<std::size_t>(out - out0));
}

bool use_mirror_kernel(MirrorKernel k) {
  Kernel f = kernel_for(k);
  if (f != nullptr) g_kernel.store(f, std::memory_order_relaxed);
  return f != nullptr;
}

void append_mcp_tool_result(JsonWriter& out, std::string_view type, std::string_view content,
                            std::optional<std::string_view> structured, bool mirror) {
  // The escaped copies are made in a scratch writer (append_escaped_copy reads past its source
  // into room it reserved), as offsets: the buffer may move while it grows.
  struct Span {
    std::size_t start = 0, end = 0;
  };
  JsonWriter scratch;
  auto escaped_copy = [&scratch](std::size_t start, std::size_t end) {
    const std::size_t at = scratch.size();
    append_escaped_copy(scratch, start, end);
    return Span{at, scratch.size()};
  };
  Span structured_text, content_text;
  if (structured) {
    scratch.append(*structured);
    structured_text = escaped_copy(0, scratch.size());
    if (mirror) content_text = escaped_copy(structured_text.start, structured_text.end);  // escaped twice
  }
  if (!mirror) {
    const std::size_t start = scratch.size();
    scratch.append(content);
    content_text = escaped_copy(start, scratch.size());
  }
  const auto text = [&scratch](Span s) { return scratch.view().substr(s.start, s.end - s.start); };
  out.append("{\"type\": \"");
  out.append(type);
  out.append("\", \"content\": \"");
  if (mirror) out.append(R"({\"type\": \"text\", \"text\": \")");
  out.append(text(content_text));
  if (mirror) out.append(R"(\"})");
  out.append("\", \"structuredContent\": ");
  if (structured) {
    out.put('"');
    out.append(text(structured_text));
    out.put('"');
  } else {
    out.append("null");
  }
  out.put('}');
}

}  // namespace mcp_native
