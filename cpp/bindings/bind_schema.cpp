// Python bindings of the schema engine: the native SchemaValidator (mcp_native.Validator's base).
#include <pybind11/stl.h>

#include <cstring>
#include <unordered_set>

#include "bindings.hpp"
#include "mcp_native/json/padded.hpp"
#include "mcp_native/json/syntax.hpp"
#include "mcp_native/schema/text_views.hpp"
#include "py_instance.hpp"
#include "py_int.hpp"
#include "py_json.hpp"

namespace py = pybind11;

namespace mcp_native::bindings {
namespace {

using namespace mcp_native::schema;

py::object errors_module() { return py::module_::import("mcp_native.errors"); }

py::tuple path_tuple(const std::vector<PathTok>& path) {
  py::tuple t(path.size());
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i].index >= 0)
      t[i] = py::int_(path[i].index);
    else
      t[i] = py::str(path[i].key);
  }
  return t;
}

[[noreturn]] void raise_schema_error(const SchemaError& e) {
  PyErr_SetObject(errors_module().attr("SchemaError").ptr(), py::make_tuple(e.what(), path_tuple(e.path)).ptr());
  throw py::error_already_set();
}

[[noreturn]] void raise_limit(const std::string& msg) {
  py::object err = errors_module().attr("ValidationError")(msg, py::tuple(), py::tuple(), "limits");
  PyErr_SetObject(errors_module().attr("ValidationError").ptr(), err.ptr());
  throw py::error_already_set();
}

// Runs f, turning engine exceptions into the package's Python exceptions.
template <class F>
auto guarded(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const SchemaError& e) {
    raise_schema_error(e);
  } catch (const LimitError& e) {
    raise_limit(e.what());
  } catch (const InstanceError& e) {
    if (e.type_error) throw py::type_error(std::string("instance is not JSON: ") + e.what());
    throw py::value_error(std::string("instance is not JSON: ") + e.what());
  }
}

// Where an instance is not JSON: the first value in document order that PyView refuses, with
// its path. Looked for only once an evaluation has failed on such a value (it visits the whole
// instance; each container once, so that shared or cyclic ones cost no more).
class NonJsonFinder {
 public:
  explicit NonJsonFinder(uint32_t max_depth) : max_depth_(max_depth) {}

  /// The error for the first such value, "... at /pointer"; false when there is none.
  bool find(PyObject* o, std::string& what, bool& type_error) {
    if (!visit(o)) return false;
    what = found_what_ + (found_path_.empty() ? "" : " at " + pointer(found_path_));
    type_error = found_type_error_;
    return true;
  }

 private:
  uint32_t max_depth_;
  std::vector<PathTok> path_, found_path_;
  std::unordered_set<PyObject*> seen_;
  std::string found_what_;
  bool found_type_error_ = false;
  PyView::Env env_{nullptr};

  bool visit(PyObject* o) {
    try {
      const Kind k = PyView::kind(env_, o);
      if (k == Kind::String) PyView::str(env_, o);
      if (k == Kind::Number) PyView::num(env_, o);
      if ((k != Kind::Array && k != Kind::Object) || path_.size() >= max_depth_ || !seen_.insert(o).second)
        return false;
      if (k == Kind::Array)
        return !PyView::arr_each(env_, o, [&](size_t i, PyObject* x) { return !at(PathTok::at((int64_t)i), x); });
      return !PyView::obj_each(env_, o, [&](std::string_view key, PyObject* x) { return !at(PathTok::of(key), x); });
    } catch (const InstanceError& e) {  // o itself, or one of its keys
      found_what_ = e.what();
      found_type_error_ = e.type_error;
      found_path_ = path_;
      return true;
    }
  }
  bool at(PathTok tok, PyObject* x) {
    path_.push_back(std::move(tok));
    const bool found = visit(x);
    path_.pop_back();
    return found;
  }
};

// Python value (schema document) -> Json. `path` locates o in the document, for errors.
class ToJson {
 public:
  // A subschema level is two JSON levels (a keyword's map or array, then the subschema), and
  // keyword values such as `enum` arrays add a few more.
  static constexpr uint64_t kJsonLevelsPerSchemaLevel = 2, kValueLevels = 8;

  explicit ToJson(uint32_t max_schema_depth)
      : max_schema_depth_(max_schema_depth), max_depth_(kJsonLevelsPerSchemaLevel * max_schema_depth + kValueLevels) {}

