// Facts about memory that decide how far the code may read and how much it keeps.
#pragma once

#include <cstddef>
#include <cstdint>

// Whether the code may read past the end of a text while it stays within the text's memory page
// (16-byte loads of short tails, simdjson's padding read in place). Such reads cannot fault, but
// AddressSanitizer reports them as overflows (ThreadSanitizer, as use after free when the bytes
// past the text belong to a freed block): a sanitized build takes the exact-length paths.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MCP_NATIVE_PAGE_READS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MCP_NATIVE_PAGE_READS 0
#endif
#endif
#ifndef MCP_NATIVE_PAGE_READS
#define MCP_NATIVE_PAGE_READS 1
#endif

namespace mcp_native {

/// The smallest memory page of the platforms built for. Memory is mapped page by page, so a
/// read that stays within the page of a readable byte cannot fault.
inline constexpr std::size_t kPageSize = 4096;

/// Whether the `n` bytes from `p` on lie in p's page (n at most kPageSize).
inline bool in_page(const void* p, std::size_t n) {
  return (reinterpret_cast<std::uintptr_t>(p) & (kPageSize - 1)) <= kPageSize - n;
}

/// Buffers reused from call to call are freed, not kept, once one huge message has grown them
/// past this (4 MiB): a server should not hold the peak of its largest message forever.
inline constexpr std::size_t kKeepBytes = std::size_t{1} << 22;

}  // namespace mcp_native
