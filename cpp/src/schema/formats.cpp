// Format checkers, each a hand-written recognizer of the grammar its RFC gives (no regexes:
// they run per instance string in the validation hot path).
#include "mcp_native/schema/formats.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "mcp_native/schema/regex.hpp"
#include "mcp_native/util/utf8.hpp"

namespace mcp_native::formats {
namespace {

// ---------------------------------------------------------------------------------------------
// Small helpers

// ASCII character classes as bits of one table, so that the URI, e-mail and host name scanners
// spend one lookup per character.
enum : uint16_t {
  kAlpha = 1 << 0,
  kDigit = 1 << 1,
  kHexLetter = 1 << 2,
  kUnreserved = 1 << 3,  // RFC 3986: ALPHA DIGIT - . _ ~
  kSubDelim = 1 << 4,    // RFC 3986: ! $ & ' ( ) * + , ; =
  kColon = 1 << 5,
  kAt = 1 << 6,
  kSlash = 1 << 7,
  kQuestion = 1 << 8,
  kAtext = 1 << 9,  // RFC 5321
  kHyphen = 1 << 10,
  kDot = 1 << 11,
};
constexpr uint16_t kRegName = kUnreserved | kSubDelim;
constexpr uint16_t kUserinfo = kRegName | kColon;
constexpr uint16_t kPathChars = kRegName | kColon | kAt | kSlash;  // pchar and "/"
constexpr uint16_t kQueryChars = kPathChars | kQuestion;           // query and fragment

constexpr std::array<uint16_t, 256> kCharClasses = [] {
  std::array<uint16_t, 256> t{};
  auto add = [&](std::string_view chars, uint16_t bits) {
    for (char c : chars) t[static_cast<unsigned char>(c)] |= bits;
  };
  for (int c = 'a'; c <= 'z'; ++c) t[c] |= kAlpha | kUnreserved | kAtext;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] |= kAlpha | kUnreserved | kAtext;
  for (int c = '0'; c <= '9'; ++c) t[c] |= kDigit | kUnreserved | kAtext;
  add("abcdefABCDEF", kHexLetter);
  add("-._~", kUnreserved);
  add("!$&'()*+,;=", kSubDelim);
  add("!#$%&'*+-/=?^_`{|}~", kAtext);
  add(":", kColon);
  add("@", kAt);
  add("/", kSlash);
  add("?", kQuestion);
  add("-", kHyphen);
  add(".", kDot);
  return t;
}();

uint16_t char_class(char c) { return kCharClasses[static_cast<unsigned char>(c)]; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return char_class(c) & kAlpha; }
bool is_hex(char c) { return char_class(c) & (kDigit | kHexLetter); }
char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

bool is_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

bool is_ascii_u32(std::u32string_view s) {
  return std::all_of(s.begin(), s.end(), [](char32_t c) { return c < 0x80; });
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower(x) == lower(y); });
}

// Reads exactly `n` ASCII digits at s[i..] as a number; -1 when they are not all digits.
int digits(std::string_view s, size_t i, size_t n) {
  if (i + n > s.size()) return -1;
  int value = 0;
  for (size_t k = i; k < i + n; ++k) {
    if (!is_digit(s[k])) return -1;
    value = value * 10 + (s[k] - '0');
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Dates and times (RFC 3339 section 5.6; duration: appendix A)

bool full_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  int year = digits(s, 0, 4), month = digits(s, 5, 2), day = digits(s, 8, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1) return false;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
  return day <= kDays[month - 1] + (month == 2 && leap);
}

// full-time: HH:MM:SS[.frac](Z|±HH:MM). A leap second (:60) is valid only at 23:59 UTC.
bool full_time(std::string_view s) {
  if (s.size() < 9 || s[2] != ':' || s[5] != ':') return false;
  int hour = digits(s, 0, 2), minute = digits(s, 3, 2), second = digits(s, 6, 2);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) return false;
  size_t i = 8;
  if (s[i] == '.') {
    size_t begin = ++i;
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i == begin) return false;
  }
  if (i >= s.size()) return false;
  int offset = 0;  // minutes east of UTC
  if (s[i] == 'Z' || s[i] == 'z') {
    if (i + 1 != s.size()) return false;
  } else if (s[i] == '+' || s[i] == '-') {
    if (s.size() - i != 6 || s[i + 3] != ':') return false;
    int oh = digits(s, i + 1, 2), om = digits(s, i + 4, 2);
    if (oh < 0 || oh > 23 || om < 0 || om > 59) return false;
    offset = (s[i] == '+' ? 1 : -1) * (oh * 60 + om);
  } else {
    return false;
  }
  if (second == 60) {
    int utc = ((hour * 60 + minute - offset) % 1440 + 1440) % 1440;
    return utc == 23 * 60 + 59;
  }
  return true;
}

