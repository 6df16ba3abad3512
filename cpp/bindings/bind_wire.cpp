// JSON-RPC framing (the NDJSON decoder, the message encoders) and SSE (decoder, encoder).
#define PY_SSIZE_T_CLEAN  // the s# formats of Py_BuildValue take Py_ssize_t
#include <Python.h>

#include <cstring>
#include <string>

#include "bindings.hpp"
#include "mcp_native/json/writer.hpp"
#include "mcp_native/mcp/jsonrpc.hpp"
#include "mcp_native/mcp/sse.hpp"
#include "mcp_native/util/utf8.hpp"
#include "per_thread.hpp"
#include "py_args.hpp"
#include "py_json.hpp"

namespace py = pybind11;

namespace mcp_native::bindings {

namespace {

namespace rpc = mcp_native::jsonrpc;

// The message classes of mcp_native.jsonrpc (tuple subclasses), registered once at import.
struct MessageTypes {
  PyTypeObject* request = nullptr;
  PyTypeObject* notification = nullptr;
  PyTypeObject* response = nullptr;
  PyTypeObject* error_response = nullptr;
  PyTypeObject* invalid = nullptr;
};
// Set once by _jsonrpc_set_types when mcp_native.jsonrpc is imported (before any decoder exists),
// then only read.
MessageTypes g_types;

PyObject* id_to_py(const rpc::RequestId& id) {
  switch (id.kind) {
    case rpc::RequestId::Kind::Int: return PyLong_FromLongLong(id.int_value);
    case rpc::RequestId::Kind::UInt: return PyLong_FromUnsignedLongLong(id.uint_value);
    case rpc::RequestId::Kind::String:
      return PyUnicode_FromStringAndSize(id.string_value.data(), static_cast<Py_ssize_t>(id.string_value.size()));
    case rpc::RequestId::Kind::Json: {
      // The id of an Invalid message as its peer wrote it. One that Python cannot read (an
      // integer beyond sys.get_int_max_str_digits()) is unknown: None, as feed() never raises.
      PyObject* v = parse_to_py(id.string_value);
      if (v == nullptr && PyErr_ExceptionMatches(PyExc_ValueError)) {
        PyErr_Clear();
        Py_RETURN_NONE;
      }
      return v;
    }
    case rpc::RequestId::Kind::Absent: Py_RETURN_NONE;
  }
  Py_RETURN_NONE;
}

// Builds an instance of a registered tuple subclass; each maker returns a new reference, or null
// with an exception set, after which no further maker runs.
template <class... Makers>
PyObject* make_tuple(PyTypeObject* type, Makers&&... makers) {
  PyObject* t = type->tp_alloc(type, static_cast<Py_ssize_t>(sizeof...(Makers)));
  if (!t) return nullptr;
  Py_ssize_t i = 0;
  const bool ok = ((PyTuple_SET_ITEM(t, i, makers()), PyTuple_GET_ITEM(t, i++) != nullptr) && ...);
  if (!ok) {
    Py_DECREF(t);  // unset items are null, which tuple deallocation skips
    return nullptr;
  }
  return t;
}

PyObject* utf8_replace(std::string_view s) {
  return PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
}

// The text of a field that changes rarely (an SSE type, id or retry; a JSON-RPC method name),
// decoded once per change.
class CachedText {
 public:
  PyObject* get(std::string_view raw, bool as_int) {
    if (!value_ || raw != raw_) {
      PyObject* v = as_int
                        ? (raw.empty() ? Py_NewRef(Py_None) : PyLong_FromString(std::string(raw).c_str(), nullptr, 10))
                        : utf8_replace(raw);
      if (!v) return nullptr;
      value_ = py::reinterpret_steal<py::object>(v);
      raw_.assign(raw);
    }
    return Py_NewRef(value_.ptr());
  }

