// JSON-RPC framing: the incremental NDJSON decoder and the message encoders.
#define PY_SSIZE_T_CLEAN  // the s# formats of Py_BuildValue take Py_ssize_t
#include <Python.h>

#include <cstring>
#include <string>

#include "bindings.hpp"
#include "mcp_native/jsonrpc.hpp"

namespace py = pybind11;

namespace mcp_native::bindings {

namespace {

namespace rpc = mcp_native::jsonrpc;
using simdjson::dom::element;
using simdjson::dom::element_type;

// The message classes of mcp_native.jsonrpc (tuple subclasses), registered once at import.
struct MessageTypes {
  PyTypeObject* request = nullptr;
  PyTypeObject* notification = nullptr;
  PyTypeObject* response = nullptr;
  PyTypeObject* error_response = nullptr;
  PyTypeObject* invalid = nullptr;
};
MessageTypes g_types;

PyObject* element_to_py(element e);

PyObject* object_to_py(simdjson::dom::object obj) {
  PyObject* dict = PyDict_New();
  if (!dict) return nullptr;
  for (auto field : obj) {
    PyObject* key = PyUnicode_FromStringAndSize(field.key.data(), static_cast<Py_ssize_t>(field.key.size()));
    if (!key) {
      Py_DECREF(dict);
      return nullptr;
    }
    PyObject* value = element_to_py(field.value);
    if (!value || PyDict_SetItem(dict, key, value) < 0) {
      Py_DECREF(key);
      Py_XDECREF(value);
      Py_DECREF(dict);
      return nullptr;
    }
    Py_DECREF(key);
    Py_DECREF(value);
  }
  return dict;
}

// DOM element to the value json.loads would return.
PyObject* element_to_py(element e) {
  switch (e.type()) {
    case element_type::OBJECT:
      return object_to_py(e.get_object().value_unsafe());
    case element_type::ARRAY: {
      auto arr = e.get_array().value_unsafe();
      PyObject* list = PyList_New(static_cast<Py_ssize_t>(arr.size()));
      if (!list) return nullptr;
      Py_ssize_t i = 0;
      for (element item : arr) {
        PyObject* value = element_to_py(item);
        if (!value) {
          Py_DECREF(list);
          return nullptr;
        }
        PyList_SET_ITEM(list, i++, value);
      }
      return list;
    }
    case element_type::INT64:
      return PyLong_FromLongLong(e.get_int64().value_unsafe());
    case element_type::UINT64:
      return PyLong_FromUnsignedLongLong(e.get_uint64().value_unsafe());
    case element_type::DOUBLE:
      return PyFloat_FromDouble(e.get_double().value_unsafe());
    case element_type::STRING: {
      std::string_view s = e.get_string().value_unsafe();
      return PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogatepass");
    }
    case element_type::BOOL:
      return PyBool_FromLong(e.get_bool().value_unsafe());
    case element_type::NULL_VALUE:
      Py_RETURN_NONE;
  }
  PyErr_SetString(PyExc_SystemError, "unknown JSON element type");
  return nullptr;
}

PyObject* id_to_py(const rpc::RequestId& id) {
  switch (id.kind) {
    case rpc::RequestId::Kind::Int: return PyLong_FromLongLong(id.int_value);
    case rpc::RequestId::Kind::UInt: return PyLong_FromUnsignedLongLong(id.uint_value);
    case rpc::RequestId::Kind::String:
      return PyUnicode_FromStringAndSize(id.string_value.data(), static_cast<Py_ssize_t>(id.string_value.size()));
    case rpc::RequestId::Kind::Absent: Py_RETURN_NONE;
  }
  Py_RETURN_NONE;
}

PyObject* str_to_py(std::string_view s) {
  return PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
}

// Builds an instance of a registered tuple subclass from new references (stolen, may be null on
// failure, in which case the others are released and null is returned).
PyObject* make_tuple(PyTypeObject* type, std::initializer_list<PyObject*> items) {
  bool ok = true;
  for (PyObject* it : items) ok = ok && it;
  PyObject* t = ok ? type->tp_alloc(type, static_cast<Py_ssize_t>(items.size())) : nullptr;
  Py_ssize_t i = 0;
  for (PyObject* it : items) {
    if (t) {
      PyTuple_SET_ITEM(t, i++, it);
    } else {
      Py_XDECREF(it);
    }
  }
  return t;
}

PyObject* message_to_py(const rpc::Message& m) {
  switch (m.kind) {
    case rpc::MessageKind::Request:
      return make_tuple(g_types.request, {id_to_py(m.id), str_to_py(m.method),
                                          m.has_body ? element_to_py(m.body) : Py_NewRef(Py_None)});
    case rpc::MessageKind::Notification:
      return make_tuple(g_types.notification,
                        {str_to_py(m.method), m.has_body ? element_to_py(m.body) : Py_NewRef(Py_None)});
    case rpc::MessageKind::Response:
      return make_tuple(g_types.response, {id_to_py(m.id), element_to_py(m.body)});
    case rpc::MessageKind::ErrorResponse:
      return make_tuple(g_types.error_response, {id_to_py(m.id), element_to_py(m.body)});
    case rpc::MessageKind::Invalid: {
      PyObject* error = Py_BuildValue("{s:i,s:s#,s:s#}", "code", m.error_code, "message",
                                      m.error_message.data(), static_cast<Py_ssize_t>(m.error_message.size()),
                                      "data", m.error_detail.data(),
                                      static_cast<Py_ssize_t>(m.error_detail.size()));
      PyObject* response =
          PyBytes_FromStringAndSize(m.response.data(), static_cast<Py_ssize_t>(m.response.size()));
      return make_tuple(g_types.invalid, {id_to_py(m.id), error, response});
    }
  }
  PyErr_SetString(PyExc_SystemError, "unknown message kind");
  return nullptr;
}

// Collects decoded messages into a Python list.
class ListSink final : public rpc::MessageSink {
 public:
  ListSink() : list_(py::reinterpret_steal<py::object>(PyList_New(0))) {
    if (!list_) throw py::error_already_set();
  }
  void on_message(const rpc::Message& m) override {
    PyObject* obj = message_to_py(m);
    if (!obj) throw py::error_already_set();
    const int rc = PyList_Append(list_.ptr(), obj);
    Py_DECREF(obj);
    if (rc < 0) throw py::error_already_set();
  }
  py::list take() { return py::reinterpret_steal<py::list>(list_.release()); }

