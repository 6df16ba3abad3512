// The writer behind dumps: walks Python objects in the order and with the rules of the json
// module's C encoder. Shared by dump_py and the tool-result writer, which extends it.
#pragma once

#include <Python.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "mcp_native/json/indent.hpp"
#include "py_dict.hpp"
#include "py_int.hpp"
#include "py_json.hpp"

namespace mcp_native::bindings {
// Internal linkage in each file that includes it: with external (inline) linkage GCC inlines
// less of the walk, which cost dumps 7-12% more instructions.
namespace {

/// JSON of Python objects into a JsonWriter (see dump_py for the rules): compact, or with
/// kLaidOut in the punctuation and float spelling of a JsonLayout, in the same single walk. The
/// compact writer fuses each comma into the write of the value after it; laid out, the layout
/// writes the commas.
template <bool kLaidOut>
class BasicDumper {
 public:
  BasicDumper(JsonWriter& w, PyObject* default_fn, bool sort_keys) requires(!kLaidOut)
      : w_(w), default_fn_(default_fn), sort_keys_(sort_keys) {}
  BasicDumper(JsonWriter& w, PyObject* default_fn, bool sort_keys, JsonLayout& layout) requires kLaidOut
      : w_(w),
        default_fn_(default_fn),
        sort_keys_(sort_keys),
        layout_(&layout) {}

  bool value(PyObject* o) {
    PyTypeObject* t = Py_TYPE(o);
    if (t == &PyUnicode_Type) return str(o);
    if (t == &PyDict_Type) return dict(o);
    if (t == &PyList_Type) return list(o);
    if (t == &PyLong_Type) return integer(o);
    if (t == &PyFloat_Type) return real(o);
    if (o == Py_None) return w_.write_null(), true;
    if (o == Py_True) return w_.append("true"), true;
    if (o == Py_False) return w_.append("false"), true;
    if (t == &PyTuple_Type) return tuple(o);
    return other(o);
  }

 protected:
  // Enters a non-empty container (or a default() call) on `o`, whose items sit one level
  // deeper; false with ValueError past the limit.
  bool enter(PyObject* o) {
    if (depth_ < kMaxJsonDepth - 1) {
      stack_[depth_++] = o;
      return true;
    }
    for (int i = 0; i < depth_; ++i) {
      if (stack_[i] == o) {
        PyErr_SetString(PyExc_ValueError, "Circular reference detected");
        return false;
      }
    }
    PyErr_Format(PyExc_ValueError, "Nesting deeper than %d levels is not supported", kMaxJsonDepth);
    return false;
  }
  void leave() { --depth_; }

  // The punctuation, compact or through the layout.
  void open(char bracket) {
    if constexpr (kLaidOut) return layout_->open(w_, bracket);
    w_.put(bracket);
  }
  void close(char bracket) {
    if constexpr (kLaidOut) return layout_->close(w_, bracket);
    w_.put(bracket);
  }
  void comma() {
    if constexpr (kLaidOut) return layout_->comma(w_);
    w_.put(',');
  }
  void colon() {
    if constexpr (kLaidOut) return layout_->colon(w_);
    w_.put(':');
  }
  // Laid out, writes the comma that a compact write fuses into the value after it, and returns
  // false: the value then goes without one. Compact, returns `comma`.
  [[gnu::always_inline]] bool fused_comma(bool comma) {
    if constexpr (kLaidOut) {
      if (comma) layout_->comma(w_);
      return false;
    }
    return comma;
  }

  // Writes a value borrowed from a list or dict. Values whose writing can run Python code
  // (containers, subclasses, default()) are held meanwhile, as that code may remove them from
  // their container; exact str/int/float values are not, sparing a write to every object.
  [[gnu::always_inline]] bool borrowed(PyObject* o) {
    PyTypeObject* t = Py_TYPE(o);
    if (t == &PyFloat_Type) return real(o);
    if (t == &PyUnicode_Type) return str(o);
    if (t == &PyLong_Type) return integer(o);
    if (o == Py_None || o == Py_True || o == Py_False) return constant(o, false);  // never freed
    return held(o);
  }
  // Writes None, True or False (o is one of them), preceded by a comma if `comma`: a fixed
  // 8-byte copy of ",null", ",true", ",false" (or without the comma), zero-padded.
  [[gnu::always_inline]] bool constant(PyObject* o, bool comma) {
    comma = fused_comma(comma);
    static constexpr char kNull[9] = ",null", kTrue[9] = ",true", kFalse[9] = ",false";
    const char* text = o == Py_None ? kNull : o == Py_True ? kTrue : kFalse;
    char* p = w_.extend(8);
    std::memcpy(p, text + !comma, 8);
    w_.commit(comma + (o == Py_False ? 5 : 4));
    return true;
  }
  bool held(PyObject* o) {
    Py_INCREF(o);
    const bool ok = value(o);
    Py_DECREF(o);
    return ok;
  }

