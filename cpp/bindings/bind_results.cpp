// Tool results: the JSON-RPC response line of a tools/call, written in one pass.
#include <cstring>
#include <new>
#include <string_view>

#include "bindings.hpp"
#include "mcp_native/mcp/protocol.hpp"
#include "mcp_native/mcp/text_mirror.hpp"
#include "py_dumper.hpp"
#include "py_instance.hpp"
#include "py_json.hpp"

namespace mcp_native::bindings {
namespace {

using schema::Keyword;
using schema::Node;
using schema::Op;

PyObject* g_type_key;  // interned "type"
PyObject* g_is_valid;  // interned "is_valid"

// Writes structured content while validating it against the output schema, in one walk over
// the Python objects: walkable nodes are applied value by value (Evaluator's guided walks), any
// other subschema settles its whole value with Evaluator::test before that value is written.
// write() is false as soon as the value fails, or cannot be checked or written (then a Python
// exception may be set or a C++ exception thrown): the caller discards the text and redoes the
// work the two-walk way, which reports exactly as it always has.
class CheckedDumper : Dumper {
 public:
  CheckedDumper(JsonWriter& w, const CompiledSchema& s)
      : Dumper(w, nullptr, false), P(*s.program), env_{s.keys}, ev_(P, env_, counters_) {}

  bool write(PyObject* o) {
    ++counters_.steps;  // the evaluator's step for the root, whatever the root is
    return value(o, P.root);
  }

 private:
  bool value(PyObject* o, uint32_t at) {
    const int64_t settled = ev_.settle(at, o);
    if (settled < 0) return settled == -1 && (w_.write_null(), true);
    const auto si = static_cast<uint32_t>(settled);
    const Node& n = P.nodes[si];
    if (n.only_types) return ev_.is_type(n.only_types, false, PyView::kind(env_, o), o) && Dumper::value(o);
    if (n.item_types && Py_TYPE(o) == &PyList_Type) return typed_list(o, n);
    if (n.boolean >= 0) return n.boolean && Dumper::value(o);
    if (!n.walkable || n.leaf) return ev_.test(si, o) && Dumper::value(o);
    // Steps and levels are counted at least as the evaluator counts them (a step per walked
    // subschema, a level per container), so that the walk stops short of any limit is_valid
    // would reach, and the two-walk way then decides.
    if (++counters_.steps > P.limits.max_steps) return false;
    const schema::Kind k = PyView::kind(env_, o);
    if (!ev_.check_self(n, k, o)) return false;
    const bool exact = Py_TYPE(o) == &PyDict_Type || Py_TYPE(o) == &PyList_Type;
    if (!exact) return ev_.test(si, o) && Dumper::value(o);  // subclasses, tuples: as is_valid sees them
    if (counters_.depth >= P.limits.max_instance_depth) return false;
    ++counters_.depth;
    const bool ok = Py_TYPE(o) == &PyDict_Type ? dict(o, n) : list(o, n);
    --counters_.depth;
    return ok;
  }

  // A member or item under subschema si; `plain` writes it without a schema (and the comma
  // before an item, if `comma`). Bare types and leaves are settled here, saving a call per
  // value; the rest is held while it is walked (see Dumper::borrowed).
  template <class Plain>
  [[gnu::always_inline]] bool child(PyObject* o, uint32_t si, bool comma, Plain&& plain) {
    const Node& c = P.nodes[si];
    if (c.only_types || c.bounded) return scalar(o, si, c, comma, plain);
    if (c.leaf && !c.item_types) return ev_.test(si, o) && plain();
    if (comma) w_.put(',');
    Py_INCREF(o);
    const bool ok = c.item_types && Py_TYPE(o) == &PyList_Type ? typed_list(o, c) : value(o, si);
    Py_DECREF(o);
    return ok;
  }

  // A value under a bare type or a bounded leaf (c = node si), written by the dispatch on its
  // type that also checks it: str, int and float cost one type test, not one to check and one
  // to write. Other values are settled by Evaluator::test.
  template <class Plain>
  [[gnu::always_inline]] bool scalar(PyObject* o, uint32_t si, const Node& c, bool comma, Plain&& plain) {
    PyTypeObject* t = Py_TYPE(o);
    const uint8_t types = c.only_types | c.types;  // 0: a bounded leaf of any type
    if (t == &PyUnicode_Type) {
      if (types != 0 && !(types & schema::kString)) return false;
      const auto length = static_cast<uint64_t>(PyUnicode_GET_LENGTH(o));
      if (c.bounded && (length < c.min_length || length > c.max_length)) return false;
      return text(o, comma ? ',' : 0, 0);
    }
    std::int64_t i;
    if (t == &PyLong_Type && compact_int(o, &i)) {
      if (types != 0 && !(types & (schema::kNumber | schema::kInteger))) return false;
      return !(c.bounded && (i < c.int_min || i > c.int_max)) && small_integer(i, comma);
    }
    if (t == &PyFloat_Type && (c.only_types & schema::kNumber)) return real(o, comma);  // (fails on nan, inf)
    if (o == Py_None) return (types == 0 || (types & schema::kNull)) && constant(o, comma);
    if (t == &PyBool_Type) return (types == 0 || (types & schema::kBool)) && constant(o, comma);
    return ev_.test(si, o) && plain();
  }

