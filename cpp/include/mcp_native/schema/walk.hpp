// Validating a value while it is written: one walk over the instance that drives a writer.
#pragma once

#include <cstdint>

#include "mcp_native/schema/evaluator.hpp"

namespace mcp_native::schema {

/// The verdicts of a bare type or a bounded leaf (Shape::kTypes, Shape::kBounded) on a scalar
/// whose type a writer has already dispatched on: it checks the value with what it read to
/// write it, one type test instead of one to check and one to write.
struct ScalarVerdict {
  static uint8_t types(const Node& c) { return c.only_types | c.types; }  // 0: a bounded leaf of any type
  /// A string of `length` code points.
  static bool string(const Node& c, uint64_t length) {
    const uint8_t t = types(c);
    return (t == 0 || (t & kString)) &&
           !(c.shape == Shape::kBounded && (length < c.min_length || length > c.max_length));
  }
  /// An integer.
  static bool integer(const Node& c, int64_t i) {
    const uint8_t t = types(c);
    return (t == 0 || (t & (kNumber | kInteger))) && !(c.shape == Shape::kBounded && (i < c.int_min || i > c.int_max));
  }
  /// Null or a boolean (`bit`: kNull or kBool).
  static bool constant(const Node& c, uint8_t bit) {
    const uint8_t t = types(c);
    return t == 0 || (t & bit);
  }
};

/// Walks a value of view V under a compiled program while a Sink writes it. Walkable nodes
/// (Node::walkable) are applied member by member and item by item as the sink writes them;
/// bare types and bounded leaves are checked by the sink's own dispatch on each scalar
/// (ScalarVerdict); every other subschema settles its whole value with Evaluator::test before
/// the sink writes it. run() is false as soon as the value fails, or cannot be checked or
/// written: the caller then discards the text and checks the value the usual way, which
/// reports the errors. Steps and levels are counted at least as the evaluator counts them (a
/// step per walked subschema, a level per container), so the walk stops short of any limit
/// is_valid would reach.
///
/// A Sink writes values of V (`comma`: write ',' first; false stops the walk):
///   bool write(Value v)                          v as it is
///   bool write_null()
///   bool item(Value v, bool comma)               v as an array item
///   bool item_comma()                            the comma before an item written by value()
///   bool member(Value v)                         v as a member's value (after key())
///   bool enterable(Value v)                      v is an object or array the walk may enter
///                                                (else its subschema settles it whole)
///   bool is_array(Value v)                       v is an array typed_array() may write
///   template <F> bool scalar(Value v, const Node& c, bool comma, F&& other)
///       v under a bare type or bounded leaf: checks and writes a scalar it dispatches on
///       (ScalarVerdict), else returns other()
///   template <F> bool object(Value v, F&& member)   '{', member(key, value, first) each, '}'
///   template <F> bool array(Value v, F&& each)       '[', each(index, item) each, ']'
///   template <F> bool typed_item(Value v, uint8_t types, bool comma, F&& other)
///       an item of a typed array: checks (has one of `types`) and writes an item it
///       dispatches on, else returns other()
///   bool key(Key k, bool first)                  a member's key
///   std::string_view key_text(Key k)             its text (false from key_ok() if it has none)
///   bool key_ok(Key k)
///   bool key_is(Key k, uint32_t key_id)          cheap proof that k is program key key_id
///   template <F> bool held(Value v, F&& write)   runs write() while v is kept alive
template <class V, class Sink>
class GuidedWalk {
 public:
  using Value = typename V::Value;

  GuidedWalk(const Program& p, const typename V::Env& env, Sink& sink)
      : P(p), env_(env), sink_(sink), ev_(p, env, counters_) {}

  bool run(Value v) {
    ++counters_.steps;  // the evaluator's step for the root, whatever the root is
    return value(v, P.root);
  }

