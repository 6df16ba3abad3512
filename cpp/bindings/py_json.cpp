// The JSON codec on Python objects: dumps (through py_dumper.hpp) and the builder behind loads.
#include "py_json.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>
#include <new>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "mcp_native/json/indent.hpp"
#include "mcp_native/json/padded.hpp"
#include "mcp_native/json/syntax.hpp"
#include "mcp_native/json/tape.hpp"
#include "per_thread.hpp"
#include "py_args.hpp"
#include "py_dumper.hpp"

namespace mcp_native::bindings {
namespace {

// ---------------------------------------------------------------------------------------------
// loads: build Python objects from the simdjson DOM.

template <class T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Whether n bytes are all ASCII: 8 bytes at a time, the tail by overlapping loads rather than a
// byte loop (most keys and many values are short).
bool is_ascii(const char* s, std::size_t n) {
  std::uint64_t acc = 0;
  if (n >= 8) {
    for (std::size_t i = 0; i + 8 < n; i += 8) acc |= load<std::uint64_t>(s + i);
    acc |= load<std::uint64_t>(s + n - 8);
  } else if (n >= 4) {
    acc = load<std::uint32_t>(s) | load<std::uint32_t>(s + n - 4);
  } else {
    for (std::size_t i = 0; i < n; ++i) acc |= static_cast<unsigned char>(s[i]);
  }
  return (acc & 0x8080808080808080ULL) == 0;
}

// Decodes n bytes of valid UTF-8 into dst, one element per code point (Char: Py_UCS1, Py_UCS2
// or Py_UCS4). A plain loop: on mixed text (runs of ASCII, accents, CJK, emoji) it measured
// faster than widening 8 or 16 ASCII bytes at a time, whose benefit the branches between the
// two paths ate.
template <class Char>
void decode_utf8(const unsigned char* s, std::size_t n, Char* dst) {
  const unsigned char* const end = s + n;
  while (s < end) {
    const unsigned c = *s;
    if (c < 0x80) {
      *dst++ = static_cast<Char>(c);
      s += 1;
    } else if (c < 0xE0) {
      *dst++ = static_cast<Char>(((c & 0x1F) << 6) | (s[1] & 0x3F));
      s += 2;
    } else if (c < 0xF0) {
      *dst++ = static_cast<Char>(((c & 0x0F) << 12) | ((s[1] & 0x3F) << 6) | (s[2] & 0x3F));
      s += 3;
    } else {
      *dst++ = static_cast<Char>(((c & 0x07) << 18) | ((s[1] & 0x3F) << 12) | ((s[2] & 0x3F) << 6) | (s[3] & 0x3F));
      s += 4;
    }
  }
}

// Counts the code points of valid UTF-8 (the bytes that are not continuation bytes,
// 10xxxxxx) and returns the largest byte in *top.
std::size_t count_utf8(const unsigned char* s, std::size_t n, unsigned char* top) {
  std::size_t continuation = 0, i = 0;
  unsigned char t = 0;
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128(), one = _mm_set1_epi8(1), cont_below = _mm_set1_epi8(-0x40);
  __m128i sums = zero, tops = zero;
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    // As signed bytes, continuation bytes are exactly those below -0x40 (0xC0).
    const __m128i cont = _mm_and_si128(_mm_cmplt_epi8(v, cont_below), one);
    sums = _mm_add_epi64(sums, _mm_sad_epu8(cont, zero));
    tops = _mm_max_epu8(tops, v);
  }
  continuation = static_cast<std::size_t>(_mm_cvtsi128_si64(sums) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
  alignas(16) unsigned char lanes[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(lanes), tops);
  for (unsigned char x : lanes) t = x > t ? x : t;
#endif
  for (; i < n; ++i) {
    continuation += (s[i] & 0xC0) == 0x80;
    t = s[i] > t ? s[i] : t;
  }
  *top = t;
  return n - continuation;
}

// A str from UTF-8 that simdjson has validated (its strings always are, \u escapes included),
// built in the narrowest kind directly: one pass counts the code points and finds the widest
// lead byte, a second decodes. PyUnicode_DecodeUTF8 would validate again and widen its buffer
// each time it meets a wider character.
PyObject* make_str(std::string_view sv) {
  const auto* s = reinterpret_cast<const unsigned char*>(sv.data());
  const std::size_t n = sv.size();
  if (is_ascii(sv.data(), n)) {
    // One-character strings are shared singletons in CPython (as is the empty string).
    if (n == 1) return PyUnicode_FromOrdinal(s[0]);
    PyObject* u = PyUnicode_New(static_cast<Py_ssize_t>(n), 127);
    if (u != nullptr) std::memcpy(PyUnicode_DATA(u), s, n);
    return u;
  }
  unsigned char top;
  const std::size_t count = count_utf8(s, n, &top);
  // Lead bytes from 0xC4 start code points above U+00FF, from 0xF0 above U+FFFF.
  const Py_UCS4 maxchar = top >= 0xF0 ? 0x10FFFF : top >= 0xC4 ? 0xFFFF : 0xFF;
  PyObject* u = PyUnicode_New(static_cast<Py_ssize_t>(count), maxchar);
  if (u == nullptr) return nullptr;
  switch (PyUnicode_KIND(u)) {
    case PyUnicode_1BYTE_KIND: decode_utf8(s, n, PyUnicode_1BYTE_DATA(u)); break;
    case PyUnicode_2BYTE_KIND: decode_utf8(s, n, PyUnicode_2BYTE_DATA(u)); break;
    default: decode_utf8(s, n, PyUnicode_4BYTE_DATA(u)); break;
  }
  return u;
}

// Object keys repeat across a document and across documents: short ASCII keys are kept in a
// small direct-mapped cache, so they are allocated and hashed once.
constexpr std::size_t kKeyCacheSize = 1024;
constexpr std::size_t kMaxCachedKey = 64;
#ifndef Py_GIL_DISABLED
// Shared by all threads: guarded by the GIL (make_key runs with it held, and runs no Python code
// between reading a slot and replacing it). Holds references, so it cannot be per thread
// without a thread-exit hook that releases them with the interpreter attached.
PyObject* g_key_cache[kKeyCacheSize];
#define MCP_NATIVE_KEY_CACHE 1
#else
// Free-threaded build: no shared cache (slots would be replaced under readers); every key is a
// new str. A per-thread cache owned by the thread state is the faster design still to do.
#define MCP_NATIVE_KEY_CACHE 0
#endif

// The slot of a key, from its length and its first and last bytes (read by overlapping loads of
// a fixed size: a memcpy of n bytes into a word is a call and a stalled reload).
std::size_t key_slot(std::string_view s) {
  const char* p = s.data();
  const std::size_t n = s.size();
  std::uint64_t a = 0, b = 0;
  if (n >= 8) {
    a = load<std::uint64_t>(p);
    b = load<std::uint64_t>(p + n - 8);
  } else if (n >= 4) {
    a = load<std::uint32_t>(p);
    b = load<std::uint32_t>(p + n - 4);
  } else if (n > 0) {  // bytes 0, n/2 and n-1 cover all of 1 to 3 bytes
    a = static_cast<unsigned char>(p[0]) | static_cast<unsigned char>(p[n / 2]) << 8;
    b = static_cast<unsigned char>(p[n - 1]);
  }
  const std::uint64_t h = (a * 0x9E3779B97F4A7C15ULL) ^ (b * 0xC2B2AE3D27D4EB4FULL) ^ n;
  return static_cast<std::size_t>((h ^ (h >> 29)) * 0xBF58476D1CE4E5B9ULL >> 54) % kKeyCacheSize;
}

// Whether n bytes at a and b are equal; short keys compare faster inline, by overlapping word
// loads, than through a call to memcmp.
bool same_bytes(const char* a, const char* b, std::size_t n) {
  if (n >= 8) {
    for (std::size_t i = 0; i + 8 < n; i += 8) {
      if (load<std::uint64_t>(a + i) != load<std::uint64_t>(b + i)) return false;
    }
    return load<std::uint64_t>(a + n - 8) == load<std::uint64_t>(b + n - 8);
  }
  if (n >= 4) {
    return load<std::uint32_t>(a) == load<std::uint32_t>(b) &&
           load<std::uint32_t>(a + n - 4) == load<std::uint32_t>(b + n - 4);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

PyObject* make_key(std::string_view s) {
#if !MCP_NATIVE_KEY_CACHE
  return make_str(s);
#else
  if (s.size() > kMaxCachedKey || !is_ascii(s.data(), s.size())) return make_str(s);
  PyObject*& slot = g_key_cache[key_slot(s)];
  if (slot != nullptr && static_cast<std::size_t>(PyUnicode_GET_LENGTH(slot)) == s.size() &&
      same_bytes(static_cast<const char*>(PyUnicode_DATA(slot)), s.data(), s.size())) {
    Py_INCREF(slot);
    return slot;
  }
  PyObject* u = make_str(s);
  if (u == nullptr) return nullptr;
  if (PyObject_Hash(u) == -1) {  // computed once, cached in the str
    Py_DECREF(u);
    return nullptr;
  }
  Py_XSETREF(slot, u);
  Py_INCREF(u);
  return u;
#endif
}

// d[k] = v, taking both references (either may be null after a failure). On failure d is
// released too. Duplicate keys: the last one wins, as in json.loads.
bool put_member(PyObject* d, PyObject* k, PyObject* v) {
  bool ok = k != nullptr && v != nullptr && PyDict_SetItem(d, k, v) == 0;
  Py_XDECREF(k);
  Py_XDECREF(v);
  if (!ok) Py_DECREF(d);
  return ok;
}

// Builds Python values straight from a parsed document's tape (the layout that simdjson
// documents in doc/tape.md: a 64-bit word per value, its type in the top byte): one switch per
// value, without the element and iterator objects of the DOM API.
class TapeBuilder {
 public:
  explicit TapeBuilder(const simdjson::dom::document& doc) : tape_(doc.tape.get()), strings_(doc.string_buf.get()) {}

  // The value whose first word is `w`.
  PyObject* build(const std::uint64_t* w) {
    std::size_t i = static_cast<std::size_t>(w - tape_);
    return value(i);
  }

 private:
  static constexpr std::uint32_t kCountMask = simdjson::internal::JSON_COUNT_MASK;

  // Builds the value at tape_[i] and moves i past it. Inlined into the container loops, so that
  // only containers cost a call.
  [[gnu::always_inline]] PyObject* value(std::size_t& i) {
    const std::uint64_t w = tape_[i];
    switch (tape::type(w)) {
      case '"': ++i; return make_str(tape::string(strings_, w));
      case 'l': {
        const auto v = static_cast<std::int64_t>(tape_[i + 1]);
        i += 2;
        return PyLong_FromLongLong(v);
      }
      case 'u': {
        const std::uint64_t v = tape_[i + 1];
        i += 2;
        return PyLong_FromUnsignedLongLong(v);
      }
      case 'd': {
        double v;
        std::memcpy(&v, &tape_[i + 1], sizeof v);
        i += 2;
        return PyFloat_FromDouble(v);
      }
      case 't': ++i; return Py_NewRef(Py_True);
      case 'f': ++i; return Py_NewRef(Py_False);
      case 'n': ++i; return Py_NewRef(Py_None);
      case '[': return list(i, w);
      case '{': return dict(i, w);
    }
    PyErr_SetString(PyExc_SystemError, "unknown JSON tape entry");
    return nullptr;
  }

  [[gnu::noinline]] PyObject* list(std::size_t& i, std::uint64_t w) {
    const std::size_t end = static_cast<std::uint32_t>(w) - 1;  // the closing ']'
    const std::size_t n = tape::count(tape_, tape_ + i);
    PyObject* l = PyList_New(static_cast<Py_ssize_t>(n));
    if (l == nullptr) return nullptr;
    ++i;
    for (Py_ssize_t k = 0; i < end; ++k) {
      PyObject* v = value(i);
      if (v == nullptr) {
        Py_DECREF(l);
        return nullptr;
      }
      PyList_SET_ITEM(l, k, v);
    }
    i = end + 1;
    return l;
  }

  [[gnu::noinline]] PyObject* dict(std::size_t& i, std::uint64_t w) {
    const std::size_t end = static_cast<std::uint32_t>(w) - 1;  // the closing '}'
    // The stored count, even when saturated: it only sizes the table.
    PyObject* d = _PyDict_NewPresized(static_cast<Py_ssize_t>((w >> 32) & kCountMask));
    if (d == nullptr) return nullptr;
    ++i;
    while (i < end) {
      PyObject* k = make_key(tape::string(strings_, tape_[i++]));
      if (!put_member(d, k, k ? value(i) : nullptr)) return nullptr;
    }
    i = end + 1;
    return d;
  }

  const std::uint64_t* tape_;
  const std::uint8_t* strings_;
};

// A parser and its padded input buffer, reused by the calls of one thread. `busy` guards against
// re-entry: object allocation can run a garbage collection, whose finalizers may call loads.
struct Parser {
  simdjson::dom::parser parser;
  PaddedText text;
  bool busy = false;

  simdjson::simdjson_result<simdjson::dom::element> parse(std::string_view doc) {
    return parser.parse(text(doc), doc.size(), false);
  }
  void release_if_big() {
    if (text.release_if_big()) parser = simdjson::dom::parser();  // its capacity followed the text's
  }
};
// The calling thread's parser: per thread (no two threads parse into one parser, with or without
// a GIL); pure C++ memory, freed when the thread ends.
using ThreadParser = PerThread<Parser>;

std::atomic<PyObject*> g_decode_error;  // mcp_native.errors.JSONDecodeError
std::atomic<PyObject*> g_json_loads;    // json.loads, for what simdjson cannot represent

// Looked up once, on the error paths only. Atomic: two threads may both look it up (harmless, the
// same object); the loser drops its reference, and a published object is never replaced.
PyObject* cached_attr(std::atomic<PyObject*>& slot, const char* module, const char* name) {
  PyObject* v = slot.load(std::memory_order_acquire);
  if (v != nullptr) return v;
  PyObject* m = PyImport_ImportModule(module);
  if (m == nullptr) return nullptr;
  v = PyObject_GetAttrString(m, name);
  Py_DECREF(m);
  if (v == nullptr) return nullptr;
  PyObject* expected = nullptr;
  if (!slot.compare_exchange_strong(expected, v, std::memory_order_acq_rel)) {
    Py_DECREF(v);
    return expected;
  }
  return v;
}

void raise_at(const char* msg, std::string_view doc, std::size_t offset) {
  PyObject* cls = cached_attr(g_decode_error, "mcp_native.errors", "JSONDecodeError");
  if (cls == nullptr) return;
  PyObject* text = PyUnicode_DecodeUTF8(doc.data(), static_cast<Py_ssize_t>(doc.size()), "replace");
  if (text == nullptr) return;
  // Character position: count the bytes that start a UTF-8 sequence.
  Py_ssize_t pos = 0;
  for (std::size_t i = 0; i < offset && i < doc.size(); ++i) pos += (static_cast<unsigned char>(doc[i]) & 0xC0) != 0x80;
  PyObject* exc = PyObject_CallFunction(cls, "sOn", msg, text, pos);
  Py_DECREF(text);
  if (exc != nullptr) {
    PyErr_SetObject(cls, exc);
    Py_DECREF(exc);
  }
}

// simdjson rejected `doc` but it may still be valid JSON that simdjson cannot represent:
// integers beyond 64 bits, numbers beyond the double range, escaped lone surrogates. Valid
// documents are handed to json.loads (identical results by construction); invalid ones raise
// with the position of their first error.
PyObject* parse_fallback(simdjson::error_code err, std::string_view doc) {
  const JsonSyntaxError e = find_json_error(doc, kMaxJsonDepth);
  if (e.found) {
    raise_at(e.message, doc, e.offset);
    return nullptr;
  }
  if (err != simdjson::NUMBER_ERROR && err != simdjson::STRING_ERROR) {
    raise_at(simdjson::error_message(err), doc, 0);
    return nullptr;
  }
  PyObject* loads = cached_attr(g_json_loads, "json", "loads");
  if (loads == nullptr) return nullptr;
  PyObject* text = PyUnicode_DecodeUTF8(doc.data(), static_cast<Py_ssize_t>(doc.size()), "strict");
  if (text == nullptr) return nullptr;
  PyObject* r = PyObject_CallOneArg(loads, text);
  Py_DECREF(text);
  if (r == nullptr && PyErr_ExceptionMatches(PyExc_RecursionError)) {
    PyErr_Clear();
    raise_at(
        "Document nested too deeply for the fallback parser (used for integers beyond "
        "64 bits, numbers beyond the double range and escaped lone surrogates)",
        doc, 0);
  }
  return r;
}

}  // namespace

bool dump_py(JsonWriter& out, PyObject* obj, PyObject* default_fn, bool sort_keys) {
  try {
    return Dumper(out, default_fn, sort_keys).value(obj);
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
    return false;
  }
}

PyObject* tape_to_py(mcp_native::tape::Value v) { return TapeBuilder(*v.doc).build(v.w); }

void raise_decode_error(simdjson::error_code err, std::string_view doc) {
  const JsonSyntaxError e = find_json_error(doc, kMaxJsonDepth);
  if (e.found) {
    raise_at(e.message, doc, e.offset);
  } else {
    raise_at(simdjson::error_message(err), doc, 0);
  }
}

PyObject* parse_to_py(std::string_view doc) {
  // Re-entered (see Parser::busy): use a parser of our own.
  std::unique_ptr<Parser> own;
  Parser* p = ThreadParser::get();
  if (p == nullptr || p->busy) {
    own.reset(new (std::nothrow) Parser());
    if (own == nullptr) return PyErr_NoMemory();
    p = own.get();
  }
  simdjson::simdjson_result<simdjson::dom::element> r;
  try {
    r = p->parse(doc);
  } catch (const std::bad_alloc&) {
    return PyErr_NoMemory();
  }
  if (r.error()) {
    p->release_if_big();
    return parse_fallback(r.error(), doc);
  }
  p->busy = true;
  // The objects built here cannot form cycles, yet each container allocation counts towards a
  // cyclic-GC pass that would walk the half-built tree: collect after the parse instead.
  const int gc_was_enabled = PyGC_Disable();
  PyObject* result = tape_to_py(mcp_native::tape::root(p->parser.doc));
  if (gc_was_enabled) PyGC_Enable();
  p->busy = false;
  p->release_if_big();
  return result;
}

char* BytesOut::grow(char* buf, std::size_t len, std::size_t need, std::size_t& cap) {
  max_need_ = std::max(max_need_, need);
  if (bytes_ == nullptr) {
    // The size the next text that outgrows the scratch buffer starts its bytes object at: the room
    // the last such text of this thread ended with, so that a text like it never grows the object
    // again.
    const std::size_t size = std::max({need, 2 * cap, state_->room_hint, std::size_t{256}});
    bytes_ = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(size));
    if (bytes_ == nullptr) throw std::bad_alloc();
    if (len != 0) std::memcpy(PyBytes_AS_STRING(bytes_), buf, len);
    cap = size;
  } else {
    const std::size_t size = std::max(need, 2 * cap);
    if (_PyBytes_Resize(&bytes_, static_cast<Py_ssize_t>(size)) < 0) throw std::bad_alloc();  // bytes_ was freed
    cap = size;
  }
  return PyBytes_AS_STRING(bytes_);
}

PyObject* BytesOut::finish_grown(const JsonWriter& w) {
  // Writers reserve ahead (up to 6 bytes per byte of a string being escaped), so the room a text
  // asks for depends on where it starts growing: keep the room this text ended with, unless it
  // used less than half of it (it started from a bigger text's hint): then what it asked for.
  const std::size_t cap = w.capacity();
  state_->room_hint = 2 * w.size() >= cap ? cap : std::max(w.size(), max_need_);
  // Shrinking reallocates in place (glibc splits the block, or unmaps the tail of a mapped one).
  if (_PyBytes_Resize(&bytes_, static_cast<Py_ssize_t>(w.size())) < 0) return nullptr;
  return std::exchange(bytes_, nullptr);
}

// ---------------------------------------------------------------------------------------------
// The Python entry points, as METH_FASTCALL functions (see bind_json.cpp).

namespace {

// `indent=`: None (-1: compact), or an int from 0 to kMaxIndent. False with the exception set.
bool parse_indent(PyObject* v, int& indent) {
  if (v == Py_None) {
    indent = -1;
    return true;
  }
  if (!PyLong_Check(v) || PyBool_Check(v)) {
    PyErr_Format(PyExc_TypeError, "indent must be None or an int, not %.100s", Py_TYPE(v)->tp_name);
    return false;
  }
  const long n = PyLong_AsLong(v);
  if (n == -1 && PyErr_Occurred()) PyErr_Clear();
  if (n < 0 || n > static_cast<long>(kMaxIndent)) {
    PyErr_Format(PyExc_ValueError, "indent must be from 0 to %u, not %R", kMaxIndent, v);
    return false;
  }
  indent = static_cast<int>(n);
  return true;
}

// Writes obj indented by `indent` spaces (< 0: compact), its floats spelled as `floats` says.
bool dump_laid_out(JsonWriter& w, PyObject* obj, PyObject* default_fn, bool sort_keys, int indent,
                   FloatSpelling floats) {
  JsonLayout layout(indent < 0 ? std::nullopt : std::optional<unsigned>(indent), floats);
  return BasicDumper<true>(w, default_fn, sort_keys, layout).value(obj);
}

}  // namespace

PyObject* py_dumps(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  static const char* const names[] = {"obj", "default", "sort_keys", "indent"};
  PyObject* a[4] = {nullptr, Py_None, Py_False, Py_None};
  if (kwnames == nullptr && nargs == 1) {
    a[0] = args[0];  // the usual call, bound without a call
  } else if (!bind_args("dumps", args, nargs, kwnames, names, 1, 1, a)) {
    return nullptr;
  }
  PyObject* obj = a[0];
  PyObject* default_fn = a[1] == Py_None ? nullptr : a[1];
  const int sort_keys = PyObject_IsTrue(a[2]);
  if (sort_keys < 0) return nullptr;
  int indent = -1;
  if (!parse_indent(a[3], indent)) return nullptr;

  if (indent < 0) return write_bytes([&](JsonWriter& w) { return dump_py(w, obj, default_fn, sort_keys); });
  return write_bytes(
      [&](JsonWriter& w) { return dump_laid_out(w, obj, default_fn, sort_keys, indent, FloatSpelling::kRepr); });
}

PyObject* py_pydantic_json_text(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2) {
    PyErr_Format(PyExc_TypeError, "pydantic_json_text() takes 2 arguments (%zd given)", nargs);
    return nullptr;
  }
  int indent;
  if (!parse_indent(args[1], indent)) return nullptr;
  // Written into write_bytes()'s scratch buffer (no allocation for the short texts a mirror
  // block usually holds), then decoded into the str.
  BytesOut out;
  JsonWriter w = out.writer();
  try {
    if (!dump_laid_out(w, args[0], nullptr, false, indent, FloatSpelling::kPydantic)) {
      return nullptr;
    }
  } catch (const std::bad_alloc&) {
    return PyErr_NoMemory();
  }
  return PyUnicode_DecodeUTF8(w.data(), static_cast<Py_ssize_t>(w.size()), "strict");
}

PyObject* py_loads(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  static const char* const names[] = {"data"};
  PyObject* a[1] = {};
  if (kwnames == nullptr && nargs == 1) {
    a[0] = args[0];  // the usual call, bound without a call
  } else if (!bind_args("loads", args, nargs, kwnames, names, 1, 1, a)) {
    return nullptr;
  }
  PyObject* data = a[0];

  if (PyBytes_Check(data)) {
    return parse_to_py({PyBytes_AS_STRING(data), static_cast<std::size_t>(PyBytes_GET_SIZE(data))});
  }
  if (PyUnicode_Check(data)) {
    if (PyUnicode_IS_COMPACT_ASCII(data)) {
      return parse_to_py(
          {static_cast<const char*>(PyUnicode_DATA(data)), static_cast<std::size_t>(PyUnicode_GET_LENGTH(data))});
    }
    Py_ssize_t n;
    const char* s = PyUnicode_AsUTF8AndSize(data, &n);
    if (s == nullptr) {
      // A str holding a lone surrogate has no UTF-8 form: report where it is.
      PyObject *type, *value, *tb;
      PyErr_Fetch(&type, &value, &tb);
      Py_ssize_t start = 0;
      if (value != nullptr && PyUnicodeEncodeError_GetStart(value, &start) < 0) PyErr_Clear();
      Py_XDECREF(type);
      Py_XDECREF(value);
      Py_XDECREF(tb);
      PyObject* cls = cached_attr(g_decode_error, "mcp_native.errors", "JSONDecodeError");
      if (cls == nullptr) return nullptr;
      PyObject* exc = PyObject_CallFunction(cls, "sOn", "Lone surrogate is not valid in a JSON text", data, start);
      if (exc != nullptr) {
        PyErr_SetObject(cls, exc);
        Py_DECREF(exc);
      }
      return nullptr;
    }
    return parse_to_py({s, static_cast<std::size_t>(n)});
  }
  if (PyByteArray_Check(data)) {
    return parse_to_py({PyByteArray_AS_STRING(data), static_cast<std::size_t>(PyByteArray_GET_SIZE(data))});
  }
  if (PyMemoryView_Check(data)) {
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_C_CONTIGUOUS) < 0) return nullptr;
    PyObject* r = parse_to_py({static_cast<const char*>(view.buf), static_cast<std::size_t>(view.len)});
    PyBuffer_Release(&view);
    return r;
  }
  PyErr_Format(PyExc_TypeError, "loads() argument must be bytes, bytearray, memoryview or str, not %.100s",
               Py_TYPE(data)->tp_name);
  return nullptr;
}

}  // namespace mcp_native::bindings
