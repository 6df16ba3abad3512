// Evaluation of a compiled program, written once over an instance view (views.hpp).
// The valid path (Collect = false) returns a bool, short-circuits and allocates nothing outside
// uniqueItems and annotation tracking. Collect = true records every error with its paths.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "mcp_native/schema/schema.hpp"
#include "mcp_native/schema/values.hpp"
#include "mcp_native/schema/views.hpp"

namespace mcp_native::schema {

/// Hard bound on nested subschema evaluations (a safety net beyond the compile-time `$ref`
/// cycle check and the instance depth limit).
inline constexpr uint32_t kMaxRecursion = 6000;

/// A path step that does not own its key: built on every descent, turned into a PathTok only
/// when errors are collected.
struct Seg {
  std::string_view key;
  int64_t index = -1;
  static Seg at(size_t i) { return {{}, (int64_t)i}; }
  static Seg of(std::string_view k) { return {k, -1}; }
  PathTok tok() const { return index >= 0 ? PathTok::at(index) : PathTok::of(key); }
};

/// Evaluated properties and items of one instance (for unevaluated*). Properties are marked by
/// member position (every annotation of one instance walks the same members in the same order):
/// a bit mask for the first 64, so that the common object allocates nothing.
struct Annot {
  bool all_props = false;
  bool all_items = false;
  uint64_t prefix = 0;
  uint64_t prop_bits = 0;            ///< members 0..63
  std::vector<uint32_t> more_props;  ///< members from 64 on
  std::vector<uint64_t> items;
  void mark_prop(size_t member) {
    if (member < 64)
      prop_bits |= uint64_t{1} << member;
    else
      more_props.push_back((uint32_t)member);
  }
  void merge(const Annot& o) {
    all_props |= o.all_props;
    all_items |= o.all_items;
    prefix = std::max(prefix, o.prefix);
    prop_bits |= o.prop_bits;
    if (!o.more_props.empty()) more_props.insert(more_props.end(), o.more_props.begin(), o.more_props.end());
    if (!o.items.empty()) items.insert(items.end(), o.items.begin(), o.items.end());
  }
  bool has_prop(size_t member) const {
    if (all_props) return true;
    if (member < 64) return prop_bits >> member & 1;
    return std::find(more_props.begin(), more_props.end(), member) != more_props.end();
  }
  bool has_item(uint64_t i) const {
    return all_items || i < prefix || std::find(items.begin(), items.end(), i) != items.end();
  }
};

/// Work counters shared by nested evaluations of one call.
struct Counters {
  uint64_t steps = 0;
  uint32_t depth = 0;      ///< instance nesting
  uint32_t recursion = 0;  ///< nested subschema evaluations
};

template <class V, class Sink>
class GuidedWalk;

/// An error found in Collect mode.
template <class Value>
struct EvalError {
  std::string keyword;          ///< failing keyword ("false" for a false schema)
  const Json* value = nullptr;  ///< the keyword's value in the schema
  std::vector<PathTok> instance_path, schema_path;
  Value instance{};
  bool instance_is_key = false;  ///< the instance is the property name `key`
  std::string key;
  std::vector<std::string> extra;  ///< message details (missing/unexpected names, indices)
};

/// Evaluates a Program on values of view V. One evaluator serves one call (it holds the call's
/// counters, dynamic scope and, with Collect, the errors); the Program is shared and read-only.
template <class V, bool Collect>
class Evaluator {
 public:
  using Value = typename V::Value;
  using Env = typename V::Env;

  Evaluator(const Program& p, const Env& env, Counters& c) : P(p), env_(env), c_(c) {}

  /// Evaluates the root schema.
  bool run(Value v) { return schema(P.root, v, nullptr); }
  /// Evaluates subschema `si`.
  bool run_at(uint32_t si, Value v) { return schema(si, v, nullptr); }

  std::vector<EvalError<Value>> errors;
  std::vector<PathTok> ipath, spath;  ///< Collect: current locations
  std::vector<uint32_t> scope;        ///< dynamic scope (resources), when P.dynamic

 private:
  // For GuidedWalk (walk.hpp), which visits the instance itself to write it while validating:
  // it resolves choices with settle(), applies each walkable node (Node::walkable) with
  // check_self(), member_schema() and required_present(), reading item subschemas from the
  // item keywords, and settles every other subschema's value with test().
  template <class, class>
  friend class GuidedWalk;

