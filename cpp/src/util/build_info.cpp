#include "mcp_native/util/build_info.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <simdjson.h>

#include <cstdint>

namespace mcp_native {
namespace {

#define MCP_NATIVE_STR2(x) #x
#define MCP_NATIVE_STR(x) MCP_NATIVE_STR2(x)

std::string compiler() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "GCC " MCP_NATIVE_STR(__GNUC__) "." MCP_NATIVE_STR(__GNUC_MINOR__) "." MCP_NATIVE_STR(__GNUC_PATCHLEVEL__);
#else
  return "unknown";
#endif
}

std::string pcre2_version() {
  char buf[64] = {};  // PCRE2_CONFIG_VERSION needs at most 24 code units
  return pcre2_config(PCRE2_CONFIG_VERSION, buf) > 0 ? std::string(buf) : std::string();
}

// JIT support compiled in is not enough: a hardened system (SELinux deny_execmem, PaX) refuses
// executable memory, and then Regex falls back to the interpreter. Compiling one pattern tells.
bool pcre2_jit_works() {
  uint32_t built_with_jit = 0;
  if (pcre2_config(PCRE2_CONFIG_JIT, &built_with_jit) != 0 || !built_with_jit) return false;
  int error = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code =
      pcre2_compile(reinterpret_cast<PCRE2_SPTR>("a+"), PCRE2_ZERO_TERMINATED, 0, &error, &offset, nullptr);
  if (code == nullptr) return false;
  bool ok = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
  pcre2_code_free(code);
  return ok;
}

}  // namespace

BuildInfo build_info() {
  BuildInfo info;
  info.compiler = compiler();
  info.simdjson_version = MCP_NATIVE_STR(SIMDJSON_VERSION);
  info.simdjson_kernel = simdjson::get_active_implementation()->name();
  info.pcre2_version = pcre2_version();
  info.pcre2_jit = pcre2_jit_works();
  return info;
}

}  // namespace mcp_native