bool date_time(std::string_view s) {
  return s.size() > 11 && (s[10] == 'T' || s[10] == 't') && full_date(s.substr(0, 10)) && full_time(s.substr(11));
}

// P followed by date elements Y M D (a contiguous run, in order) and/or T with H M S (likewise),
// or a lone W. Each element is 1*DIGIT and its unit letter.
bool duration(std::string_view s) {
  if (s.size() < 3 || s[0] != 'P') return false;
  size_t i = 1;
  // Reads the elements of one part; `units` in order, returns false on a gap or bad element.
  auto part = [&](std::string_view units, int& count) {
    int last = -1;
    count = 0;
    while (i < s.size() && s[i] != 'T') {
      size_t begin = i;
      while (i < s.size() && is_digit(s[i])) ++i;
      if (i == begin || i == s.size()) return false;
      size_t unit = units.find(s[i]);
      if (unit == std::string_view::npos || (last >= 0 && static_cast<int>(unit) != last + 1)) return false;
      last = static_cast<int>(unit);
      ++count;
      ++i;
    }
    return true;
  };
  if (s.back() == 'W') return std::all_of(s.begin() + 1, s.end() - 1, is_digit);
  int date_count = 0, time_count = 0;
  if (!part("YMD", date_count)) return false;
  if (i < s.size()) {  // at 'T'
    ++i;
    if (!part("HMS", time_count) || time_count == 0 || i != s.size()) return false;  // one T only
  }
  return date_count + time_count > 0;
}

// ---------------------------------------------------------------------------------------------
// IP addresses

// dec-octet "." dec-octet "." dec-octet "." dec-octet, without leading zeros.
bool ipv4(std::string_view s) {
  int parts = 0;
  size_t i = 0;
  while (true) {
    size_t begin = i;
    int value = 0;
    while (i < s.size() && is_digit(s[i]) && i - begin < 3) value = value * 10 + (s[i++] - '0');
    size_t len = i - begin;
    if (len == 0 || value > 255 || (len > 1 && s[begin] == '0')) return false;
    if (++parts == 4) return i == s.size();
    if (i >= s.size() || s[i] != '.') return false;
    ++i;
  }
}

// RFC 4291 section 2.2: eight groups of 1-4 hex digits, one "::" for a run of zero groups, and
// an IPv4 address in place of the last two.
bool ipv6(std::string_view s) {
  int groups = 0;
  bool compressed = false;
  size_t i = 0;
  if (s.substr(0, 2) == "::") {
    compressed = true;
    i = 2;
    if (i == s.size()) return true;
  } else if (s.empty() || s[0] == ':') {
    return false;
  }
  while (true) {
    size_t begin = i;
    while (i < s.size() && is_hex(s[i]) && i - begin < 5) ++i;
    if (i < s.size() && s[i] == '.') {  // the rest is an embedded IPv4 address
      if (!ipv4(s.substr(begin))) return false;
      groups += 2;
      break;
    }
    if (i == begin || i - begin > 4) return false;
    ++groups;
    if (i == s.size()) break;
    if (s[i] != ':') return false;
    ++i;
    if (i < s.size() && s[i] == ':') {
      if (compressed) return false;
      compressed = true;
      ++i;
      if (i == s.size()) break;
    } else if (i == s.size()) {
      return false;
    }
  }
  return compressed ? groups < 8 : groups == 8;
}

// ---------------------------------------------------------------------------------------------
// IDNA2008 (RFC 5890-5893): Punycode, the derived property table, contextual and Bidi rules.