  Json operator()(PyObject* o) {
    path_.clear();
    return convert(o);
  }

 private:
  uint32_t max_schema_depth_;
  uint64_t max_depth_;
  std::vector<PathTok> path_;

  [[noreturn]] void fail(const std::string& what) {
    throw SchemaError("schema " + what + " at '" + pointer(path_) + "'", path_);
  }

  // The UTF-8 text of a str; one with none (lone surrogates) is not JSON text.
  std::string utf8(PyObject* o, const char* what) {
    Py_ssize_t n;
    if (const char* p = PyUnicode_AsUTF8AndSize(o, &n)) return std::string(p, (size_t)n);
    PyErr_Clear();
    fail(std::string("has ") + what + " that is not valid Unicode (lone surrogate)");
  }

  Json convert(PyObject* o) {
    if (path_.size() > max_depth_)
      throw SchemaError("schema nesting exceeds max_schema_depth=" + std::to_string(max_schema_depth_), {});
    Json j;
    if (o == Py_None) return j;
    if (PyBool_Check(o)) {
      j.type = Json::Type::Bool;
      j.boolean = o == Py_True;
    } else if (PyLong_Check(o)) {
      switch (int_range(o, j.int64, j.uint64)) {
        case IntRange::kInt64: j.type = Json::Type::Int; break;
        case IntRange::kUInt64: j.type = Json::Type::UInt; break;
        case IntRange::kBeyond: {
          j.type = Json::Type::BigInt;
          PyObject* text = PyObject_Str(o);
          if (!text) {  // beyond sys.get_int_max_str_digits()
            PyErr_Clear();
            fail("has an integer with more digits than Python converts to text");
          }
          j.text = py::reinterpret_steal<py::str>(text);
        }
      }
    } else if (PyFloat_Check(o)) {
      j.type = Json::Type::Float;
      j.number = PyFloat_AS_DOUBLE(o);
      if (!std::isfinite(j.number)) fail("contains a non-finite number");
    } else if (PyUnicode_Check(o)) {
      j.type = Json::Type::String;
      j.text = utf8(o, "a string");
    } else if (PyList_Check(o) || PyTuple_Check(o)) {
      j.type = Json::Type::Array;
      Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
      PyObject** items = PySequence_Fast_ITEMS(o);
      j.arr.reserve((size_t)n);
      for (Py_ssize_t i = 0; i < n; ++i) {
        path_.push_back(PathTok::at(i));
        j.arr.push_back(convert(items[i]));
        path_.pop_back();
      }
    } else if (PyDict_Check(o)) {
      j.type = Json::Type::Object;
      j.obj.reserve((size_t)PyDict_GET_SIZE(o));
      Py_ssize_t pos = 0;
      PyObject *k, *v;
      while (PyDict_Next(o, &pos, &k, &v)) {
        if (!PyUnicode_Check(k)) fail(std::string("has a dict key of type '") + Py_TYPE(k)->tp_name + "'");
        std::string key = utf8(k, "a key");
        path_.push_back(PathTok::of(key));
        j.obj.emplace_back(std::move(key), convert(v));
        path_.pop_back();
      }
    } else {
      fail(std::string("contains a value of type '") + Py_TYPE(o)->tp_name + "'");
    }
    return j;
  }
};

py::object json_to_py(const Json& j) {
  switch (j.type) {
    case Json::Type::Null: return py::none();
    case Json::Type::Bool: return py::bool_(j.boolean);
    case Json::Type::Int: return py::int_(j.int64);
    case Json::Type::UInt: return py::int_(j.uint64);
    case Json::Type::Float: return py::float_(j.number);
    case Json::Type::BigInt: return py::reinterpret_steal<py::object>(PyLong_FromString(j.text.c_str(), nullptr, 10));
    case Json::Type::String: return py::str(j.text);
    case Json::Type::Array: {
      py::list l;
      for (auto& x : j.arr) l.append(json_to_py(x));
      return std::move(l);
    }
    case Json::Type::Object: {
      py::dict d;
      for (auto& [k, v] : j.obj) d[py::str(k)] = json_to_py(v);
      return std::move(d);
    }
  }
  return py::none();
}