 private:
  py::object list_;
};

class PyDecoder {
 public:
  PyDecoder(long long max_message_bytes, const std::string& protocol_version)
      : decoder_(checked_max(max_message_bytes), checked_version(protocol_version)),
        version_name_(protocol_version) {}

  py::list feed(py::handle chunk) {
    if (!g_types.request) throw py::type_error("mcp_native.jsonrpc is not initialised");
    if (PyUnicode_Check(chunk.ptr())) {
      throw py::type_error("feed() takes bytes (the raw stream), not str");
    }
    Py_buffer view;
    if (PyObject_GetBuffer(chunk.ptr(), &view, PyBUF_SIMPLE) < 0) throw py::error_already_set();
    ListSink sink;
    try {
      decoder_.feed(std::string_view(static_cast<const char*>(view.buf), static_cast<std::size_t>(view.len)),
                    sink);
    } catch (...) {
      PyBuffer_Release(&view);
      throw;
    }
    PyBuffer_Release(&view);
    return sink.take();
  }

  py::list close() {
    ListSink sink;
    decoder_.close(sink);
    return sink.take();
  }

  std::size_t max_message_bytes() const { return decoder_.max_message_bytes(); }
  const std::string& protocol_version() const { return version_name_; }
  std::size_t pending_bytes() const { return decoder_.pending_bytes(); }

 private:
  static std::size_t checked_max(long long v) {
    if (v < 1) throw py::value_error("max_message_bytes must be a positive integer, got " + std::to_string(v));
    return static_cast<std::size_t>(v);
  }
  static rpc::ProtocolVersion checked_version(const std::string& name) {
    auto v = rpc::parse_protocol_version(name);
    if (!v) {
      throw py::value_error("protocol_version " + py::repr(py::str(name)).cast<std::string>() +
                            " is not supported; use one of '2025-06-18', '2025-11-25', '2026-07-28'");
    }
    return *v;
  }

  rpc::Decoder decoder_;
  std::string version_name_;
};

PyTypeObject* checked_tuple_type(py::handle t, const char* name, Py_ssize_t arity) {
  if (!PyType_Check(t.ptr()) || !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(t.ptr()), &PyTuple_Type)) {
    throw py::type_error(std::string(name) + " must be a tuple subclass");
  }
  auto fields = py::getattr(t, "_fields", py::none());
  if (fields.is_none() || py::len(fields) != static_cast<std::size_t>(arity)) {
    throw py::type_error(std::string(name) + " must be a named tuple of " + std::to_string(arity) + " fields");
  }
  Py_INCREF(t.ptr());
  return reinterpret_cast<PyTypeObject*>(t.ptr());
}

}  // namespace

void bind_wire(py::module_& m) {
  m.def(
      "_jsonrpc_set_types",
      [](py::handle request, py::handle notification, py::handle response, py::handle error_response,
         py::handle invalid) {
        g_types.request = checked_tuple_type(request, "Request", 3);
        g_types.notification = checked_tuple_type(notification, "Notification", 2);
        g_types.response = checked_tuple_type(response, "Response", 2);
        g_types.error_response = checked_tuple_type(error_response, "ErrorResponse", 2);
        g_types.invalid = checked_tuple_type(invalid, "Invalid", 3);
      },
      py::arg("request"), py::arg("notification"), py::arg("response"), py::arg("error_response"),
      py::arg("invalid"), "Registers the message classes that JsonRpcDecoder instantiates.");

  // A plain `type` metaclass keeps the class describable by a stub file (stubtest checks it).
  py::class_<PyDecoder>(m, "JsonRpcDecoder", py::metaclass(reinterpret_cast<PyObject*>(&PyType_Type)),
                        "Incremental newline-delimited JSON-RPC decoder.")
      .def(py::init<long long, const std::string&>(), py::arg("max_message_bytes"), py::arg("protocol_version"))
      .def("feed", &PyDecoder::feed, py::arg("chunk"))
      .def("close", &PyDecoder::close)
      .def_property_readonly("max_message_bytes", &PyDecoder::max_message_bytes)
      .def_property_readonly("protocol_version", &PyDecoder::protocol_version)
      .def_property_readonly("pending_bytes", &PyDecoder::pending_bytes);
}

}  // namespace mcp_native::bindings
