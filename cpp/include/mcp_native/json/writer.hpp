// Compact JSON text writer: a growable byte buffer with string escaping and float layout that
// match Python's json.dumps(separators=(",", ":"), ensure_ascii=False, allow_nan=False).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>

#include "mcp_native/util/memory.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mcp_native {

/// Size of the buffer format_double() needs: the text is at most 24 bytes
/// ("-2.2250738585072014e-308"), but a block of padding zeros may be stored past its end.
inline constexpr std::size_t kMaxDoubleChars = 48;

/// Writes the shortest text that round-trips `v` (finite), laid out like Python's repr(float):
/// "1.0", "0.1", "1e+16", "1e-05", "-0.0", "1.5e-07". Returns the length of the text at `buf`
/// (which must have room for kMaxDoubleChars bytes). Behaviour is undefined for NaN and
/// infinities.
std::size_t format_double(double v, char* buf) noexcept;

/// Writes `v` in decimal at `buf` (room for 20 bytes); returns the length of the text.
std::size_t format_int(std::int64_t v, char* buf) noexcept;

/// Returns the length of `utf8` once escaped for the inside of a JSON string (no quotes).
std::size_t escaped_size(std::string_view utf8) noexcept;

/// Appends `utf8` (assumed valid UTF-8) to `out` as a quoted JSON string, escaped as
/// JsonWriter::write_string escapes it: for text built in a std::string (error messages, the
/// schema engine's values), where speed does not matter.
void append_json_string(std::string& out, std::string_view utf8);

#if defined(__SSE2__)
/// The bytes of `v` that a JSON string escapes (`"`, `\`, controls below 0x20), a bit each.
[[gnu::always_inline]] inline unsigned escape_mask(__m128i v) {
  const __m128i bad =
      _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                   _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v));
  return static_cast<unsigned>(_mm_movemask_epi8(bad));
}
#endif

/// Memory that a JsonWriter writes into when it does not own its buffer: lets the caller choose
/// where the text ends up (a language binding hands out its final string object, and so spares
/// copying the text into it).
class WriterStorage {
 public:
  /// Returns a buffer of at least `need` bytes that starts with the first `len` bytes of `buf`
  /// (the writer's current buffer, null at first) and stores its size in `cap`. Throws
  /// std::bad_alloc when memory runs out.
  virtual char* grow(char* buf, std::size_t len, std::size_t need, std::size_t& cap) = 0;

 protected:
  ~WriterStorage() = default;
};

/// A growable byte buffer that JSON text is appended to. Write methods never fail except by
/// throwing std::bad_alloc when memory runs out. The buffer is its own (malloc'd, reused across
/// clear() calls) or, for a writer built on a WriterStorage, the storage's.
class JsonWriter {
 public:
  JsonWriter() = default;
  /// Starts with room for `capacity` bytes.
  explicit JsonWriter(std::size_t capacity) { reserve(capacity); }
  /// Writes into `buf` (`capacity` bytes, may be null and 0), then into what `storage` grows it
  /// to. The writer never frees that memory.
  JsonWriter(WriterStorage& storage, char* buf, std::size_t capacity) noexcept
      : buf_(buf), cap_(capacity), storage_(&storage) {}
  ~JsonWriter() {
    if (storage_ == nullptr) std::free(buf_);
  }
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;
  JsonWriter(JsonWriter&& o) noexcept : buf_(o.buf_), len_(o.len_), cap_(o.cap_), storage_(o.storage_) {
    o.buf_ = nullptr;
    o.len_ = o.cap_ = 0;
  }

  /// The bytes written so far.
  const char* data() const noexcept { return buf_; }
  /// Number of bytes written so far.
  std::size_t size() const noexcept { return len_; }
  /// The bytes written so far, as a view (invalidated by the next write).
  std::string_view view() const noexcept { return {buf_, len_}; }
  /// Number of bytes the buffer holds before it must grow.
  std::size_t capacity() const noexcept { return cap_; }
  /// Forgets the content, keeps the memory.
  void clear() noexcept { len_ = 0; }
  /// Drops the last `n` bytes (n <= size()).
  void truncate(std::size_t n) noexcept { len_ -= n; }

  /// Ensures room for `extra` more bytes without reallocation.
  void reserve(std::size_t extra) {
    if (cap_ - len_ < extra) grow(extra);
  }
  /// Returns a pointer to `n` writable bytes at the end; commit() them once written.
  char* extend(std::size_t n) {
    reserve(n);
    return buf_ + len_;
  }
  /// Marks `n` bytes obtained from extend() as written.
  void commit(std::size_t n) noexcept { len_ += n; }

  /// Appends one byte.
  [[gnu::always_inline]] void put(char c) {  // (large callers' inlining budget runs out)
    reserve(1);
    buf_[len_++] = c;
  }
  /// Appends bytes as they are (already valid JSON text).
  [[gnu::always_inline]] void append(std::string_view bytes) {
    reserve(bytes.size());
    // (An empty view may hold a null pointer, which memcpy must not get even for 0 bytes.)
    if (!bytes.empty()) std::memcpy(buf_ + len_, bytes.data(), bytes.size());
    len_ += bytes.size();
  }
  /// Appends `null`.
  void write_null() { append("null"); }
  /// Appends `true` or `false`.
  void write_bool(bool b) { b ? append("true") : append("false"); }
  /// Appends a signed integer in decimal.
  void write_int(std::int64_t v);
  /// Appends an unsigned integer in decimal.
  void write_uint(std::uint64_t v);
  /// Appends a finite double laid out like Python's repr; returns false (writing nothing) for
  /// NaN and infinities, which JSON cannot represent.
  bool write_double(double v);
  /// Appends `utf8` (assumed valid UTF-8) as a quoted JSON string: `"` and `\` are escaped,
  /// control characters below 0x20 become \n \r \t \b \f or \u00XX, all else is copied raw.
  void write_string(std::string_view utf8) {
#if defined(__SSE2__) && MCP_NATIVE_PAGE_READS
    // Inline fast path for short strings that need no escape (most keys and many values): one
    // 16-byte load, which cannot fault if it stays within the page of the text.
    const std::size_t n = utf8.size();
    if (n - 1 < 15 && in_page(utf8.data(), 16)) {  // 1..15 bytes
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"  // GCC sees the load pass a literal's end
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(utf8.data()));
#pragma GCC diagnostic pop
      if ((escape_mask(v) & ((1u << n) - 1)) == 0) {
        reserve(18);
        char* p = buf_ + len_;
        p[0] = '"';
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p + 1), v);
        p[n + 1] = '"';
        len_ += n + 2;
        return;
      }
    }
#endif
    write_string_slow(utf8);
  }
  /// Appends the escaped form of `utf8` without the surrounding quotes, e.g. to embed a whole
  /// serialized document inside a JSON string.
  void write_escaped(std::string_view utf8);

 private:
  void grow(std::size_t extra);
  void write_string_slow(std::string_view utf8);

  char* buf_ = nullptr;
  std::size_t len_ = 0;
  std::size_t cap_ = 0;
  WriterStorage* storage_ = nullptr;  // null: buf_ is malloc'd and owned
};

}  // namespace mcp_native
