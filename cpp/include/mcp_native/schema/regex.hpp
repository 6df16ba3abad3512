// ECMA-262 regular expressions (as JSON Schema `pattern`, `patternProperties` and format "regex"
// require them), compiled once with PCRE2 and matched with its JIT where available.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mcp_native {

/// The pattern is not a valid ECMA-262 regular expression (message names the problem and offset).
struct RegexError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// A match exceeded the match/depth limits (catastrophic backtracking); never a hang.
struct RegexLimitError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A compiled ECMA-262 pattern (Unicode-aware: it matches code points of UTF-8 subjects).
/// Immutable; search() is safe from many threads at once. Cheap to copy (shares the compiled code).
class Regex {
 public:
  /// Compiles `pattern` (UTF-8 ECMA-262 source, no delimiters or flags, Unicode mode); throws
  /// RegexError, also for the valid ECMA-262 that PCRE2 cannot run (variable-length lookbehind,
  /// repeat counts above 65535, group names beyond [A-Za-z_][A-Za-z0-9_]*).
  explicit Regex(std::string_view pattern);

  /// True when the pattern matches somewhere in `utf8_subject` (unanchored, like JSON Schema
  /// `pattern`). The subject must be valid UTF-8 (not re-checked). Throws RegexLimitError when
  /// the match or depth limit is hit.
  bool search(std::string_view utf8_subject) const;

  /// The ECMA-262 source this was compiled from.
  const std::string& pattern() const noexcept { return pattern_; }

  /// True when `pattern` is valid ECMA-262 (format "regex"), including the patterns the
  /// constructor rejects only because PCRE2 cannot run them (lookbehind, repeat counts); never throws.
  static bool is_valid(std::string_view pattern) noexcept;

  struct Impl;  // defined in regex.cpp

 private:
  std::string pattern_;
  std::shared_ptr<const Impl> impl_;
};

}  // namespace mcp_native
