// The simdjson DOM instance view: validates parsed JSON text without building any other objects.
#pragma once

#include <simdjson.h>

#include "mcp_native/schema_eval.hpp"

namespace mcp_native::schema {

/// Instance view over simdjson DOM elements (see schema_eval.hpp for the concept).
struct DomView {
  using Value = simdjson::dom::element;
  struct Env {};
  static constexpr bool kFastLookup = false;
  static constexpr bool kUtf8Strings = true;

  static Kind kind(const Env&, Value v) {
    switch (v.type()) {
      case simdjson::dom::element_type::ARRAY: return Kind::Array;
      case simdjson::dom::element_type::OBJECT: return Kind::Object;
      case simdjson::dom::element_type::STRING: return Kind::String;
      case simdjson::dom::element_type::BOOL: return Kind::Bool;
      case simdjson::dom::element_type::NULL_VALUE: return Kind::Null;
      default: return Kind::Number;
    }
  }
  static bool boolean(Value v) { return v.get_bool().value_unsafe(); }
  static Num num(const Env&, Value v) {
    Num n;
    switch (v.type()) {
      case simdjson::dom::element_type::INT64: n.k = Num::I; n.i = v.get_int64().value_unsafe(); break;
      case simdjson::dom::element_type::UINT64: n.k = Num::U; n.u = v.get_uint64().value_unsafe(); break;
      default: n.k = Num::F; n.d = v.get_double().value_unsafe(); break;
    }
    return n;
  }
  static std::string_view str(const Env&, Value v) { return v.get_string().value_unsafe(); }
  static size_t str_len(Value v) { return utf8_length(v.get_string().value_unsafe()); }
  static size_t arr_size(Value v) {
    simdjson::dom::array a = v.get_array().value_unsafe();
    return a.size();
  }
  static size_t obj_size(Value v) {
    simdjson::dom::object o = v.get_object().value_unsafe();
    return o.size();
  }
  template <class F> static bool arr_each(const Env&, Value v, F&& f) {
    size_t i = 0;
    simdjson::dom::array a = v.get_array().value_unsafe();
    for (Value x : a)
      if (!f(i++, x)) return false;
    return true;
  }
  template <class F> static bool obj_each(const Env&, Value v, F&& f) {
    simdjson::dom::object o = v.get_object().value_unsafe();
    for (auto m : o)
      if (!f(m.key, m.value)) return false;
    return true;
  }
  static bool find(const Env&, Value v, const Program& p, uint32_t key, Value& out) {
    simdjson::dom::object o = v.get_object().value_unsafe();
    auto r = o.at_key(p.keys[key]);
    if (r.error()) return false;
    out = r.value_unsafe();
    return true;
  }
};

}  // namespace mcp_native::schema
