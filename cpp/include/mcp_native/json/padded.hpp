// Text for simdjson, which reads SIMDJSON_PADDING bytes past the end of what it parses.
#pragma once

#include <simdjson.h>

#include <cstring>
#include <memory>
#include <string_view>

#include "mcp_native/util/memory.hpp"

namespace mcp_native {

/// Whether simdjson may parse `doc` where it lies: the bytes it reads past the end are in the
/// page of the last byte (their contents do not matter). False for an empty text.
inline bool padding_in_page(std::string_view doc) noexcept {
  return MCP_NATIVE_PAGE_READS && !doc.empty() && in_page(doc.data() + doc.size() - 1, simdjson::SIMDJSON_PADDING + 1);
}

/// A reusable buffer for texts simdjson cannot parse where they lie.
class PaddedText {
 public:
  /// `doc` where it lies when simdjson may parse it there, else a copy followed by zeroed
  /// padding (valid until the next call).
  const char* operator()(std::string_view doc) {
    if (padding_in_page(doc)) return doc.data();
    if (capacity_ < doc.size() + simdjson::SIMDJSON_PADDING) {
      capacity_ = doc.size() + simdjson::SIMDJSON_PADDING + doc.size() / 2;
      buf_.reset(new char[capacity_]);
    }
    std::memcpy(buf_.get(), doc.data(), doc.size());
    std::memset(buf_.get() + doc.size(), 0, simdjson::SIMDJSON_PADDING);
    return buf_.get();
  }

  /// Frees the copy after a text larger than kKeepBytes; true if it did.
  bool release_if_big() {
    if (capacity_ <= kKeepBytes) return false;
    buf_.reset();
    capacity_ = 0;
    return true;
  }

 private:
  std::unique_ptr<char[]> buf_;
  std::size_t capacity_ = 0;
};

}  // namespace mcp_native
