// Shared helpers of the libFuzzer harnesses: a failed invariant aborts with its explanation
// (libFuzzer then saves the input as a crash).
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#define FUZZ_CHECK(cond, ...)                                \
  do {                                                       \
    if (!(cond)) {                                           \
      std::fprintf(stderr, "invariant failed: %s: ", #cond); \
      std::fprintf(stderr, __VA_ARGS__);                     \
      std::fputc('\n', stderr);                              \
      std::abort();                                          \
    }                                                        \
  } while (0)

// `text` cut into pieces at offsets taken from `seed` (up to 8 cuts).
inline std::vector<std::string_view> pieces(std::string_view text, std::string_view seed) {
  std::vector<size_t> cuts;
  for (unsigned char c : seed.substr(0, 8)) cuts.push_back(text.empty() ? 0 : (c * 131u) % (text.size() + 1));
  std::sort(cuts.begin(), cuts.end());
  std::vector<std::string_view> out;
  size_t at = 0;
  for (size_t c : cuts) {
    out.push_back(text.substr(at, c - at));
    at = c;
  }
  out.push_back(text.substr(at));
  return out;
}

// The input split at its first NUL byte: (before, after); after is empty without one.
inline std::pair<std::string_view, std::string_view> split_nul(std::string_view in) {
  size_t z = in.find('\0');
  if (z == std::string_view::npos) return {in, {}};
  return {in.substr(0, z), in.substr(z + 1)};
}
