// Tool results: the JSON-RPC response line of a tools/call, written in one pass.
#include <cstring>
#include <new>
#include <optional>
#include <string_view>

#include "bindings.hpp"
#include "mcp_native/json/indent.hpp"
#include "mcp_native/mcp/protocol.hpp"
#include "mcp_native/mcp/text_mirror.hpp"
#include "mcp_native/schema/walk.hpp"
#include "py_args.hpp"
#include "py_dumper.hpp"
#include "py_instance.hpp"
#include "py_json.hpp"

namespace mcp_native::bindings {
namespace {

using schema::Node;

// Interned names: set once by bind_results at import, then only read (safe from any thread).
PyObject* g_type_key;  // interned "type"
PyObject* g_is_valid;  // interned "is_valid"

// Writes structured content while validating it against the output schema, in one walk over
// the Python objects (schema::GuidedWalk): this is its sink, the dumper's writing with the
// dispatch on exact Python types. run() is false as soon as the value fails, or cannot be
// checked or written (then a Python exception may be set or a C++ exception thrown): the caller
// discards the text and redoes the work the two-walk way, which reports exactly as it always
// has.
class CheckedDumper : Dumper {
 public:
  CheckedDumper(JsonWriter& w, const CompiledSchema& s)
      : Dumper(w, nullptr, false), env_{s.keys}, walk_(*s.program, env_, *this) {}

  bool run(PyObject* o) { return walk_.run(o); }

 private:
  friend class schema::GuidedWalk<PyView, CheckedDumper>;
  using ScalarVerdict = schema::ScalarVerdict;

  bool write(PyObject* o) { return Dumper::value(o); }
  bool write_null() { return w_.write_null(), true; }
  [[gnu::always_inline]] bool item(PyObject* o, bool comma) { return list_item(o, comma); }
  bool item_comma() { return w_.put(','), true; }
  [[gnu::always_inline]] bool member(PyObject* o) { return borrowed(o); }
  // Subclasses and tuples are settled as is_valid sees them.
  static bool enterable(PyObject* o) { return Py_TYPE(o) == &PyDict_Type || Py_TYPE(o) == &PyList_Type; }
  static bool is_array(PyObject* o) { return Py_TYPE(o) == &PyList_Type; }
  template <class Write>
  [[gnu::always_inline]] static bool held(PyObject* o, Write&& write) {
    Py_INCREF(o);
    const bool ok = write();
    Py_DECREF(o);
    return ok;
  }

  // Names must be str. Those from the program are interned, like the keys of dicts written in
  // code: the member in declaration order is most often the very same str.
  static bool key_ok(PyObject* k) { return PyUnicode_Check(k); }
  bool key_is(PyObject* k, uint32_t key_id) const { return (*env_.keys)[key_id] == k; }
  std::string_view key_text(PyObject* k) const { return PyView::str(env_, k); }
  [[gnu::always_inline]] bool key(PyObject* k, bool first) { return member_key(k, first); }

  template <class Member>
  [[gnu::always_inline]] bool object(PyObject* o, Member&& member) {
    return members(o, member);
  }

  template <class Each>
  [[gnu::always_inline]] bool array(PyObject* o, Each&& each) {
    if (PyList_GET_SIZE(o) == 0) return w_.append("[]"), true;
    if (!enter(o)) return false;
    w_.put('[');
    // The size is re-read each time: writing an item may run code that resizes the list.
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(o); ++i)
      if (!each(static_cast<size_t>(i), PyList_GET_ITEM(o, i))) return false;
    w_.put(']');
    leave();
    return true;
  }

  // A value under a bare type or a bounded leaf, written by the dispatch on its type that also
  // checks it: str, int and float cost one type test, not one to check and one to write.
  template <class Other>
  [[gnu::always_inline]] bool scalar(PyObject* o, const Node& c, bool comma, Other&& other) {
    PyTypeObject* t = Py_TYPE(o);
    if (t == &PyUnicode_Type)
      return ScalarVerdict::string(c, static_cast<uint64_t>(PyUnicode_GET_LENGTH(o))) && text(o, comma ? ',' : 0, 0);
    std::int64_t i;
    if (t == &PyLong_Type && compact_int(o, i)) return ScalarVerdict::integer(c, i) && small_integer(i, comma);
    if (t == &PyFloat_Type && (c.only_types & schema::kNumber)) return real(o, comma);  // (fails on nan, inf)
    if (o == Py_None) return ScalarVerdict::constant(c, schema::kNull) && constant(o, comma);
    if (t == &PyBool_Type) return ScalarVerdict::constant(c, schema::kBool) && constant(o, comma);
    return other();
  }