  // The UTF-8 text of a str, or null with an exception (lone surrogates: UnicodeEncodeError).
  // ASCII data and an already cached UTF-8 form are read in place, without a call.
  [[gnu::always_inline]] static const char* utf8_of(PyObject* o, std::size_t* n) {
    if (PyUnicode_IS_COMPACT_ASCII(o)) {
      *n = static_cast<std::size_t>(PyUnicode_GET_LENGTH(o));
      return static_cast<const char*>(PyUnicode_DATA(o));
    }
    const auto* c = reinterpret_cast<const PyCompactUnicodeObject*>(o);
    if (c->utf8 != nullptr) {
      *n = static_cast<std::size_t>(c->utf8_length);
      return c->utf8;
    }
    Py_ssize_t len;
    const char* s = PyUnicode_AsUTF8AndSize(o, &len);
    *n = static_cast<std::size_t>(len);
    return s;
  }

  bool str(PyObject* o) { return text(o, 0, 0); }

  // Writes a str as [lead]"text"[trail] (lead and trail optional: 0).
  [[gnu::always_inline]] bool text(PyObject* o, char lead, char trail) {
    std::size_t n;
    const char* s = utf8_of(o, &n);
    if (s == nullptr) return false;
    if (short_text(s, n, lead, trail)) return true;
    if (lead) w_.put(lead);
    w_.write_string({s, n});
    if (trail) w_.put(trail);
    return true;
  }

  // Decimal text of an int, as int.__repr__ gives it (subclasses such as IntEnum included).
  bool integer(PyObject* o) {
    std::int64_t small;
    if (compact_int(o, small)) {
      w_.write_int(small);
      return true;
    }
    int overflow;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (!overflow) {
      if (v == -1 && PyErr_Occurred()) return false;
      w_.write_int(v);
      return true;
    }
    return big_integer(o, false);
  }
  bool big_integer(PyObject* o, bool quoted) {
    PyObject* text = PyLong_Type.tp_repr(o);  // may raise past sys.get_int_max_str_digits()
    if (text == nullptr) return false;
    std::string_view digits(static_cast<const char*>(PyUnicode_DATA(text)),
                            static_cast<std::size_t>(PyUnicode_GET_LENGTH(text)));
    if (quoted) w_.put('"');
    w_.append(digits);
    if (quoted) w_.put('"');
    Py_DECREF(text);
    return true;
  }

  // Writes an int read by compact_int, preceded by a comma if `comma`: one reservation for both.
  [[gnu::always_inline]] bool small_integer(std::int64_t v, bool comma) {
    comma = fused_comma(comma);
    char* p = w_.extend(21);
    *p = ',';
    w_.commit(comma + format_int(v, p + comma));
    return true;
  }

  // Writes a float, preceded by a comma if `comma`: one reservation for both.
  bool real(PyObject* o, bool comma = false) {
    const double v = PyFloat_AS_DOUBLE(o);
    if (!std::isfinite(v)) return out_of_range(o), false;
    comma = fused_comma(comma);
    if constexpr (kLaidOut) return layout_->write_double(w_, v), true;
    char* p = w_.extend(kMaxDoubleChars + 1);
    *p = ',';
    w_.commit(comma + format_double(v, p + comma));
    return true;
  }
  static void out_of_range(PyObject* o) {
    PyErr_Format(PyExc_ValueError, "Out of range float values are not JSON compliant: %R", o);
  }

