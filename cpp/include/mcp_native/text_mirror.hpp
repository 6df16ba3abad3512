// The text mirror of a tool result: serialized JSON embedded once more as a JSON string.
#pragma once

#include <cstddef>

#include "mcp_native/json_writer.hpp"

namespace mcp_native {

/// Appends to `w` the bytes it already holds at offsets [start, end), escaped as the inside of
/// a JSON string (no quotes added). Those bytes must be JSON text as a JSON writer
/// emits it, which never holds raw control characters: only `"` and `\` need a backslash, so
/// this is a single byte loop that at most doubles the text.
void append_escaped_copy(JsonWriter& w, std::size_t start, std::size_t end);

}  // namespace mcp_native
