// Where the tests find the reference data of ../shared.
#pragma once

#include <cstdlib>
#include <filesystem>

/// The official JSON-Schema-Test-Suite's tests/ folder: $MCP_NATIVE_SHARED if set, else the
/// ../shared beside the checkout.
inline std::filesystem::path suite_dir() {
  const char* env = std::getenv("MCP_NATIVE_SHARED");
  std::filesystem::path shared = env && *env ? env : MCP_NATIVE_SHARED_DIR;
  return shared / "json-schema-test-suite" / "tests";
}