  // An item of a typed array: table cells (floats) and tags or names (str) are checked by the
  // type test that writes them.
  template <class Other>
  [[gnu::always_inline]] bool typed_item(PyObject* o, uint8_t types, bool comma, Other&& other) {
    if (Py_TYPE(o) == &PyFloat_Type && (types & schema::kNumber)) {  // (all floats; `integer` admits some)
      const double v = PyFloat_AS_DOUBLE(o);
      if (!std::isfinite(v)) return false;
      char* p = w_.extend(kMaxDoubleChars + 1);
      *p = ',';
      w_.commit(comma + format_double(v, p + comma));
      return true;
    }
    if (Py_TYPE(o) == &PyUnicode_Type) return (types & schema::kString) && text(o, comma ? ',' : 0, 0);
    return other();
  }

  PyView::Env env_;
  schema::GuidedWalk<PyView, CheckedDumper> walk_;
};

// The structured content, checked against `schema` when there is one (see CheckedDumper).
bool write_structured(JsonWriter& w, PyObject* structured, const CompiledSchema* schema) {
  if (schema == nullptr) return dump_py(w, structured);
  try {
    return CheckedDumper(w, *schema).run(structured);
  } catch (const std::exception&) {  // the engine's errors, bad_alloc: reported by the retry
    return false;
  }
}

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

bool write_response(JsonWriter& w, PyObject* id, PyObject* structured, const CompiledSchema* schema, PyObject* content,
                    PyObject* meta, bool complete) {
  // (Fixed parts go in as few appends as the layout allows: around a small payload they are
  // much of the work.)
  static constexpr std::string_view head = R"({"jsonrpc":"2.0","id":)", result = R"(,"result":{"structuredContent":)";
  std::int64_t int_id;
  if (PyView::small_int(id, int_id)) {  // the usual id: all of it in one reservation
    char* const p = w.extend(head.size() + 20 + result.size());
    std::memcpy(p, head.data(), head.size());
    const std::size_t n = head.size() + format_int(int_id, p + head.size());
    std::memcpy(p + n, result.data(), result.size());
    w.commit(n + result.size());
  } else {
    w.append(head);
    if (!dump_py(w, id)) return false;
    w.append(result);
  }
  const std::size_t start = w.size();
  if (!write_structured(w, structured, schema)) return false;
  const std::size_t end = w.size();
  const int text = content == nullptr ? 0 : has_text_block(content);
  if (text < 0) return false;
  if (!text) {
    // The text mirror: the structuredContent bytes just written, escaped once more.
    w.append(R"(,"content":[{"type":"text","text":")");
    append_escaped_copy(w, start, end);
    w.append(content == nullptr ? R"("}])" : R"("})");
  } else {
    w.append(R"(,"content":[)");
  }
  if (content != nullptr) {
    const Py_ssize_t n = PyList_GET_SIZE(content);
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (i > 0 || !text) w.put(',');
      if (!dump_py(w, PyList_GET_ITEM(content, i))) return false;
    }
    w.put(']');
  }
  if (meta != nullptr) {
    w.append(R"(,"_meta":)");
    if (!dump_py(w, meta)) return false;
  }
  w.append(complete ? ",\"resultType\":\"complete\"}}\n" : "}}\n");
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

// The native part of mcp_native.Tool. encode_response is a method of it, not a callable bound
// to the tool, so that a call costs what a call of a built-in method costs: through a
// functools.partial it took ~14 ns more, a tenth of the time of a small result.
// `check` is set by __init__ (once, when mcp_native.Tool builds its writer) and only read by the
// encoders after that: sharing a writer between threads is safe, re-initializing one in use is not.
struct ResponseWriter {
  PyObject_HEAD PyObject* check;  // the Validator of the output schema, None, or null before __init__
  bool any_structured;            // structuredContent may be any JSON value, and results carry resultType
};

PyObject* g_encode_invalid;  // interned "_encode_invalid" (set at import, then only read)