struct IdnaRange {
  uint32_t first, last;
  uint16_t attributes;
};
// Attribute bits of idna_table.inc.
constexpr uint16_t kIdnaPropertyMask = 0x3;  // 1 PVALID, 2 CONTEXTJ, 3 CONTEXTO
constexpr int kBidiShift = 2;                // 4 bits, order of enum Bidi
constexpr int kJoiningShift = 6;             // 3 bits, order of enum Joining
constexpr uint16_t kVirama = 1 << 9;         // Canonical_Combining_Class 9
constexpr uint16_t kMark = 1 << 10;          // General_Category M*
constexpr int kScriptShift = 11;             // 3 bits, order of enum Script

enum class Bidi { L, R, AL, EN, ES, ET, AN, CS, NSM, BN, ON, Other };
enum class Joining { U, T, D, L, R, C };
enum class Script { Other, Greek, Hebrew, Hiragana, Katakana, Han };

constexpr IdnaRange kIdnaTable[] = {
#include "idna_table.inc"
};

// The attributes of a code point IDNA2008 allows; 0 when it is DISALLOWED or UNASSIGNED.
uint16_t idna_attributes(uint32_t c) {
  auto it = std::upper_bound(std::begin(kIdnaTable), std::end(kIdnaTable), c,
                             [](uint32_t v, const IdnaRange& r) { return v < r.first; });
  if (it == std::begin(kIdnaTable)) return 0;
  --it;
  return c <= it->last ? it->attributes : 0;
}

Bidi bidi_class(uint32_t c) {
  // ASCII letters are not all in the table (upper case is DISALLOWED in U-labels), but LDH
  // labels take part in the Bidi rule too.
  if (c < 0x80) return is_digit(static_cast<char>(c)) ? Bidi::EN : c == '-' ? Bidi::ES : Bidi::L;
  return static_cast<Bidi>((idna_attributes(c) >> kBidiShift) & 0xF);
}
Joining joining_type(uint32_t c) { return static_cast<Joining>((idna_attributes(c) >> kJoiningShift) & 0x7); }
Script script(uint32_t c) { return static_cast<Script>((idna_attributes(c) >> kScriptShift) & 0x7); }

constexpr uint32_t kBase = 36, kTMin = 1, kTMax = 26, kSkew = 38, kDamp = 700;

uint32_t adapt(uint32_t delta, uint32_t points, bool first) {
  delta = first ? delta / kDamp : delta / 2;
  delta += delta / points;
  uint32_t k = 0;
  while (delta > ((kBase - kTMin) * kTMax) / 2) {
    delta /= kBase - kTMin;
    k += kBase;
  }
  return k + (kBase - kTMin + 1) * delta / (delta + kSkew);
}

// RFC 3492 decoding of the part after "xn--" (lower-cased); false when malformed.
bool punycode_decode(std::string_view in, std::u32string& out) {
  out.clear();
  size_t delimiter = in.rfind('-');
  size_t start = 0;
  if (delimiter != std::string_view::npos) {
    for (size_t k = 0; k < delimiter; ++k) out += static_cast<char32_t>(static_cast<unsigned char>(in[k]));
    start = delimiter + 1;
  }
  uint64_t n = 128, i = 0, bias = 72;
  for (size_t pos = start; pos < in.size();) {
    uint64_t old_i = i, w = 1;
    for (uint64_t k = kBase;; k += kBase) {
      if (pos >= in.size()) return false;
      char c = in[pos++];
      uint64_t digit = c >= 'a' && c <= 'z' ? c - 'a' : is_digit(c) ? c - '0' + 26 : kBase;
      if (digit >= kBase) return false;
      i += digit * w;
      uint64_t t = k <= bias ? kTMin : k >= bias + kTMax ? kTMax : k - bias;
      if (digit < t) break;
      w *= kBase - t;
      if (i > 0x10FFFF * 64 || w > 0x10FFFF * 64) return false;
    }
    uint64_t points = out.size() + 1;
    bias = adapt(static_cast<uint32_t>(i - old_i), static_cast<uint32_t>(points), old_i == 0);
    n += i / points;
    i %= points;
    if (n > 0x10FFFF || (n >= 0xD800 && n <= 0xDFFF)) return false;
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(i), static_cast<char32_t>(n));
    ++i;
  }
  return true;
}

