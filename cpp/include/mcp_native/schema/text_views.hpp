// The instance view over JSON text parsed by simdjson (see views.hpp for the concept): validate
// it without building any other objects.
#pragma once

#include <simdjson.h>

#include <cstring>

#include "mcp_native/json/tape.hpp"
#include "mcp_native/schema/evaluator.hpp"

namespace mcp_native::schema {

/// Instance view over the tape of a document that a simdjson 3 `dom::parser` parsed (public
/// `parser.doc`), read directly: one 64-bit word per value with its type character in the top
/// byte, where dom::element re-checks the type on every access. Used for verdicts.
struct TapeView {
  using Value = tape::Value;
  struct Env {};
  static constexpr bool kFastLookup = false;
  static constexpr bool kUtf8Strings = true;

  static char type(Value v) { return tape::type(*v.w); }
  [[gnu::always_inline]] static const uint64_t* next(const simdjson::dom::document* d, const uint64_t* w) {
    return tape::next(d->tape.get(), w);
  }
  static Kind kind(const Env&, Value v) {
    switch (type(v)) {
      case '"': return Kind::String;
      case '{': return Kind::Object;
      case '[': return Kind::Array;
      case 't':
      case 'f': return Kind::Bool;
      case 'n': return Kind::Null;
      default: return Kind::Number;
    }
  }
  static bool boolean(Value v) { return type(v) == 't'; }
  static Num num(const Env&, Value v) {
    Num n;
    switch (type(v)) {
      case 'l':
        n.kind = Num::Int;
        std::memcpy(&n.int64, v.w + 1, 8);
        break;
      case 'u':
        n.kind = Num::UInt;
        std::memcpy(&n.uint64, v.w + 1, 8);
        break;
      default:
        n.kind = Num::Float;
        std::memcpy(&n.number, v.w + 1, 8);
        break;
    }
    return n;
  }
  static bool small_int(Value v, int64_t& out) {
    if (type(v) != 'l') return false;
    std::memcpy(&out, v.w + 1, 8);
    return true;
  }
  static std::string_view str(const Env&, Value v) { return tape::string(v.doc->string_buf.get(), *v.w); }
  static size_t str_len(Value v) { return utf8::length(str({}, v)); }
  static size_t arr_size(Value v) { return tape::count(v.doc->tape.get(), v.w); }
  static size_t obj_size(Value v) { return tape::count(v.doc->tape.get(), v.w); }
  template <class F>
  static bool arr_each(const Env&, Value v, F&& f) {
    const uint64_t* end = v.doc->tape.get() + uint32_t(*v.w) - 1;
    size_t i = 0;
    for (const uint64_t* p = v.w + 1; p != end; p = next(v.doc, p))
      if (!f(i++, Value{v.doc, p})) return false;
    return true;
  }
  template <class F>
  static bool obj_each(const Env& e, Value v, F&& f) {
    const uint64_t* end = v.doc->tape.get() + uint32_t(*v.w) - 1;
    for (const uint64_t* p = v.w + 1; p != end;) {
      const uint64_t* x = p + 1;  // the value, after its key's word
      if (!f(str(e, Value{v.doc, p}), Value{v.doc, x})) return false;
      p = next(v.doc, x);
    }
    return true;
  }
  static bool find(const Env& e, Value v, const Program& p, uint32_t key, Value& out) {
    std::string_view k = p.keys[key];
    bool found = false;
    obj_each(e, v, [&](std::string_view name, Value x) {
      if (!same_text(name, k)) return true;
      out = x;
      found = true;
      return false;
    });
    return found;
  }
};

}  // namespace mcp_native::schema
