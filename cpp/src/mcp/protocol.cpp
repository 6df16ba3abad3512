#include "mcp_native/mcp/protocol.hpp"

namespace mcp_native {

std::optional<ProtocolVersion> parse_protocol_version(std::string_view name) noexcept {
  if (name == "2024-11-05") return ProtocolVersion::v2024_11_05;
  if (name == "2025-03-26") return ProtocolVersion::v2025_03_26;
  if (name == "2025-06-18") return ProtocolVersion::v2025_06_18;
  if (name == "2025-11-25") return ProtocolVersion::v2025_11_25;
  if (name == "2026-07-28") return ProtocolVersion::v2026_07_28;
  return std::nullopt;
}

}  // namespace mcp_native
