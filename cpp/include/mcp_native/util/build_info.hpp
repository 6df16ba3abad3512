// What this build of the core was made with, and what it chose at run time: for bug reports and
// for checking that an installed wheel is the one expected.
#pragma once

#include <string>

namespace mcp_native {

struct BuildInfo {
  /// The compiler and its version, e.g. "GCC 12.2.0".
  std::string compiler;
  /// The simdjson headers compiled against (the library loaded is the same release).
  std::string simdjson_version;
  /// The kernel simdjson picked for this CPU at run time, e.g. "haswell", "westmere", "fallback".
  std::string simdjson_kernel;
  /// The PCRE2 library in use, e.g. "10.42 2022-12-11".
  std::string pcre2_version;
  /// True when PCRE2 can JIT-compile patterns in this process (built with JIT support, and the
  /// system lets it map executable memory); otherwise patterns run in the interpreter.
  bool pcre2_jit = false;
};

BuildInfo build_info();

}  // namespace mcp_native