  /// The verdict of subschema si on v and everything under it.
  bool test(uint32_t si, Value v) {
    const Node& n = P.nodes[si];
    // Tested in turn, most common first: cheaper than a jump table on the common shapes.
    const Shape shape = n.shape;
    if (shape == Shape::kTypes) return is_type(n.only_types, false, V::kind(env_, v), v);
    if (shape == Shape::kTypedArray) return typed_array(n, v);
    if (shape == Shape::kBounded) return bounded(n, v);
    if (shape == Shape::kLeaf) return simple(n, v);  // the leaves never nest deeper: no depth, steps or scope
    if (shape == Shape::kOptional) return V::kind(env_, v) == Kind::Null || test((uint32_t)n.or_null, v);
    Depth d(c_, P.limits.max_instance_depth);
    if (shape == Shape::kByKind) return selected(n, si, v);
    return schema(si, v, nullptr);
  }
  /// The subschema that decides v under si once choices that settle on one branch are made
  /// (`anyOf [X, null]` is X for a value that is not null; a type-settled anyOf/oneOf is the
  /// branch for v's kind): -1 when v is valid already (null under `anyOf [X, null]`), -2 when
  /// no branch admits v.
  int64_t settle(uint32_t si, Value v) {
    for (;;) {
      const Node& n = P.nodes[si];
      if (n.or_null >= 0) {
        if (V::kind(env_, v) == Kind::Null) return -1;
        si = (uint32_t)n.or_null;
      } else if (n.select >= 0) {
        const int16_t only = P.keywords[n.select].as<Branches>().by_kind[(size_t)V::kind(env_, v)];
        if (only < 0) return only == -2 ? int64_t{-2} : int64_t{si};
        si = P.keywords[n.select].kids[only];
      } else {
        return si;
      }
    }
  }
  /// Walkable node n on v itself (of kind k): its type and its keywords without subschemas.
  bool check_self(const Node& n, Kind k, Value v) {
    if (n.types && !is_type(n.types, false, k, v)) return false;
    if (!n.self_checks) return true;
    for (const Keyword *kw = P.keywords.data() + n.first, *end = kw + n.count; kw != end; ++kw) {
      if (kw->op == Op::Props || kw->op == Op::PrefixItems || kw->op == Op::RestItems) continue;
      if (!check(*kw, k, v)) return false;
    }
    return true;
  }
  /// The subschema that member `key` must satisfy under t (a walkable node's `properties`
  /// keyword): -1 when none applies, -2 when the member is not allowed. Marks required members
  /// in `required_seen`; `next` is 0 at the first member (members usually come in the order of
  /// the declaration, which makes their lookup a compare).
  int64_t member_schema(const PropertyTable& t, std::string_view key, size_t& next, uint64_t& required_seen) {
    int64_t slot = declared(t, key, next, required_seen);
    if (slot >= 0) return t.props[slot].second;
    if (t.additional < 0) return -1;
    return P.nodes[t.additional].boolean == 0 ? -2 : t.additional;
  }
  /// member_schema() of a member that the caller knows is declared property `next` (e.g. by
  /// the identity of interned names): the same bookkeeping without comparing the name.
  uint32_t next_member_schema(const PropertyTable& t, size_t& next, uint64_t& required_seen) {
    return t.props[take(t, next, next, required_seen)].second;
  }
  /// v, of kind k, has one of the `types` (TypeBit mask); with strict_int (draft-04) only a
  /// written integer is an `integer`. One mask test: only a number that `number` does not
  /// admit is looked at.
  [[gnu::always_inline]] bool is_type(uint8_t types, bool strict_int, Kind k, Value v) {
    static constexpr uint8_t kBit[] = {kNull, kBool, kNumber, kString, kArray, kObject};
    if (types & kBit[(size_t)k]) return true;
    return k == Kind::Number && (types & kInteger) && is_int(strict_int, v);
  }
  /// After a walk over the members of v: every required property of t (a `properties`
  /// keyword) is present (reports those that are not).
  bool required_present(const PropertyTable& t, Value v, uint64_t required_seen) {
    const uint64_t all = t.n_required >= 64 ? ~uint64_t{0} : (uint64_t{1} << t.n_required) - 1;
    if (t.n_required <= 64 && required_seen == all) return true;
    bool ok = true;
    Value x{};
    for (size_t i = 0; i < t.props.size(); ++i) {
      if (t.required[i] && !V::find(env_, v, P, t.props[i].first, x)) {
        ok = false;
        if (!collecting()) break;
        fail_named("required", t.required_value, v, {P.keys[t.props[i].first]});
      }
    }
    return ok;
  }

  const Program& P;
  const Env& env_;
  Counters& c_;
  int mute_ = 0;

  bool collecting() const { return Collect && mute_ == 0; }

  void fail(const Keyword& kw, Value v, std::vector<std::string> extra = {}) {
    if (!collecting()) return;
    fail_named(kw.name, kw.value, v, std::move(extra));
  }
  void fail_named(std::string_view name, const Json* value, Value v, std::vector<std::string> extra = {}) {
    if (!collecting()) return;
    EvalError<Value> e;
    e.keyword = std::string(name);
    e.value = value;
    e.instance_path = ipath;
    e.schema_path = spath;
    if (name != "false") e.schema_path.push_back(PathTok::of(name));
    e.instance = v;
    e.extra = std::move(extra);
    errors.push_back(std::move(e));
  }

