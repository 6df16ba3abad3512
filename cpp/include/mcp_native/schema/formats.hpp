// JSON Schema "format" assertion checkers (draft-04 … 2020-12), one function per format name.
#pragma once

#include <string_view>

namespace mcp_native::formats {

/// A checker returns true when the string conforms to the format. The argument is valid UTF-8.
/// Checkers never throw.
using Checker = bool (*)(std::string_view utf8);

/// The checker for a format name, or nullptr for formats we do not know (which are ignored).
/// Known names: date-time, date, time, duration, email, idn-email, hostname, idn-hostname, ipv4,
/// ipv6, uri, uri-reference, iri, iri-reference, uuid, uri-template, json-pointer,
/// relative-json-pointer, regex. The same rules serve every draft: which names a draft knows
/// (draft-04 has only date-time, email, hostname, ipv4, ipv6, uri) is the caller's choice.
/// hostname and idn-hostname apply IDNA2008 (RFC 5891-5893, Unicode 14 tables) to A-labels and
/// U-labels, except that U-labels are not checked for NFC.
Checker find(std::string_view name) noexcept;

}  // namespace mcp_native::formats