int writer_init(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* names[] = {"check", "protocol_version", nullptr};
  PyObject* check;
  PyObject* version_name;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OU:ResponseWriter", const_cast<char**>(names), &check,
                                   &version_name)) {
    return -1;
  }
  Py_ssize_t name_len;
  const char* name = PyUnicode_AsUTF8AndSize(version_name, &name_len);
  if (name == nullptr) return -1;
  if (check != Py_None && compiled_schema(check).program == nullptr) {
    PyErr_Format(PyExc_TypeError, "check: expected a Validator or None, got %s", Py_TYPE(check)->tp_name);
    return -1;
  }
  const auto version = parse_protocol_version({name, static_cast<std::size_t>(name_len)});
  if (!version) {
    PyErr_Format(PyExc_ValueError, "protocol_version: '%s' is not one of %s", name, kProtocolVersionNames.data());
    return -1;
  }
  if (!has_structured_content(*version)) {
    PyErr_Format(PyExc_ValueError, "protocol_version: '%s' has no structuredContent (2025-06-18 and later have)", name);
    return -1;
  }
  auto* w = reinterpret_cast<ResponseWriter*>(self);
  Py_INCREF(check);
  Py_XSETREF(w->check, check);
  w->any_structured = structured_content_any_json(*version);
  return 0;
}

int writer_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(reinterpret_cast<ResponseWriter*>(self)->check);
  Py_VISIT(Py_TYPE(self));
  return 0;
}

int writer_clear(PyObject* self) {
  Py_CLEAR(reinterpret_cast<ResponseWriter*>(self)->check);
  return 0;
}

void writer_dealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  writer_clear(self);
  type->tp_free(self);
  Py_DECREF(type);
}

// Tool.encode_response(self, request_id, structured, content=None, meta=None)
PyObject* encode_tool_response(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  static const char* const names[] = {"request_id", "structured", "content", "meta"};
  PyObject* a[4] = {nullptr, nullptr, Py_None, Py_None};
  if (kwnames == nullptr && nargs >= 2 && nargs <= 4) {
    for (Py_ssize_t i = 0; i < nargs; ++i) a[i] = args[i];  // the usual call, bound without a call
  } else if (!bind_args("encode_response", args, nargs, kwnames, names, 2, 4, a)) {
    return nullptr;
  }
  const auto* writer = reinterpret_cast<ResponseWriter*>(self);
  PyObject* check = writer->check;
  if (check == nullptr) {
    PyErr_SetString(PyExc_TypeError, "encode_response(): the tool is not initialized");
    return nullptr;
  }
  PyObject* id = a[0];
  PyObject* structured = a[1];
  PyObject* content = a[2] == Py_None ? nullptr : a[2];
  PyObject* meta = a[3] == Py_None ? nullptr : a[3];
  if (!PyUnicode_Check(id) && !(PyLong_Check(id) && !PyBool_Check(id))) {
    PyErr_Format(PyExc_TypeError, "request_id: expected str or int, got %s", Py_TYPE(id)->tp_name);
    return nullptr;
  }
  if (!writer->any_structured && !PyDict_Check(structured)) {
    PyErr_Format(PyExc_TypeError, "structured: protocol versions before 2026-07-28 require an object (dict), got %s",
                 Py_TYPE(structured)->tp_name);
    return nullptr;
  }
  if (content != nullptr && !check_content(content)) return nullptr;
  if (meta != nullptr && !PyDict_Check(meta)) {
    PyErr_Format(PyExc_TypeError, "meta: expected a dict, got %s", Py_TYPE(meta)->tp_name);
    return nullptr;
  }
  const bool complete = writer->any_structured;  // resultType: "complete"
  if (check == Py_None) {
    return write_bytes(
        [&](JsonWriter& w) { return write_response(w, id, structured, nullptr, content, meta, complete); });
  }
  const CompiledSchema schema = compiled_schema(check);  // (an initialized Validator: __init__ checked)
  // One walk that validates while writing; when it stops, the two-walk way reports: the
  // verdict of is_valid (or its exception), then the answer for an invalid payload
  // (self._encode_invalid), or the writer's error.
  if (PyObject* line = write_bytes(
          [&](JsonWriter& w) { return write_response(w, id, structured, &schema, content, meta, complete); }))
    return line;
  PyErr_Clear();
  PyObject* ok = PyObject_CallMethodOneArg(check, g_is_valid, structured);
  if (ok == nullptr) return nullptr;
  const int valid = PyObject_IsTrue(ok);
  Py_DECREF(ok);
  if (valid < 0) return nullptr;
  if (!valid) {
    PyObject* call[5] = {self, id, structured, a[2], a[3]};
    return PyObject_VectorcallMethod(g_encode_invalid, call, 5, nullptr);
  }
  return write_bytes(
      [&](JsonWriter& w) { return write_response(w, id, structured, nullptr, content, meta, complete); });
}

