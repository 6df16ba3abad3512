// Instance views: how the evaluator reads one representation of JSON values.
//
// A view V is a traits class describing one representation of JSON values:
//   using Value; struct Env;                       // a value handle; per-call context
//   static Kind kind(const Env&, Value);           // may throw InstanceError
//   static bool boolean(Value); static Num num(const Env&, Value);
//   static std::string_view str(const Env&, Value); static size_t str_len(Value);
//   static size_t arr_size(Value); static size_t obj_size(Value);
//   static bool arr_each(const Env&, Value, F)     // F(size_t index, Value) -> bool (continue)
//   static bool obj_each(const Env&, Value, F)     // F(std::string_view key, Value) -> bool
//   static bool find(const Env&, Value obj, const Program&, uint32_t key, Value& out);
//   static constexpr bool kFastLookup;             // find() beats iterating the members
//   static constexpr bool kUtf8Strings;            // str_len counts the code points of str()
//   static bool exact_int(Value);                  // optional: true for a written integer
//   static bool small_int(Value, int64_t&);        // optional: an integer's value, when cheap
// The views here read the engine's own values; text_views.hpp reads parsed JSON text and the
// bindings' PyView reads Python objects.
#pragma once

#include <string_view>

#include "mcp_native/schema/schema.hpp"
#include "mcp_native/util/utf8.hpp"

namespace mcp_native::schema {

/// A view over the engine's own Json values (schema constants, metaschema checks).
struct JsonView {
  using Value = const Json*;
  struct Env {};
  static constexpr bool kFastLookup = false;
  static constexpr bool kUtf8Strings = true;
  static Kind kind(const Env&, Value v) {
    switch (v->type) {
      case Json::Type::Null: return Kind::Null;
      case Json::Type::Bool: return Kind::Bool;
      case Json::Type::String: return Kind::String;
      case Json::Type::Array: return Kind::Array;
      case Json::Type::Object: return Kind::Object;
      default: return Kind::Number;
    }
  }
  static bool boolean(Value v) { return v->boolean; }
  static Num num(const Env&, Value v) { return num_of(*v); }
  static std::string_view str(const Env&, Value v) { return v->text; }
  static size_t str_len(Value v) { return utf8::length(v->text); }
  static size_t arr_size(Value v) { return v->arr.size(); }
  static size_t obj_size(Value v) { return v->obj.size(); }
  template <class F>
  static bool arr_each(const Env&, Value v, F&& f) {
    for (size_t i = 0; i < v->arr.size(); ++i)
      if (!f(i, &v->arr[i])) return false;
    return true;
  }
  template <class F>
  static bool obj_each(const Env&, Value v, F&& f) {
    for (auto& [k, x] : v->obj)
      if (!f(std::string_view(k), &x)) return false;
    return true;
  }
  static bool find(const Env&, Value v, const Program& p, uint32_t key, Value& out) {
    out = v->get(p.keys[key]);
    return out != nullptr;
  }
};

/// A view of a bare string (property names under `propertyNames`).
struct StrView {
  using Value = std::string_view;
  struct Env {};
  static constexpr bool kFastLookup = false;
  static constexpr bool kUtf8Strings = true;
  static Kind kind(const Env&, Value) { return Kind::String; }
  static bool boolean(Value) { return false; }
  static Num num(const Env&, Value) { return {}; }
  static std::string_view str(const Env&, Value v) { return v; }
  static size_t str_len(Value v) { return utf8::length(v); }
  static size_t arr_size(Value) { return 0; }
  static size_t obj_size(Value) { return 0; }
  template <class F>
  static bool arr_each(const Env&, Value, F&&) {
    return true;
  }
  template <class F>
  static bool obj_each(const Env&, Value, F&&) {
    return true;
  }
  static bool find(const Env&, Value, const Program&, uint32_t, Value&) { return false; }
};

}  // namespace mcp_native::schema
