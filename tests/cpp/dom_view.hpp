// The reference the tape view is checked against: documents read through simdjson's public
// DOM API, as an instance view and as compact JSON text.
#pragma once

#include <simdjson.h>

#include "mcp_native/json/writer.hpp"
#include "mcp_native/schema/views.hpp"
#include "mcp_native/util/utf8.hpp"

namespace mcp_native::schema {

/// Instance view over simdjson DOM elements (see views.hpp for the concept).
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
      case simdjson::dom::element_type::INT64:
        n.kind = Num::Int;
        n.int64 = v.get_int64().value_unsafe();
        break;
      case simdjson::dom::element_type::UINT64:
        n.kind = Num::UInt;
        n.uint64 = v.get_uint64().value_unsafe();
        break;
      default:
        n.kind = Num::Float;
        n.number = v.get_double().value_unsafe();
        break;
    }
    return n;
  }
  static std::string_view str(const Env&, Value v) { return v.get_string().value_unsafe(); }
  static size_t str_len(Value v) { return utf8::length(v.get_string().value_unsafe()); }
  static size_t arr_size(Value v) {
    simdjson::dom::array a = v.get_array().value_unsafe();
    return a.size();
  }
  static size_t obj_size(Value v) {
    simdjson::dom::object o = v.get_object().value_unsafe();
    return o.size();
  }
  template <class F>
  static bool arr_each(const Env&, Value v, F&& f) {
    size_t i = 0;
    simdjson::dom::array a = v.get_array().value_unsafe();
    for (Value x : a)
      if (!f(i++, x)) return false;
    return true;
  }
  template <class F>
  static bool obj_each(const Env&, Value v, F&& f) {
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

inline void write_dom(mcp_native::JsonWriter& w, simdjson::dom::element e) {
  using simdjson::dom::element_type;
  switch (e.type()) {
    case element_type::ARRAY: {
      w.put('[');
      bool first = true;
      const simdjson::dom::array items = e.get_array().value_unsafe();
      for (simdjson::dom::element x : items) {
        if (!first) w.put(',');
        first = false;
        write_dom(w, x);
      }
      w.put(']');
      break;
    }
    case element_type::OBJECT: {
      w.put('{');
      bool first = true;
      const simdjson::dom::object members = e.get_object().value_unsafe();
      for (simdjson::dom::key_value_pair kv : members) {
        if (!first) w.put(',');
        first = false;
        w.write_string(kv.key);
        w.put(':');
        write_dom(w, kv.value);
      }
      w.put('}');
      break;
    }
    case element_type::STRING: w.write_string(e.get_string().value_unsafe()); break;
    case element_type::INT64: w.write_int(e.get_int64().value_unsafe()); break;
    case element_type::UINT64: w.write_uint(e.get_uint64().value_unsafe()); break;
    case element_type::DOUBLE: w.write_double(e.get_double().value_unsafe()); break;
    case element_type::BOOL: w.write_bool(e.get_bool().value_unsafe()); break;
    case element_type::NULL_VALUE: w.write_null(); break;
  }
}

}  // namespace mcp_native::schema
