// Arguments of METH_FASTCALL entry points (those that run once per message, where pybind11's
// dispatch would cost as much as the work): bound to names as CPython binds them.
#pragma once

#include <Python.h>

#include <cstddef>

namespace mcp_native::bindings {

/// Binds `args` (`nargs` positional, then one per name in `kwnames`) to `names`: at most
/// `positional` of them by position, the first `required` mandatory. Unset slots keep what `out`
/// holds (the defaults). False with TypeError set, worded like CPython's.
template <std::size_t N>
bool bind_args(const char* fn, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
               const char* const (&names)[N], std::size_t required, std::size_t positional, PyObject* (&out)[N]) {
  if (nargs > static_cast<Py_ssize_t>(positional)) {
    PyErr_Format(PyExc_TypeError, "%s() takes %zu positional argument%s but %zd were given", fn, positional,
                 positional == 1 ? "" : "s", nargs);
    return false;
  }
  bool given[N] = {};
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    out[i] = args[i];
    given[i] = true;
  }
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* name = PyTuple_GET_ITEM(kwnames, k);
    std::size_t j = 0;
    while (j < N && PyUnicode_CompareWithASCIIString(name, names[j]) != 0) ++j;
    if (j == N) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fn, name);
      return false;
    }
    if (given[j]) {
      PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fn, names[j]);
      return false;
    }
    out[j] = args[nargs + k];
    given[j] = true;
  }
  for (std::size_t j = 0; j < required; ++j) {
    if (!given[j]) {
      PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", fn, names[j]);
      return false;
    }
  }
  return true;
}

}  // namespace mcp_native::bindings
