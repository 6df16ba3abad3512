// The Python side of the JSON codec, shared by every binding that reads or writes JSON.
#pragma once

#include <Python.h>
#include <simdjson.h>

#include <string_view>

#include "mcp_native/json_writer.hpp"

namespace mcp_native::bindings {

/// Deepest level of a value that dump_py writes and loads accepts: the top-level value is at
/// level 1, the items of a list or dict one level below it (so 1023 nested non-empty lists).
inline constexpr int kMaxJsonDepth = 1024;

/// Serialize obj as compact JSON into out, byte-identical to
/// json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode().
/// default_fn (may be null) is called for values of other types; sort_keys sorts dict keys by
/// code point. On failure sets a Python exception and returns false (out then holds a partial
/// document).
bool dump_py(mcp_native::JsonWriter& out, PyObject* obj, PyObject* default_fn = nullptr,
             bool sort_keys = false);

/// Build a Python object from a parsed simdjson DOM element (new reference), or set a Python
/// exception and return nullptr.
PyObject* element_to_py(simdjson::dom::element el);

/// Raise mcp_native.JSONDecodeError for a simdjson error on document `doc` (sets the exception),
/// with a message and the position of the first error in the document.
void raise_decode_error(simdjson::error_code err, std::string_view doc);

/// Parse a whole UTF-8 document into Python objects, exactly as mcp_native.loads does
/// (including integers beyond 64 bits). Returns a new reference, or nullptr with
/// mcp_native.JSONDecodeError set. Uses the module's shared parser: call with the GIL held.
PyObject* parse_to_py(std::string_view doc);

/// mcp_native.dumps and mcp_native.loads, as METH_FASTCALL | METH_KEYWORDS functions.
PyObject* py_dumps(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);
PyObject* py_loads(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);

}  // namespace mcp_native::bindings