  struct Depth {
    Counters& c;
    Depth(Counters& c_, uint32_t max) : c(c_) {
      if (++c.depth > max) throw LimitError("instance nesting depth exceeds max_instance_depth=" + std::to_string(max));
    }
    ~Depth() { --c.depth; }
  };

  // Applies subschema si to a member/item of the instance (the instance path grows by `at`).
  // (Inlined, so that a verdict builds no path segments.)
  [[gnu::always_inline]] bool sub(uint32_t si, Value v, Seg at, std::initializer_list<Seg> spath_toks) {
    if (!collecting()) return test(si, v);
    return sub_collect(si, v, at, spath_toks);
  }
  // A node that is only an anyOf/oneOf: the one branch that admits this kind decides.
  [[gnu::noinline]] bool selected(const Node& n, uint32_t si, Value v) {
    const Keyword& kw = P.keywords[n.select];
    Kind k = V::kind(env_, v);
    const int16_t only = kw.as<Branches>().by_kind[(size_t)k];
    if (only != -1) return only >= 0 && branch(kw.kids[only], k, v, nullptr);
    return schema(si, v, nullptr);
  }
  bool sub_collect(uint32_t si, Value v, Seg at, std::initializer_list<Seg> spath_toks) {
    Depth d(c_, P.limits.max_instance_depth);
    size_t is = ipath.size(), ss = spath.size();
    ipath.push_back(at.tok());
    for (const Seg& t : spath_toks) spath.push_back(t.tok());
    bool ok = schema(si, v, nullptr);
    ipath.resize(is);
    spath.resize(ss);
    return ok;
  }
  // Applies subschema si to the same instance.
  bool inplace(uint32_t si, Value v, Annot* an, std::initializer_list<Seg> spath_toks) {
    if (!collecting()) return schema(si, v, an);
    size_t ss = spath.size();
    for (const Seg& t : spath_toks) spath.push_back(t.tok());
    bool ok = schema(si, v, an);
    spath.resize(ss);
    return ok;
  }
  bool quiet(uint32_t si, Value v, Annot* an) {
    if constexpr (!Collect) return schema(si, v, an);  // nothing to mute
    ++mute_;
    bool ok;
    try {
      ok = schema(si, v, an);
    } catch (...) {
      --mute_;
      throw;
    }
    --mute_;
    return ok;
  }

  // Applies subschema si (a branch of anyOf, oneOf, not, if) to the same instance, of kind k,
  // quietly. A branch whose type mask rejects k, or that is a bare type, is settled here.
  bool branch(uint32_t si, Kind k, Value v, Annot* an) {
    const Node& n = P.nodes[si];
    if (n.only_types) return is_type(n.only_types, false, k, v);
    if (n.types && !is_type(n.types, false, k, v)) return false;
    return quiet(si, v, an);
  }

  [[noreturn, gnu::noinline]] void limit(const char* what, uint64_t value) {
    throw LimitError(std::string(what) + std::to_string(value));
  }

  // Shape::kTypedArray, in one pass.
  bool typed_array(const Node& n, Value v) {
    Kind k = V::kind(env_, v);
    if (n.types && !is_type(n.types, false, k, v)) return false;
    if (k != Kind::Array) return true;
    size_t size = V::arr_size(v);
    if (size < n.min_items || size > n.max_items) return false;
    return V::arr_each(env_, v, [&](size_t, Value x) { return is_type(n.item_types, false, V::kind(env_, x), x); });
  }

  // Shape::kBounded: an integer the view reads cheaply, or a string whose
  // length it counts cheaply, is compared with the bounds at once; other values go through
  // the keywords (simple()).
  [[gnu::always_inline]] bool bounded(const Node& n, Value v) {
    const Kind k = V::kind(env_, v);
    if (n.types && !is_type(n.types, false, k, v)) return false;
    if constexpr (requires(int64_t i) { V::small_int(v, i); }) {
      int64_t i;
      if (k == Kind::Number && V::small_int(v, i)) return n.int_min <= i && i <= n.int_max;
    }
    if constexpr (!V::kUtf8Strings) {
      if (k == Kind::String) {
        const size_t len = V::str_len(v);
        return n.min_length <= len && len <= n.max_length;
      }
    }
    return simple(n, v);
  }

  [[gnu::always_inline]] bool simple(const Node& n, Value v) {
    Kind k = V::kind(env_, v);
    if (n.types && !is_type(n.types, false, k, v)) return false;
    for (const Keyword *kw = P.keywords.data() + n.first, *end = kw + n.count; kw != end; ++kw)
      if (!keyword(*kw, k, v, nullptr)) return false;
    return true;
  }

