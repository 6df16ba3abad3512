// Tool results: the JSON-RPC response line of a tools/call, written in one pass.
#include <new>

#include "bindings.hpp"
#include "mcp_native/text_mirror.hpp"
#include "py_json.hpp"

namespace mcp_native::bindings {
namespace {

PyObject* g_type_key;  // interned "type"
JsonWriter* g_writer;  // reused between calls; a re-entrant call (from check()) uses its own
bool g_writer_busy;

// True if `content` (a list of dicts) holds a block with "type": "text"; -1 with an exception.
int has_text_block(PyObject* content) {
  const Py_ssize_t n = PyList_GET_SIZE(content);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* block = PyList_GET_ITEM(content, i);
    if (!PyDict_Check(block)) continue;
    PyObject* type = PyDict_GetItemWithError(block, g_type_key);
    if (type == nullptr) {
      if (PyErr_Occurred()) return -1;
      continue;
    }
    if (PyUnicode_Check(type) && PyUnicode_CompareWithASCIIString(type, "text") == 0) return 1;
  }
  return 0;
}

bool write_response(JsonWriter& w, PyObject* id, PyObject* structured, PyObject* content,
                    PyObject* meta, bool complete) {
  w.append(R"({"jsonrpc":"2.0","id":)");
  if (!dump_py(w, id)) return false;
  w.append(R"(,"result":{"structuredContent":)");
  const std::size_t start = w.size();
  if (!dump_py(w, structured)) return false;
  const std::size_t end = w.size();
  w.append(R"(,"content":[)");
  int text = content == nullptr ? 0 : has_text_block(content);
  if (text < 0) return false;
  if (!text) {
    // The text mirror: the structuredContent bytes just written, escaped once more.
    w.append(R"({"type":"text","text":")");
    append_escaped_copy(w, start, end);
    w.append(R"("})");
  }
  if (content != nullptr) {
    const Py_ssize_t n = PyList_GET_SIZE(content);
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (i > 0 || !text) w.put(',');
      if (!dump_py(w, PyList_GET_ITEM(content, i))) return false;
    }
  }
  w.put(']');
  if (meta != nullptr) {
    w.append(R"(,"_meta":)");
    if (!dump_py(w, meta)) return false;
  }
  if (complete) w.append(R"(,"resultType":"complete")");
  w.append("}}\n");
  return true;
}

// encode_tool_response(request_id, structured, content, meta, check, complete, /)
PyObject* py_encode_tool_response(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 6) {
    PyErr_Format(PyExc_TypeError, "encode_tool_response() takes 6 arguments (%zd given)", nargs);
    return nullptr;
  }
  PyObject* id = args[0];
  PyObject* structured = args[1];
  PyObject* content = args[2] == Py_None ? nullptr : args[2];
  PyObject* meta = args[3] == Py_None ? nullptr : args[3];
  PyObject* check = args[4];
  if (content != nullptr && !PyList_Check(content)) {
    PyErr_Format(PyExc_TypeError, "content: expected a list, got %s", Py_TYPE(content)->tp_name);
    return nullptr;
  }
  const int complete = PyObject_IsTrue(args[5]);
  if (complete < 0) return nullptr;
  if (check != Py_None) {
    PyObject* ok = PyObject_CallOneArg(check, structured);
    if (ok == nullptr) return nullptr;
    const int valid = PyObject_IsTrue(ok);
    Py_DECREF(ok);
    if (valid < 0) return nullptr;
    if (!valid) Py_RETURN_NONE;
  }

  if (g_writer == nullptr) g_writer = new (std::nothrow) JsonWriter();
  JsonWriter own;
  const bool shared = g_writer != nullptr && !g_writer_busy;
  JsonWriter& w = shared ? *g_writer : own;
  if (shared) g_writer_busy = true;
  w.clear();
  PyObject* result = nullptr;
  try {
    if (write_response(w, id, structured, content, meta, complete)) {
      result = PyBytes_FromStringAndSize(w.data(), static_cast<Py_ssize_t>(w.size()));
    }
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  }
  if (shared) {
    g_writer_busy = false;
    if (w.capacity() > (std::size_t{1} << 22)) w.release();  // don't keep a huge buffer
  }
  return result;
}

PyMethodDef results_methods[] = {
    {"encode_tool_response",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(py_encode_tool_response)),
     METH_FASTCALL,
     "encode_tool_response($module, request_id, structured, content, meta, check, complete, /)\n"
     "--\n\n"
     "The JSON-RPC response line of a CallToolResult: structuredContent written once, its bytes\n"
     "escaped into a leading text block unless content has one, then _meta and resultType.\n"
     "check(structured) runs first; returns None when it is false."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

void bind_results(pybind11::module_& m) {
  g_type_key = PyUnicode_InternFromString("type");
  if (g_type_key == nullptr || PyModule_AddFunctions(m.ptr(), results_methods) < 0) {
    throw pybind11::error_already_set();
  }
}

}  // namespace mcp_native::bindings
