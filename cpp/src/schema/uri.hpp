// Reference resolution for `$id` and `$ref` (RFC 3986, by liburiparser), and the fragment
// helpers of the compiler.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace mcp_native::schema::uri {

/// `ref` resolved against `base` (RFC 3986 section 5.2), an empty fragment dropped; nothing when
/// either is not a URI reference even after the IRI mapping.
std::optional<std::string> resolve(std::string_view base, std::string_view ref);
/// {everything before '#', the fragment}.
std::pair<std::string, std::string> split_fragment(const std::string& uri);
/// `uri` without a trailing '#'.
std::string strip_empty_fragment(std::string uri);
/// %XX escapes decoded (a JSON Pointer fragment is percent-encoded in a URI).
std::string percent_decode(std::string_view s);

}  // namespace mcp_native::schema::uri
