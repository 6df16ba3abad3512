// The MCP protocol versions and the rules that tell them apart, in one place for the core and
// the bindings (python/mcp_native/protocol.py is the Python layer's copy of the same facts).
#pragma once

#include <optional>
#include <string_view>

namespace mcp_native {

/// The protocol versions, in release order (so they compare by age). The SDKs still negotiate
/// the two oldest; the package has the schemas of the three newest.
enum class ProtocolVersion { v2024_11_05, v2025_03_26, v2025_06_18, v2025_11_25, v2026_07_28 };

/// Parses a version name such as "2025-11-25"; nullopt if it is none of the above.
std::optional<ProtocolVersion> parse_protocol_version(std::string_view name) noexcept;

/// The names that parse_protocol_version() accepts, for error messages.
inline constexpr std::string_view kProtocolVersionNames =
    "'2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'";

/// Up to 2025-06-18 a JSON-RPC error response must have an id: an answer to a request whose id
/// cannot be read says "id": null (JSON-RPC 2.0). Later schemas make it optional and never null.
constexpr bool error_id_required(ProtocolVersion v) { return v <= ProtocolVersion::v2025_06_18; }

/// 2025-03-26 (only) allows JSON-RPC batches: a JSON array of messages on one line.
constexpr bool allows_batches(ProtocolVersion v) { return v == ProtocolVersion::v2025_03_26; }

/// Tool results carry `structuredContent` (and tools an `outputSchema`) from 2025-06-18 on.
constexpr bool has_structured_content(ProtocolVersion v) { return v >= ProtocolVersion::v2025_06_18; }

/// From 2026-07-28 on, `structuredContent` may be any JSON value (before: an object) and every
/// result carries `resultType`.
constexpr bool structured_content_any_json(ProtocolVersion v) { return v >= ProtocolVersion::v2026_07_28; }

}  // namespace mcp_native