// RFC 3492 encoding (without the "xn--" prefix).
std::string punycode_encode(const std::u32string& in) {
  std::string out;
  for (char32_t c : in) {
    if (c < 0x80) out += static_cast<char>(c);
  }
  size_t basic = out.size(), handled = basic;
  if (basic > 0) out += '-';
  uint32_t n = 128, delta = 0, bias = 72;
  while (handled < in.size()) {
    uint32_t m = UINT32_MAX;
    for (char32_t c : in) {
      if (c >= n && c < m) m = c;
    }
    delta += (m - n) * static_cast<uint32_t>(handled + 1);
    n = m;
    for (char32_t c : in) {
      if (c < n) ++delta;
      if (c != n) continue;
      uint32_t q = delta;
      for (uint32_t k = kBase;; k += kBase) {
        uint32_t t = k <= bias ? kTMin : k >= bias + kTMax ? kTMax : k - bias;
        if (q < t) break;
        uint32_t digit = t + (q - t) % (kBase - t);
        out += static_cast<char>(digit < 26 ? 'a' + digit : '0' + digit - 26);
        q = (q - t) / (kBase - t);
      }
      out += static_cast<char>(q < 26 ? 'a' + q : '0' + q - 26);
      bias = adapt(delta, static_cast<uint32_t>(handled + 1), handled == basic);
      delta = 0;
      ++handled;
    }
    ++delta;
    ++n;
  }
  return out;
}

// RFC 5892 appendix A: the rule for the CONTEXTJ/CONTEXTO code point at label[i].
bool context_rule_holds(const std::u32string& label, size_t i) {
  char32_t c = label[i];
  bool has_before = i > 0, has_after = i + 1 < label.size();
  switch (c) {
    case 0x200C: {  // ZERO WIDTH NON-JOINER
      if (has_before && (idna_attributes(label[i - 1]) & kVirama)) return true;
      size_t k = i;
      while (k > 0 && joining_type(label[k - 1]) == Joining::T) --k;
      if (k == 0 || (joining_type(label[k - 1]) != Joining::L && joining_type(label[k - 1]) != Joining::D)) {
        return false;
      }
      k = i + 1;
      while (k < label.size() && joining_type(label[k]) == Joining::T) ++k;
      return k < label.size() && (joining_type(label[k]) == Joining::R || joining_type(label[k]) == Joining::D);
    }
    case 0x200D:  // ZERO WIDTH JOINER
      return has_before && (idna_attributes(label[i - 1]) & kVirama);
    case 0x00B7:  // MIDDLE DOT
      return has_before && has_after && label[i - 1] == 'l' && label[i + 1] == 'l';
    case 0x0375:  // GREEK LOWER NUMERAL SIGN (KERAIA)
      return has_after && script(label[i + 1]) == Script::Greek;
    case 0x05F3:  // HEBREW PUNCTUATION GERESH
    case 0x05F4:  // HEBREW PUNCTUATION GERSHAYIM
      return has_before && script(label[i - 1]) == Script::Hebrew;
    case 0x30FB:  // KATAKANA MIDDLE DOT
      return std::any_of(label.begin(), label.end(), [](char32_t x) {
        Script s = script(x);
        return s == Script::Hiragana || s == Script::Katakana || s == Script::Han;
      });
    default:
      if (c >= 0x660 && c <= 0x669) {  // ARABIC-INDIC DIGITS
        return std::none_of(label.begin(), label.end(), [](char32_t x) { return x >= 0x6F0 && x <= 0x6F9; });
      }
      if (c >= 0x6F0 && c <= 0x6F9) {  // EXTENDED ARABIC-INDIC DIGITS
        return std::none_of(label.begin(), label.end(), [](char32_t x) { return x >= 0x660 && x <= 0x669; });
      }
      return false;
  }
}

// RFC 5891 section 5.4 on a non-ASCII label (NFC is not checked: no normalization data).
bool valid_u_label(const std::u32string& label) {
  if (label.empty() || label.front() == '-' || label.back() == '-') return false;
  if (label.size() >= 4 && label[2] == '-' && label[3] == '-') return false;
  if (idna_attributes(label[0]) & kMark) return false;
  for (size_t i = 0; i < label.size(); ++i) {
    uint16_t property = idna_attributes(label[i]) & kIdnaPropertyMask;
    if (property == 0 || (property != 1 && !context_rule_holds(label, i))) return false;
  }
  return true;
}