// The UTF-8 text of a bytes-like object (its buffer held, so that it cannot change while the
// GIL is released) or of a str.
class Source {
 public:
  explicit Source(py::handle data) {
    if (PyBytes_CheckExact(data.ptr())) {  // immutable: read in place, no buffer to hold
      text_ = {PyBytes_AS_STRING(data.ptr()), (size_t)PyBytes_GET_SIZE(data.ptr())};
    } else if (PyUnicode_Check(data.ptr())) {
      Py_ssize_t n;
      const char* p = PyUnicode_AsUTF8AndSize(data.ptr(), &n);
      if (!p) throw py::error_already_set();
      text_ = {p, (size_t)n};
    } else if (PyObject_GetBuffer(data.ptr(), &view_, PyBUF_SIMPLE) == 0) {
      held_ = true;
      text_ = {(const char*)view_.buf, (size_t)view_.len};
    } else {
      PyErr_Clear();
      throw py::type_error(std::string("expected bytes, bytearray, memoryview or str, not ") +
                           Py_TYPE(data.ptr())->tp_name);
    }
  }
  ~Source() {
    if (held_) PyBuffer_Release(&view_);
  }
  Source(const Source&) = delete;
  Source& operator=(const Source&) = delete;
  std::string_view text() const { return text_; }

 private:
  Py_buffer view_{};
  bool held_ = false;
  std::string_view text_;
};

// Releases the GIL while C++ works on a large text; for small ones releasing and taking it back
// would cost more than the work.
class NoGil {
 public:
  explicit NoGil(const Source& src) {
    if (!holds(src)) release_.emplace();
  }
  /// The GIL stays held while working on this text.
  static bool holds(const Source& src) { return src.text().size() < kMinBytes; }

 private:
  static constexpr size_t kMinBytes = 8192;
  std::optional<py::gil_scoped_release> release_;
};

// Shared freely between threads: program_ and keys_ are immutable after construction, and each
// call has its own evaluator, counters and (per thread) parser.
class SchemaValidator {
 public:
  SchemaValidator(py::handle schema, std::optional<py::str> dialect, bool formats, std::optional<py::dict> registry,
                  std::tuple<uint32_t, uint32_t, uint32_t, uint64_t> limits) {
    Options o;
    o.formats = formats;
    std::tie(o.limits.max_schema_depth, o.limits.max_subschemas, o.limits.max_instance_depth, o.limits.max_steps) =
        limits;
    guarded([&] {
      if (dialect) {  // a str without UTF-8 text (lone surrogates) names no dialect either
        Py_ssize_t n;
        const char* name = PyUnicode_AsUTF8AndSize(dialect->ptr(), &n);
        if (!name) PyErr_Clear();
        if (!name || !dialect_from_name({name, (size_t)n}, o.default_dialect))
          throw SchemaError("unsupported dialect " + py::repr(*dialect).cast<std::string>(), {});
      }
      ToJson to_json(o.limits.max_schema_depth);
      if (registry) {
        for (auto [k, v] : *registry) {
          Py_ssize_t n;
          const char* uri = PyUnicode_AsUTF8AndSize(k.ptr(), &n);
          if (!uri) {
            PyErr_Clear();
            throw SchemaError(
                "registry URI " + py::repr(k).cast<std::string>() + " is not valid Unicode (lone surrogate)", {});
          }
          o.registry.emplace_back(std::string(uri, (size_t)n), to_json(v.ptr()));
        }
      }
      program_ = compile(to_json(schema.ptr()), o);
      return 0;
    });
    for (auto& k : program_->keys) {
      PyObject* s = PyUnicode_FromStringAndSize(k.data(), (Py_ssize_t)k.size());
      if (!s) throw py::error_already_set();
      PyUnicode_InternInPlace(&s);
      keys_.push_back(s);
    }
  }
  ~SchemaValidator() {
    for (PyObject* k : keys_) Py_DECREF(k);
  }
  SchemaValidator(const SchemaValidator&) = delete;
  SchemaValidator& operator=(const SchemaValidator&) = delete;

  bool is_valid(py::handle instance) const {
    return guarded([&] {
      PyView::Env env{&keys_};
      Counters c;
      Evaluator<PyView, false> ev(*program_, env, c);
      try {
        return ev.run(instance.ptr());
      } catch (const InstanceError& e) {
        throw located(e, instance);
      }
    });
  }

