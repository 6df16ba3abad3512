// ECMA-262 (Unicode mode) patterns are translated into equivalent PCRE2 syntax, validating the
// ECMA grammar on the way: PCRE2 alone would accept many patterns ECMA rejects (`\a`, `(?i)`,
// `(?P<n>…)`, `a++`, lone `{`) and differs on `\s`, `.`, `\v`, `$`, property names and unset
// backreferences.
#include "mcp_native/schema/regex.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "mcp_native/util/utf8.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace mcp_native {
namespace {

// Backtracking budget per search. Well-behaved patterns use a few calls per subject character;
// `^(a+)+$` against 30 a's and a b needs ~2^30 and is stopped here within milliseconds.
constexpr uint32_t kMatchLimit = 10'000'000;
// Nesting of backtracking frames (interpreter only; the JIT is bounded by its stack instead).
constexpr uint32_t kDepthLimit = 1'000'000;
// Reserved lazily (mmap); lets `^(x|y)*$` run over subjects of up to about a million characters.
constexpr size_t kJitStackMax = 32 << 20;

// ECMA-262 WhiteSpace and LineTerminator (\s), as the inside of a PCRE2 class.
constexpr const char* kSpaceSet =
    "\\t\\n\\x0b\\f\\r\\x20\\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}"
    "\\x{205f}\\x{3000}\\x{feff}";

// General_Category values as ECMA-262 spells them (short name first), mapped to PCRE2's short names.
constexpr const char* kGeneralCategories[][3] = {
    {"C", "Other", ""},
    {"Cc", "Control", "cntrl"},
    {"Cf", "Format", ""},
    {"Cn", "Unassigned", ""},
    {"Co", "Private_Use", ""},
    {"Cs", "Surrogate", ""},
    {"L", "Letter", ""},
    {"LC", "Cased_Letter", ""},
    {"Ll", "Lowercase_Letter", ""},
    {"Lm", "Modifier_Letter", ""},
    {"Lo", "Other_Letter", ""},
    {"Lt", "Titlecase_Letter", ""},
    {"Lu", "Uppercase_Letter", ""},
    {"M", "Mark", "Combining_Mark"},
    {"Mc", "Spacing_Mark", ""},
    {"Me", "Enclosing_Mark", ""},
    {"Mn", "Nonspacing_Mark", ""},
    {"N", "Number", ""},
    {"Nd", "Decimal_Number", "digit"},
    {"Nl", "Letter_Number", ""},
    {"No", "Other_Number", ""},
    {"P", "Punctuation", "punct"},
    {"Pc", "Connector_Punctuation", ""},
    {"Pd", "Dash_Punctuation", ""},
    {"Pe", "Close_Punctuation", ""},
    {"Pf", "Final_Punctuation", ""},
    {"Pi", "Initial_Punctuation", ""},
    {"Po", "Other_Punctuation", ""},
    {"Ps", "Open_Punctuation", ""},
    {"S", "Symbol", ""},
    {"Sc", "Currency_Symbol", ""},
    {"Sk", "Modifier_Symbol", ""},
    {"Sm", "Math_Symbol", ""},
    {"So", "Other_Symbol", ""},
    {"Z", "Separator", ""},
    {"Zl", "Line_Separator", ""},
    {"Zp", "Paragraph_Separator", ""},
    {"Zs", "Space_Separator", ""},
};

// The binary properties ECMA-262 allows in \p{…} (long name, short name). PCRE2 knows them by
// the same names, except the ones handled specially (Any, Assigned).
constexpr const char* kBinaryProperties[][2] = {
    {"ASCII", ""},
    {"ASCII_Hex_Digit", "AHex"},
    {"Alphabetic", "Alpha"},
    {"Any", ""},
    {"Assigned", ""},
    {"Bidi_Control", "Bidi_C"},
    {"Bidi_Mirrored", "Bidi_M"},
    {"Case_Ignorable", "CI"},
    {"Cased", ""},
    {"Changes_When_Casefolded", "CWCF"},
    {"Changes_When_Casemapped", "CWCM"},
    {"Changes_When_Lowercased", "CWL"},
    {"Changes_When_NFKC_Casefolded", "CWKCF"},
    {"Changes_When_Titlecased", "CWT"},
    {"Changes_When_Uppercased", "CWU"},
    {"Dash", ""},
    {"Default_Ignorable_Code_Point", "DI"},
    {"Deprecated", "Dep"},
    {"Diacritic", "Dia"},
    {"Emoji", ""},
    {"Emoji_Component", "EComp"},
    {"Emoji_Modifier", "EMod"},
    {"Emoji_Modifier_Base", "EBase"},
    {"Emoji_Presentation", "EPres"},
    {"Extended_Pictographic", "ExtPict"},
    {"Extender", "Ext"},
    {"Grapheme_Base", "Gr_Base"},
    {"Grapheme_Extend", "Gr_Ext"},
    {"Hex_Digit", "Hex"},
    {"IDS_Binary_Operator", "IDSB"},
    {"IDS_Trinary_Operator", "IDST"},
    {"ID_Continue", "IDC"},
    {"ID_Start", "IDS"},
    {"Ideographic", "Ideo"},
    {"Join_Control", "Join_C"},
    {"Logical_Order_Exception", "LOE"},
    {"Lowercase", "Lower"},
    {"Math", ""},
    {"Noncharacter_Code_Point", "NChar"},
    {"Pattern_Syntax", "Pat_Syn"},
    {"Pattern_White_Space", "Pat_WS"},
    {"Quotation_Mark", "QMark"},
    {"Radical", ""},
    {"Regional_Indicator", "RI"},
    {"Sentence_Terminal", "STerm"},
    {"Soft_Dotted", "SD"},
    {"Terminal_Punctuation", "Term"},
    {"Unified_Ideograph", "UIdeo"},
    {"Uppercase", "Upper"},
    {"Variation_Selector", "VS"},
    {"White_Space", "space"},
    {"XID_Continue", "XIDC"},
    {"XID_Start", "XIDS"},
};

// What class_atom() returns for a class escape (\d, \s, \p{…}) rather than a code point.
constexpr uint32_t kClassEscape = UINT32_MAX;

bool is_syntax_char(uint32_t c) {
  return c < 128 && c != 0 && std::strchr("^$\\.*+?()[]{}|/", static_cast<int>(c)) != nullptr;
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(uint32_t c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_surrogate(uint32_t c) { return c >= 0xD800 && c <= 0xDFFF; }
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A literal code point in PCRE2 syntax: letters and digits as themselves, other ASCII as \x{..}
// (never special, inside or outside a class), the rest as UTF-8.
void append_literal(std::string& out, uint32_t c) {
  if (is_alnum(c) || c >= 0x80) {
    utf8::append(out, c);
  } else {
    static const char* const hex = "0123456789abcdef";  // immutable: safe from any thread
    out += "\\x{";
    out += hex[c >> 4];
    out += hex[c & 15];
    out += '}';
  }
}

class Translator {
 public:
  explicit Translator(std::string_view src) : src_(src) {}

  std::string run() {
    out_.reserve(src_.size() + 16);
    while (pos_ < src_.size()) term();
    if (!groups_.empty()) fail("missing )", src_.size());
    // References may precede their groups, so they are checked at the end (PCRE2 would too, but
    // inside a lookbehind it reports the lookbehind first, which is_valid() forgives).
    for (const auto& [number, at] : number_refs_) {
      if (number > captures_) fail("backreference to a group that does not exist", at);
    }
    for (const auto& [name, at] : name_refs_) {
      if (std::find(names_.begin(), names_.end(), name) == names_.end()) {
        fail("backreference to a group name that does not exist", at);
      }
    }
    return std::move(out_);
  }

 private:
  enum class Group { Plain, Lookahead, Lookbehind };

  [[noreturn]] void fail(const std::string& what, size_t at) const {
    throw RegexError("invalid regular expression: " + what + " at offset " + std::to_string(at));
  }

  bool at_end() const { return pos_ >= src_.size(); }
  char peek(size_t ahead = 0) const { return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0'; }

  uint32_t next_code_point() {
    size_t start = pos_;
    uint32_t c = utf8::decode(src_, pos_);
    if (c == utf8::kInvalid) fail("invalid UTF-8", start);
    return c;
  }

  // One alternative's term: an assertion, an atom or a quantifier.
  void term() {
    size_t start = pos_;
    char c = src_[pos_];
    switch (c) {
      case '|':
        ++pos_;
        out_ += '|';
        quantifiable_ = false;
        return;
      case '(':
        ++pos_;
        group_open(start);
        quantifiable_ = false;
        return;
      case ')':
        if (groups_.empty()) fail("unmatched )", start);
        ++pos_;
        out_ += ')';
        // Unicode mode forbids quantifying lookarounds.
        quantifiable_ = groups_.back() == Group::Plain;
        groups_.pop_back();
        return;
      case '[':
        ++pos_;
        char_class(start);
        quantifiable_ = true;
        return;
      case '.':
        ++pos_;
        out_ += "[^\\n\\r\\x{2028}\\x{2029}]";
        quantifiable_ = true;
        return;
      case '^':
      case '$':
        ++pos_;
        out_ += c;
        quantifiable_ = false;
        return;
      case '*':
      case '+':
      case '?':
        ++pos_;
        quantifier(std::string(1, c), start);
        return;
      case '{': {
        std::string q = braces_quantifier();
        if (q.empty()) fail("lone { (write \\{ for a literal brace)", start);
        quantifier(q, start);
        return;
      }
      case '}':
      case ']': fail(std::string("lone ") + c + " (write \\" + c + " for a literal)", start);
      case '\\':
        ++pos_;
        atom_escape(start);
        return;
      default: append_literal(out_, next_code_point()); quantifiable_ = true;
    }
  }

  void quantifier(const std::string& q, size_t start) {
    if (!quantifiable_) fail("nothing to repeat", start);
    out_ += q;
    if (peek() == '?') {
      ++pos_;
      out_ += '?';
    }
    quantifiable_ = false;
  }

  // `{n}`, `{n,}` or `{n,m}` at pos_ (consumed when valid), or "" when `{` starts none of them.
  std::string braces_quantifier() {
    size_t p = pos_ + 1;
    auto number = [&](uint64_t& value) {
      size_t begin = p;
      value = 0;
      while (p < src_.size() && is_digit(src_[p])) {
        value = std::min<uint64_t>(value * 10 + (src_[p] - '0'), UINT32_MAX);
        ++p;
      }
      return p > begin;
    };
    uint64_t lo = 0, hi = 0;
    if (!number(lo)) return {};
    bool has_hi = false;
    if (p < src_.size() && src_[p] == ',') {
      ++p;
      has_hi = number(hi);
      if (has_hi && hi < lo) fail("numbers out of order in {} quantifier", pos_);
    }
    if (p >= src_.size() || src_[p] != '}') return {};
    std::string q(src_.substr(pos_, p + 1 - pos_));
    pos_ = p + 1;
    return q;
  }

  void group_open(size_t start) {
    if (peek() != '?') {
      out_ += '(';
      ++captures_;
      groups_.push_back(Group::Plain);
      return;
    }
    if (peek(1) == ':') {
      pos_ += 2;
      out_ += "(?:";
      groups_.push_back(Group::Plain);
    } else if (peek(1) == '=' || peek(1) == '!') {
      out_ += src_.substr(pos_ - 1, 3);
      pos_ += 2;
      groups_.push_back(Group::Lookahead);
    } else if (peek(1) == '<' && (peek(2) == '=' || peek(2) == '!')) {
      out_ += src_.substr(pos_ - 1, 4);
      pos_ += 3;
      groups_.push_back(Group::Lookbehind);
    } else if (peek(1) == '<') {
      pos_ += 2;
      std::string name = group_name(start);
      if (std::find(names_.begin(), names_.end(), name) != names_.end()) {
        fail("duplicate group name " + name, start);
      }
      names_.push_back(name);
      ++captures_;
      out_ += "(?<" + name + ">";
      groups_.push_back(Group::Plain);
    } else {
      fail("invalid group (ECMA-262 has no inline flags, comments or (?P…) groups)", start);
    }
  }

  // A group name up to and including its '>'. ECMA allows any identifier; PCRE2 takes ASCII
  // word characters, which is what we support.
  std::string group_name(size_t start) {
    size_t begin = pos_;
    while (!at_end() && (is_alnum(static_cast<unsigned char>(peek())) || peek() == '_')) ++pos_;
    if (pos_ == begin || is_digit(src_[begin]) || peek() != '>') {
      fail("invalid or unsupported group name (use [A-Za-z_][A-Za-z0-9_]*)", start);
    }
    std::string name(src_.substr(begin, pos_ - begin));
    ++pos_;
    return name;
  }

  // After a backslash outside a class.
  void atom_escape(size_t start) {
    if (at_end()) fail("\\ at end of pattern", start);
    char c = peek();
    quantifiable_ = true;
    switch (c) {
      case 'd':
      case 'D':
      case 'w':
      case 'W':
        // Without PCRE2_UCP these are ASCII-only, exactly as in ECMA-262.
        ++pos_;
        out_ += '\\';
        out_ += c;
        return;
      case 's':
      case 'S':
        ++pos_;
        out_ += c == 's' ? "[" : "[^";
        out_ += kSpaceSet;
        out_ += ']';
        return;
      case 'b':
      case 'B':
        ++pos_;
        out_ += '\\';
        out_ += c;
        quantifiable_ = false;
        return;
      case 'p':
      case 'P':
        ++pos_;
        out_ += property(c == 'P', start);
        return;
      case 'k': {
        ++pos_;
        if (peek() != '<') fail("\\k must be followed by <name>", start);
        ++pos_;
        std::string name = group_name(start);
        out_ += "\\k<" + name + ">";
        name_refs_.emplace_back(std::move(name), start);
        return;
      }
      default: break;
    }
    if (c >= '1' && c <= '9') {
      size_t begin = pos_;
      while (!at_end() && is_digit(peek())) ++pos_;
      std::string digits(src_.substr(begin, pos_ - begin));
      number_refs_.emplace_back(digits.size() > 6 ? SIZE_MAX : std::stoul(digits), start);
      out_ += "\\g{" + digits + "}";
      return;
    }
    uint32_t cp = character_escape(false, start);
    // A lone surrogate can never match a valid UTF-8 subject.
    if (is_surrogate(cp)) {
      out_ += "(?!)";
    } else {
      append_literal(out_, cp);
    }
  }

  // After a backslash: a CharacterEscape (shared by atoms and classes); returns its code point.
  uint32_t character_escape(bool in_class, size_t start) {
    char c = peek();
    ++pos_;
    switch (c) {
      case 't': return '\t';
      case 'n': return '\n';
      case 'v': return 0x0B;
      case 'f': return '\f';
      case 'r': return '\r';
      case 'c': {
        char l = peek();
        if (!((l >= 'a' && l <= 'z') || (l >= 'A' && l <= 'Z'))) {
          fail("\\c must be followed by a letter", start);
        }
        ++pos_;
        return static_cast<uint32_t>(l) % 32;
      }
      case '0':
        if (is_digit(peek())) fail("octal escapes are not allowed", start);
        return 0;
      case 'x': {
        int h1 = hex_value(peek()), h2 = hex_value(peek(1));
        if (h1 < 0 || h2 < 0) fail("\\x must be followed by two hex digits", start);
        pos_ += 2;
        return static_cast<uint32_t>(h1 * 16 + h2);
      }
      case 'u': {
        uint32_t cp = unicode_escape(start);
        // A surrogate pair written as two \u escapes is one code point.
        if (cp >= 0xD800 && cp <= 0xDBFF && peek() == '\\' && peek(1) == 'u') {
          size_t save = pos_;
          pos_ += 2;
          uint32_t low = unicode_escape(pos_ - 2);
          if (low >= 0xDC00 && low <= 0xDFFF) return 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          pos_ = save;
        }
        return cp;
      }
      case '-':
        if (in_class) return '-';
        break;
      default:
        if (is_syntax_char(static_cast<unsigned char>(c))) return static_cast<unsigned char>(c);
        break;
    }
    --pos_;
    size_t before = pos_;
    uint32_t cp = at_end() ? 0 : next_code_point();
    std::string shown;
    utf8::append(shown, cp);
    pos_ = before;
    fail("invalid escape \\" + shown, start);
  }

  // After `\u`: `XXXX` or `{X…}`.
  uint32_t unicode_escape(size_t start) {
    uint32_t cp = 0;
    if (peek() == '{') {
      ++pos_;
      size_t digits = 0;
      while (!at_end() && hex_value(peek()) >= 0) {
        cp = cp * 16 + static_cast<uint32_t>(hex_value(peek()));
        if (cp > 0x10FFFF) fail("\\u{…} beyond U+10FFFF", start);
        ++pos_;
        ++digits;
      }
      if (digits == 0 || peek() != '}') fail("malformed \\u{…} escape", start);
      ++pos_;
      return cp;
    }
    for (int i = 0; i < 4; ++i) {
      int h = hex_value(peek());
      if (h < 0) fail("\\u must be followed by four hex digits or {…}", start);
      cp = cp * 16 + static_cast<uint32_t>(h);
      ++pos_;
    }
    return cp;
  }

  // After `\p` or `\P`: `{Name}`, `{Name=Value}`; returns the PCRE2 spelling.
  std::string property(bool negated, size_t start) {
    if (peek() != '{') fail("\\p must be followed by {…}", start);
    size_t close = src_.find('}', pos_);
    if (close == std::string_view::npos) fail("missing } after \\p{", start);
    std::string_view body = src_.substr(pos_ + 1, close - pos_ - 1);
    pos_ = close + 1;
    std::string pcre = property_name(body);
    if (pcre.empty()) fail("unknown Unicode property \\p{" + std::string(body) + "}", start);
    if (pcre == "Assigned") {  // PCRE2 has no Assigned: it is "not Cn".
      negated = !negated;
      pcre = "Cn";
    }
    return (negated ? "\\P{" : "\\p{") + pcre + "}";
  }

  static std::string general_category(std::string_view value) {
    for (const auto& gc : kGeneralCategories) {
      if (value == gc[0] || value == gc[1] || (*gc[2] && value == gc[2])) return gc[0];
    }
    return {};
  }

  static std::string property_name(std::string_view body) {
    size_t eq = body.find('=');
    if (eq != std::string_view::npos) {
      std::string_view name = body.substr(0, eq), value = body.substr(eq + 1);
      bool word = !value.empty();
      for (char ch : value) word = word && (is_alnum(static_cast<unsigned char>(ch)) || ch == '_');
      if (!word) return {};
      if (name == "General_Category" || name == "gc") return general_category(value);
      if (name == "Script" || name == "sc") return "sc:" + std::string(value);
      if (name == "Script_Extensions" || name == "scx") return "scx:" + std::string(value);
      return {};
    }
    if (std::string gc = general_category(body); !gc.empty()) return gc;
    for (const auto& bp : kBinaryProperties) {
      if (body == bp[0] || (*bp[1] && body == bp[1])) return bp[0];
    }
    return {};
  }

  // After `[`. ECMA classes become PCRE2 classes with every member spelled unambiguously;
  // the few shapes PCRE2 classes cannot express (empty classes, \S among other members) become groups.
  void char_class(size_t start) {
    bool negated = peek() == '^';
    if (negated) ++pos_;
    std::string body;
    bool has_non_space = false;
    for (;;) {
      if (at_end()) fail("missing ]", start);
      if (peek() == ']') {
        ++pos_;
        break;
      }
      size_t atom_start = pos_;
      std::string escape;
      uint32_t lo = class_atom(escape, has_non_space, start);
      if (peek() == '-' && peek(1) != ']' && pos_ + 1 < src_.size()) {
        ++pos_;
        size_t hi_start = pos_;
        std::string hi_escape;
        bool hi_non_space = false;
        uint32_t hi = class_atom(hi_escape, hi_non_space, start);
        if (!escape.empty() || !hi_escape.empty() || lo == kClassEscape || hi == kClassEscape) {
          fail("character class escape in a range", atom_start);
        }
        if (lo > hi) fail("range out of order in character class", hi_start);
        if (is_surrogate(lo) || is_surrogate(hi)) fail("lone surrogate in a range", atom_start);
        append_literal(body, lo);
        body += '-';
        append_literal(body, hi);
        continue;
      }
      if (!escape.empty()) {
        body += escape;
      } else if (lo != kClassEscape && !is_surrogate(lo)) {
        append_literal(body, lo);
      }
    }
    const std::string spaces = std::string("[") + kSpaceSet + "]";
    const std::string non_spaces = std::string("[^") + kSpaceSet + "]";
    if (has_non_space) {
      if (body.empty()) {
        out_ += negated ? spaces : non_spaces;
      } else if (!negated) {
        out_ += "(?:[" + body + "]|" + non_spaces + ")";
      } else {
        out_ += "(?:(?![" + body + "])" + spaces + ")";
      }
    } else if (body.empty()) {
      out_ += negated ? "(?s:.)" : "(?!)";
    } else {
      out_ += negated ? "[^" : "[";
      out_ += body;
      out_ += ']';
    }
  }

  // One class member: returns its code point, or kClassEscape with `escape` set to the PCRE2 class
  // text of a class escape (\d, \s, \p{…}); \S only sets `non_space`.
  uint32_t class_atom(std::string& escape, bool& non_space, size_t class_start) {
    if (peek() != '\\') return next_code_point();
    size_t start = pos_;
    ++pos_;
    if (at_end()) fail("missing ]", class_start);
    char c = peek();
    switch (c) {
      case 'b': ++pos_; return 0x08;
      case 'd':
      case 'D':
      case 'w':
      case 'W':
        ++pos_;
        escape = std::string("\\") + c;
        return kClassEscape;
      case 's':
        ++pos_;
        escape = kSpaceSet;
        return kClassEscape;
      case 'S':
        ++pos_;
        non_space = true;
        return kClassEscape;
      case 'p':
      case 'P': {
        ++pos_;
        escape = property(c == 'P', start);
        return kClassEscape;
      }
      default: break;
    }
    if (is_digit(c) && c != '0') fail("backreference inside a character class", start);
    return character_escape(true, start);
  }

  std::string_view src_;
  size_t pos_ = 0;
  std::string out_;
  std::vector<Group> groups_;
  bool quantifiable_ = false;
  size_t captures_ = 0;
  std::vector<std::string> names_;
  std::vector<std::pair<std::string, size_t>> name_refs_;  // with their offsets
  std::vector<std::pair<size_t, size_t>> number_refs_;
};

// Per-thread match state: match data, and a match context carrying the limits and a JIT stack
// large enough for long subjects. One per thread serves every Regex, so search() allocates nothing.
struct ThreadMatchState {
  pcre2_match_data* data = pcre2_match_data_create(1, nullptr);
  pcre2_match_context* context = pcre2_match_context_create(nullptr);
  pcre2_jit_stack* jit_stack = pcre2_jit_stack_create(32 * 1024, kJitStackMax, nullptr);

  ThreadMatchState() {
    if (!data || !context) throw std::bad_alloc();
    pcre2_set_match_limit(context, kMatchLimit);
    pcre2_set_depth_limit(context, kDepthLimit);
    if (jit_stack) pcre2_jit_stack_assign(context, nullptr, jit_stack);
  }
  ~ThreadMatchState() {
    pcre2_jit_stack_free(jit_stack);
    pcre2_match_context_free(context);
    pcre2_match_data_free(data);
  }
  ThreadMatchState(const ThreadMatchState&) = delete;
  ThreadMatchState& operator=(const ThreadMatchState&) = delete;
};

std::string pcre2_message(int code) {
  PCRE2_UCHAR buffer[256];
  if (pcre2_get_error_message(code, buffer, sizeof buffer) < 0) return "error " + std::to_string(code);
  return reinterpret_cast<const char*>(buffer);
}

constexpr uint32_t kCompileOptions =
    PCRE2_UTF | PCRE2_NO_UTF_CHECK | PCRE2_DOLLAR_ENDONLY | PCRE2_MATCH_UNSET_BACKREF | PCRE2_NEVER_BACKSLASH_C;

// Valid ECMA-262 that PCRE2 cannot run: variable-length lookbehind, huge repeat counts.
bool is_engine_limitation(int code) {
  return code == PCRE2_ERROR_LOOKBEHIND_NOT_FIXED_LENGTH || code == PCRE2_ERROR_LOOKBEHIND_TOO_LONG ||
         code == PCRE2_ERROR_LOOKBEHIND_TOO_COMPLICATED || code == PCRE2_ERROR_QUANTIFIER_TOO_BIG;
}

// Translates and compiles; nullptr with `error` set when PCRE2 rejects the translation.
// Throws RegexError for what is not ECMA-262.
pcre2_code* compile(std::string_view pattern, int& error) {
  std::string translated = Translator(pattern).run();
  PCRE2_SIZE offset = 0;
  return pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(), kCompileOptions, &error,
                       &offset, nullptr);
}

}  // namespace

struct Regex::Impl {
  // Patterns that are plain text, optionally anchored, skip PCRE2: a memcmp beats a JIT call.
  enum class Kind { Pcre2, Contains, Prefix, Suffix, Exact };
  Kind kind = Kind::Pcre2;
  std::string literal;
  pcre2_code* code = nullptr;
  bool jit = false;
  ~Impl() { pcre2_code_free(code); }
};

namespace {

// Sets impl.kind and impl.literal when `pattern` is [^]literal[$] with no other syntax characters.
bool classify_literal(std::string_view pattern, Regex::Impl& impl) {
  bool prefix = !pattern.empty() && pattern.front() == '^';
  if (prefix) pattern.remove_prefix(1);
  bool suffix = !pattern.empty() && pattern.back() == '$';
  if (suffix) pattern.remove_suffix(1);
  for (char c : pattern) {
    if (c != '/' && is_syntax_char(static_cast<unsigned char>(c))) return false;
  }
  using Kind = Regex::Impl::Kind;
  impl.kind = prefix ? (suffix ? Kind::Exact : Kind::Prefix) : (suffix ? Kind::Suffix : Kind::Contains);
  impl.literal = pattern;
  return true;
}

}  // namespace

Regex::Regex(std::string_view pattern) : pattern_(pattern) {
  auto impl = std::make_shared<Impl>();
  // Literals still go through the translator, which rejects malformed UTF-8.
  int error = 0;
  impl->code = compile(pattern, error);
  if (!impl->code) {
    throw RegexError(
        (is_engine_limitation(error) ? "unsupported regular expression: " : "invalid regular expression: ") +
        pcre2_message(error));
  }
  if (classify_literal(pattern, *impl)) {
    pcre2_code_free(impl->code);
    impl->code = nullptr;
  } else {
    // Without JIT support (or when it fails for this pattern) the interpreter is used.
    impl->jit = pcre2_jit_compile(impl->code, PCRE2_JIT_COMPLETE) == 0;
  }
  impl_ = std::move(impl);
}

bool Regex::search(std::string_view subject) const {
  const Impl& impl = *impl_;
  switch (impl.kind) {
    case Impl::Kind::Contains: return subject.find(impl.literal) != std::string_view::npos;
    case Impl::Kind::Prefix: return subject.starts_with(impl.literal);
    case Impl::Kind::Suffix: return subject.ends_with(impl.literal);
    case Impl::Kind::Exact: return subject == impl.literal;
    case Impl::Kind::Pcre2: break;
  }
  thread_local ThreadMatchState state;  // per thread: match data and JIT stack are never shared
  auto* s = reinterpret_cast<PCRE2_SPTR>(subject.data() ? subject.data() : "");
  int rc = impl.jit ? pcre2_jit_match(impl.code, s, subject.size(), 0, 0, state.data, state.context)
                    : pcre2_match(impl.code, s, subject.size(), 0, PCRE2_NO_UTF_CHECK, state.data, state.context);
  if (rc >= 0) return true;  // 0: matched, ovector too small for the groups (we want none)
  if (rc == PCRE2_ERROR_NOMATCH) return false;
  if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT ||
      rc == PCRE2_ERROR_JIT_STACKLIMIT) {
    throw RegexLimitError("regular expression /" + pattern_ + "/ exceeded its backtracking limit (" +
                          pcre2_message(rc) + ")");
  }
  throw std::runtime_error("regular expression /" + pattern_ + "/ failed: " + pcre2_message(rc));
}

bool Regex::is_valid(std::string_view pattern) noexcept {
  try {
    int error = 0;
    pcre2_code* code = compile(pattern, error);
    pcre2_code_free(code);
    return code || is_engine_limitation(error);
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace mcp_native