 private:
  std::string raw_;
  py::object value_;
};

PyObject* invalid_to_py(const rpc::Message& m) {
  return make_tuple(
      g_types.invalid, [&] { return id_to_py(m.id); },
      [&] {
        return Py_BuildValue("{s:i,s:s#,s:s#}", "code", m.error_code, "message", m.error_message.data(),
                             static_cast<Py_ssize_t>(m.error_message.size()), "data", m.error_detail.data(),
                             static_cast<Py_ssize_t>(m.error_detail.size()));
      },
      [&] { return PyBytes_FromStringAndSize(m.response.data(), static_cast<Py_ssize_t>(m.response.size())); });
}

// A message whose line holds values simdjson cannot represent (Message::exact is false): its
// fields come from the whole line parsed as loads parses it. Should that parse fail (Python's
// json nests less deeply than simdjson), the line becomes a parse error.
PyObject* inexact_message_to_py(const rpc::Message& m, ProtocolVersion version) {
  PyObject* obj = parse_to_py(m.line);
  if (obj == nullptr) {
    if (!PyErr_ExceptionMatches(PyExc_ValueError)) return nullptr;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject* text = value ? PyObject_Str(value) : nullptr;
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    if (text == nullptr) return nullptr;
    Py_ssize_t len = 0;
    const char* detail = PyUnicode_AsUTF8AndSize(text, &len);
    if (detail == nullptr) {
      Py_DECREF(text);
      return nullptr;
    }
    std::string response;
    rpc::write_error_response(response, version, m.id, rpc::kParseError, "Parse error",
                              {detail, static_cast<std::size_t>(len)});
    rpc::Message bad;
    bad.kind = rpc::MessageKind::Invalid;
    bad.id = m.id;
    bad.error_code = rpc::kParseError;
    bad.error_message = "Parse error";
    bad.error_detail = {detail, static_cast<std::size_t>(len)};
    bad.response = response;
    PyObject* r = invalid_to_py(bad);
    Py_DECREF(text);
    return r;
  }
  // The classification saw an object with these members.
  auto member = [&](const char* key) {
    PyObject* v = PyDict_GetItemString(obj, key);
    if (v == nullptr) PyErr_Format(PyExc_SystemError, "decoded message lost its \"%s\"", key);
    return Py_XNewRef(v);
  };
  auto id = [&] { return m.id.kind == rpc::RequestId::Kind::Absent ? Py_NewRef(Py_None) : member("id"); };
  auto method = [&] { return member("method"); };
  auto body = [&](const char* key) {
    return [&m, &member, key] { return m.has_body ? member(key) : Py_NewRef(Py_None); };
  };
  PyObject* r = nullptr;
  switch (m.kind) {
    case rpc::MessageKind::Request: r = make_tuple(g_types.request, id, method, body("params")); break;
    case rpc::MessageKind::Notification: r = make_tuple(g_types.notification, method, body("params")); break;
    case rpc::MessageKind::Response: r = make_tuple(g_types.response, id, body("result")); break;
    case rpc::MessageKind::ErrorResponse: r = make_tuple(g_types.error_response, id, body("error")); break;
    case rpc::MessageKind::Invalid: r = invalid_to_py(m); break;
  }
  Py_DECREF(obj);
  return r;
}

PyObject* message_to_py(const rpc::Message& m, CachedText& methods, ProtocolVersion version) {
  if (!m.exact) return inexact_message_to_py(m, version);
  auto id = [&] { return id_to_py(m.id); };
  // A stream repeats a few method names: the last one is reused instead of decoded again.
  auto method = [&] { return methods.get(m.method, false); };
  auto body = [&] { return m.has_body ? tape_to_py(m.body) : Py_NewRef(Py_None); };
  switch (m.kind) {
    case rpc::MessageKind::Request: return make_tuple(g_types.request, id, method, body);
    case rpc::MessageKind::Notification: return make_tuple(g_types.notification, method, body);
    case rpc::MessageKind::Response: return make_tuple(g_types.response, id, body);
    case rpc::MessageKind::ErrorResponse: return make_tuple(g_types.error_response, id, body);
    case rpc::MessageKind::Invalid: return invalid_to_py(m);
  }
  PyErr_SetString(PyExc_SystemError, "unknown message kind");
  return nullptr;
}

// Collects decoded messages into a Python list.
class ListSink final : public rpc::MessageSink {
 public:
  ListSink(CachedText& methods, ProtocolVersion version)
      : list_(py::reinterpret_steal<py::object>(PyList_New(0))), methods_(methods), version_(version) {
    if (!list_) throw py::error_already_set();
  }
  void on_message(const rpc::Message& m) override {
    PyObject* obj = message_to_py(m, methods_, version_);
    if (!obj) throw py::error_already_set();
    const int rc = PyList_Append(list_.ptr(), obj);
    Py_DECREF(obj);
    if (rc < 0) throw py::error_already_set();
  }
  py::list take() { return py::reinterpret_steal<py::list>(list_.release()); }