  py::list errors(py::handle instance) const {
    return guarded([&] {
      PyView::Env env{&keys_};
      Counters c;
      Evaluator<PyView, true> ev(*program_, env, c);
      try {
        ev.run(instance.ptr());
      } catch (const InstanceError& e) {
        throw located(e, instance);
      }
      py::list out;
      for (auto& e : ev.errors) {
        py::object inst =
            e.instance_is_key ? py::object(py::str(e.key)) : py::reinterpret_borrow<py::object>(e.instance);
        out.append(error_tuple(e, inst));
      }
      return out;
    });
  }

  /// The program with the interned names PyView looks members up by.
  CompiledSchema compiled() const { return {program_.get(), &keys_}; }

  py::object is_valid_json(py::handle data) const {
    Source src(data);
    Parsed p = parse(src, true);
    if (p.fallback) return py::bool_(is_valid(p.fallback));
    bool ok = guarded([&] {
      NoGil nogil(src);
      TapeView::Env env;
      Counters c;
      Evaluator<TapeView, false> ev(*program_, env, c);
      return ev.run(mcp_native::tape::root(*p.doc));
    });
    return py::bool_(ok);
  }

  py::list errors_json(py::handle data) const {
    Source src(data);
    Parsed p = parse(src);
    if (p.fallback) return errors(p.fallback);
    return guarded([&] {
      TapeView::Env env;
      Counters c;
      Evaluator<TapeView, true> ev(*program_, env, c);
      {
        NoGil nogil(src);
        ev.run(mcp_native::tape::root(*p.doc));
      }
      py::list out;
      for (auto& e : ev.errors) {
        py::object inst =
            e.instance_is_key ? py::object(py::str(e.key)) : py::reinterpret_steal<py::object>(tape_to_py(e.instance));
        if (!inst) throw py::error_already_set();
        out.append(error_tuple(e, inst));
      }
      return out;
    });
  }

 private:
  std::shared_ptr<const Program> program_;
  std::vector<PyObject*> keys_;

  // The error e (met evaluating instance) with the location of the value it is about.
  InstanceError located(const InstanceError& e, py::handle instance) const {
    std::string what;
    bool type_error = false;
    if (NonJsonFinder(program_->limits.max_instance_depth).find(instance.ptr(), what, type_error))
      return InstanceError(what, type_error);
    return e;
  }

  template <class E>
  static py::tuple error_tuple(const E& e, py::object inst) {
    py::list extra;
    for (auto& x : e.extra) extra.append(py::str(x));
    return py::make_tuple(e.keyword, path_tuple(e.instance_path), path_tuple(e.schema_path), inst,
                          e.value ? json_to_py(*e.value) : py::none(), extra);
  }

  struct Parsed {
    const simdjson::dom::document* doc = nullptr;  // the parsed document
    py::object fallback;                           // the document as Python objects, when simdjson cannot represent it
  };

  struct Scratch {
    simdjson::dom::parser parser;
    PaddedText text;
  };

  // Parses with the calling thread's parser (the document stays valid until its next use). With
  // `verdict`, a text small enough to keep the GIL (NoGil) uses one parser shared under the GIL
  // instead: the caller runs no Python code before it is done with the document, and a
  // thread-local lookup is a library call (__tls_get_addr) in a shared module.
  Parsed parse(const Source& src, bool verdict = false) const {
    // `mine` is per thread: a parser is never used by two threads at once, and only this
    // thread's next parse replaces its document.
    thread_local Scratch mine;
#ifndef Py_GIL_DISABLED
    // `shared` is guarded by the GIL: used only while it stays held (NoGil::holds), and done with
    // before any Python code can run.
    static Scratch shared;
    Scratch& scratch = verdict && NoGil::holds(src) ? shared : mine;
#else
    // No GIL to guard a shared parser: every thread parses with its own.
    (void)verdict;
    Scratch& scratch = mine;
#endif
    std::string_view doc = src.text();
    simdjson::dom::parser& parser = scratch.parser;
    // The document may nest as deep as a Python value can (or as max_instance_depth, if more):
    // max_instance_depth applies where validation descends, as on Python objects, not to parts
    // of the document no keyword looks at.
    size_t depth = std::max<size_t>(program_->limits.max_instance_depth, kMaxJsonDepth) + 1;
    simdjson::error_code err;
    Parsed p;
    {
      NoGil nogil(src);
      const char* text = scratch.text(doc);
      err = simdjson::SUCCESS;
      if (parser.max_depth() != depth || parser.capacity() < doc.size())
        err = parser.allocate(std::max(doc.size(), parser.capacity()), depth);
      if (!err) err = parser.parse((const uint8_t*)text, doc.size(), false).error();
    }
    if (!err) {
      p.doc = &parser.doc;
      return p;
    }
    if (err == simdjson::DEPTH_ERROR)
      raise_limit("instance nesting depth exceeds max_instance_depth=" +
                  std::to_string(program_->limits.max_instance_depth));
    if (err == simdjson::NUMBER_ERROR) {
      // Integers beyond 64 bits: the codec's parser builds them (and rejects bad numbers).
      PyObject* obj = parse_to_py(doc);
      if (!obj) throw py::error_already_set();
      p.fallback = py::reinterpret_steal<py::object>(obj);
      return p;
    }
    raise_decode_error(err, doc);
    throw py::error_already_set();
  }
};