// RFC 5893 section 2, for one label of a domain that has right-to-left labels.
bool bidi_rule_holds(const std::u32string& label) {
  Bidi first = bidi_class(label[0]);
  if (first != Bidi::L && first != Bidi::R && first != Bidi::AL) return false;
  bool rtl = first != Bidi::L;
  bool has_en = false, has_an = false;
  for (char32_t c : label) {
    Bidi b = bidi_class(c);
    has_en = has_en || b == Bidi::EN;
    has_an = has_an || b == Bidi::AN;
    bool allowed = b == Bidi::EN || b == Bidi::ES || b == Bidi::CS || b == Bidi::ET || b == Bidi::ON || b == Bidi::BN ||
                   b == Bidi::NSM || (rtl ? b == Bidi::R || b == Bidi::AL || b == Bidi::AN : b == Bidi::L);
    if (!allowed) return false;
  }
  if (rtl && has_en && has_an) return false;
  size_t end = label.size();
  while (end > 0 && bidi_class(label[end - 1]) == Bidi::NSM) --end;
  if (end == 0) return false;
  Bidi last = bidi_class(label[end - 1]);
  return rtl ? last == Bidi::R || last == Bidi::AL || last == Bidi::EN || last == Bidi::AN
             : last == Bidi::L || last == Bidi::EN;
}

// An LDH label of at most 63 octets, not starting or ending with a hyphen.
bool ldh_label(std::string_view label) {
  if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') return false;
  return std::all_of(label.begin(), label.end(), [](char c) { return char_class(c) & (kAlpha | kDigit | kHyphen); });
}

enum class Ldh { Valid, Invalid, NeedsIdna };

// One pass over a name of LDH labels (the common case). NeedsIdna when it meets what only the
// full IDNA check can judge: "--" (a possible A-label) or a non-ASCII character.
Ldh ldh_name(std::string_view s) {
  size_t label = 0;
  char previous = '.';
  for (char c : s) {
    uint16_t k = char_class(c);
    if (k & (kAlpha | kDigit)) {
      ++label;
    } else if (k & kHyphen) {
      if (previous == '.') return Ldh::Invalid;
      if (previous == '-') return Ldh::NeedsIdna;
      ++label;
    } else if (k & kDot) {
      if (previous == '.' || previous == '-') return Ldh::Invalid;
      label = 0;
    } else {
      return static_cast<unsigned char>(c) >= 0x80 ? Ldh::NeedsIdna : Ldh::Invalid;
    }
    if (label > 63) return Ldh::Invalid;
    previous = c;
  }
  return previous == '.' || previous == '-' || s.size() > 253 ? Ldh::Invalid : Ldh::Valid;
}