 private:
  py::object list_;
  CachedText& methods_;
  ProtocolVersion version_;
};

// Pauses the cyclic GC while a chunk's messages are built. They cannot form cycles, yet every
// container allocated counts towards a collection that would walk the messages built so far,
// again and again as they age: one collection runs after the chunk instead.
class GcPause {
 public:
  GcPause() : was_enabled_(PyGC_Disable()) {}
  ~GcPause() {
    if (was_enabled_) PyGC_Enable();
  }
  GcPause(const GcPause&) = delete;
  GcPause& operator=(const GcPause&) = delete;

 private:
  int was_enabled_;
};

// The bytes of a bytes-like argument (str is refused: the streams are bytes), held while alive.
class BytesArg {
 public:
  explicit BytesArg(PyObject* obj, const char* what) {
    if (PyUnicode_Check(obj)) throw py::type_error(std::string(what) + " must be bytes, not str");
    if (PyObject_GetBuffer(obj, &view_, PyBUF_SIMPLE) < 0) throw py::error_already_set();
  }
  ~BytesArg() { PyBuffer_Release(&view_); }
  BytesArg(const BytesArg&) = delete;
  BytesArg& operator=(const BytesArg&) = delete;
  std::string_view view() const { return {static_cast<const char*>(view_.buf), static_cast<std::size_t>(view_.len)}; }

 private:
  Py_buffer view_;
};

// Not shared while in use: decoder_ refuses a second caller meanwhile (InUseError, raised as
// RuntimeError), and methods_ is touched only from decoder_'s sink, inside that guard.
class PyDecoder {
 public:
  PyDecoder(const py::int_& max_message_bytes, const py::str& protocol_version)
      : decoder_(checked_max(max_message_bytes), checked_version(protocol_version)),
        version_name_(text_of(protocol_version)) {}

  py::list feed(py::handle chunk) {
    if (!g_types.request) throw py::type_error("mcp_native.jsonrpc is not initialised");
    BytesArg bytes(chunk.ptr(), "the chunk given to feed()");
    ListSink sink(methods_, decoder_.version());
    GcPause pause;
    decoder_.feed(bytes.view(), sink);
    return sink.take();
  }

  py::list close() {
    ListSink sink(methods_, decoder_.version());
    GcPause pause;
    decoder_.close(sink);
    return sink.take();
  }

  std::size_t max_message_bytes() const { return decoder_.max_message_bytes(); }
  const std::string& protocol_version() const { return version_name_; }
  std::size_t pending_bytes() const { return decoder_.pending_bytes(); }

 private:
  // Taken as Python objects: a conversion by pybind11 would reject an int beyond 64 bits or a
  // str with a lone surrogate with an "incompatible arguments" TypeError instead of saying why.
  static std::size_t checked_max(const py::int_& n) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(n.ptr(), &overflow);
    if (overflow || v < 1) {
      throw py::value_error("max_message_bytes must be a positive integer below 2**63, got " +
                            py::repr(n).cast<std::string>());
    }
    return static_cast<std::size_t>(v);
  }
  // The UTF-8 text of s; "" (an unsupported name) when it has none (lone surrogates).
  static std::string text_of(const py::str& s) {
    Py_ssize_t n;
    if (const char* p = PyUnicode_AsUTF8AndSize(s.ptr(), &n)) return std::string(p, (size_t)n);
    PyErr_Clear();
    return {};
  }
  static ProtocolVersion checked_version(const py::str& name) {
    auto v = parse_protocol_version(text_of(name));
    if (!v) {
      throw py::value_error("protocol_version " + py::repr(name).cast<std::string>() +
                            " is not supported; use one of " + std::string(kProtocolVersionNames));
    }
    if (allows_batches(*v)) {
      throw py::value_error("protocol_version " + py::repr(name).cast<std::string>() +
                            " allows JSON-RPC batches, which the decoder does not read (one message per line)");
    }
    return *v;
  }

