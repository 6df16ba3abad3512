#include "bindings.hpp"

PYBIND11_MODULE(_core, m) {
  m.doc() = "Native core of mcp-native";
  mcp_native::bindings::bind_json(m);
  mcp_native::bindings::bind_schema(m);
  mcp_native::bindings::bind_wire(m);
  mcp_native::bindings::bind_results(m);
}
