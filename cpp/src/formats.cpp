#include "mcp_native/formats.hpp"

namespace mcp_native::formats {

Checker find(std::string_view) noexcept { return nullptr; }

}  // namespace mcp_native::formats