  rpc::Decoder decoder_;
  std::string version_name_;
  CachedText methods_;
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

// ---------------------------------------------------------------------------------------------
// SSE: the decoder builds mcp_native.sse.Event named tuples.

// Set once by _sse_set_types when mcp_native.sse is imported (before any decoder exists), then
// only read.
PyTypeObject* g_event_type = nullptr;

// Not shared while in use: the list being filled and the field caches are the decoder's, so every
// method holds in_use_ (a second caller meanwhile, from another thread or from a finalizer the
// GC runs mid-feed, gets RuntimeError instead of another call's events). The wrapped
// jsonrpc::Decoder of PyDecoder guards itself the same way.
class PySseDecoder final : public mcp_native::sse::EventSink {
 public:
  py::list feed(py::handle chunk) {
    if (!g_event_type) throw py::type_error("mcp_native.sse is not initialised");
    mcp_native::UseFlag::Scope in_use(in_use_, "this sse.Decoder");
    BytesArg bytes(chunk.ptr(), "the chunk given to feed()");
    list_ = py::reinterpret_steal<py::object>(PyList_New(0));
    if (!list_) throw py::error_already_set();
    decoder_.feed(bytes.view(), *this);
    return py::reinterpret_steal<py::list>(list_.release());
  }
  py::list close() {
    mcp_native::UseFlag::Scope in_use(in_use_, "this sse.Decoder");
    decoder_.close();
    return py::list();
  }
  py::object last_event_id() {
    mcp_native::UseFlag::Scope in_use(in_use_, "this sse.Decoder");
    return steal(id_.get(decoder_.last_event_id(), false));
  }
  py::object retry() {
    mcp_native::UseFlag::Scope in_use(in_use_, "this sse.Decoder");
    return steal(retry_.get(decoder_.retry_digits(), true));
  }

  void on_event(const mcp_native::sse::Event& e) override {
    PyObject* ev = make_tuple(
        g_event_type, [&] { return type_.get(e.type, false); }, [&] { return utf8_replace(e.data); },
        [&] { return id_.get(e.id, false); }, [&] { return retry_.get(e.retry_digits, true); });
    if (!ev) throw py::error_already_set();
    const int rc = PyList_Append(list_.ptr(), ev);
    Py_DECREF(ev);
    if (rc < 0) throw py::error_already_set();
  }

 private:
  static py::object steal(PyObject* o) {
    if (!o) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(o);
  }

