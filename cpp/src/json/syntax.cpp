#include "mcp_native/json/syntax.hpp"

#include <cstdint>
#include <vector>

#include "mcp_native/util/utf8.hpp"

namespace mcp_native {
namespace {

class Checker {
 public:
  Checker(std::string_view doc, int max_depth)
      : s_(reinterpret_cast<const unsigned char*>(doc.data())), n_(doc.size()), max_depth_(max_depth) {}

  JsonSyntaxError run() {
    skip_ws();
    if (!value()) return err_;
    skip_ws();
    if (i_ != n_) fail(i_, "Extra data");
    return err_;
  }

 private:
  bool fail(std::size_t at, const char* msg) {
    err_ = {true, at, msg};
    return false;
  }
  void skip_ws() {
    while (i_ < n_ && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  bool at(char c) const { return i_ < n_ && s_[i_] == static_cast<unsigned char>(c); }
  bool literal(std::string_view word) {
    if (n_ - i_ < word.size() || std::string_view(reinterpret_cast<const char*>(s_ + i_), word.size()) != word)
      return false;
    i_ += word.size();
    return true;
  }

  // Iterative so that hostile nesting cannot overflow the stack; `stack` holds '[' or '{'.
  bool value() {
    std::vector<char> stack;
    while (true) {
      // Parse one value; containers push and continue with their first element.
      if (i_ >= n_) return fail(i_, "Expecting value");
      const unsigned char c = s_[i_];
      // The top-level value is at level 1; what a container holds is one level deeper.
      if (static_cast<int>(stack.size()) >= max_depth_) return fail(i_, "Maximum nesting depth exceeded");
      if (c == '[' || c == '{') {
        stack.push_back(static_cast<char>(c));
        ++i_;
        skip_ws();
        if (at(c == '[' ? ']' : '}')) {
          ++i_;
          stack.pop_back();
          goto closed;
        }
        if (c == '[') continue;
        if (!key()) return false;
        continue;
      }
      if (c == '"') {
        if (!string()) return false;
      } else if (c == '-' || (c >= '0' && c <= '9')) {
        if (!number()) return false;
      } else if (literal("true") || literal("false") || literal("null")) {
      } else if (literal("NaN") || literal("Infinity")) {
        return fail(i_ - (c == 'N' ? 3 : 8), "NaN and Infinity are not valid JSON");
      } else {
        return fail(i_, "Expecting value");
      }
    closed:
      // After a value: close containers or move to the next element.
      while (true) {
        if (stack.empty()) return true;
        skip_ws();
        if (at(',')) {
          ++i_;
          skip_ws();
          if (stack.back() == '{' && !key()) return false;
          break;
        }
        if (at(stack.back() == '[' ? ']' : '}')) {
          ++i_;
          stack.pop_back();
          continue;
        }
        return fail(i_, "Expecting ',' delimiter");
      }
    }
  }

  // A property name and its colon, leaving i_ at the value.
  bool key() {
    if (!at('"')) return fail(i_, "Expecting property name enclosed in double quotes");
    if (!string()) return false;
    skip_ws();
    if (!at(':')) return fail(i_, "Expecting ':' delimiter");
    ++i_;
    skip_ws();
    return true;
  }

  static bool hex(unsigned char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  bool string() {
    const std::size_t start = i_++;
    while (true) {
      if (i_ >= n_) return fail(start, "Unterminated string starting at");
      const unsigned char c = s_[i_];
      if (c == '"') {
        ++i_;
        return true;
      }
      if (c < 0x20) return fail(i_, "Invalid control character at");
      if (c == '\\') {
        if (i_ + 1 >= n_) return fail(start, "Unterminated string starting at");
        const unsigned char e = s_[i_ + 1];
        if (e == 'u') {
          for (std::size_t k = 2; k < 6; ++k)
            if (i_ + k >= n_ || !hex(s_[i_ + k])) return fail(i_, "Invalid \\uXXXX escape");
          i_ += 6;
        } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
          i_ += 2;
        } else {
          return fail(i_, "Invalid \\escape");
        }
        continue;
      }
      if (c < 0x80) {
        ++i_;
        continue;
      }
      std::size_t next = i_;  // RFC 3629: no overlongs, no surrogates
      if (utf8::decode({reinterpret_cast<const char*>(s_), n_}, next) == utf8::kInvalid)
        return fail(i_, "Invalid UTF-8 byte");
      i_ = next;
    }
  }

  bool digits() {
    const std::size_t start = i_;
    while (i_ < n_ && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    return i_ > start;
  }

  bool number() {
    const std::size_t start = i_;
    if (at('-')) {
      ++i_;
      if (literal("Infinity")) return fail(start, "NaN and Infinity are not valid JSON");
    }
    if (at('0')) {
      ++i_;
    } else if (!digits()) {
      return fail(start, "Expecting value");
    }
    if (at('.')) {
      ++i_;
      if (!digits()) return fail(start, "Invalid number");
    }
    if (at('e') || at('E')) {
      ++i_;
      if (at('+') || at('-')) ++i_;
      if (!digits()) return fail(start, "Invalid number");
    }
    return true;
  }

  const unsigned char* s_;
  std::size_t n_;
  int max_depth_;
  std::size_t i_ = 0;
  JsonSyntaxError err_;
};

}  // namespace

JsonSyntaxError find_json_error(std::string_view doc, int max_depth) noexcept {
  try {
    return Checker(doc, max_depth).run();
  } catch (...) {  // std::bad_alloc from the nesting stack
    return {true, 0, "Out of memory"};
  }
}

}  // namespace mcp_native
