// Locating the first error in invalid JSON text. The fast parser (simdjson) only says *that* a
// document is invalid; this strict single-pass checker says *what* and *where*, for messages.
#pragma once

#include <cstddef>
#include <string_view>

namespace mcp_native {

/// The first syntax error of a document, if any.
struct JsonSyntaxError {
  /// False when the document is valid JSON (RFC 8259, UTF-8, nesting within the limit).
  bool found = false;
  /// Byte offset of the error in the document.
  std::size_t offset = 0;
  /// What is wrong, phrased like Python's json module ("Expecting value", ...).
  const char* message = "";
};

/// Checks `doc` against RFC 8259 strictly: UTF-8 without surrogate code points, no NaN or
/// Infinity, no trailing data, no value deeper than level `max_depth` (the top-level value is
/// at level 1, the values in a container one level below it; simdjson's rule). Escaped lone
/// surrogates (\ud800) are accepted, as the grammar allows them.
JsonSyntaxError find_json_error(std::string_view doc, int max_depth) noexcept;

}  // namespace mcp_native
