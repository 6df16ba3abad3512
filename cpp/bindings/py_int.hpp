// Reading Python ints without building objects: the compact form in place, else by range.
#pragma once

#include <Python.h>

#include <cstdint>

namespace mcp_native::bindings {

/// An int of at most one internal digit (most of them), read in place; false for any other
/// (a call reads those).
[[gnu::always_inline]] inline bool compact_int(PyObject* o, std::int64_t& out) {
#if PY_VERSION_HEX >= 0x030C0000
  if (!PyUnstable_Long_IsCompact(reinterpret_cast<PyLongObject*>(o))) return false;
  out = PyUnstable_Long_CompactValue(reinterpret_cast<PyLongObject*>(o));
  return true;
#else
  const Py_ssize_t size = Py_SIZE(o);
  if (size < -1 || size > 1) return false;
  out = size * static_cast<std::int64_t>(reinterpret_cast<PyLongObject*>(o)->ob_digit[0]);
  return true;
#endif
}

/// Where an int (an instance of int) fits.
enum class IntRange { kInt64, kUInt64, kBeyond };

/// The range of int `o`, its value in `i` (kInt64) or `u` (kUInt64); kBeyond for integers
/// beyond 64 bits, which only their decimal text holds exactly. Sets no exception.
inline IntRange int_range(PyObject* o, std::int64_t& i, std::uint64_t& u) {
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (!overflow) {
    i = v;
    return IntRange::kInt64;
  }
  if (overflow > 0) {
    const unsigned long long x = PyLong_AsUnsignedLongLong(o);
    if (!PyErr_Occurred()) {
      u = x;
      return IntRange::kUInt64;
    }
    PyErr_Clear();
  }
  return IntRange::kBeyond;
}

}  // namespace mcp_native::bindings