// hostname (RFC 1123, with A-labels checked as IDNA2008) and, with `unicode`, idn-hostname
// (U-labels and the IDNA label separators U+3002, U+FF0E, U+FF61 too).
bool domain(std::string_view s, bool unicode) {
  switch (ldh_name(s)) {
    case Ldh::Valid: return true;
    case Ldh::Invalid: return false;
    case Ldh::NeedsIdna: break;
  }
  // 253 code points of at most 4 octets each.
  if (s.size() > 4 * 253 || (!unicode && !is_ascii(s))) return false;
  std::vector<std::u32string> labels;  // IDN labels as code points, for the Bidi rule
  std::u32string current;
  bool current_ascii = true, bidi_domain = false;
  size_t ascii_length = 0;  // of the whole name in A-label form
  std::string ascii_label;
  auto finish_label = [&]() {
    // An A-label is longer than its U-label's code point count: checking the length first
    // bounds the (quadratic) Punycode and context-rule work.
    if (current.empty() || current.size() > 63) return false;
    if (current_ascii) {
      ascii_label.assign(current.begin(), current.end());
      if (!ldh_label(ascii_label)) return false;
      if (ascii_label.size() >= 4 && iequals(ascii_label.substr(0, 4), "xn--")) {
        std::string lowered;
        for (char c : ascii_label.substr(4)) lowered += lower(c);
        if (!punycode_decode(lowered, current) || is_ascii_u32(current) || punycode_encode(current) != lowered ||
            !valid_u_label(current)) {
          return false;
        }
      }
      ascii_length += ascii_label.size() + 1;
    } else {
      if (!valid_u_label(current)) return false;
      size_t a_label = 4 + punycode_encode(current).size();
      if (a_label > 63) return false;
      ascii_length += a_label + 1;
    }
    for (char32_t c : current) {
      Bidi b = bidi_class(c);
      bidi_domain = bidi_domain || b == Bidi::R || b == Bidi::AL || b == Bidi::AN;
    }
    labels.push_back(std::move(current));
    current.clear();
    current_ascii = true;
    return true;
  };
  for (size_t i = 0; i < s.size();) {
    uint32_t c = utf8::decode(s, i);
    if (c == utf8::kInvalid) return false;
    if (c == '.' || (unicode && (c == 0x3002 || c == 0xFF0E || c == 0xFF61))) {
      if (!finish_label()) return false;
      continue;
    }
    current_ascii = current_ascii && c < 0x80;
    current += static_cast<char32_t>(c);
  }
  if (!finish_label() || ascii_length - 1 > 253) return false;
  if (bidi_domain) {
    for (const auto& label : labels) {
      if (!bidi_rule_holds(label)) return false;
    }
  }
  return true;
}

bool hostname(std::string_view s) { return domain(s, false); }
bool idn_hostname(std::string_view s) { return domain(s, true); }

// ---------------------------------------------------------------------------------------------
// E-mail addresses (RFC 5321 section 4.1.2 Mailbox; idn-email: RFC 6531 adds non-ASCII)

bool is_atext(uint32_t c, bool unicode) { return c >= 0x80 ? unicode : char_class(static_cast<char>(c)) & kAtext; }

bool mailbox(std::string_view s, bool unicode) {
  size_t i = 0;
  if (!s.empty() && s[0] == '"') {  // Quoted-string
    for (i = 1;; ++i) {
      if (i >= s.size()) return false;
      char c = s[i];
      if (c == '"') break;
      if (c == '\\') {
        if (++i >= s.size() || s[i] < 32 || s[i] > 126) return false;
      } else if (static_cast<unsigned char>(c) < 0x80 && (c < 32 || c > 126)) {
        return false;
      } else if (static_cast<unsigned char>(c) >= 0x80 && !unicode) {
        return false;
      }
    }
    ++i;
  } else {  // Dot-string: atoms separated by single dots
    bool atom_empty = true;
    while (i < s.size() && s[i] != '@') {
      if (s[i] == '.') {
        if (atom_empty) return false;
        atom_empty = true;
        ++i;
        continue;
      }
      uint32_t c = utf8::decode(s, i);
      if (c == utf8::kInvalid || !is_atext(c, unicode)) return false;
      atom_empty = false;
    }
    if (atom_empty) return false;
  }
  if (i >= s.size() || s[i] != '@' || i > 64) return false;  // local-part: at most 64 octets
  std::string_view host = s.substr(i + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    std::string_view literal = host.substr(1, host.size() - 2);
    if (literal.size() > 5 && iequals(literal.substr(0, 5), "IPv6:")) return ipv6(literal.substr(5));
    return ipv4(literal);
  }
  return domain(host, unicode);
}

bool email(std::string_view s) { return mailbox(s, false); }
bool idn_email(std::string_view s) { return mailbox(s, true); }

// ---------------------------------------------------------------------------------------------
// URIs (RFC 3986) and IRIs (RFC 3987)

bool is_ucschar(uint32_t c) {
  if (c < 0xA0) return false;
  if (c <= 0xD7FF || (c >= 0xF900 && c <= 0xFDCF) || (c >= 0xFDF0 && c <= 0xFFEF)) return true;
  if (c >= 0xE1000 && c <= 0xEFFFD) return true;
  return c >= 0x10000 && c < 0xE0000 && (c & 0xFFFF) <= 0xFFFD;
}
bool is_iprivate(uint32_t c) {
  return (c >= 0xE000 && c <= 0xF8FF) || (c >= 0xF0000 && c <= 0xFFFFD) || (c >= 0x100000 && c <= 0x10FFFD);
}

