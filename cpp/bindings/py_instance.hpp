// The PyObject* instance view of the schema engine (see mcp_native/schema/views.hpp for the concept).
#pragma once

#include <Python.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "mcp_native/schema/evaluator.hpp"
#include "py_dict.hpp"
#include "py_int.hpp"

namespace mcp_native::bindings {

using schema::InstanceError;
using schema::Kind;
using schema::Num;

/// Python objects as JSON: dict (str keys), list/tuple, str, int (not bool), float (finite),
/// bool, None. The GIL must be held.
struct PyView {
  using Value = PyObject*;
  struct Env {
    const std::vector<PyObject*>* keys;  ///< interned str for each Program::keys entry
    /// Decimal text of the integers beyond 64 bits met in the call (their Nums refer to it).
    mutable std::vector<std::unique_ptr<std::string>> big_ints = {};
  };
  static constexpr bool kFastLookup = true;
  static constexpr bool kUtf8Strings = false;  // str_len is the str's length

  [[gnu::always_inline]] static Kind kind(const Env&, PyObject* o) {
    PyTypeObject* t = Py_TYPE(o);
    if (t == &PyUnicode_Type) return Kind::String;
    if (t == &PyDict_Type) return Kind::Object;
    if (t == &PyList_Type) return Kind::Array;
    if (t == &PyLong_Type) return Kind::Number;
    if (t == &PyFloat_Type && std::isfinite(PyFloat_AS_DOUBLE(o))) return Kind::Number;
    if (t == &PyBool_Type) return Kind::Bool;
    if (o == Py_None) return Kind::Null;
    return other_kind(o);
  }
  [[gnu::noinline]] static Kind other_kind(PyObject* o) {
    PyTypeObject* t = Py_TYPE(o);
    if (t == &PyFloat_Type) return check_float(o);
    if (t == &PyTuple_Type) return Kind::Array;
    if (PyUnicode_Check(o)) return Kind::String;
    if (PyDict_Check(o)) return Kind::Object;
    if (PyList_Check(o) || PyTuple_Check(o)) return Kind::Array;
    if (PyLong_Check(o)) return Kind::Number;
    if (PyFloat_Check(o)) return check_float(o);
    throw InstanceError(std::string("value of type '") + t->tp_name + "' is not a JSON value", true);
  }
  static Kind check_float(PyObject* o) {
    if (!std::isfinite(PyFloat_AS_DOUBLE(o)))
      throw InstanceError(
          "float " + std::string(std::isnan(PyFloat_AS_DOUBLE(o)) ? "nan" : "inf") + " is not a JSON number", false);
    return Kind::Number;
  }
  static bool boolean(PyObject* o) { return o == Py_True; }
  static bool exact_int(PyObject* o) { return Py_TYPE(o) == &PyLong_Type; }
  static Num num(const Env& e, PyObject* o) {
    Num n;
    if (small_int(o, n.int64)) return n;  // (kind is Int already)
    if (PyFloat_Check(o)) {
      n.kind = Num::Float;
      n.number = PyFloat_AS_DOUBLE(o);
      return n;
    }
    switch (int_range(o, n.int64, n.uint64)) {
      case IntRange::kInt64: return n;  // (kind is Int already)
      case IntRange::kUInt64: n.kind = Num::UInt; return n;
      case IntRange::kBeyond: break;
    }
    return exact_int(e, o);
  }
  // An int of at most one internal digit, read in place (the common case; a call otherwise).
  [[gnu::always_inline]] static bool small_int(PyObject* o, int64_t& out) {
    return Py_TYPE(o) == &PyLong_Type && compact_int(o, out);
  }
  // Integers beyond 64 bits, exactly, from their decimal text (rare).
  static Num exact_int(const Env& e, PyObject* o) {
    PyObject* text = PyObject_Str(o);
    if (!text) {  // beyond sys.get_int_max_str_digits()
      PyErr_Clear();
      throw InstanceError("integer with more digits than sys.get_int_max_str_digits() allows", false);
    }
    Py_ssize_t len;
    const char* s = PyUnicode_AsUTF8AndSize(text, &len);
    e.big_ints.push_back(std::make_unique<std::string>(s, (size_t)len));
    Py_DECREF(text);
    return schema::num_of_decimal(*e.big_ints.back());
  }
  static std::string_view str(const Env&, PyObject* o) {
    if (PyUnicode_IS_COMPACT_ASCII(o))  // the text is stored right after the header
      return {(const char*)(((PyASCIIObject*)o) + 1), (size_t)PyUnicode_GET_LENGTH(o)};
    Py_ssize_t n;
    const char* s = PyUnicode_AsUTF8AndSize(o, &n);
    if (!s) {
      PyErr_Clear();
      throw InstanceError("string is not valid Unicode (lone surrogate)", false);
    }
    return {s, (size_t)n};
  }
  static size_t str_len(PyObject* o) { return (size_t)PyUnicode_GET_LENGTH(o); }
  static size_t arr_size(PyObject* o) { return (size_t)Py_SIZE(o); }
  static size_t obj_size(PyObject* o) { return (size_t)PyDict_GET_SIZE(o); }
  template <class F>
  static bool arr_each(const Env&, PyObject* o, F&& f) {
    PyObject** items = PyList_Check(o) ? ((PyListObject*)o)->ob_item : ((PyTupleObject*)o)->ob_item;
    Py_ssize_t n = Py_SIZE(o);
    for (Py_ssize_t i = 0; i < n; ++i)
      if (!f((size_t)i, items[i])) return false;
    return true;
  }
  template <class F>
  static bool obj_each(const Env& e, PyObject* o, F&& f) {
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (dict_next(o, &pos, &k, &v)) {
      if (!PyUnicode_Check(k)) throw_key(k);
      if (!f(str(e, k), v)) return false;
    }
    return true;
  }
  [[noreturn]] static void throw_key(PyObject* k) {
    throw InstanceError(std::string("dict key of type '") + Py_TYPE(k)->tp_name + "' is not a string", true);
  }
  static bool find(const Env& e, PyObject* o, const schema::Program&, uint32_t key, PyObject*& out) {
    out = PyDict_GetItemWithError(o, (*e.keys)[key]);
    if (!out && PyErr_Occurred()) PyErr_Clear();
    return out != nullptr;
  }
};

/// A compiled schema as evaluations on Python objects need it: the program and the interned str
/// of each of its property names (PyView::Env::keys).
struct CompiledSchema {
  const schema::Program* program = nullptr;
  const std::vector<PyObject*>* keys = nullptr;
};

/// The compiled schema of a SchemaValidator (mcp_native.Validator), which must stay alive while
/// it is used; an empty one (program null) when `validator` is not an initialized one.
CompiledSchema compiled_schema(PyObject* validator);

}  // namespace mcp_native::bindings
