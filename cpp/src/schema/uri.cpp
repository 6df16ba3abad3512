// Reference resolution by liburiparser (RFC 3986 section 5.2), with the two things schemas need
// beyond it: identifiers that are IRIs or carry characters a URI may not (RFC 3987 maps those
// by percent-encoding them), and bases that are themselves relative (a schema without an
// absolute `$id`), which RFC 3986 leaves undefined.
#include "schema/uri.hpp"

#include <uriparser/Uri.h>

#include <cctype>

namespace mcp_native::schema::uri {
namespace {

// Relative bases are resolved under this scheme, removed again afterwards, so that relative
// identifiers still combine by the same rules (merge, dot segments) as absolute ones.
constexpr std::string_view kRelativeScheme = "x-mcp-native-relative:";

bool has_scheme(std::string_view s) {
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s.substr(1)) {
    if (c == ':') return true;
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') return false;
  }
  return false;
}

// RFC 3987 section 3.1: the characters a URI cannot hold, percent-encoded (UTF-8 bytes beyond
// ASCII, controls, spaces, `"<>\^`{|}`, a '%' that starts no escape, and '[' ']' outside an IP
// literal host).
std::string to_uri(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  size_t host_end = 0;  // '[' and ']' are kept in the authority only
  if (size_t a = s.find("//"); a != std::string_view::npos && (a == 0 || s[a - 1] == ':')) {
    host_end = s.find_first_of("/?#", a + 2);
    if (host_end == std::string_view::npos) host_end = s.size();
  }
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    const bool escape_start = c == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
                              std::isxdigit(static_cast<unsigned char>(s[i + 2]));
    const bool bracket = (c == '[' || c == ']') && i >= host_end;
    if (c <= 0x20 || c >= 0x7f ||
        std::string_view("\"<>\\^`{|}").find(static_cast<char>(c)) != std::string_view::npos ||
        (c == '%' && !escape_start) || bracket) {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// A parsed URI and the text it points into (liburiparser keeps ranges of its input).
struct Parsed {
  std::string text;
  UriUriA uri{};
  bool ok = false;
  explicit Parsed(std::string t) : text(std::move(t)) {
    const char* error_pos = nullptr;
    ok = uriParseSingleUriExA(&uri, text.data(), text.data() + text.size(), &error_pos) == URI_SUCCESS;
  }
  ~Parsed() {
    if (ok) uriFreeUriMembersA(&uri);
  }
  Parsed(const Parsed&) = delete;
  Parsed& operator=(const Parsed&) = delete;
};

}  // namespace

std::optional<std::string> resolve(std::string_view base, std::string_view ref) {
  // A same-document reference (RFC 3986 section 4.4), most `$ref`s in practice: the base with
  // the reference's fragment (section 5.2.2), without parsing either.
  if (!ref.empty() && ref[0] == '#') {
    std::string out(base.substr(0, base.find('#')));
    out += to_uri(ref);
    return strip_empty_fragment(std::move(out));
  }
  const bool relative_base = !has_scheme(base);
  const Parsed b(relative_base ? std::string(kRelativeScheme) + to_uri(base) : to_uri(base));
  const Parsed r(to_uri(ref));
  if (!b.ok || !r.ok) return std::nullopt;
  UriUriA target{};
  if (uriAddBaseUriExA(&target, &r.uri, &b.uri, URI_RESOLVE_STRICTLY) != URI_SUCCESS) return std::nullopt;
  int chars = 0;
  std::string out;
  if (uriToStringCharsRequiredA(&target, &chars) == URI_SUCCESS) {
    out.resize(static_cast<size_t>(chars) + 1);
    if (uriToStringA(out.data(), &target, chars + 1, nullptr) != URI_SUCCESS) chars = -1;
  } else {
    chars = -1;
  }
  uriFreeUriMembersA(&target);
  if (chars < 0) return std::nullopt;
  out.resize(static_cast<size_t>(chars));
  if (relative_base && out.compare(0, kRelativeScheme.size(), kRelativeScheme) == 0)
    out.erase(0, kRelativeScheme.size());
  return strip_empty_fragment(std::move(out));
}

std::pair<std::string, std::string> split_fragment(const std::string& uri) {
  size_t h = uri.find('#');
  if (h == std::string::npos) return {uri, ""};
  return {uri.substr(0, h), uri.substr(h + 1)};
}

std::string strip_empty_fragment(std::string s) {
  if (!s.empty() && s.back() == '#') s.pop_back();
  return s;
}

std::string percent_decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit((unsigned char)s[i + 1]) &&
        std::isxdigit((unsigned char)s[i + 2])) {
      out += (char)std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace mcp_native::schema::uri
