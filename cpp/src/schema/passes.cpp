// Passes over the whole compiled program: the rewrites (`$ref` chains, outermost dynamic
// references), the `$ref` cycle check, and the fast-path flags and tables the evaluator reads.
#include <algorithm>
#include <array>
#include <limits>

#include "schema/compiler.hpp"

namespace mcp_native::schema {
namespace {

// Branches::by_kind holds branch indices as int16_t: longer anyOf/oneOf go without the shortcut.
constexpr size_t kMaxBranchIndex = std::numeric_limits<int16_t>::max();

}  // namespace

// The root's resource is always the outermost dynamic scope, so a `$dynamicRef` to an anchor
// that the root resource declares always lands there: resolve it now. When no dynamic reference
// is left (e.g. in the 2020-12 metaschema), evaluation needs no dynamic scope.
void Compiler::resolve_outermost_dynamic_refs(uint32_t root) {
  const auto& anchors = P.resources[P.nodes[root].resource].dynamic_anchors;
  bool dynamic = false;
  for (Keyword& k : P.keywords) {
    if (k.op != Op::DynamicRef && k.op != Op::RecursiveRef) continue;
    auto& target = k.as<DynamicTarget>();
    if (!target.dynamic) continue;
    auto it = k.op == Op::DynamicRef ? anchors.find(target.anchor) : anchors.end();
    if (it == anchors.end()) {
      dynamic = true;
      continue;
    }
    k.kids[0] = it->second;
    target.dynamic = false;
  }
  P.dynamic = dynamic;
}

// A subschema that reaches itself through keywords that apply to the same instance
// ($ref, allOf, ...) would recurse forever: reject it here.
void Compiler::check_cycles() {
  size_t N = P.nodes.size();
  std::vector<std::vector<uint32_t>> edges(N);
  std::unordered_map<std::string, std::vector<uint32_t>> by_anchor;
  std::vector<uint32_t> recursive_roots;
  for (auto& r : P.resources) {
    for (auto& [name, t] : r.dynamic_anchors) by_anchor[name].push_back(t);
    if (r.recursive_anchor) recursive_roots.push_back(r.root);
  }
  for (size_t n = 0; n < N; ++n) {
    const Node& node = P.nodes[n];
    for (uint32_t i = node.first; i < node.first + node.count; ++i) {
      const Keyword& k = P.keywords[i];
      switch (k.op) {
        case Op::Ref:
        case Op::AllOf:
        case Op::AnyOf:
        case Op::OneOf:
        case Op::Not:
        case Op::DependentSchemas: edges[n].insert(edges[n].end(), k.kids.begin(), k.kids.end()); break;
        case Op::IfThenElse: {
          edges[n].push_back(k.kids[0]);
          const auto& c = k.as<Conditional>();
          if (c.then_node >= 0) edges[n].push_back((uint32_t)c.then_node);
          if (c.else_node >= 0) edges[n].push_back((uint32_t)c.else_node);
          break;
        }
        case Op::DynamicRef:
        case Op::RecursiveRef: {
          edges[n].push_back(k.kids[0]);
          const auto& target = k.as<DynamicTarget>();
          if (!target.dynamic) break;
          auto& more = k.op == Op::DynamicRef ? by_anchor[target.anchor] : recursive_roots;
          edges[n].insert(edges[n].end(), more.begin(), more.end());
          break;
        }
        default: break;
      }
    }
  }
  std::vector<uint8_t> color(N, 0);
  std::vector<std::pair<uint32_t, size_t>> stack;
  for (uint32_t s = 0; s < N; ++s) {
    if (color[s]) continue;
    stack.push_back({s, 0});
    color[s] = 1;
    while (!stack.empty()) {
      auto& [n, i] = stack.back();
      if (i < edges[n].size()) {
        uint32_t m = edges[n][i++];
        if (color[m] == 1)
          error("'$ref' cycle: this subschema applies itself to the same instance without end",
                info_.at(node_json_[m]));
        if (color[m] == 0) {
          color[m] = 1;
          stack.push_back({m, 0});
        }
      } else {
        color[n] = 2;
        stack.pop_back();
      }
    }
  }
}

// A subschema that is only a `$ref` adds nothing but a step (schema paths skip `$ref`), so
// edges point at its target directly. Not with dynamic references, whose scope it may enter.
void Compiler::skip_pure_refs() {
  auto pure = [&](uint32_t n) {
    const Node& x = P.nodes[n];
    return x.boolean < 0 && x.count == 1 && P.keywords[x.first].op == Op::Ref;
  };
  auto target = [&](uint32_t n) {
    for (size_t hops = 0; pure(n) && hops <= P.nodes.size(); ++hops) n = P.keywords[P.nodes[n].first].kids[0];
    return n;
  };
  auto fix = [&](uint32_t& n) { n = target(n); };
  auto fix64 = [&](int64_t& n) {
    if (n >= 0) n = target((uint32_t)n);
  };
  for (auto& k : P.keywords) {
    for (auto& c : k.kids) fix(c);
    if (auto* t = std::get_if<PropertyTable>(&k.payload)) {
      for (auto& pr : t->props) fix(pr.second);
      for (auto& pt : t->patterns) fix(pt.second);
      fix64(t->additional);
    } else if (auto* c = std::get_if<Conditional>(&k.payload)) {
      fix64(c->then_node);
      fix64(c->else_node);
    }
  }
  nodes_[node_json_[0]] = target(nodes_.at(node_json_[0]));
}

void Compiler::find_discriminators() {
  for (auto& node : P.nodes) {
    if (node.boolean >= 0) continue;
    const PropertyTable* props = nullptr;
    std::vector<uint32_t> required;
    for (uint32_t i = node.first; i < node.first + node.count; ++i) {
      const Keyword& k = P.keywords[i];
      if (k.op == Op::Props) {
        props = &k.as<PropertyTable>();
        for (size_t j = 0; j < props->props.size(); ++j)
          if (props->required[j]) required.push_back(props->props[j].first);
      }
      if (k.op == Op::Required) {
        const auto& names = k.as<KeyList>().keys;
        required.insert(required.end(), names.begin(), names.end());
      }
    }
    if (!props) continue;
    for (auto [key, kid] : props->props) {
      const Node& c = P.nodes[kid];
      const Constants* pin = nullptr;
      for (uint32_t i = c.first; c.boolean < 0 && i < c.first + c.count; ++i) {
        const Keyword& k = P.keywords[i];
        if (k.op != Op::Const && k.op != Op::Enum) continue;
        const auto& values = k.as<Constants>().values;
        if (values.size() <= 16 &&
            std::all_of(values.begin(), values.end(), [](const Json* x) { return x->type == Json::Type::String; }))
          pin = &k.as<Constants>();
      }
      if (!pin) continue;
      node.disc_key = (int32_t)key;
      for (const Json* x : pin->values) node.disc_values.push_back(x->text);
      node.disc_required = std::find(required.begin(), required.end(), key) != required.end();
      break;
    }
  }
  for (auto& k : P.keywords) {
    if (k.op != Op::AnyOf && k.op != Op::OneOf) continue;
    auto& b = k.as<Branches>();
    for (uint32_t kid : k.kids)
      if (P.nodes[kid].disc_key >= 0) {
        b.disc_key = P.nodes[kid].disc_key;
        break;
      }
    if (b.disc_key < 0) continue;
    for (uint32_t i = 0; i < k.kids.size(); ++i) {
      const Node& c = P.nodes[k.kids[i]];
      if (c.disc_key != b.disc_key)
        b.disc_rest.push_back(i);
      else
        for (std::string_view s : c.disc_values) b.disc_table.emplace_back(s, i);
    }
    std::sort(b.disc_table.begin(), b.disc_table.end(), [](const auto& x, const auto& y) {
      return x.first != y.first ? shorter_or_less(x.first, y.first) : x.second < y.second;
    });
    b.disc_table.erase(std::unique(b.disc_table.begin(), b.disc_table.end()), b.disc_table.end());
  }
}

// For verdicts: a node that is only an `anyOf` of bare types is their union (`only_types`); one
// that is only `anyOf: [X, {"type": "null"}]` (an optional value) is null or X (`or_null`).
// Errors still come from the anyOf.
void Compiler::shortcut_optional_values() {
  auto bare = [&](uint32_t n) {
    const Node& x = P.nodes[n];
    return x.boolean < 0 && !x.tracks && x.count == 0 ? x.types : uint8_t{0};
  };
  for (auto& node : P.nodes) {
    if (node.boolean >= 0 || node.tracks || node.types || node.count != 1) continue;
    const Keyword& k = P.keywords[node.first];
    if (k.op != Op::AnyOf || k.kids.empty()) continue;
    uint8_t all = 0;
    bool every = true;
    for (uint32_t kid : k.kids) {
      uint8_t t = bare(kid);
      every &= t != 0;
      all |= t;
    }
    if (every)
      node.only_types = all;
    else if (P.dynamic)
      continue;  // X is entered without this node's dynamic scope
    else if (k.kids.size() == 2 && bare(k.kids[1]) == kNull)
      node.or_null = (int32_t)k.kids[0];
    else if (k.kids.size() == 2 && bare(k.kids[0]) == kNull)
      node.or_null = (int32_t)k.kids[1];
  }
}

// `additionalProperties: true` (or `{}`) checks nothing; it only marks the members it applies
// to as evaluated, which matters to unevaluatedProperties alone. Without that keyword anywhere in
// the program it is dropped, so that no member is visited for it. (pydantic writes it for every
// dict[str, Any]; the MCP schemas for every `_meta` and pre-2026 `structuredContent`.)
void Compiler::drop_true_additional() {
  for (const Node& node : P.nodes)
    if (node.tracks) return;
  for (Keyword& k : P.keywords) {
    if (k.op != Op::Props) continue;
    auto& t = k.as<PropertyTable>();
    if (t.additional >= 0 && P.nodes[t.additional].boolean == 1) t.additional = -1;
  }
}

// The fast paths of each node, from its compiled keywords: its Shape with that shape's payload,
// and what the guided walk reads (walkable, props, self_checks).
void Compiler::mark_fast_paths() {
  for (auto& node : P.nodes) {
    node.simple = node.boolean < 0 && !node.tracks;
    for (uint32_t i = node.first; i < node.first + node.count; ++i) node.simple &= is_simple(P.keywords[i].op);
    if (node.simple && node.count == 0) node.only_types = node.types;
  }
  for (auto& node : P.nodes) bound_leaf(node);
  for (auto& node : P.nodes) {
    node.walkable = node.boolean < 0 && !node.tracks && !P.dynamic;
    for (uint32_t i = node.first; i < node.first + node.count; ++i) {
      const Keyword& k = P.keywords[i];
      node.walkable &= is_simple(k.op) || k.op == Op::PrefixItems || k.op == Op::RestItems ||
                       (k.op == Op::Props && k.as<PropertyTable>().patterns.empty());
      if (k.op == Op::Props) node.props = (int32_t)i;
      node.self_checks |= is_simple(k.op);
    }
  }
  // Item keywords whose subschemas are bare types keep a node a leaf (e.g. arrays of numbers).
  std::vector<bool> leaf(P.nodes.size());
  for (size_t n = 0; n < P.nodes.size(); ++n) {
    const Node& node = P.nodes[n];
    leaf[n] = node.simple;
    if (node.simple || node.boolean >= 0 || node.tracks) continue;
    bool leafy = true;
    for (uint32_t i = node.first; leafy && i < node.first + node.count; ++i) {
      const Keyword& k = P.keywords[i];
      if (is_simple(k.op)) continue;
      leafy = k.op == Op::PrefixItems || k.op == Op::RestItems;
      for (uint32_t kid : k.kids) leafy &= P.nodes[kid].only_types != 0 || P.nodes[kid].boolean == 1;
    }
    leaf[n] = leafy;
  }
  // Typed arrays: only item count bounds and bare-typed `items` for every item.
  for (size_t n = 0; n < P.nodes.size(); ++n) {
    Node& node = P.nodes[n];
    if (!leaf[n] || node.simple) continue;
    uint8_t item_types = 0;
    uint64_t lo = 0, hi = UINT64_MAX;
    for (uint32_t i = node.first; i < node.first + node.count; ++i) {
      const Keyword& k = P.keywords[i];
      if (k.op == Op::MinItems)
        lo = std::max(lo, k.as<CountLimit>().count);
      else if (k.op == Op::MaxItems)
        hi = std::min(hi, k.as<CountLimit>().count);
      else if (k.op == Op::RestItems && k.as<ItemsFrom>().start == 0 && P.nodes[k.kids[0]].only_types && !item_types)
        item_types = P.nodes[k.kids[0]].only_types;
      else {
        item_types = 0;
        break;
      }
    }
    if (!item_types) continue;
    node.item_types = item_types;
    node.min_items = lo;
    node.max_items = hi;
  }
  branches_by_kind();  // (reads the branches' only_types)
  // The shape of each node, in the order of precedence of the fast paths.
  for (size_t n = 0; n < P.nodes.size(); ++n) {
    Node& node = P.nodes[n];
    if (node.only_types)
      node.shape = Shape::kTypes;
    else if (node.item_types)
      node.shape = Shape::kTypedArray;
    else if (node.shape == Shape::kBounded)
      continue;
    else if (leaf[n])
      node.shape = Shape::kLeaf;
    else if (node.or_null >= 0)
      node.shape = Shape::kOptional;
    else if (node.select >= 0)
      node.shape = Shape::kByKind;
  }
}

// Shape::kBounded for a simple node whose keywords are only integer minimum/maximum (exclusive
// bounds made inclusive) and minLength/maxLength.
void Compiler::bound_leaf(Node& node) {
  if (!node.simple || node.count == 0) return;
  Node b;
  for (uint32_t i = node.first; i < node.first + node.count; ++i) {
    const Keyword& k = P.keywords[i];
    if (k.op == Op::MinLength) {
      b.min_length = std::max(b.min_length, k.as<CountLimit>().count);
    } else if (k.op == Op::MaxLength) {
      b.max_length = std::min(b.max_length, k.as<CountLimit>().count);
    } else if ((k.op == Op::Minimum || k.op == Op::Maximum) && k.as<NumberLimit>().num.kind == Num::Int) {
      const bool min = k.op == Op::Minimum;
      int64_t x = k.as<NumberLimit>().num.int64;
      if (k.as<NumberLimit>().exclusive) {
        if (x == (min ? INT64_MAX : INT64_MIN)) return;  // no int64 beyond it: left to check()
        x += min ? 1 : -1;
      }
      if (min)
        b.int_min = std::max(b.int_min, x);
      else
        b.int_max = std::min(b.int_max, x);
    } else {
      return;
    }
  }
  node.shape = Shape::kBounded;
  node.int_min = b.int_min;
  node.int_max = b.int_max;
  node.min_length = b.min_length;
  node.max_length = b.max_length;
}

// anyOf/oneOf whose branches declare types: for a kind of instance that only one branch
// admits, that branch alone decides (the others fail on their type).
void Compiler::branches_by_kind() {
  auto kinds = [&](uint32_t n) -> unsigned {  // bit per Kind that the subschema may accept
    const Node& x = P.nodes[n];
    if (x.boolean >= 0) return x.boolean ? 0x3f : 0;
    uint8_t t = x.only_types ? x.only_types : x.types;
    if (!t) return 0x3f;
    unsigned m = 0;
    if (t & kNull) m |= 1u << (int)Kind::Null;
    if (t & kBool) m |= 1u << (int)Kind::Bool;
    if (t & (kNumber | kInteger)) m |= 1u << (int)Kind::Number;
    if (t & kString) m |= 1u << (int)Kind::String;
    if (t & kArray) m |= 1u << (int)Kind::Array;
    if (t & kObject) m |= 1u << (int)Kind::Object;
    return m;
  };
  for (auto& k : P.keywords) {
    if ((k.op != Op::AnyOf && k.op != Op::OneOf) || k.kids.size() > kMaxBranchIndex) continue;
    std::array<int, 6> count{};
    std::array<int16_t, 6> only{};
    for (size_t i = 0; i < k.kids.size(); ++i) {
      unsigned m = kinds(k.kids[i]);
      for (int kind = 0; kind < 6; ++kind)
        if (m >> kind & 1) ++count[kind], only[kind] = (int16_t)i;
    }
    auto& by_kind = k.as<Branches>().by_kind;
    for (int kind = 0; kind < 6; ++kind) by_kind[kind] = count[kind] == 0 ? -2 : count[kind] == 1 ? only[kind] : -1;
  }
  // A node that is nothing but such a keyword goes straight to the branch (not with dynamic
  // references: the node may open a resource of the dynamic scope).
  for (auto& node : P.nodes) {
    if (P.dynamic || node.boolean >= 0 || node.tracks || node.types || node.count != 1) continue;
    const Keyword& k = P.keywords[node.first];
    if (k.op != Op::AnyOf && k.op != Op::OneOf) continue;
    const auto& by_kind = k.as<Branches>().by_kind;
    if (std::any_of(by_kind.begin(), by_kind.end(), [](int16_t b) { return b >= 0; }))
      node.select = (int32_t)node.first;
  }
}

}  // namespace mcp_native::schema
