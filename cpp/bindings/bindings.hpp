// Registration functions of the extension module, one per concern.
#pragma once
#include <pybind11/pybind11.h>

namespace mcp_native::bindings {

/// dumps/loads: the JSON codec.
void bind_json(pybind11::module_& m);
/// Validator: the compiled JSON Schema engine.
void bind_schema(pybind11::module_& m);
/// JSON-RPC framing, SSE and tool results.
void bind_wire(pybind11::module_& m);
/// Tool results: one-pass JSON-RPC responses of tools/call.
void bind_results(pybind11::module_& m);
/// OutputShape: a tool's return value its output model would give back unchanged, copied.
void bind_outputs(pybind11::module_& m);

}  // namespace mcp_native::bindings