PyMethodDef writer_methods[] = {
    {"encode_response", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(encode_tool_response)),
     METH_FASTCALL | METH_KEYWORDS,
     "encode_response($self, request_id, structured, content=None, meta=None)\n"
     "--\n\n"
     "The JSON-RPC response line (compact JSON and one newline) answering request_id with\n"
     "result(structured, content, meta=meta), written in one native pass: the payload is\n"
     "validated, serialized once as structuredContent, and those bytes escaped once more into\n"
     "the text mirror."},
    {nullptr, nullptr, 0, nullptr},
};

// mcp_tool_result(type, content, structured, mirror): Azure Functions' McpToolResult text.
PyObject* mcp_tool_result(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 4) {
    PyErr_Format(PyExc_TypeError, "mcp_tool_result() takes 4 arguments (%zd given)", nargs);
    return nullptr;
  }
  PyObject *type = args[0], *content = args[1], *structured = args[2];
  const int mirror = PyObject_IsTrue(args[3]);
  if (mirror < 0) return nullptr;
  if (!PyUnicode_Check(type) || !PyUnicode_IS_COMPACT_ASCII(type)) {
    PyErr_SetString(PyExc_TypeError, "mcp_tool_result(): type must be an ASCII str");
    return nullptr;
  }
  if (mirror && structured == Py_None) {
    PyErr_SetString(PyExc_ValueError, "mcp_tool_result(): a mirror needs structured content");
    return nullptr;
  }
  try {
    // Each value written compactly, then laid out as json.dumps does by default.
    auto python_text = [](PyObject* o, JsonWriter& out) {
      JsonWriter compact;
      if (!dump_py(compact, o)) return false;
      append_python_default(out, compact.view());
      return true;
    };
    JsonWriter content_text, structured_text, out;
    if (!mirror && !python_text(content, content_text)) return nullptr;
    if (structured != Py_None && !python_text(structured, structured_text)) return nullptr;
    const std::string_view name{static_cast<const char*>(PyUnicode_DATA(type)),
                                static_cast<std::size_t>(PyUnicode_GET_LENGTH(type))};
    append_mcp_tool_result(out, name, content_text.view(),
                           structured == Py_None ? std::nullopt : std::optional(structured_text.view()), mirror);
    PyObject* text = PyUnicode_New(static_cast<Py_ssize_t>(out.size()), 127);
    if (text != nullptr) std::memcpy(PyUnicode_DATA(text), out.data(), out.size());
    return text;
  } catch (const std::bad_alloc&) {
    return PyErr_NoMemory();
  }
}

// The state pydantic keeps on a model instance, what its __copy__ copies: interned "__dict__",
// "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__". Set once at import,
// then only read.
PyObject* g_model_state[4];

// One copy of a model whose state is `dict`, `fields_set` and `extra`, with `field` set to
// `value`, built as pydantic's __copy__ builds one: cls.__new__(cls), then object.__setattr__.
PyObject* model_copy(PyTypeObject* cls, PyObject* dict, PyObject* fields_set, PyObject* extra, PyObject* field,
                     PyObject* value, PyObject* no_args) {
  PyObject* copy = cls->tp_new(cls, no_args, nullptr);
  if (copy == nullptr) return nullptr;
  PyObject* values[4] = {PyDict_Copy(dict), PySet_New(fields_set),
                         extra == Py_None ? Py_NewRef(Py_None) : PyDict_Copy(extra), Py_NewRef(Py_None)};
  bool ok = values[0] && values[1] && values[2] && PyDict_SetItem(values[0], field, value) == 0;
  for (int i = 0; ok && i < 4; ++i) ok = PyObject_GenericSetAttr(copy, g_model_state[i], values[i]) == 0;
  for (PyObject* v : values) Py_XDECREF(v);
  if (ok) return copy;
  Py_DECREF(copy);
  return nullptr;
}