  bool schema(uint32_t si, Value v, Annot* up) {
    const Node& n = P.nodes[si];
    if (n.boolean >= 0) {
      if (!n.boolean) fail_named("false", nullptr, v);
      return n.boolean;
    }
    if (n.simple && !collecting()) return n.shape == Shape::kBounded ? bounded(n, v) : simple(n, v);
    Kind k = V::kind(env_, v);
    bool ok = true;
    if (n.types && !is_type(n.types, false, k, v)) {
      if (!collecting()) return false;
      fail_named("type", n.type_value, v);
      ok = false;
    }
    const Keyword* kw = P.keywords.data() + n.first;
    const Keyword* end = kw + n.count;
    if (n.simple) {  // no subschemas: no recursion, annotations or scope to manage
      for (; kw != end; ++kw)
        if (!keyword(*kw, k, v, nullptr)) ok = false;
      return ok;
    }
    if (++c_.steps > P.limits.max_steps) limit("evaluation work exceeds max_steps=", P.limits.max_steps);
    if (++c_.recursion > kMaxRecursion) limit("subschema recursion exceeds levels: ", kMaxRecursion);
    struct Rec {
      Counters& c;
      ~Rec() { --c.recursion; }
    } rec{c_};
    if (P.dynamic || n.tracks || up) return schema_tracked(n, k, v, up) && ok;
    for (; kw != end; ++kw) {
      if (!keyword(*kw, k, v, nullptr)) {
        ok = false;
        if (!collecting()) break;
      }
    }
    return ok;
  }

  // With annotations (unevaluated*) and the dynamic scope.
  [[gnu::noinline]] bool schema_tracked(const Node& n, Kind k, Value v, Annot* up) {
    bool pushed = false;
    if (P.dynamic && (scope.empty() || scope.back() != n.resource)) {
      scope.push_back(n.resource);
      pushed = true;
    }
    Annot local;
    Annot* an = (n.tracks || up) ? &local : nullptr;
    bool ok = true;
    try {
      for (uint32_t i = n.first, e = n.first + n.count; i < e; ++i) {
        if (!keyword(P.keywords[i], k, v, an)) {
          ok = false;
          if (!collecting()) break;
        }
      }
    } catch (...) {
      if (pushed) scope.pop_back();
      throw;
    }
    if (pushed) scope.pop_back();
    if (ok && up) up->merge(local);
    return ok;
  }

  // A number as `integer`: with strict_int (draft-04) a written integer, else any whole value.
  bool is_int(bool strict_int, Value v) {
    if constexpr (requires { V::exact_int(v); }) {  // a view that tells written integers apart cheaply
      if (V::exact_int(v)) return true;
    }
    Num n = V::num(env_, v);
    return strict_int ? n.kind != Num::Float : n.is_integer();
  }

  uint32_t dynamic_target(const Keyword& kw) {
    if (kw.op == Op::DynamicRef) {
      for (uint32_t r : scope) {
        auto it = P.resources[r].dynamic_anchors.find(kw.as<DynamicTarget>().anchor);
        if (it != P.resources[r].dynamic_anchors.end()) return it->second;
      }
      return kw.kids[0];
    }
    // $recursiveRef: the outermost of the innermost run of resources with $recursiveAnchor.
    uint32_t target = kw.kids[0];
    for (size_t i = scope.size(); i-- > 0;) {
      const Resource& r = P.resources[scope[i]];
      if (!r.recursive_anchor) break;
      target = r.root;
    }
    return target;
  }

  bool keyword(const Keyword& kw, Kind k, Value v, Annot* an) {
    if (is_simple(kw.op)) return check(kw, k, v);
    switch (kw.op) {
      case Op::PrefixItems:
      case Op::RestItems: return items(kw, k, v, an);
      case Op::Props: return props(kw, k, v, an);
      default: return applicator(kw, k, v, an);
    }
  }

  // MinLength/MaxLength of a string.
  bool length_ok(const Keyword& kw, Value v) {
    const bool min = kw.op == Op::MinLength;
    const uint64_t count = kw.as<CountLimit>().count;
    if constexpr (V::kUtf8Strings) {
      // b UTF-8 bytes hold between b/4 and b code points: most bounds hold or fail uncounted.
      size_t b = V::str(env_, v).size();
      if (min ? b / 4 >= count : b <= count) return true;
      if (min && b < count) return false;
    }
    size_t n = V::str_len(v);
    return min ? n >= count : n <= count;
  }

