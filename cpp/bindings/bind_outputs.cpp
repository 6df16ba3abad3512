// Output shapes: a tool's return value that already is what its pydantic output model gives
// back (validated, then dumped in JSON mode; or serialized to JSON and parsed back) is copied
// here instead.
//
// Exact Python types are the point: pydantic's lax mode turns 1 into 1.0 under a float, 1.0
// into 1 under an int, a tuple into a list and a typed dict's keys into the model's order, so a
// value is only copied where none of that can happen: str, int, float (finite), bool, None,
// list and dict exactly, a dict's keys those of the shape's fields in their order, the required
// ones all there, nothing else. The shape itself is proven from the model's core schema on the
// Python side (mcp_native.adapters._engines.outputs); this walk runs no Python code, so the
// value cannot change under it.
#include <cmath>
#include <cstdint>
#include <vector>

#include "bindings.hpp"

namespace mcp_native::bindings {
namespace {

enum class ShapeKind : std::uint8_t { Str, Text, Int, Float, Bool, Nullable, List, Dict };

struct ShapeField {
  PyObject* key;  // str, owned
  bool required;
  std::uint32_t node;
};

struct ShapeNode {
  ShapeKind kind;
  std::uint32_t child = 0;           // Nullable: the value's node; List: the items'
  std::vector<ShapeField> fields{};  // Dict, in the model's order
};

struct OutputShape {
  PyObject_HEAD std::vector<ShapeNode>* nodes;
};

bool same_key(PyObject* field, PyObject* key) {
  return field == key || PyUnicode_Compare(field, key) == 0;  // both exact str: no Python code runs
}

// A copy of `o` when it has the node's shape exactly, else nullptr: with an exception set only
// when the copy itself failed (memory).
PyObject* copy(const std::vector<ShapeNode>& nodes, std::uint32_t at, PyObject* o) {
  const ShapeNode& n = nodes[at];
  switch (n.kind) {
    case ShapeKind::Str: return Py_IS_TYPE(o, &PyUnicode_Type) ? Py_NewRef(o) : nullptr;
    case ShapeKind::Text:  // a str UTF-8 can encode (no lone surrogate), as JSON text must
      if (!Py_IS_TYPE(o, &PyUnicode_Type)) return nullptr;
      if (PyUnicode_AsUTF8AndSize(o, nullptr) == nullptr) {
        PyErr_Clear();
        return nullptr;
      }
      return Py_NewRef(o);
    case ShapeKind::Int: return Py_IS_TYPE(o, &PyLong_Type) ? Py_NewRef(o) : nullptr;
    case ShapeKind::Float:
      return Py_IS_TYPE(o, &PyFloat_Type) && std::isfinite(PyFloat_AS_DOUBLE(o)) ? Py_NewRef(o) : nullptr;
    case ShapeKind::Bool: return Py_IS_TYPE(o, &PyBool_Type) ? Py_NewRef(o) : nullptr;
    case ShapeKind::Nullable: return o == Py_None ? Py_NewRef(o) : copy(nodes, n.child, o);
    case ShapeKind::List: {
      if (!Py_IS_TYPE(o, &PyList_Type)) return nullptr;
      const Py_ssize_t size = PyList_GET_SIZE(o);
      PyObject* out = PyList_New(size);
      for (Py_ssize_t i = 0; out != nullptr && i < size; ++i) {
        PyObject* item = copy(nodes, n.child, PyList_GET_ITEM(o, i));
        if (item == nullptr)
          Py_CLEAR(out);
        else
          PyList_SET_ITEM(out, i, item);
      }
      return out;
    }
    case ShapeKind::Dict: {
      if (!Py_IS_TYPE(o, &PyDict_Type)) return nullptr;
      PyObject* out = PyDict_New();
      Py_ssize_t pos = 0;
      PyObject *key, *value;
      std::size_t f = 0;
      const std::size_t count = n.fields.size();
      while (out != nullptr && PyDict_Next(o, &pos, &key, &value)) {
        if (!Py_IS_TYPE(key, &PyUnicode_Type)) {
          Py_CLEAR(out);
          break;
        }
        while (f < count && !n.fields[f].required && !same_key(n.fields[f].key, key)) ++f;  // absent, optional
        PyObject* item = f < count && same_key(n.fields[f].key, key) ? copy(nodes, n.fields[f].node, value) : nullptr;
        if (item == nullptr || PyDict_SetItem(out, n.fields[f].key, item) != 0) Py_CLEAR(out);
        Py_XDECREF(item);
        ++f;
      }
      for (; out != nullptr && f < count; ++f)
        if (n.fields[f].required) Py_CLEAR(out);
      return out;
    }
  }
  return nullptr;
}

// Reads a shape from its spec (see OutputShape's docstring) into `nodes`; returns its index.
std::uint32_t read_spec(std::vector<ShapeNode>& nodes, PyObject* spec, int depth) {
  if (depth > 64) throw pybind11::value_error("OutputShape: the spec nests more than 64 levels");
  if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) < 1 || !PyUnicode_Check(PyTuple_GET_ITEM(spec, 0)))
    throw pybind11::type_error("OutputShape: a spec is a tuple starting with its kind");
  const std::string kind = pybind11::cast<std::string>(PyTuple_GET_ITEM(spec, 0));
  const Py_ssize_t size = PyTuple_GET_SIZE(spec);
  static const std::pair<const char*, ShapeKind> leaves[] = {{"str", ShapeKind::Str},
                                                             {"text", ShapeKind::Text},
                                                             {"int", ShapeKind::Int},
                                                             {"float", ShapeKind::Float},
                                                             {"bool", ShapeKind::Bool}};
  for (const auto& [name, leaf] : leaves)
    if (kind == name && size == 1) {
      nodes.push_back(ShapeNode{leaf});
      return static_cast<std::uint32_t>(nodes.size() - 1);
    }
  if ((kind == "nullable" || kind == "list") && size == 2) {
    const std::uint32_t child = read_spec(nodes, PyTuple_GET_ITEM(spec, 1), depth + 1);
    nodes.push_back(ShapeNode{kind == "list" ? ShapeKind::List : ShapeKind::Nullable, child});
    return static_cast<std::uint32_t>(nodes.size() - 1);
  }
  if (kind == "dict" && size == 2 && PyTuple_Check(PyTuple_GET_ITEM(spec, 1))) {
    PyObject* fields = PyTuple_GET_ITEM(spec, 1);
    std::vector<ShapeField> read;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(fields); ++i) {
      PyObject* field = PyTuple_GET_ITEM(fields, i);
      if (!PyTuple_Check(field) || PyTuple_GET_SIZE(field) != 3 || !PyUnicode_CheckExact(PyTuple_GET_ITEM(field, 0)) ||
          !PyBool_Check(PyTuple_GET_ITEM(field, 1)))
        throw pybind11::type_error("OutputShape: a field is (name: str, required: bool, spec)");
      read.push_back(ShapeField{PyTuple_GET_ITEM(field, 0), PyTuple_GET_ITEM(field, 1) == Py_True,
                                read_spec(nodes, PyTuple_GET_ITEM(field, 2), depth + 1)});
    }
    for (ShapeField& f : read) Py_INCREF(f.key);
    nodes.push_back(ShapeNode{ShapeKind::Dict, 0, std::move(read)});
    return static_cast<std::uint32_t>(nodes.size() - 1);
  }
  throw pybind11::value_error("OutputShape: unknown spec " + pybind11::repr(spec).cast<std::string>());
}