  // Writes an item of a list, preceded by a comma if `comma`. Common scalars take a single
  // reservation for both: every reservation reads and writes the writer's length in memory,
  // and a chain of those per item is what limits the speed on long lists.
  [[gnu::always_inline]] bool list_item(PyObject* o, bool comma) {
    comma = fused_comma(comma);
    PyTypeObject* t = Py_TYPE(o);
    if (t == &PyFloat_Type) return real(o, comma);
    if (t == &PyList_Type || t == &PyDict_Type) {
      if (comma) w_.put(',');
      return held(o);
    }
    if (t == &PyUnicode_Type) return text(o, comma ? ',' : 0, 0);
    std::int64_t small;
    if (t == &PyLong_Type && compact_int(o, small)) return small_integer(small, comma);
    if (o == Py_None || o == Py_True || o == Py_False) return constant(o, comma);
    if (comma) w_.put(',');
    return borrowed(o);
  }

  bool list(PyObject* o) {
    if (PyList_GET_SIZE(o) == 0) return w_.append("[]"), true;
    if (!enter(o)) return false;
    open('[');
    // The size is re-read each time: default() may run arbitrary code that resizes the list.
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(o); ++i) {
      if (!list_item(PyList_GET_ITEM(o, i), i != 0)) return false;
    }
    close(']');
    leave();
    return true;
  }

  bool tuple(PyObject* o) {
    const Py_ssize_t n = PyTuple_GET_SIZE(o);
    if (n == 0) return w_.append("[]"), true;
    if (!enter(o)) return false;
    open('[');
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (i) comma();
      if (!value(PyTuple_GET_ITEM(o, i))) return false;
    }
    close(']');
    leave();
    return true;
  }

  // A dict key becomes a JSON string the way json.dumps converts it.
  bool key(PyObject* k) {
    if (PyUnicode_Check(k)) return str(k);
    if (PyFloat_Check(k)) {
      char buf[kMaxDoubleChars];
      const double v = PyFloat_AS_DOUBLE(k);
      if (!std::isfinite(v)) return out_of_range(k), false;
      const std::size_t n = format_double(v, buf);
      w_.put('"');
      w_.append({buf, n});
      w_.put('"');
      return true;
    }
    if (k == Py_True) return w_.append("\"true\""), true;
    if (k == Py_False) return w_.append("\"false\""), true;
    if (k == Py_None) return w_.append("\"null\""), true;
    if (PyLong_Check(k)) {
      int overflow;
      const long long v = PyLong_AsLongLongAndOverflow(k, &overflow);
      if (overflow) return big_integer(k, true);
      if (v == -1 && PyErr_Occurred()) return false;
      w_.put('"');
      w_.write_int(v);
      w_.put('"');
      return true;
    }
    PyErr_Format(PyExc_TypeError, "keys must be str, int, float, bool or None, not %.100s", Py_TYPE(k)->tp_name);
    return false;
  }

  // Writes UTF-8 text of 1..31 bytes that need no escape (most keys and many values) as
  // [lead]"text"[trail] with one reservation and 16-byte copies; false, writing nothing,
  // for any other text.
  [[gnu::always_inline]] bool short_text(const char* s, std::size_t n, char lead, char trail) {
#if defined(__SSE2__) && MCP_NATIVE_PAGE_READS
    // A 16-byte load that stays within the page of the text cannot fault, even past its end.
    if (n - 1 >= 31 || !in_page(s + (n > 16 ? 16 : 0), 16)) return false;
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    __m128i hi = _mm_setzero_si128();
    unsigned mask = escape_mask(lo);
    if (n > 16) {
      hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
      mask |= escape_mask(hi) << 16;
    }
    if ((mask & ((1u << n) - 1)) != 0) return false;
    char* p = w_.extend(36);
    char* const start = p;
    *p = lead;
    p += lead != 0;
    p[0] = '"';
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p + 1), lo);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p + 17), hi);
    p[n + 1] = '"';
    p[n + 2] = trail;
    w_.commit(static_cast<std::size_t>(p - start) + n + 2 + (trail != 0));
    return true;
#else
    (void)s, (void)n, (void)lead, (void)trail;
    return false;
