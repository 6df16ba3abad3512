// Reading a parsed simdjson document's tape directly, the layout simdjson documents in
// doc/tape.md: one 64-bit word per value with its type character in the top byte; numbers take
// a second word; a container's word points past its closing word and holds its item count
// (saturated at JSON_COUNT_MASK). Both JSON → Python conversion and schema evaluation walk it.
#pragma once

#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace mcp_native::tape {

/// A value of a parsed document: its first tape word. Valid while the parser keeps the document.
struct Value {
  const simdjson::dom::document* doc = nullptr;
  const std::uint64_t* w = nullptr;
};

/// The root value of a parsed document (tape word 0 is the root marker).
inline Value root(const simdjson::dom::document& d) { return {&d, d.tape.get() + 1}; }

/// The type character of a tape word: '"', 'l', 'u', 'd', 't', 'f', 'n', '[' or '{'.
inline char type(std::uint64_t w) { return static_cast<char>(w >> 56); }

/// The text of a string word: a 32-bit length then the bytes, in the document's string buffer.
inline std::string_view string(const std::uint8_t* string_buf, std::uint64_t w) {
  const std::uint8_t* p = string_buf + (w & simdjson::internal::JSON_VALUE_MASK);
  std::uint32_t n;
  std::memcpy(&n, p, sizeof n);
  return {reinterpret_cast<const char*>(p + sizeof n), n};
}

/// The word after the value at `w`: past a container's closing word, past a number's second word.
[[gnu::always_inline]] inline const std::uint64_t* next(const std::uint64_t* tape, const std::uint64_t* w) {
  switch (type(*w)) {
    case '[':
    case '{': return tape + static_cast<std::uint32_t>(*w);
    case 'l':
    case 'u':
    case 'd': return w + 2;
    default: return w + 1;
  }
}

/// The number of items (members of an object) of the container at `w`; counted by walking it
/// when the stored count saturates.
inline std::size_t count(const std::uint64_t* tape, const std::uint64_t* w) {
  const std::uint32_t n = static_cast<std::uint32_t>(*w >> 32) & simdjson::internal::JSON_COUNT_MASK;
  if (n < simdjson::internal::JSON_COUNT_MASK) return n;
  const bool object = type(*w) == '{';
  const std::uint64_t* end = tape + static_cast<std::uint32_t>(*w) - 1;  // the closing word
  std::size_t items = 0;
  for (const std::uint64_t* p = w + 1; p != end; p = next(tape, object ? p + 1 : p)) ++items;
  return items;
}

}  // namespace mcp_native::tape
