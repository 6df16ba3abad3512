// Iterating a dict's members as PyDict_Next does, with the common case inlined.
#pragma once

#include <Python.h>

#include <cstddef>
#include <cstdint>

namespace mcp_native::bindings {

#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030D0000
#define MCP_NATIVE_DICT_LAYOUT 1
namespace detail {
// The head of CPython 3.11/3.12's PyDictKeysObject (Include/internal/pycore_dict.h): the entry
// array follows the index table, whose size in bytes is 1 << dk_log2_index_bytes.
struct DictKeys {
  Py_ssize_t dk_refcnt;
  std::uint8_t dk_log2_size;
  std::uint8_t dk_log2_index_bytes;
  std::uint8_t dk_kind;  // 0: any keys, entries (hash, key, value); else str keys, (key, value)
  std::uint32_t dk_version;
  Py_ssize_t dk_usable;
  Py_ssize_t dk_nentries;
  char dk_indices[1];
};
}  // namespace detail
#endif

/// PyDict_Next(d, pos, key, value): the member of `d` (a dict) at or after *pos, as borrowed
/// references; false at the end. A combined table (any dict but the split ones of instance
/// attributes) is read in place on CPython 3.11 and 3.12, sparing the call and its checks, which
/// cost about 50 instructions per member: a large part of writing or validating small objects.
/// The table is read afresh on every call, like PyDict_Next does.
[[gnu::always_inline]] inline bool dict_next(PyObject* d, Py_ssize_t* pos, PyObject** key, PyObject** value) {
#ifdef MCP_NATIVE_DICT_LAYOUT
  auto* mp = reinterpret_cast<PyDictObject*>(d);
  if (mp->ma_values == nullptr) {
    const auto* keys = reinterpret_cast<const detail::DictKeys*>(mp->ma_keys);
    auto* const* entries =
        reinterpret_cast<PyObject* const*>(keys->dk_indices + (std::size_t{1} << keys->dk_log2_index_bytes));
    const std::size_t width = keys->dk_kind == 0 ? 3 : 2;  // words per entry
    const std::size_t first = width - 2;                   // the key's word (after the hash)
    for (Py_ssize_t i = *pos, n = keys->dk_nentries; i < n; ++i) {
      PyObject* const* e = entries + static_cast<std::size_t>(i) * width + first;
      if (e[1] != nullptr) {  // null: a deleted member
        *key = e[0];
        *value = e[1];
        *pos = i + 1;
        return true;
      }
    }
    return false;
  }
#endif
  return PyDict_Next(d, pos, key, value);
}

}  // namespace mcp_native::bindings
