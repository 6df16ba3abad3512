// The text mirror of a tool result: serialized JSON embedded once more as a JSON string.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "mcp_native/json/writer.hpp"

namespace mcp_native {

/// Appends to `w` the bytes it already holds at offsets [start, end), escaped as the inside of
/// a JSON string (no quotes added). Those bytes must be JSON text as a JSON writer
/// emits it, which never holds raw control characters: only `"` and `\` need a backslash, so
/// this is a single byte loop that at most doubles the text.
void append_escaped_copy(JsonWriter& w, std::size_t start, std::size_t end);

/// The loops append_escaped_copy can run, by the instructions they need.
enum class MirrorKernel { kPortable, kSsse3 };

/// Makes append_escaped_copy run kernel `k`, if this CPU has what it needs (else returns false
/// and changes nothing). It starts with the best one; tests run each.
bool use_mirror_kernel(MirrorKernel k);

/// Appends the McpToolResult of Azure Functions' MCP extension, the object a worker that owns a
/// tool's result hands the host: {"type": <type>, "content": <content as a JSON string>,
/// "structuredContent": <structured as a JSON string, or null>}, laid out as Python's json.dumps
/// lays it out by default. `content` and `structured` are ASCII JSON text (append_python_default
/// writes it), `type` a word written as it is. With `mirror`, `content` is not used: the content
/// is the text block mirroring `structured`, {"type": "text", "text": <structured as a JSON
/// string>}, so that `structured` is escaped once for structuredContent and twice for the mirror.
void append_mcp_tool_result(JsonWriter& out, std::string_view type, std::string_view content,
                            std::optional<std::string_view> structured, bool mirror);

}  // namespace mcp_native