// Every character of `s` is pct-encoded or in the `allowed` classes; with `iri` also ucschar
// (and iprivate when `private_use`).
bool uri_chars(std::string_view s, uint16_t allowed, bool iri, bool private_use = false) {
  for (size_t i = 0; i < s.size();) {
    char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      uint32_t cp = utf8::decode(s, i);
      if (!iri || cp == utf8::kInvalid || !(is_ucschar(cp) || (private_use && is_iprivate(cp)))) return false;
      continue;
    }
    if (c == '%') {
      if (i + 2 >= s.size() || !is_hex(s[i + 1]) || !is_hex(s[i + 2])) return false;
      i += 3;
      continue;
    }
    if (!(char_class(c) & allowed)) return false;
    ++i;
  }
  return true;
}

// authority = [ userinfo "@" ] host [ ":" port ]
bool authority(std::string_view s, bool iri) {
  size_t at = s.find('@');
  if (at != std::string_view::npos) {
    if (!uri_chars(s.substr(0, at), kUserinfo, iri)) return false;
    s = s.substr(at + 1);
  }
  std::string_view port;
  if (!s.empty() && s[0] == '[') {
    size_t close = s.find(']');
    if (close == std::string_view::npos) return false;
    std::string_view literal = s.substr(1, close - 1);
    std::string_view rest = s.substr(close + 1);
    if (!rest.empty() && rest[0] != ':') return false;
    port = rest.empty() ? rest : rest.substr(1);
    if (!literal.empty() && (literal[0] == 'v' || literal[0] == 'V')) {  // IPvFuture
      size_t dot = literal.find('.');
      if (dot == std::string_view::npos || dot == 1 || dot + 1 == literal.size()) return false;
      if (!std::all_of(literal.begin() + 1, literal.begin() + static_cast<std::ptrdiff_t>(dot), is_hex)) return false;
      std::string_view tail = literal.substr(dot + 1);
      if (tail.find('%') != std::string_view::npos || !uri_chars(tail, kUserinfo, false)) return false;
    } else if (!ipv6(literal)) {
      return false;
    }
  } else {
    size_t colon = s.find(':');
    std::string_view host = s.substr(0, colon);
    if (colon != std::string_view::npos) port = s.substr(colon + 1);
    if (!uri_chars(host, kRegName, iri)) return false;  // reg-name (IPv4 addresses are reg-names too)
  }
  return std::all_of(port.begin(), port.end(), is_digit);
}

bool is_scheme(std::string_view s) {
  return !s.empty() && is_alpha(s[0]) && std::all_of(s.begin(), s.end(), [](char c) {
    return is_alpha(c) || is_digit(c) || c == '+' || c == '-' || c == '.';
  });
}

// URI / IRI when !reference; URI-reference / IRI-reference when reference.
bool uri_like(std::string_view s, bool iri, bool reference) {
  size_t hash = s.find('#');
  if (hash != std::string_view::npos) {
    if (!uri_chars(s.substr(hash + 1), kQueryChars, iri)) return false;
    s = s.substr(0, hash);
  }
  size_t question = s.find('?');
  if (question != std::string_view::npos) {
    if (!uri_chars(s.substr(question + 1), kQueryChars, iri, true)) return false;
    s = s.substr(0, question);
  }
  size_t colon = s.find(':');
  if (colon != std::string_view::npos && s.substr(0, colon).find('/') == std::string_view::npos) {
    // A colon before any slash: a scheme, or (in a relative reference's first segment) invalid.
    if (!is_scheme(s.substr(0, colon))) return false;
    s = s.substr(colon + 1);
  } else if (!reference) {
    return false;
  }
  if (s.substr(0, 2) == "//") {
    size_t slash = s.find('/', 2);
    if (!authority(s.substr(2, slash == std::string_view::npos ? std::string_view::npos : slash - 2), iri)) {
      return false;
    }
    s = slash == std::string_view::npos ? std::string_view() : s.substr(slash);
  }
  return uri_chars(s, kPathChars, iri);
}

