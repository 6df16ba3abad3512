// Whether the code may read past the end of a text while it stays within the text's memory page
// (16-byte loads of short tails, simdjson's padding read in place). Such reads cannot fault, but
// AddressSanitizer reports them as overflows: a sanitized build takes the exact-length paths.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define MCP_NATIVE_PAGE_READS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MCP_NATIVE_PAGE_READS 0
#endif
#endif
#ifndef MCP_NATIVE_PAGE_READS
#define MCP_NATIVE_PAGE_READS 1
#endif