  mcp_native::sse::Decoder decoder_;
  py::object list_;
  CachedText type_, id_, retry_;
  mcp_native::UseFlag in_use_;  // held by every method: one caller at a time
};

// ---------------------------------------------------------------------------------------------
// Encoders, as METH_FASTCALL functions: they run once per message, where pybind11's dispatch
// would cost as much as the encoding.

const char* type_name(PyObject* o) { return Py_TYPE(o)->tp_name; }

// Re-raises a TypeError/ValueError from the JSON writer with the argument's name in front.
void name_the_field(const char* field) {
  const bool is_type = PyErr_ExceptionMatches(PyExc_TypeError);
  if (!is_type && !PyErr_ExceptionMatches(PyExc_ValueError)) return;
  PyObject *type, *cause, *tb;
  PyErr_Fetch(&type, &cause, &tb);
  PyErr_NormalizeException(&type, &cause, &tb);
  if (tb) PyException_SetTraceback(cause, tb);
  Py_XDECREF(type);
  Py_XDECREF(tb);
  PyErr_Format(is_type ? PyExc_TypeError : PyExc_ValueError, "%s: %S", field, cause);
  PyObject *etype, *exc, *etb;
  PyErr_Fetch(&etype, &exc, &etb);
  PyErr_NormalizeException(&etype, &exc, &etb);
  PyException_SetCause(exc, cause);  // steals cause
  PyErr_Restore(etype, exc, etb);
}

bool write_json(JsonWriter& w, PyObject* value, const char* field) {
  if (dump_py(w, value)) return true;
  name_the_field(field);
  return false;
}

bool write_id(JsonWriter& w, PyObject* id) {
  if ((PyLong_Check(id) && !PyBool_Check(id)) || PyUnicode_Check(id)) return write_json(w, id, "id");
  PyErr_Format(PyExc_TypeError, "id must be a str or an int, not %s", type_name(id));
  return false;
}

bool check_str(PyObject* o, const char* field) {
  if (PyUnicode_Check(o)) return true;
  PyErr_Format(PyExc_TypeError, "%s must be a str, not %s", field, type_name(o));
  return false;
}

bool check_dict(PyObject* o, const char* field, bool none_ok) {
  if (PyDict_Check(o) || (none_ok && o == Py_None)) return true;
  PyErr_Format(PyExc_TypeError, "%s must be a dict%s, not %s", field, none_ok ? " or None" : "", type_name(o));
  return false;
}

// Runs `body` with a cleared writer and returns its content plus "\n" as bytes.
template <class Body>
PyObject* encode_line(Body&& body) {
  return write_bytes([&](JsonWriter& w) {
    if (!body(w)) return false;
    w.put('\n');
    return true;
  });
}

// The `"method":…,"params":…}` end that requests and notifications share (params may be None).
bool write_call(JsonWriter& w, PyObject* method, PyObject* params) {
  w.append(R"("method":)");
  if (!write_json(w, method, "method")) return false;
  if (params != Py_None) {
    w.append(R"(,"params":)");
    if (!write_json(w, params, "params")) return false;
  }
  w.put('}');
  return true;
}

PyObject* encode_request(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  static const char* const names[] = {"id", "method", "params"};
  PyObject* a[3] = {};
  if (!bind_args("encode_request", args, nargs, kwnames, names, 2, std::size(names), a)) return nullptr;
  PyObject *id = a[0], *method = a[1], *params = a[2] ? a[2] : Py_None;
  if (!check_str(method, "method") || !check_dict(params, "params", true)) return nullptr;
  return encode_line([&](JsonWriter& w) {
    w.append(R"({"jsonrpc":"2.0","id":)");
    if (!write_id(w, id)) return false;
    w.put(',');
    return write_call(w, method, params);
  });
}

PyObject* encode_notification(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  static const char* const names[] = {"method", "params"};
  PyObject* a[2] = {};
  if (!bind_args("encode_notification", args, nargs, kwnames, names, 1, std::size(names), a)) return nullptr;
  PyObject *method = a[0], *params = a[1] ? a[1] : Py_None;
  if (!check_str(method, "method") || !check_dict(params, "params", true)) return nullptr;
  return encode_line([&](JsonWriter& w) {
    w.append(R"({"jsonrpc":"2.0",)");
    return write_call(w, method, params);
  });
}

PyObject* encode_jsonrpc_response(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  static const char* const names[] = {"id", "result"};
  PyObject* a[2] = {};
  if (!bind_args("encode_response", args, nargs, kwnames, names, 2, std::size(names), a)) return nullptr;
  PyObject *id = a[0], *result = a[1];
  if (!check_dict(result, "result", false)) return nullptr;
  return encode_line([&](JsonWriter& w) {
    w.append(R"({"jsonrpc":"2.0","id":)");
    if (!write_id(w, id)) return false;
    w.append(R"(,"result":)");
    if (!write_json(w, result, "result")) return false;
    w.put('}');
    return true;
  });
}

// UTF-8 of a str argument; a lone surrogate raises UnicodeEncodeError (a ValueError).
bool utf8_of(PyObject* o, const char* field, std::string_view& out) {
  if (!check_str(o, field)) return false;
  Py_ssize_t n = 0;
  const char* p = PyUnicode_AsUTF8AndSize(o, &n);
  if (!p) {
    name_the_field(field);
    return false;
  }
  out = std::string_view(p, static_cast<std::size_t>(n));
  return true;
}

PyObject* encode_error(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  static const char* const names[] = {"id", "code", "message", "data", "protocol_version"};
  PyObject* a[5] = {};
  if (!bind_args("encode_error", args, nargs, kwnames, names, 3, std::size(names), a)) return nullptr;
  PyObject *id = a[0], *code = a[1], *message = a[2], *data = a[3] ? a[3] : Py_None;
  if (!PyLong_Check(code) || PyBool_Check(code)) {
    PyErr_Format(PyExc_TypeError, "code must be an int, not %s", type_name(code));
    return nullptr;
  }
  if (!check_str(message, "message")) return nullptr;
  // How an unknown id (None) is written: null where the version requires an id (see
  // error_id_required), else left out.
  bool null_id = false;
  if (a[4] != nullptr) {
    std::string_view name;
    if (!utf8_of(a[4], "protocol_version", name)) return nullptr;
    const auto version = parse_protocol_version(name);
    if (!version) {
      PyErr_Format(PyExc_ValueError, "protocol_version %R is not supported; use one of %s", a[4],
                   std::string(kProtocolVersionNames).c_str());
      return nullptr;
    }
    null_id = error_id_required(*version);
  }
  return encode_line([&](JsonWriter& w) {
    w.append(R"({"jsonrpc":"2.0",)");
    if (id != Py_None) {
      w.append(R"("id":)");
      if (!write_id(w, id)) return false;
      w.put(',');
    } else if (null_id) {
      w.append(R"("id":null,)");
    }
    w.append(R"("error":{"code":)");
    if (!write_json(w, code, "code")) return false;
    w.append(R"(,"message":)");
    if (!write_json(w, message, "message")) return false;
    if (data != Py_None) {
      w.append(R"(,"data":)");
      if (!write_json(w, data, "data")) return false;
    }
    w.append("}}");
    return true;
  });
}

// Reused between calls of one thread (encode_event runs no Python code meanwhile): per thread, so
// no two threads write into one buffer, with or without a GIL.
struct EventBuffer : std::string {};
using ThreadEventBuffer = PerThread<EventBuffer>;

PyObject* encode_event(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  namespace sse = mcp_native::sse;
  static const char* const names[] = {"data", "event", "id", "retry"};
  PyObject* a[4] = {};
  if (!bind_args("encode_event", args, nargs, kwnames, names, 1, std::size(names), a)) return nullptr;
  if (nargs > 1) {
    PyErr_SetString(PyExc_TypeError, "encode_event() takes 1 positional argument (event, id and retry are keywords)");
    return nullptr;
  }
  try {
    BytesArg data(a[0], "data");
    if (!utf8::is_valid(data.view())) {
      // Let the codec say where: the message names the first bad byte.
      PyObject* text = PyUnicode_DecodeUTF8(data.view().data(), static_cast<Py_ssize_t>(data.view().size()), "strict");
      Py_XDECREF(text);
      if (text)
        PyErr_SetString(PyExc_ValueError, "data: not valid UTF-8");
      else
        name_the_field("data");
      return nullptr;
    }
    std::string_view event = "message", id;
    if (a[1] && !utf8_of(a[1], "event", event)) return nullptr;
    const bool has_id = a[2] && a[2] != Py_None;
    if (has_id && !utf8_of(a[2], "id", id)) return nullptr;
    if (sse::has_line_break(event)) {
      PyErr_Format(PyExc_ValueError, "event may not contain line breaks: %R", a[1]);
      return nullptr;
    }
    if (has_id && (sse::has_line_break(id) || id.find('\0') != std::string_view::npos)) {
      PyErr_Format(PyExc_ValueError, "id may not contain line breaks or NUL (readers ignore such ids): %R", a[2]);
      return nullptr;
    }
    std::string retry_digits;
    if (a[3] && a[3] != Py_None) {
      PyObject* r = a[3];
      const unsigned long long v = PyLong_Check(r) && !PyBool_Check(r) ? PyLong_AsUnsignedLongLong(r) : ~0ULL;
      if (v == ~0ULL && (PyErr_Occurred() || !PyLong_Check(r) || PyBool_Check(r))) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "retry must be a non-negative int (milliseconds), not %R", r);
        return nullptr;
      }
      retry_digits = std::to_string(v);
    }
    std::string* buf = ThreadEventBuffer::get();
    if (buf == nullptr) return PyErr_NoMemory();
    std::string& out = *buf;
    out.clear();
    sse::write_event(out, data.view(), event, has_id ? &id : nullptr, retry_digits);
    PyObject* result = PyBytes_FromStringAndSize(out.data(), static_cast<Py_ssize_t>(out.size()));
    if (out.capacity() > kKeepBytes) std::string().swap(out);
    return result;
  } catch (py::error_already_set& e) {
    e.restore();
    return nullptr;
  } catch (const py::builtin_exception& e) {
    e.set_error();
    return nullptr;
  } catch (const std::bad_alloc&) {
    return PyErr_NoMemory();
  }
}

