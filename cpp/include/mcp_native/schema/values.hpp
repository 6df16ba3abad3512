// JSON equality and hashing across instance views (enum, const, uniqueItems).
#pragma once

#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "mcp_native/schema/schema.hpp"

namespace mcp_native::schema {

/// JSON equality across two views: 1 == 1.0, true != 1, objects compare unordered.
template <class A, class B>
bool json_equal(const typename A::Env& ea, typename A::Value a, const typename B::Env& eb, typename B::Value b,
                uint32_t depth, uint32_t max_depth) {
  if (depth > max_depth)
    throw LimitError("instance nesting depth exceeds max_instance_depth=" + std::to_string(max_depth));
  Kind ka = A::kind(ea, a), kb = B::kind(eb, b);
  if (ka != kb) return false;
  switch (ka) {
    case Kind::Null: return true;
    case Kind::Bool: return A::boolean(a) == B::boolean(b);
    case Kind::Number: return compare(A::num(ea, a), B::num(eb, b)) == 0;
    case Kind::String: return A::str(ea, a) == B::str(eb, b);
    case Kind::Array: {
      if (A::arr_size(a) != B::arr_size(b)) return false;
      std::vector<typename B::Value> items;
      B::arr_each(eb, b, [&](size_t, typename B::Value x) {
        items.push_back(x);
        return true;
      });
      return A::arr_each(ea, a, [&](size_t i, typename A::Value x) {
        return json_equal<A, B>(ea, x, eb, items[i], depth + 1, max_depth);
      });
    }
    case Kind::Object: {
      if (A::obj_size(a) != B::obj_size(b)) return false;
      std::vector<std::pair<std::string_view, typename B::Value>> members;
      B::obj_each(eb, b, [&](std::string_view k, typename B::Value x) {
        members.emplace_back(k, x);
        return true;
      });
      return A::obj_each(ea, a, [&](std::string_view k, typename A::Value x) {
        for (auto& [mk, mv] : members)
          if (mk == k) return json_equal<A, B>(ea, x, eb, mv, depth + 1, max_depth);
        return false;
      });
    }
  }
  return false;
}

/// A hash consistent with json_equal: equal values hash alike (numbers by their nearest double,
/// so 1 and 1.0 agree; object members order-independently).
template <class V>
uint64_t json_hash(const typename V::Env& e, typename V::Value v, uint32_t depth, uint32_t max_depth) {
  if (depth > max_depth)
    throw LimitError("instance nesting depth exceeds max_instance_depth=" + std::to_string(max_depth));
  auto mix = [](uint64_t h) {  // a 64-bit finalizer: spreads the bits of std::hash's results
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
  };
  switch (V::kind(e, v)) {
    case Kind::Null: return 1;
    case Kind::Bool: return V::boolean(v) ? 2 : 3;
    case Kind::Number: {
      double d = V::num(e, v).approx() + 0.0;  // -0.0 == 0.0
      uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      return mix(bits ^ 4);
    }
    case Kind::String: return mix(std::hash<std::string_view>{}(V::str(e, v)) ^ 5);
    case Kind::Array: {
      uint64_t h = 6;
      V::arr_each(e, v, [&](size_t, typename V::Value x) {
        h = mix(h * 31 + json_hash<V>(e, x, depth + 1, max_depth));
        return true;
      });
      return h;
    }
    case Kind::Object: {
      uint64_t h = 7;
      V::obj_each(e, v, [&](std::string_view k, typename V::Value x) {
        h += mix(std::hash<std::string_view>{}(k) ^ json_hash<V>(e, x, depth + 1, max_depth) * 0x9e3779b97f4a7c15ULL);
        return true;
      });
      return h;
    }
  }
  return 0;
}

/// Enums longer than this are looked up by json_hash; shorter ones are compared in turn.
inline constexpr size_t kLinearEnum = 8;

}  // namespace mcp_native::schema