void release(std::vector<ShapeNode>* nodes) {
  if (nodes == nullptr) return;
  for (ShapeNode& n : *nodes)
    for (ShapeField& f : n.fields) Py_DECREF(f.key);
  delete nodes;
}

int shape_init(PyObject* self, PyObject* args, PyObject* kwargs) {
  PyObject* spec;
  static const char* names[] = {"spec", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:OutputShape", const_cast<char**>(names), &spec)) return -1;
  auto* nodes = new std::vector<ShapeNode>();
  try {
    read_spec(*nodes, spec, 0);
  } catch (pybind11::builtin_exception& e) {
    release(nodes);
    e.set_error();
    return -1;
  } catch (...) {
    release(nodes);
    PyErr_SetString(PyExc_RuntimeError, "OutputShape: could not read the spec");
    return -1;
  }
  auto* shape = reinterpret_cast<OutputShape*>(self);
  release(shape->nodes);
  shape->nodes = nodes;
  return 0;
}

void shape_dealloc(PyObject* self) {
  release(reinterpret_cast<OutputShape*>(self)->nodes);
  PyTypeObject* type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);
}

PyObject* shape_copy(PyObject* self, PyObject* value) {
  const std::vector<ShapeNode>* nodes = reinterpret_cast<OutputShape*>(self)->nodes;
  if (nodes == nullptr || nodes->empty()) {
    PyErr_SetString(PyExc_ValueError, "OutputShape was not initialised");
    return nullptr;
  }
  PyObject* out = copy(*nodes, static_cast<std::uint32_t>(nodes->size() - 1), value);
  if (out != nullptr || PyErr_Occurred()) return out;
  Py_RETURN_NONE;
}

PyMethodDef shape_methods[] = {
    {"copy", shape_copy, METH_O,
     "copy($self, value, /)\n--\n\n"
     "A copy of value (new lists and dicts) when it has the shape exactly, else None."},
    {nullptr, nullptr, 0, nullptr},
};

PyType_Slot shape_slots[] = {
    {Py_tp_doc, const_cast<char*>("OutputShape(spec)\n--\n\n"
                                  "The exact shape of a value an output model gives back unchanged (see _core.pyi).")},
    {Py_tp_new, reinterpret_cast<void*>(PyType_GenericNew)},
    {Py_tp_init, reinterpret_cast<void*>(shape_init)},
    {Py_tp_dealloc, reinterpret_cast<void*>(shape_dealloc)},
    {Py_tp_methods, shape_methods},
    {0, nullptr},
};

PyType_Spec shape_spec = {
    "mcp_native._core.OutputShape", sizeof(OutputShape), 0, Py_TPFLAGS_DEFAULT, shape_slots,
};

}  // namespace

void bind_outputs(pybind11::module_& m) {
  PyObject* shape = PyType_FromSpec(&shape_spec);
  const bool ok = shape && PyModule_AddObjectRef(m.ptr(), "OutputShape", shape) == 0;
  Py_XDECREF(shape);
  if (!ok) throw pybind11::error_already_set();
}

}  // namespace mcp_native::bindings