  // Keywords that look at the value itself.
  bool check(const Keyword& kw, Kind k, Value v) {
    switch (kw.op) {
      case Op::Type:
        if (is_type(kw.as<TypeMask>().types, kw.as<TypeMask>().draft4, k, v)) return true;
        fail(kw, v);
        return false;
      case Op::Enum:
      case Op::Const: {  // (one constant)
        const auto& [values, hashes] = kw.as<Constants>();
        if (!hashes.empty()) {  // an enum of many values
          uint64_t h = json_hash<V>(env_, v, 0, P.limits.max_instance_depth);
          auto it = std::lower_bound(hashes.begin(), hashes.end(), std::pair<uint64_t, uint32_t>{h, 0});
          for (; it != hashes.end() && it->first == h; ++it)
            if (json_equal<V, JsonView>(env_, v, {}, values[it->second], 0, P.limits.max_instance_depth)) return true;
        } else if (k == Kind::String) {  // a string only equals a string: compare the text alone
          std::string_view s = V::str(env_, v);
          for (const Json* c : values)
            if (c->type == Json::Type::String && same_text(c->text, s)) return true;
        } else {
          for (const Json* c : values)
            if (json_equal<V, JsonView>(env_, v, {}, c, 0, P.limits.max_instance_depth)) return true;
        }
        fail(kw, v);
        return false;
      }
      case Op::MultipleOf:
        if (k != Kind::Number || is_multiple(V::num(env_, v), kw.as<NumberLimit>().num)) return true;
        fail(kw, v);
        return false;
      case Op::Minimum:
      case Op::Maximum: {
        if (k != Kind::Number) return true;
        const auto& limit = kw.as<NumberLimit>();
        int c = compare(V::num(env_, v), limit.num);
        if (kw.op == Op::Maximum) c = -c;
        if (limit.exclusive ? c > 0 : c >= 0) return true;
        if (limit.exclusive && collecting())  // (draft-04's `minimum` with `exclusiveMinimum: true` is worded as one)
          fail(kw, v, {"exclusive"});
        else
          fail(kw, v);
        return false;
      }
      case Op::MinLength:
      case Op::MaxLength: {
        if (k != Kind::String || length_ok(kw, v)) return true;
        fail(kw, v);
        return false;
      }
      case Op::Pattern:
        if (k != Kind::String || search(kw.as<PatternMatch>().regex, V::str(env_, v))) return true;
        fail(kw, v);
        return false;
      case Op::Format:
        if (k != Kind::String || kw.as<FormatCheck>().check(V::str(env_, v))) return true;
        fail(kw, v);
        return false;
      case Op::MinItems:
      case Op::MaxItems: {
        if (k != Kind::Array) return true;
        size_t n = V::arr_size(v);
        const uint64_t count = kw.as<CountLimit>().count;
        if (kw.op == Op::MinItems ? n >= count : n <= count) return true;
        fail(kw, v);
        return false;
      }
      case Op::MinProperties:
      case Op::MaxProperties: {
        if (k != Kind::Object) return true;
        size_t n = V::obj_size(v);
        const uint64_t count = kw.as<CountLimit>().count;
        if (kw.op == Op::MinProperties ? n >= count : n <= count) return true;
        fail(kw, v);
        return false;
      }
      default: return applicator(kw, k, v, nullptr);
    }
  }

  [[gnu::noinline]] bool items(const Keyword& kw, Kind k, Value v, Annot* an) {
    if (k != Kind::Array) return true;
    if (kw.op == Op::PrefixItems) {
      bool ok = true;
      size_t n = kw.kids.size();
      V::arr_each(env_, v, [&](size_t i, Value x) {
        if (i >= n) return false;
        if (!sub(kw.kids[i], x, Seg::at(i), {Seg::of(kw.name), Seg::at(i)})) {
          ok = false;
          return collecting();
        }
        return true;
      });
      if (an) an->prefix = std::max<uint64_t>(an->prefix, std::min(n, V::arr_size(v)));
      return ok;
    }
    const uint64_t start = kw.as<ItemsFrom>().start;
    if (V::arr_size(v) <= start) return true;
    bool ok = true;
    const uint32_t kid = kw.kids[0];
    const Node& child = P.nodes[kid];
    if (child.boolean == 0) {  // one error listing the extra items, like the reference
      if (collecting()) fail(kw, v, {std::to_string(V::arr_size(v) - start)});
      return false;
    }
    if (child.only_types && !collecting() && !an) {  // e.g. arrays of numbers
      return V::arr_each(env_, v, [&](size_t i, Value x) {
        return i < start || is_type(child.only_types, false, V::kind(env_, x), x);
      });
    }
    V::arr_each(env_, v, [&](size_t i, Value x) {
      if (i < start) return true;
      if (!sub(kid, x, Seg::at(i), {Seg::of(kw.name)})) {
        ok = false;
        return collecting();
      }
      return true;
    });
    if (an) an->all_items = true;
    return ok;
  }