bool uri(std::string_view s) { return uri_like(s, false, false); }
bool uri_reference(std::string_view s) { return uri_like(s, false, true); }
bool iri(std::string_view s) { return uri_like(s, true, false); }
bool iri_reference(std::string_view s) { return uri_like(s, true, true); }

// ---------------------------------------------------------------------------------------------
// RFC 6570 URI Template (level 4)

bool uri_template(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      uint32_t cp = utf8::decode(s, i);
      if (cp == utf8::kInvalid || !(is_ucschar(cp) || is_iprivate(cp))) return false;
      continue;
    }
    if (c == '%') {
      if (i + 2 >= s.size() || !is_hex(s[i + 1]) || !is_hex(s[i + 2])) return false;
      i += 3;
      continue;
    }
    if (c != '{') {
      // Literals: any printable ASCII except space " ' % < > \ ^ ` { | } (RFC 6570 section 2.1;
      // the apostrophe is allowed as in its errata).
      if (c <= 0x20 || c == 0x7F || std::string_view("\"<>\\^`|}").find(c) != std::string_view::npos) return false;
      ++i;
      continue;
    }
    // expression = "{" [ operator ] variable-list "}"
    ++i;
    if (i < s.size() && std::string_view("+#./;?&=,!@|").find(s[i]) != std::string_view::npos) ++i;
    while (true) {
      // varname = varchar *( ["."] varchar ), varchar = ALPHA / DIGIT / "_" / pct-encoded
      bool need_varchar = true;
      while (i < s.size()) {
        char v = s[i];
        if (is_alpha(v) || is_digit(v) || v == '_') {
          ++i;
        } else if (v == '%' && i + 2 < s.size() && is_hex(s[i + 1]) && is_hex(s[i + 2])) {
          i += 3;
        } else if (v == '.' && !need_varchar) {
          ++i;
          need_varchar = true;
          continue;
        } else {
          break;
        }
        need_varchar = false;
      }
      if (need_varchar || i >= s.size()) return false;
      if (s[i] == '*') {
        ++i;
      } else if (s[i] == ':') {  // max-length = %x31-39 0*3DIGIT
        size_t begin = ++i;
        if (i >= s.size() || s[i] < '1' || s[i] > '9') return false;
        while (i < s.size() && is_digit(s[i])) ++i;
        if (i - begin > 4) return false;
      }
      if (i >= s.size()) return false;
      if (s[i] == '}') break;
      if (s[i] != ',') return false;
      ++i;
    }
    ++i;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// JSON Pointer (RFC 6901) and Relative JSON Pointer

bool json_pointer(std::string_view s) {
  if (!s.empty() && s[0] != '/') return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '~' && (i + 1 >= s.size() || (s[i + 1] != '0' && s[i + 1] != '1'))) return false;
  }
  return true;
}

bool relative_json_pointer(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && is_digit(s[i])) ++i;
  if (i == 0 || (i > 1 && s[0] == '0')) return false;
  std::string_view rest = s.substr(i);
  return rest == "#" || json_pointer(rest);
}

// ---------------------------------------------------------------------------------------------

bool uuid(std::string_view s) {
  if (s.size() != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-') return false;
  for (size_t i : {0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}) {
    if (!is_hex(s[i]) || !is_hex(s[i + 1])) return false;
  }
  return true;
}

bool regex(std::string_view s) { return Regex::is_valid(s); }

struct Entry {
  std::string_view name;
  Checker checker;
};

constexpr Entry kCheckers[] = {
    {"date-time", date_time},
    {"date", full_date},
    {"time", full_time},
    {"duration", duration},
    {"email", email},
    {"idn-email", idn_email},
    {"hostname", hostname},
    {"idn-hostname", idn_hostname},
    {"ipv4", ipv4},
    {"ipv6", ipv6},
    {"uri", uri},
    {"uri-reference", uri_reference},
    {"iri", iri},
    {"iri-reference", iri_reference},
    {"uuid", uuid},
    {"uri-template", uri_template},
    {"json-pointer", json_pointer},
    {"relative-json-pointer", relative_json_pointer},
    {"regex", regex},
};

}  // namespace

Checker find(std::string_view name) noexcept {
  for (const auto& entry : kCheckers) {
    if (entry.name == name) return entry.checker;
  }
  return nullptr;
}

}  // namespace mcp_native::formats