template <class F>
PyCFunction fastcall(F f) {
  return reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(f));
}

PyMethodDef wire_methods[] = {
    {"encode_request", fastcall(encode_request), METH_FASTCALL | METH_KEYWORDS,
     "encode_request($module, id, method, params=None)\n--\n\n"
     "The JSON-RPC request line (compact JSON and one newline) as bytes."},
    {"encode_notification", fastcall(encode_notification), METH_FASTCALL | METH_KEYWORDS,
     "encode_notification($module, method, params=None)\n--\n\n"
     "The JSON-RPC notification line (compact JSON and one newline) as bytes."},
    {"encode_response", fastcall(encode_jsonrpc_response), METH_FASTCALL | METH_KEYWORDS,
     "encode_response($module, id, result)\n--\n\n"
     "The JSON-RPC success response line (compact JSON and one newline) as bytes."},
    {"encode_error", fastcall(encode_error), METH_FASTCALL | METH_KEYWORDS,
     "encode_error($module, id, code, message, data=None, protocol_version='2025-11-25')\n--\n\n"
     "The JSON-RPC error response line (compact JSON and one newline) as bytes; data None\n"
     "leaves data out. An unknown id (None) is left out, as the schemas of 2025-11-25 and\n"
     "later want; for protocol_version '2025-06-18' and older it is written as null (JSON-RPC 2.0)."},
    {"sse_encode_event", fastcall(encode_event), METH_FASTCALL | METH_KEYWORDS,
     "sse_encode_event($module, data, *, event='message', id=None, retry=None)\n--\n\n"
     "One Server-Sent Event as bytes: event, id, retry, one data line per line of data, blank line."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

void bind_wire(py::module_& m) {
  if (PyModule_AddFunctions(m.ptr(), wire_methods) < 0) throw py::error_already_set();
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
      py::arg("request"), py::arg("notification"), py::arg("response"), py::arg("error_response"), py::arg("invalid"),
      "Registers the message classes that JsonRpcDecoder instantiates.");

  // A plain `type` metaclass keeps the class describable by a stub file (stubtest checks it).
  py::class_<PyDecoder>(m, "JsonRpcDecoder", py::metaclass(reinterpret_cast<PyObject*>(&PyType_Type)),
                        "Incremental newline-delimited JSON-RPC decoder.")
      .def(py::init<const py::int_&, const py::str&>(), py::arg("max_message_bytes"), py::arg("protocol_version"))
      .def("feed", &PyDecoder::feed, py::arg("chunk"))
      .def("close", &PyDecoder::close)
      .def_property_readonly("max_message_bytes", &PyDecoder::max_message_bytes)
      .def_property_readonly("protocol_version", &PyDecoder::protocol_version)
      .def_property_readonly("pending_bytes", &PyDecoder::pending_bytes);

  m.def(
      "_sse_set_types", [](py::handle event) { g_event_type = checked_tuple_type(event, "Event", 4); },
      py::arg("event"), "Registers the event class that SseDecoder instantiates.");

  py::class_<PySseDecoder>(m, "SseDecoder", py::metaclass(reinterpret_cast<PyObject*>(&PyType_Type)),
                           "Incremental Server-Sent Events parser (WHATWG rules).")
      .def(py::init<>())
      .def("feed", &PySseDecoder::feed, py::arg("chunk"))
      .def("close", &PySseDecoder::close)
      .def_property_readonly("last_event_id", &PySseDecoder::last_event_id)
      .def_property_readonly("retry", &PySseDecoder::retry);
}

}  // namespace mcp_native::bindings