  // Keywords with subschemas (and the rarer checks).
  [[gnu::noinline]] bool applicator(const Keyword& kw, Kind k, Value v, Annot* an) {
    switch (kw.op) {
      case Op::UniqueItems: {
        if (k != Kind::Array) return true;
        // Sorted by json_hash, only neighbours of equal hash are compared: n log n, not n^2.
        std::vector<std::pair<uint64_t, Value>> items;
        items.reserve(V::arr_size(v));
        V::arr_each(env_, v, [&](size_t, Value x) {
          items.emplace_back(json_hash<V>(env_, x, 1, P.limits.max_instance_depth), x);
          return true;
        });
        std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (size_t i = 0; i < items.size(); ++i)
          for (size_t j = i + 1; j < items.size() && items[j].first == items[i].first; ++j)
            if (json_equal<V, V>(env_, items[i].second, env_, items[j].second, 1, P.limits.max_instance_depth)) {
              fail(kw, v);
              return false;
            }
        return true;
      }
      case Op::Contains: {
        if (k != Kind::Array) return true;
        uint64_t matches = 0;
        const ContainsCount& count = kw.as<ContainsCount>();
        const bool track = an && count.annotate;
        V::arr_each(env_, v, [&](size_t i, Value x) {
          Depth d(c_, P.limits.max_instance_depth);
          if (quiet(kw.kids[0], x, nullptr)) {
            ++matches;
            if (track) an->items.push_back(i);
          }
          return track || count.max >= 0 || matches < count.min;
        });
        if (matches >= count.min && (count.max < 0 || matches <= (uint64_t)count.max)) return true;
        fail(kw, v, {std::to_string(matches)});
        return false;
      }
      case Op::Required: {
        if (k != Kind::Object) return true;
        bool ok = true;
        Value out{};
        for (uint32_t key : kw.as<KeyList>().keys) {
          if (!V::find(env_, v, P, key, out)) {
            ok = false;
            if (!collecting()) return false;
            fail(kw, v, {P.keys[key]});
          }
        }
        return ok;
      }
      case Op::Props: return props(kw, k, v, an);
      case Op::PropertyNames: {
        if (k != Kind::Object) return true;
        bool ok = true;
        V::obj_each(env_, v, [&](std::string_view key, Value) {
          StrView::Env se;
          Evaluator<StrView, Collect> ev(P, se, c_);
          ev.mute_ = mute_;
          ev.ipath = ipath;
          ev.scope = scope;  // the dynamic scope continues into the name's subschema
          if (collecting()) {
            ev.spath = spath;
            ev.spath.push_back(PathTok::of(kw.name));
          }
          if (!ev.run_at(kw.kids[0], key)) {
            ok = false;
            for (auto& e : ev.errors) {
              EvalError<Value> x;
              x.keyword = std::move(e.keyword);
              x.value = e.value;
              x.instance_path = std::move(e.instance_path);
              x.schema_path = std::move(e.schema_path);
              x.instance_is_key = true;
              x.key = std::string(key);
              x.extra = std::move(e.extra);
              errors.push_back(std::move(x));
            }
            return collecting();
          }
          return true;
        });
        return ok;
      }
      case Op::DependentRequired: {
        if (k != Kind::Object) return true;
        bool ok = true;
        Value out{};
        const auto& [keys, required] = kw.as<KeyDependencies>();
        for (size_t i = 0; i < keys.size(); ++i) {
          if (!V::find(env_, v, P, keys[i], out)) continue;
          for (uint32_t dep : required[i]) {
            if (!V::find(env_, v, P, dep, out)) {
              ok = false;
              if (!collecting()) return false;
              fail(kw, v, {P.keys[dep], P.keys[keys[i]]});
            }
          }
        }
        return ok;
      }
      case Op::DependentSchemas: {
        if (k != Kind::Object) return true;
        bool ok = true;
        Value out{};
        const auto& keys = kw.as<KeyList>().keys;
        for (size_t i = 0; i < keys.size(); ++i) {
          if (!V::find(env_, v, P, keys[i], out)) continue;
          if (!inplace(kw.kids[i], v, an, {Seg::of(kw.name), Seg::of(P.keys[keys[i]])})) {
            ok = false;
            if (!collecting()) return false;
          }
        }
        return ok;
      }
      case Op::AllOf: {
        bool ok = true;
        for (size_t i = 0; i < kw.kids.size(); ++i) {
          if (!inplace(kw.kids[i], v, an, {Seg::of(kw.name), Seg::at(i)})) {
            ok = false;
            if (!collecting()) return false;
          }
        }
        return ok;
      }
      case Op::AnyOf: {
        if (int16_t only = kw.as<Branches>().by_kind[(size_t)k]; only != -1 && !collecting() && !an)
          return only >= 0 && branch(kw.kids[only], k, v, nullptr);
        bool ok = false;
        Disc disc = discriminate(kw, k, v);
        if (disc.is_string && !collecting() && !an) {
          candidates(kw, disc.value, [&](uint32_t kid) { return !(ok = branch(kid, k, v, nullptr)); });
          return ok;
        }
        for (uint32_t kid : kw.kids) {
          if (disc.rejects(P.nodes[kid])) continue;
          if (branch(kid, k, v, an)) {
            ok = true;
            if (!an) break;  // annotations need every passing branch
          }
        }
        if (!ok) fail(kw, v);
        return ok;
      }
      case Op::OneOf: {
        if (int16_t only = kw.as<Branches>().by_kind[(size_t)k]; only != -1 && !collecting() && !an)
          return only >= 0 && branch(kw.kids[only], k, v, nullptr);
        std::vector<std::string> passing;
        size_t n = 0;
        Disc disc = discriminate(kw, k, v);
        if (disc.is_string && !collecting() && !an) {
          candidates(kw, disc.value, [&](uint32_t kid) { return (n += branch(kid, k, v, nullptr)) <= 1; });
          return n == 1;
        }
        for (size_t i = 0; i < kw.kids.size(); ++i) {
          if (disc.rejects(P.nodes[kw.kids[i]])) continue;
          if (branch(kw.kids[i], k, v, n == 0 ? an : nullptr)) {
            if (collecting()) passing.push_back(std::to_string(i));
            if (++n > 1 && !collecting()) break;
          }
        }
        if (n == 1) return true;
        fail(kw, v, std::move(passing));
        return false;
      }
      case Op::Not:
        if (!branch(kw.kids[0], k, v, nullptr)) return true;
        fail(kw, v);
        return false;
      case Op::IfThenElse: {
        const auto& [then_node, else_node] = kw.as<Conditional>();
        if (then_node < 0 && else_node < 0 && !an) return true;  // only its annotations matter
        if (branch(kw.kids[0], k, v, an))
          return then_node < 0 || inplace((uint32_t)then_node, v, an, {Seg::of("then")});
        return else_node < 0 || inplace((uint32_t)else_node, v, an, {Seg::of("else")});
      }
      // Like python-jsonschema, schema paths continue through `$ref` without naming it.
      case Op::Ref: return inplace(kw.kids[0], v, an, {});
      case Op::DynamicRef:
      case Op::RecursiveRef: {
        const uint32_t target = kw.as<DynamicTarget>().dynamic ? dynamic_target(kw) : kw.kids[0];
        return inplace(target, v, an, {Seg::of(kw.name)});
      }
      case Op::UnevaluatedItems: {
        if (k != Kind::Array) return true;
        bool ok = true;
        std::vector<std::string> bad;
        V::arr_each(env_, v, [&](size_t i, Value x) {
          if (an->has_item(i)) return true;
          Depth d(c_, P.limits.max_instance_depth);
          if (!quiet(kw.kids[0], x, nullptr)) {
            ok = false;
            if (!collecting()) return false;
            bad.push_back(std::to_string(i));
          }
          return true;
        });
        if (!ok) {
          fail(kw, v, std::move(bad));
          return false;
        }
        an->all_items = true;
        return true;
      }
      case Op::UnevaluatedProperties: {
        if (k != Kind::Object) return true;
        bool ok = true;
        std::vector<std::string> bad;
        size_t member = 0;
        V::obj_each(env_, v, [&](std::string_view key, Value x) {
          if (an->has_prop(member++)) return true;
          Depth d(c_, P.limits.max_instance_depth);
          if (!quiet(kw.kids[0], x, nullptr)) {
            ok = false;
            if (!collecting()) return false;
            bad.emplace_back(key);
          }
          return true;
        });
        if (!ok) {
          fail(kw, v, std::move(bad));
          return false;
        }
        an->all_props = true;
        return true;
      }
      default:  // checks without subschemas: keyword() and check() apply them
        break;
    }
    return true;
  }

