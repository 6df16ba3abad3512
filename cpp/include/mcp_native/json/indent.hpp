// Layouts of compact JSON text: indented, as json.dumps(indent=N) and pydantic_core.to_json(indent=N)
// lay it out, and json.dumps's default layout.
#pragma once

#include <optional>
#include <string_view>

#include "mcp_native/json/writer.hpp"

namespace mcp_native {

/// How floats are spelled in indented text. kRepr keeps the writer's text (Python's repr, which
/// json.dumps uses: "1e-05", "2.5e-07", "1e+16"); kPydantic respells the floats that differ as
/// pydantic-core writes them ("0.00001", "2.5e-7"): equal values, different bytes.
enum class FloatSpelling { kRepr, kPydantic };

/// Largest indent accepted: deeper layouts only waste bytes.
inline constexpr unsigned kMaxIndent = 64;

/// Appends `compact` (JSON text as JsonWriter writes it: no whitespace, floats spelled like repr)
/// to `out` with its floats spelled as `floats` says and, given an `indent` (<= kMaxIndent), each
/// member and element on its own line, indented by `indent` spaces per level, and ": " after each
/// key; empty containers stay "[]" and "{}". Without an indent the text stays compact.
void append_indented(JsonWriter& out, std::string_view compact, std::optional<unsigned> indent, FloatSpelling floats);

/// Appends `compact` (JSON text as JsonWriter writes it) laid out as Python's json.dumps(obj)
/// writes it by default: ", " between members and elements, ": " after keys, and each character
/// beyond U+007E (DEL too) as a \uXXXX escape in lowercase hex (a UTF-16 surrogate pair beyond U+FFFF). The
/// result is ASCII.
void append_python_default(JsonWriter& out, std::string_view compact);

}  // namespace mcp_native
