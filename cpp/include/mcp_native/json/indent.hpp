// Layouts of JSON text: compact or indented as json.dumps(indent=N) and pydantic_core.to_json(indent=N)
// lay it out, written in one pass, and json.dumps's default layout of compact text.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "mcp_native/json/writer.hpp"

namespace mcp_native {

/// How floats are spelled. kRepr as the writer spells them (Python's repr, which json.dumps
/// uses: "1e-05", "2.5e-07", "1e+16"); kPydantic as pydantic-core writes them ("0.00001",
/// "2.5e-7"): equal values, different bytes for negative exponents.
enum class FloatSpelling { kRepr, kPydantic };

/// Largest indent accepted: deeper layouts only waste bytes.
inline constexpr unsigned kMaxIndent = 64;

/// The punctuation and float spelling of JSON text written in one walk over a value: compact, or
/// indented as json.dumps(indent=N) and pydantic_core.to_json(indent=N) lay it out (each member
/// and element on its own line, indented by N spaces per level, ": " after each key). The walk
/// calls open() on entering a non-empty array or object, comma() between its items, colon()
/// after each key, close() on leaving it, and write_double() for each float; it writes empty
/// containers as "[]" and "{}" itself (they stay on their line) and everything else with the
/// JsonWriter.
class JsonLayout {
 public:
  /// `indent` (<= kMaxIndent) lays the text out; none leaves it compact.
  JsonLayout(std::optional<unsigned> indent, FloatSpelling floats) noexcept
      : indent_(indent.value_or(0)), indented_(indent.has_value()), floats_(floats) {}

  /// Writes `bracket` ('[' or '{') opening a non-empty container.
  void open(JsonWriter& out, char bracket) {
    if (!indented_) return out.put(bracket);
    line(out, bracket, ++depth_);
  }
  /// Writes what separates two items of the innermost open container.
  void comma(JsonWriter& out) {
    if (!indented_) return out.put(',');
    line(out, ',', depth_);
  }
  /// Writes what follows a key.
  void colon(JsonWriter& out) { indented_ ? out.append(": ") : out.put(':'); }
  /// Writes `bracket` (']' or '}') closing the innermost open container.
  void close(JsonWriter& out, char bracket) {
    if (indented_) line(out, 0, --depth_);
    out.put(bracket);
  }
  /// Writes finite `v` in the layout's spelling.
  void write_double(JsonWriter& out, double v);

 private:
  // Writes `lead` (unless 0), a newline and the indentation of `depth`.
  void line(JsonWriter& out, char lead, std::size_t depth);

  unsigned indent_;
  bool indented_;
  FloatSpelling floats_;
  std::size_t depth_ = 0;
};

/// Appends `compact` (JSON text as JsonWriter writes it) laid out as Python's json.dumps(obj)
/// writes it by default: ", " between members and elements, ": " after keys, and each character
/// beyond U+007E (DEL too) as a \uXXXX escape in lowercase hex (a UTF-16 surrogate pair beyond U+FFFF). The
/// result is ASCII.
void append_python_default(JsonWriter& out, std::string_view compact);

}  // namespace mcp_native
