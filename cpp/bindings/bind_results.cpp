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

const char* const kContentTypes[] = {"text", "image", "audio", "resource_link", "resource"};

// TypeError/ValueError naming the argument unless content is None or a list of dicts whose
// "type" is a content block type.
bool check_content(PyObject* content) {
  if (!PyList_Check(content)) {
    PyErr_Format(PyExc_TypeError, "content: expected a list of content blocks, got %s", Py_TYPE(content)->tp_name);
    return false;
  }
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(content); ++i) {
    PyObject* block = PyList_GET_ITEM(content, i);
    if (!PyDict_Check(block)) {
      PyErr_Format(PyExc_TypeError, "content[%zd]: expected a content block dict, got %s", i, Py_TYPE(block)->tp_name);
      return false;
    }
    PyObject* type = PyDict_GetItemWithError(block, g_type_key);
    if (type == nullptr && PyErr_Occurred()) return false;
    bool known = false;
    if (type != nullptr && PyUnicode_Check(type)) {
      for (const char* t : kContentTypes) known = known || PyUnicode_CompareWithASCIIString(type, t) == 0;
    }
    if (!known) {
      PyErr_Format(PyExc_ValueError, "content[%zd].type: %R is not one of audio, image, resource, resource_link, text",
                   i, type != nullptr ? type : Py_None);
      return false;
    }
  }
  return true;
}

enum Flags : long { kComplete = 1, kObjectOnly = 2 };

// encode_tool_response(check, flags, invalid, request_id, structured, content=None, meta=None)
PyObject* py_encode_tool_response(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* a[7] = {nullptr, nullptr, nullptr, nullptr, nullptr, Py_None, Py_None};
  if (nargs < 5 || nargs > 7) {
    PyErr_Format(PyExc_TypeError, "encode_response() takes 2 positional arguments (request_id, structured) and content, meta");
    return nullptr;
  }
  for (Py_ssize_t i = 0; i < nargs; ++i) a[i] = args[i];
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t i = 0; i < nkw; ++i) {
    PyObject* name = PyTuple_GET_ITEM(kwnames, i);
    const int slot = PyUnicode_CompareWithASCIIString(name, "content") == 0 ? 5
                     : PyUnicode_CompareWithASCIIString(name, "meta") == 0  ? 6
                                                                            : -1;
    if (slot < 0 || slot < nargs) {
      PyErr_Format(PyExc_TypeError, "encode_response() got an unexpected keyword argument '%U'", name);
      return nullptr;
    }
    a[slot] = args[nargs + i];
  }
  PyObject* check = a[0];
  const long flags = PyLong_AsLong(a[1]);
  if (flags == -1 && PyErr_Occurred()) return nullptr;
  PyObject* invalid = a[2];
  PyObject* id = a[3];
  PyObject* structured = a[4];
  PyObject* content = a[5] == Py_None ? nullptr : a[5];
  PyObject* meta = a[6] == Py_None ? nullptr : a[6];
  if (!PyUnicode_Check(id) && !(PyLong_Check(id) && !PyBool_Check(id))) {
    PyErr_Format(PyExc_TypeError, "request_id: expected str or int, got %s", Py_TYPE(id)->tp_name);
    return nullptr;
  }
  if ((flags & kObjectOnly) && !PyDict_Check(structured)) {
    PyErr_Format(PyExc_TypeError, "structured: protocol versions before 2026-07-28 require an object (dict), got %s",
                 Py_TYPE(structured)->tp_name);
    return nullptr;
  }
  if (content != nullptr && !check_content(content)) return nullptr;
  if (meta != nullptr && !PyDict_Check(meta)) {
    PyErr_Format(PyExc_TypeError, "meta: expected a dict, got %s", Py_TYPE(meta)->tp_name);
    return nullptr;
  }
  if (check != Py_None) {
    PyObject* ok = PyObject_CallOneArg(check, structured);
    if (ok == nullptr) return nullptr;
    const int valid = PyObject_IsTrue(ok);
    Py_DECREF(ok);
    if (valid < 0) return nullptr;
    if (!valid) {
      PyObject* call[4] = {id, structured, a[5], a[6]};
      return PyObject_Vectorcall(invalid, call, 4, nullptr);
    }
  }
  const bool complete = flags & kComplete;

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
     METH_FASTCALL | METH_KEYWORDS,
     "encode_tool_response($module, check, flags, invalid, request_id, structured, content=None, meta=None)\n"
     "--\n\n"
     "The JSON-RPC response line of a CallToolResult (see _core.pyi)."},
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
