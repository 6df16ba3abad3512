// The Python side of the JSON codec, shared by every binding that reads or writes JSON.
#pragma once

#include <Python.h>
#include <simdjson.h>

#include "mcp_native/json/tape.hpp"

#include <cstddef>
#include <new>
#include <string_view>

#include "mcp_native/json/writer.hpp"

namespace mcp_native::bindings {

/// Deepest level of a value that dump_py writes and loads accepts: the top-level value is at
/// level 1, the items of a list or dict one level below it (so 1023 nested non-empty lists).
inline constexpr int kMaxJsonDepth = 1024;

/// Serialize obj as compact JSON into out, byte-identical to
/// json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode().
/// default_fn (may be null) is called for values of other types; sort_keys sorts dict keys by
/// code point. On failure sets a Python exception and returns false (out then holds a partial
/// document).
bool dump_py(mcp_native::JsonWriter& out, PyObject* obj, PyObject* default_fn = nullptr, bool sort_keys = false);

/// Build the Python object of a value of a parsed document (new reference), or set a Python
/// exception and return nullptr.
PyObject* tape_to_py(mcp_native::tape::Value v);

/// Raise mcp_native.JSONDecodeError for a simdjson error on document `doc` (sets the exception),
/// with a message and the position of the first error in the document.
void raise_decode_error(simdjson::error_code err, std::string_view doc);

/// Parse a whole UTF-8 document into Python objects, exactly as mcp_native.loads does
/// (including integers beyond 64 bits). Returns a new reference, or nullptr with
/// mcp_native.JSONDecodeError set. Uses the calling thread's parser: call with the GIL held (or,
/// in a free-threaded build, attached to the interpreter).
PyObject* parse_to_py(std::string_view doc);

namespace detail {
inline constexpr std::size_t kScratchBytes = 4096;
// BytesOut's first buffer, reused between calls, with what sizes the next text that outgrows it.
struct WriteScratch {
  char buf[kScratchBytes] = {};
  bool busy = false;          // set while a BytesOut holds buf
  std::size_t room_hint = 0;  // see BytesOut::finish_grown
};
// Per thread: no two threads ever write into one buffer, with or without a GIL (one lookup per
// BytesOut, which keeps the pointer).
inline thread_local constinit WriteScratch g_write_scratch;
}  // namespace detail

/// The storage of the writer behind write_bytes(): a scratch buffer reused between calls first,
/// then, once the text outgrows it, the bytes object to be returned, grown in place (its text
/// follows the object header, so the object is reallocated as a whole). Short texts are copied
/// into an exact-size bytes object at the end (cheaper than shrinking a small over-allocated
/// one); longer ones never are. Use with the GIL held (the scratch buffer is the calling
/// thread's, so a free-threaded build needs no GIL for it).
class BytesOut final : public WriterStorage {
 public:
  /// Takes the thread's scratch buffer unless a call up the stack holds it.
  BytesOut() noexcept : state_(&detail::g_write_scratch) {
    if (!state_->busy) {
      scratch_ = state_->buf;
      state_->busy = true;
    }
  }
  /// Gives the scratch buffer back; drops a bytes object not handed out.
  ~BytesOut() {
    if (scratch_ != nullptr) state_->busy = false;
    Py_XDECREF(bytes_);
  }
  BytesOut(const BytesOut&) = delete;
  BytesOut& operator=(const BytesOut&) = delete;

  /// A writer on this storage.
  JsonWriter writer() noexcept { return JsonWriter(*this, scratch_, scratch_ ? detail::kScratchBytes : 0); }
  /// The text of `w` (a writer from writer()) as a bytes object (new reference), or nullptr with
  /// a Python exception set.
  PyObject* finish(const JsonWriter& w) {
    if (bytes_ == nullptr) return PyBytes_FromStringAndSize(w.data(), static_cast<Py_ssize_t>(w.size()));
    return finish_grown(w);
  }
  char* grow(char* buf, std::size_t len, std::size_t need, std::size_t& cap) override;

 private:
  PyObject* finish_grown(const JsonWriter& w);

  detail::WriteScratch* state_;  // the calling thread's
  char* scratch_ = nullptr;
  PyObject* bytes_ = nullptr;  // set once the text outgrows the scratch buffer
  std::size_t max_need_ = 0;   // the most room the writer asked for (from grow)
};

/// Runs `write(JsonWriter&) -> bool` on an empty writer and returns what it wrote as a new bytes
/// object, or nullptr with a Python exception set when `write` fails (it sets the exception) or
/// memory runs out. Reentrant (a default() callback may call it). Call with the GIL held.
template <class Write>
PyObject* write_bytes(Write&& write) {
  BytesOut out;
  JsonWriter w = out.writer();
  try {
    if (!write(w)) return nullptr;
  } catch (const std::bad_alloc&) {
    return PyErr_NoMemory();
  }
  return out.finish(w);
}

/// mcp_native.dumps and mcp_native.loads, as METH_FASTCALL | METH_KEYWORDS functions.
PyObject* py_dumps(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);
PyObject* py_loads(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);
/// The text pydantic_core.to_json(obj, indent=indent).decode() gives for JSON-native `obj` (as
/// dumps() takes it; indent None or 0..kMaxIndent): MCPServer's text mirror. METH_FASTCALL.
PyObject* py_pydantic_json_text(PyObject* self, PyObject* const* args, Py_ssize_t nargs);

}  // namespace mcp_native::bindings