// is_valid/is_valid_json as METH_FASTCALL methods: pybind11's dispatcher would be a large part of
// a small validation.
// The C++ object of a SchemaValidator instance; null while it is not initialized.
SchemaValidator* validator_of(PyObject* self) {
  // (What get_value_and_holder() finds for any type, without the call: the first value.)
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  return static_cast<SchemaValidator*>(py::detail::value_and_holder(inst, nullptr, 0, 0).value_ptr());
}

SchemaValidator* self_of(PyObject* self) {
  SchemaValidator* v = validator_of(self);
  if (!v) throw py::type_error("the validator is not initialized");
  return v;
}

template <bool Json>
PyObject* fast_is_valid(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 1) {
    PyErr_Format(PyExc_TypeError, "%s() takes exactly one argument (%zd given)", Json ? "is_valid_json" : "is_valid",
                 nargs);
    return nullptr;
  }
  try {
    SchemaValidator* v = self_of(self);
    if constexpr (Json)
      return v->is_valid_json(args[0]).release().ptr();
    else
      return py::bool_(v->is_valid(args[0])).release().ptr();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (py::builtin_exception& e) {
    e.set_error();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

PyTypeObject* g_validator_type;  // SchemaValidator: set once by bind_schema at import, then only read

}  // namespace

CompiledSchema compiled_schema(PyObject* validator) {
  // (A type check, cheaper than pybind11's isinstance, which looks the type up per call.)
  if (g_validator_type == nullptr || !PyObject_TypeCheck(validator, g_validator_type)) return {};
  SchemaValidator* v = validator_of(validator);
  return v ? v->compiled() : CompiledSchema{};
}

namespace {

PyMethodDef fast_methods[] = {
    {"is_valid", (PyCFunction)(void (*)(void))fast_is_valid<false>, METH_FASTCALL,
     "True when the instance (Python objects) conforms to the schema."},
    {"is_valid_json", (PyCFunction)(void (*)(void))fast_is_valid<true>, METH_FASTCALL,
     "True when the JSON text conforms to the schema (no Python objects are built)."},
};

}  // namespace

void bind_schema(py::module_& m) {
  // The plain `type` metaclass keeps the class an ordinary type for subclassing and stubs.
  py::class_<SchemaValidator>(m, "SchemaValidator", py::dynamic_attr(), py::metaclass((PyObject*)&PyType_Type),
                              "Compiled JSON Schema; mcp_native.Validator builds on it.")
      .def(py::init<py::handle, std::optional<py::str>, bool, std::optional<py::dict>,
                    std::tuple<uint32_t, uint32_t, uint32_t, uint64_t>>(),
           py::arg("schema"), py::arg("dialect"), py::arg("formats"), py::arg("registry"), py::arg("limits"))
      .def("_errors", &SchemaValidator::errors, py::arg("instance"))
      .def("_errors_json", &SchemaValidator::errors_json, py::arg("data"));
  py::object cls = m.attr("SchemaValidator");
  g_validator_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  for (PyMethodDef& def : fast_methods) {
    py::object descr = py::reinterpret_steal<py::object>(PyDescr_NewMethod((PyTypeObject*)cls.ptr(), &def));
    if (!descr) throw py::error_already_set();
    cls.attr(def.ml_name) = descr;
  }
}

}  // namespace mcp_native::bindings