// model_copies(template, field, values): [template.model_copy(update={field: v}) for v in values].
PyObject* model_copies(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 3) {
    PyErr_Format(PyExc_TypeError, "model_copies() takes 3 arguments (%zd given)", nargs);
    return nullptr;
  }
  PyObject *tmpl = args[0], *field = args[1], *values = args[2];
  if (!PyList_CheckExact(values)) {
    PyErr_Format(PyExc_TypeError, "model_copies(): values must be a list, not %.200s", Py_TYPE(values)->tp_name);
    return nullptr;
  }
  PyObject* state[4] = {};
  for (int i = 0; i < 4; ++i) {
    state[i] = PyObject_GenericGetAttr(tmpl, g_model_state[i]);
    if (state[i] == nullptr) {
      PyErr_Clear();
      break;
    }
  }
  // A template in the state its fields' validation leaves: field declared and set, no extra
  // beyond a dict, no private attributes (a copy would share their values).
  const bool model = Py_TYPE(tmpl)->tp_new != nullptr && state[3] == Py_None && PyDict_CheckExact(state[0]) &&
                     PySet_CheckExact(state[1]) && (state[2] == Py_None || PyDict_CheckExact(state[2])) &&
                     PyUnicode_Check(field) && PyDict_Contains(state[0], field) == 1 &&
                     PySet_Contains(state[1], field) == 1;
  PyObject* out = nullptr;
  if (!model) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError,
                 "model_copies(): %.200s is not a pydantic model with a set field %R and no private attributes",
                 Py_TYPE(tmpl)->tp_name, field);
  } else if (PyObject* items = PyList_AsTuple(values)) {  // a class's __new__ could change the list
    PyObject* no_args = PyTuple_New(0);
    const Py_ssize_t n = PyTuple_GET_SIZE(items);
    out = no_args ? PyList_New(n) : nullptr;
    for (Py_ssize_t i = 0; out != nullptr && i < n; ++i) {
      PyObject* copy =
          model_copy(Py_TYPE(tmpl), state[0], state[1], state[2], field, PyTuple_GET_ITEM(items, i), no_args);
      if (copy == nullptr)
        Py_CLEAR(out);
      else
        PyList_SET_ITEM(out, i, copy);
    }
    Py_XDECREF(no_args);
    Py_DECREF(items);
  }
  for (PyObject* o : state) Py_XDECREF(o);
  return out;
}

PyMethodDef result_functions[] = {
    {"mcp_tool_result", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(mcp_tool_result)), METH_FASTCALL,
     "mcp_tool_result($module, type, content, structured, mirror, /)\n--\n\n"
     "Azure Functions' McpToolResult text for a content block or result (content) and its\n"
     "structured content (or None), as json.dumps lays it out (for mcp_native.tools)."},
    {"model_copies", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(model_copies)), METH_FASTCALL,
     "model_copies($module, template, field, values, /)\n--\n\n"
     "[template.model_copy(update={field: v}) for v in values] for a pydantic model instance\n"
     "(the adapters' text blocks)."},
    {nullptr, nullptr, 0, nullptr},
};

PyType_Slot writer_slots[] = {
    {Py_tp_doc, const_cast<char*>("ResponseWriter(check, protocol_version)\n--\n\n"
                                  "The native part of mcp_native.Tool: encode_response (see _core.pyi).")},
    {Py_tp_new, reinterpret_cast<void*>(PyType_GenericNew)},
    {Py_tp_init, reinterpret_cast<void*>(writer_init)},
    {Py_tp_traverse, reinterpret_cast<void*>(writer_traverse)},
    {Py_tp_clear, reinterpret_cast<void*>(writer_clear)},
    {Py_tp_dealloc, reinterpret_cast<void*>(writer_dealloc)},
    {Py_tp_methods, writer_methods},
    {0, nullptr},
};

PyType_Spec writer_spec = {
    "mcp_native._core.ResponseWriter",
    sizeof(ResponseWriter),
    0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    writer_slots,
};

}  // namespace

void bind_results(pybind11::module_& m) {
  g_type_key = PyUnicode_InternFromString("type");
  g_is_valid = PyUnicode_InternFromString("is_valid");
  g_encode_invalid = PyUnicode_InternFromString("_encode_invalid");
  const char* const model_state[4] = {"__dict__", "__pydantic_fields_set__", "__pydantic_extra__",
                                      "__pydantic_private__"};
  bool interned = true;
  for (int i = 0; i < 4; ++i) interned = interned && (g_model_state[i] = PyUnicode_InternFromString(model_state[i]));
  PyObject* writer = PyType_FromSpec(&writer_spec);
  const bool ok = g_type_key && g_is_valid && g_encode_invalid && interned && writer &&
                  PyModule_AddObjectRef(m.ptr(), "ResponseWriter", writer) == 0 &&
                  PyModule_AddFunctions(m.ptr(), result_functions) == 0;
  Py_XDECREF(writer);
  if (!ok) throw pybind11::error_already_set();
}

}  // namespace mcp_native::bindings