  // Branches that pin a property to a string constant cannot match an object whose value
  // differs (or that lacks it, when required): anyOf/oneOf skip them without evaluating.
  struct Disc {
    int32_t key = -1;  // -1: no discrimination
    bool present = false, is_string = false;
    std::string_view value;
    bool rejects(const Node& n) const {
      if (key < 0 || n.disc_key != key) return false;
      if (!present) return n.disc_required;
      if (!is_string) return true;
      for (std::string_view s : n.disc_values)
        if (s == value) return false;
      return true;
    }
  };
  // For a verdict: calls f(kid) -> continue on the branches that a string discriminator value
  // leaves (those that do not pin it, then those that pin it to this value), as a binary search.
  template <class F>
  void candidates(const Keyword& kw, std::string_view value, F&& f) {
    const Branches& b = kw.as<Branches>();
    for (uint32_t i : b.disc_rest)
      if (!f(kw.kids[i])) return;
    auto it = std::lower_bound(b.disc_table.begin(), b.disc_table.end(), value,
                               [](const auto& e, std::string_view s) { return shorter_or_less(e.first, s); });
    for (; it != b.disc_table.end() && same_text(it->first, value); ++it)
      if (!f(kw.kids[it->second])) return;
  }

  Disc discriminate(const Keyword& kw, Kind k, Value v) {
    Disc d;
    const int32_t key = kw.as<Branches>().disc_key;
    if (key < 0 || k != Kind::Object) return d;
    d.key = key;
    Value x{};
    d.present = V::find(env_, v, P, (uint32_t)key, x);
    if (d.present && V::kind(env_, x) == Kind::String) {
      d.is_string = true;
      d.value = V::str(env_, x);
    }
    return d;
  }

  bool search(uint32_t re, std::string_view s) {
    try {
      return P.regexes[re].search(s);
    } catch (const RegexLimitError&) {
      throw LimitError("pattern '" + P.regexes[re].pattern() + "' exceeded the regex engine's match limits");
    }
  }