#endif
  }

  // Writes the comma (unless first), the key and the colon of a dict member.
  [[gnu::always_inline]] bool member_key(PyObject* k, bool first) {
    if (!kLaidOut && Py_TYPE(k) == &PyUnicode_Type) return text(k, first ? 0 : ',', ':');
    if (!first) comma();
    if (!key(k)) return false;
    colon();
    return true;
  }

  bool member(PyObject* k, PyObject* v, bool first) { return member_key(k, first) && value(v); }

  bool dict(PyObject* o) {
    if (PyDict_GET_SIZE(o) == 0) return w_.append("{}"), true;
    if (sort_keys_ || !PyDict_CheckExact(o)) return dict_items(o);
    // Writing a key runs no Python code, and the key is done with before the value starts.
    return members(o, [&](PyObject* k, PyObject* v, bool first) { return member_key(k, first) && borrowed(v); });
  }

  // Writes exact dict `o` as {...}, each member through member(key, value, first) (false
  // stops).
  template <class Member>
  [[gnu::always_inline]] bool members(PyObject* o, Member&& member) {
    if (PyDict_GET_SIZE(o) == 0) return w_.append("{}"), true;
    if (!enter(o)) return false;
    open('{');
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    bool first = true;
    while (dict_next(o, &pos, &k, &v)) {
      if (!member(k, v, first)) return false;
      first = false;
    }
    close('}');
    leave();
    return true;
  }

  // Dict subclasses and sort_keys go through items(), sorted as (key, value) tuples, exactly
  // like the json module (so mixed key types fail to sort the same way).
  bool dict_items(PyObject* o) {
    PyObject* items = PyMapping_Items(o);
    if (items == nullptr) return false;
    bool ok = !sort_keys_ || PyList_Sort(items) == 0;
    if (ok && PyList_GET_SIZE(items) == 0) {
      w_.append("{}");
    } else if (ok && (ok = enter(o))) {
      open('{');
      for (Py_ssize_t i = 0; ok && i < PyList_GET_SIZE(items); ++i) {
        PyObject* item = PyList_GET_ITEM(items, i);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2) {
          PyErr_SetString(PyExc_ValueError, "items must return 2-tuples");
          ok = false;
          break;
        }
        ok = member(PyTuple_GET_ITEM(item, 0), PyTuple_GET_ITEM(item, 1), i == 0);
      }
      if (ok) {
        close('}');
        leave();
      }
    }
    Py_DECREF(items);
    return ok;
  }

  // Subclasses of the JSON types, then default().
  bool other(PyObject* o) {
    if (PyUnicode_Check(o)) return str(o);
    if (PyLong_Check(o)) return integer(o);
    if (PyFloat_Check(o)) return real(o);
    if (PyList_Check(o) || PyTuple_Check(o)) {
      // Like the json module: subclasses are iterated (namedtuple becomes a list).
      PyObject* seq = PySequence_Fast(o, "");
      if (seq == nullptr) return false;
      const bool ok = PyList_Check(seq) ? list(seq) : tuple(seq);
      Py_DECREF(seq);
      return ok;
    }
    if (PyDict_Check(o)) return dict(o);
    if (default_fn_ == nullptr) return not_serializable(o);
    if (!enter(o)) return false;
    PyObject* r = PyObject_CallOneArg(default_fn_, o);
    if (r == nullptr) return false;
    const bool ok = value(r);
    Py_DECREF(r);
    if (ok) leave();
    return ok;
  }

  // The json module's TypeError, with the way out for the types users most often pass: a
  // pydantic model or a dataclass (looked for only here, on the error path).
  [[gnu::noinline]] static bool not_serializable(PyObject* o) {
    PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(o));
    PyObject* name = PyObject_GetAttrString(type, "__name__");
    if (name == nullptr) return false;
    const char* hint = "";
    if (PyObject_HasAttrString(type, "model_dump"))
      hint =
          " (a pydantic model: pass model.model_dump(mode=\"json\"), or "
          "default=lambda m: m.model_dump(mode=\"json\"))";
    else if (PyObject_HasAttrString(type, "__dataclass_fields__"))
      hint = " (a dataclass: pass dataclasses.asdict(obj), or default=dataclasses.asdict)";
    PyErr_Format(PyExc_TypeError, "Object of type %U is not JSON serializable%s", name, hint);
    Py_DECREF(name);
    return false;
  }

  JsonWriter& w_;
  PyObject* default_fn_;
  bool sort_keys_;
  JsonLayout* layout_ = nullptr;  // with kLaidOut
  int depth_ = 0;
  PyObject* stack_[kMaxJsonDepth];  // open containers and default() inputs, for cycle messages
};

using Dumper = BasicDumper<false>;

}  // namespace
}  // namespace mcp_native::bindings