  bool dict(PyObject* o, const Node& n) {
    const Keyword* props = n.props >= 0 ? &P.keywords[(size_t)n.props] : nullptr;
    size_t next = 0;
    uint64_t required_seen = 0;
    const bool ok = members(o, [&](PyObject* k, PyObject* v, bool first) {
      if (!PyUnicode_Check(k)) return false;
      int64_t kid = -1;
      if (props != nullptr) {
        // Names from the program are interned, like the keys of dicts written in code: the
        // member in declaration order is most often the very same str.
        if (next < props->props.size() && (*env_.keys)[props->props[next].first] == k)
          kid = ev_.next_member_schema(*props, next, required_seen);
        else
          kid = ev_.member_schema(*props, PyView::str(env_, k), next, required_seen);
      }
      if (kid == -2 || !member_key(k, first)) return false;
      return kid < 0 ? borrowed(v) : child(v, (uint32_t)kid, false, [&] { return borrowed(v); });
    });
    return ok && (props == nullptr || ev_.required_present(*props, o, required_seen));
  }

  bool list(PyObject* o, const Node& n) {
    if (PyList_GET_SIZE(o) == 0) return w_.append("[]"), true;
    const Keyword *prefix = nullptr, *rest = nullptr;
    for (const Keyword *kw = &P.keywords[n.first], *end = kw + n.count; kw != end; ++kw) {
      if (kw->op == Op::PrefixItems) prefix = kw;
      if (kw->op == Op::RestItems) rest = kw;
    }
    if (!enter(o)) return false;
    w_.put('[');
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(o); ++i) {
      PyObject* item = PyList_GET_ITEM(o, i);
      int64_t kid = -1;
      if (prefix != nullptr && (size_t)i < prefix->kids.size())
        kid = prefix->kids[(size_t)i];
      else if (rest != nullptr && (uint64_t)i >= rest->count)
        kid = rest->kids[0];
      const bool comma = i != 0;
      if (kid < 0 ? !list_item(item, comma)
                  : !child(item, (uint32_t)kid, comma, [&] { return list_item(item, comma); }))
        return false;
    }
    w_.put(']');
    leave();
    return true;
  }

  // A typed array (Node::item_types), e.g. a row of a table: each item's type is checked as it
  // is written.
  bool typed_list(PyObject* o, const Node& n) {
    if (n.types && !ev_.is_type(n.types, false, schema::Kind::Array, o)) return false;
    const auto size = static_cast<uint64_t>(PyList_GET_SIZE(o));
    if (size < n.min_items || size > n.max_items) return false;
    if (size == 0) return w_.append("[]"), true;
    if (!enter(o)) return false;
    w_.put('[');
    const bool floats = n.item_types & schema::kNumber;  // (all of them; `integer` admits some)
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(o); ++i) {
      PyObject* item = PyList_GET_ITEM(o, i);
      const bool comma = i != 0;
      if (floats && Py_TYPE(item) == &PyFloat_Type) {  // table cells: written here, one call less
        const double v = PyFloat_AS_DOUBLE(item);
        if (!std::isfinite(v)) return false;
        char* p = w_.extend(kMaxDoubleChars + 1);
        *p = ',';
        w_.commit(comma + format_double(v, p + comma));
      } else if (Py_TYPE(item) == &PyUnicode_Type) {  // tags, names: checked by the same type test
        if (!(n.item_types & schema::kString) || !text(item, comma ? ',' : 0, 0)) return false;
      } else if (!ev_.is_type(n.item_types, false, PyView::kind(env_, item), item) || !list_item(item, comma)) {
        return false;
      }
    }
    w_.put(']');
    leave();
    return true;
  }

  const schema::Program& P;
  PyView::Env env_;
  schema::Counters counters_;
  schema::Evaluator<PyView, false> ev_;
};

// The structured content, checked against `schema` when there is one (see CheckedDumper).
bool write_structured(JsonWriter& w, PyObject* structured, const CompiledSchema* schema) {
  if (schema == nullptr) return dump_py(w, structured);
  try {
    return CheckedDumper(w, *schema).write(structured);
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
struct ResponseWriter {
  PyObject_HEAD PyObject* check;  // the Validator of the output schema, None, or null before __init__
  bool any_structured;            // structuredContent may be any JSON value, and results carry resultType
};

PyObject* g_encode_invalid;  // interned "_encode_invalid"

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

// encode_response(self, request_id, structured, content=None, meta=None)
PyObject* encode_response(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* a[4] = {nullptr, nullptr, Py_None, Py_None};
  if (nargs < 2 || nargs > 4) {
    PyErr_Format(PyExc_TypeError,
                 "encode_response() takes 2 positional arguments (request_id, structured) and content, meta");
    return nullptr;
  }
  for (Py_ssize_t i = 0; i < nargs; ++i) a[i] = args[i];
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t i = 0; i < nkw; ++i) {
    PyObject* name = PyTuple_GET_ITEM(kwnames, i);
    const int slot = PyUnicode_CompareWithASCIIString(name, "content") == 0 ? 2
                     : PyUnicode_CompareWithASCIIString(name, "meta") == 0  ? 3
                                                                            : -1;
    if (slot < 0 || slot < nargs) {
      PyErr_Format(PyExc_TypeError, "encode_response() got an unexpected keyword argument '%U'", name);
      return nullptr;
    }
    a[slot] = args[nargs + i];
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
    {"encode_response", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(encode_response)),
     METH_FASTCALL | METH_KEYWORDS,
     "encode_response($self, request_id, structured, content=None, meta=None)\n"
     "--\n\n"
     "The JSON-RPC response line (compact JSON and one newline) answering request_id with\n"
     "result(structured, content, meta=meta), written in one native pass: the payload is\n"
     "validated, serialized once as structuredContent, and those bytes escaped once more into\n"
     "the text mirror."},
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
  PyObject* writer = PyType_FromSpec(&writer_spec);
  const bool ok = g_type_key && g_is_valid && g_encode_invalid && writer &&
                  PyModule_AddObjectRef(m.ptr(), "ResponseWriter", writer) == 0;
  Py_XDECREF(writer);
  if (!ok) throw pybind11::error_already_set();
}

}  // namespace mcp_native::bindings