 private:
  bool value(Value v, uint32_t at) {
    const int64_t settled = ev_.settle(at, v);
    if (settled < 0) return settled == -1 && sink_.write_null();
    const auto si = static_cast<uint32_t>(settled);
    const Node& n = P.nodes[si];
    if (n.only_types) return ev_.is_type(n.only_types, false, V::kind(env_, v), v) && sink_.write(v);
    if (n.shape == Shape::kTypedArray && sink_.is_array(v)) return typed_array(v, n);
    if (n.boolean >= 0) return n.boolean && sink_.write(v);
    if (!n.walkable || is_leaf(n.shape)) return ev_.test(si, v) && sink_.write(v);
    if (++counters_.steps > P.limits.max_steps) return false;
    const Kind k = V::kind(env_, v);
    if (!ev_.check_self(n, k, v)) return false;
    if (!sink_.enterable(v)) return ev_.test(si, v) && sink_.write(v);  // (as is_valid sees it)
    if (counters_.depth >= P.limits.max_instance_depth) return false;
    ++counters_.depth;
    const bool ok = k == Kind::Object ? object(v, n) : array(v, n);
    --counters_.depth;
    return ok;
  }

  // A member or item under subschema si; `plain` writes it without a schema (and the comma
  // before an item, if `comma`). Bare types and leaves are settled here, saving a call per
  // value; the rest is held while it is walked.
  template <class Plain>
  [[gnu::always_inline]] bool child(Value v, uint32_t si, bool comma, Plain&& plain) {
    const Node& c = P.nodes[si];
    if (c.shape == Shape::kTypes || c.shape == Shape::kBounded)
      return sink_.scalar(v, c, comma, [&] { return ev_.test(si, v) && plain(); });
    if (c.shape == Shape::kLeaf) return ev_.test(si, v) && plain();
    if (comma && !sink_.item_comma()) return false;
    return sink_.held(
        v, [&] { return c.shape == Shape::kTypedArray && sink_.is_array(v) ? typed_array(v, c) : value(v, si); });
  }

  // Shape::kTypedArray, e.g. a row of a table: each item's type is checked as it
  // is written.
  bool typed_array(Value v, const Node& n) {
    if (n.types && !ev_.is_type(n.types, false, Kind::Array, v)) return false;
    const uint64_t size = V::arr_size(v);
    if (size < n.min_items || size > n.max_items) return false;
    return sink_.array(v, [&](size_t i, Value x) {
      const bool comma = i != 0;
      return sink_.typed_item(x, n.item_types, comma, [&] {
        return ev_.is_type(n.item_types, false, V::kind(env_, x), x) && sink_.item(x, comma);
      });
    });
  }

  bool object(Value v, const Node& n) {
    const PropertyTable* props = n.props >= 0 ? &P.keywords[static_cast<size_t>(n.props)].as<PropertyTable>() : nullptr;
    size_t next = 0;
    uint64_t required_seen = 0;
    const bool ok = sink_.object(v, [&](auto k, Value x, bool first) {
      if (!sink_.key_ok(k)) return false;
      int64_t kid = -1;
      if (props != nullptr) {
        if (next < props->props.size() && sink_.key_is(k, props->props[next].first))
          kid = ev_.next_member_schema(*props, next, required_seen);
        else
          kid = ev_.member_schema(*props, sink_.key_text(k), next, required_seen);
      }
      if (kid == -2 || !sink_.key(k, first)) return false;
      return kid < 0 ? sink_.member(x) : child(x, static_cast<uint32_t>(kid), false, [&] { return sink_.member(x); });
    });
    return ok && (props == nullptr || ev_.required_present(*props, v, required_seen));
  }

  bool array(Value v, const Node& n) {
    const Keyword *prefix = nullptr, *rest = nullptr;
    for (const Keyword *kw = &P.keywords[n.first], *end = kw + n.count; kw != end; ++kw) {
      if (kw->op == Op::PrefixItems) prefix = kw;
      if (kw->op == Op::RestItems) rest = kw;
    }
    return sink_.array(v, [&](size_t i, Value x) {
      int64_t kid = -1;
      if (prefix != nullptr && i < prefix->kids.size())
        kid = prefix->kids[i];
      else if (rest != nullptr && i >= rest->as<ItemsFrom>().start)
        kid = rest->kids[0];
      const bool comma = i != 0;
      return kid < 0 ? sink_.item(x, comma)
                     : child(x, static_cast<uint32_t>(kid), comma, [&] { return sink_.item(x, comma); });
    });
  }

  const Program& P;
  const typename V::Env& env_;
  Sink& sink_;
  Counters counters_;
  Evaluator<V, false> ev_;
};

}  // namespace mcp_native::schema
