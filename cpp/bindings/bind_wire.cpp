#include "bindings.hpp"

namespace mcp_native::bindings {

void bind_wire(pybind11::module_& /*m*/) {}

}  // namespace mcp_native::bindings