  bool props(const Keyword& kw, Kind k, Value v, Annot* an) {
    if (k != Kind::Object) return true;
    const PropertyTable& t = kw.as<PropertyTable>();
    bool ok = true;
    // Hash lookups of the declared names when the view has them and the object is not much
    // smaller than the declaration; members are only walked when some may be undeclared. For a
    // verdict alone, a lookup costs more than a step of the walk: lookups only when undeclared
    // members are ignored and outnumber the declared names.
    bool declared_done = false;
    const bool lookup = Collect ? t.additional < 0 || V::obj_size(v) * 2 >= t.props.size()
                                : t.additional < 0 && V::obj_size(v) >= t.props.size();
    if (V::kFastLookup && t.patterns.empty() && !an && lookup) {
      Value x{};
      size_t found = 0;
      for (size_t i = 0; i < t.props.size(); ++i) {
        auto [key, kid] = t.props[i];
        if (!V::find(env_, v, P, key, x)) {
          if (t.required[i]) {
            ok = false;
            if (!collecting()) return false;
            fail_named("required", t.required_value, v, {P.keys[key]});
          }
          continue;
        }
        ++found;
        if (!sub(kid, x, Seg::of(P.keys[key]), {Seg::of("properties"), Seg::of(P.keys[key])})) {
          ok = false;
          if (!collecting()) return false;
        }
      }
      if (t.additional < 0 || found == V::obj_size(v)) return ok;
      declared_done = true;
    }
    // Required properties seen, by ordinal (a set: JSON text may repeat a name); past 64 of
    // them, the lookups after the walk decide.
    uint64_t required_seen = 0;
    size_t next = 0;
    const bool additional_false = t.additional >= 0 && P.nodes[t.additional].boolean == 0;
    if (!V::kFastLookup && !declared_done && !collecting() && t.patterns.empty() && !an) {
      // A verdict without patterns or annotations: the walk at its simplest. (Not for views with
      // fast lookups, which walk less: there it cost more instructions than it saved.)
      ok = V::obj_each(env_, v, [&](std::string_view key, Value x) {
        int64_t slot = declared(t, key, next, required_seen);
        if (slot >= 0) return test(t.props[slot].second, x);
        return t.additional < 0 || (!additional_false && test((uint32_t)t.additional, x));
      });
      return ok && required_present(t, v, required_seen);
    }
    std::vector<std::string> unexpected;
    size_t member = 0;
    V::obj_each(env_, v, [&](std::string_view key, Value x) {
      const size_t at = member++;
      bool matched = false;
      if (!t.props.empty()) {
        int64_t slot = declared(t, key, next, required_seen);
        if (slot >= 0 && declared_done) {
          matched = true;
        } else if (slot >= 0) {
          matched = true;
          uint32_t kid = t.props[slot].second;
          if (!sub(kid, x, Seg::of(key), {Seg::of("properties"), Seg::of(key)})) {
            ok = false;
            if (!collecting()) return false;
          }
        }
      }
      for (auto [re, kid] : t.patterns) {
        if (!search(re, key)) continue;
        matched = true;
        if (!sub(kid, x, Seg::of(key), {Seg::of("patternProperties"), Seg::of(P.regexes[re].pattern())})) {
          ok = false;
          if (!collecting()) return false;
        }
      }
      if (!matched && t.additional >= 0) {
        if (additional_false) {
          ok = false;
          if (!collecting()) return false;
          unexpected.emplace_back(key);
          return true;
        }
        matched = true;
        if (!sub((uint32_t)t.additional, x, Seg::of(key), {Seg::of("additionalProperties")})) {
          ok = false;
          if (!collecting()) return false;
        }
      }
      if (an && matched) an->mark_prop(at);
      return true;
    });
    if (!unexpected.empty()) fail_named("additionalProperties", nullptr, v, std::move(unexpected));
    if (!declared_done && (ok || collecting()) && !required_present(t, v, required_seen)) ok = false;
    return ok;
  }

  // The slot of member `key` among t's declared properties (-1: undeclared), marking a
  // required one in `required_seen`. Members usually come in the order the schema declares
  // them: the one after the last found is tried first.
  int64_t declared(const PropertyTable& t, std::string_view key, size_t& next, uint64_t& required_seen) {
    int64_t slot;
    if (next < t.props.size() && same_text(P.keys[t.props[next].first], key))
      slot = (int64_t)next;
    else if (!(t.lengths >> (key.size() & 63) & 1) || (slot = P.find_prop(t, key, hash_key(key))) < 0)
      return -1;
    return take(t, (size_t)slot, next, required_seen);
  }
  // The member is declared property `slot`: what declared() returns for it.
  [[gnu::always_inline]] int64_t take(const PropertyTable& t, size_t slot, size_t& next, uint64_t& required_seen) {
    next = slot + 1;
    uint32_t r = t.required[slot] - 1;  // wraps for properties that are not required
    if (r < 64) required_seen |= uint64_t{1} << r;
    return (int64_t)slot;
  }

  template <class, bool>
  friend class Evaluator;
};

}  // namespace mcp_native::schema
