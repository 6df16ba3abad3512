#include "bindings.hpp"
#include "mcp_native/util/build_info.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_core, m) {
  m.doc() = "Native core of mcp-native";
  mcp_native::bindings::bind_json(m);
  mcp_native::bindings::bind_schema(m);
  mcp_native::bindings::bind_wire(m);
  mcp_native::bindings::bind_results(m);
  mcp_native::bindings::bind_outputs(m);
  m.def(
      "build_info",
      [] {
        mcp_native::BuildInfo info = mcp_native::build_info();
        py::dict d;
        d["compiler"] = info.compiler;
        d["simdjson_version"] = info.simdjson_version;
        d["simdjson_kernel"] = info.simdjson_kernel;
        d["pcre2_version"] = info.pcre2_version;
        d["pcre2_jit"] = info.pcre2_jit;
        return d;
      },
      "What the native core was built with and the SIMD kernel simdjson chose; see mcp_native.build_info().");
}
