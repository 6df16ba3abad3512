// Removed once the first core source lands.
namespace mcp_native {}
