#include "bindings.hpp"
#include "py_json.hpp"

namespace mcp_native::bindings {
namespace {

// Raw METH_FASTCALL functions: on small messages pybind11's dispatcher would cost more than the
// work itself. The first docstring line is the signature that inspect.signature() reads.
PyMethodDef json_methods[] = {
    {"dumps", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_dumps)), METH_FASTCALL | METH_KEYWORDS,
     "dumps($module, obj, *, default=None, sort_keys=False, indent=None)\n--\n\n"
     "Serialize obj to compact JSON bytes, identical to\n"
     "json.dumps(obj, separators=(',', ':'), ensure_ascii=False, allow_nan=False).encode();\n"
     "with indent=N, to json.dumps(obj, indent=N, ensure_ascii=False, allow_nan=False).encode()."},
    {"pydantic_json_text", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_pydantic_json_text)),
     METH_FASTCALL,
     "pydantic_json_text($module, obj, indent, /)\n--\n\n"
     "The str pydantic_core.to_json(obj, indent=indent).decode() returns for JSON-native obj\n"
     "(for the adapters: MCPServer's text mirror)."},
    {"loads", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_loads)), METH_FASTCALL | METH_KEYWORDS,
     "loads($module, data)\n--\n\n"
     "Parse a JSON document (bytes, bytearray, memoryview or str) into Python objects."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

void bind_json(pybind11::module_& m) {
  if (PyModule_AddFunctions(m.ptr(), json_methods) < 0) throw pybind11::error_already_set();
}

}  // namespace mcp_native::bindings
