// The keyword compiler: one Node and its Keywords per subschema, by dialect, with the checks of
// each keyword's value.
#include <algorithm>

#include "schema/compiler.hpp"
#include "schema/uri.hpp"

namespace mcp_native::schema {
namespace {

bool is_validation_kw(std::string_view k) {
  // Immutable, initialized once (a C++11 static: thread-safe), then only read.
  static const std::unordered_set<std::string_view> v = {"type",          "enum",
                                                         "const",         "multipleOf",
                                                         "maximum",       "exclusiveMaximum",
                                                         "minimum",       "exclusiveMinimum",
                                                         "maxLength",     "minLength",
                                                         "pattern",       "maxItems",
                                                         "minItems",      "uniqueItems",
                                                         "maxContains",   "minContains",
                                                         "maxProperties", "minProperties",
                                                         "required",      "dependentRequired"};
  return v.count(k) != 0;
}

uint8_t type_bit(const std::string& t) {
  if (t == "null") return kNull;
  if (t == "boolean") return kBool;
  if (t == "object") return kObject;
  if (t == "array") return kArray;
  if (t == "number") return kNumber;
  if (t == "string") return kString;
  if (t == "integer") return kInteger;
  return 0;
}

}  // namespace

uint32_t Compiler::node_for(const Json* j) {
  auto it = nodes_.find(j);
  if (it != nodes_.end()) return it->second;
  if (P.nodes.size() >= opt.limits.max_subschemas)
    error("schema has more than max_subschemas=" + std::to_string(opt.limits.max_subschemas) + " subschemas",
          info_.at(j));
  uint32_t n = (uint32_t)P.nodes.size();
  P.nodes.emplace_back();
  node_json_.push_back(j);
  nodes_[j] = n;
  queue_.push_back(n);
  return n;
}

void Compiler::drain() {
  while (!queue_.empty()) {
    uint32_t n = queue_.back();
    queue_.pop_back();
    compile_node(n);
  }
}

uint32_t Compiler::key_id(const std::string& k) {
  auto [it, fresh] = key_ids_.emplace(k, (uint32_t)P.keys.size());
  if (fresh) {
    P.keys.push_back(k);
    P.key_hashes.push_back(hash_key(k));
  }
  return it->second;
}

uint32_t Compiler::child(const Json* j, const Info& parent, std::initializer_list<PathTok> toks) {
  if (!info_.count(j)) {
    // Reached through a keyword the index does not know (e.g. a dialect mismatch): index now.
    Info at = parent;
    for (auto& t : toks) at.path = extend(at.path, t);
    walk(j, at, false);
  }
  return node_for(j);
}

uint64_t Compiler::count_of(const Json& v, const Info& at, std::string_view kw) {
  Num n = num_of(v);
  if (!(v.type == Json::Type::Int || v.type == Json::Type::UInt || v.type == Json::Type::Float ||
        v.type == Json::Type::BigInt) ||
      !n.is_integer() || n.approx() < 0)
    error("'" + std::string(kw) + "' must be a non-negative integer", at, kw);
  // Counts past any instance's size are clamped to a value that fits uint64_t and compares the
  // same against every size.
  constexpr double kCountCap = 1e18;
  return n.approx() > kCountCap ? (uint64_t)kCountCap : (uint64_t)n.approx();
}

Num Compiler::number_of(const Json& v, const Info& at, std::string_view kw) {
  if (!(v.type == Json::Type::Int || v.type == Json::Type::UInt || v.type == Json::Type::Float ||
        v.type == Json::Type::BigInt))
    error("'" + std::string(kw) + "' must be a number", at, kw);
  return num_of(v);
}

uint32_t Compiler::regex(const std::string& pattern, const Info& at, std::string_view kw) {
  try {
    P.regexes.emplace_back(pattern);
  } catch (const RegexError& e) {
    error("invalid regular expression '" + pattern + "' (" + e.what() + ")", at, kw);
  }
  return (uint32_t)P.regexes.size() - 1;
}

void Compiler::compile_node(uint32_t n) {
  const Json* j = node_json_[n];
  const Info& at = info_.at(j);  // stable: unordered_map nodes do not move
  Node node;
  node.resource = at.resource;
  if (j->type == Json::Type::Bool) {
    node.boolean = j->boolean;
    P.nodes[n] = node;
    return;
  }
  if (j->type != Json::Type::Object) error("a schema must be an object or a boolean", at);
  const Dialect d = at.dialect;
  std::vector<Keyword> kws, last;
  kws.reserve(j->obj.size() + 1);
  auto kw = [&](Op op, std::string_view name, const Json* value) {
    Keyword k;
    k.op = op;
    k.name = std::string(name);
    k.value = value;
    return k;
  };
  auto ref_to = [&](std::string_view name, const Json& v) {
    if (v.type != Json::Type::String) error("'" + std::string(name) + "' must be a string", at, name);
    const Json* target = resolve_ref(v.text, at, name);
    return target;
  };
  const Json* ref = j->get("$ref");
  if (d <= Dialect::Draft7 && ref) {  // `$ref` siblings are ignored before 2019-09
    Keyword k = kw(Op::Ref, "$ref", ref);
    k.kids.push_back(node_for(ref_to("$ref", *ref)));
    kws.push_back(std::move(k));
  } else {
    Keyword props = kw(Op::Props, "properties", nullptr);
    auto& table = props.payload.emplace<PropertyTable>();
    int props_at = -1;
    for (auto& [name, v] : j->obj) {
      if (at.no_validation && is_validation_kw(name)) continue;
      std::string_view k = name;  // compares by length first
      if (k == "$ref") {
        Keyword x = kw(Op::Ref, k, &v);
        x.kids.push_back(node_for(ref_to(k, v)));
        kws.push_back(std::move(x));
      } else if (k == "$dynamicRef" && d >= Dialect::Draft202012) {
        const Json* target = ref_to(k, v);
        Keyword x = kw(Op::DynamicRef, k, &v);
        x.kids.push_back(node_for(target));
        x.payload = DynamicTarget{};
        auto [u, frag] = uri::split_fragment(*uri::resolve(at.base, v.text));  // resolved by ref_to
        const Json* da = target->type == Json::Type::Object ? target->get("$dynamicAnchor") : nullptr;
        if (!frag.empty() && frag[0] != '/' && da && da->type == Json::Type::String && da->text == frag) {
          x.payload = DynamicTarget{true, std::string(frag)};
          P.dynamic = true;
        }
        kws.push_back(std::move(x));
      } else if (k == "$recursiveRef" && d == Dialect::Draft201909) {
        const Json* target = ref_to(k, v);
        Keyword x = kw(Op::RecursiveRef, k, &v);
        x.kids.push_back(node_for(target));
        const Json* ra = target->type == Json::Type::Object ? target->get("$recursiveAnchor") : nullptr;
        const bool dynamic = ra && ra->type == Json::Type::Bool && ra->boolean;
        x.payload = DynamicTarget{dynamic, {}};
        P.dynamic = P.dynamic || dynamic;
        kws.push_back(std::move(x));
      } else if (k == "type") {
        Keyword x = kw(Op::Type, k, &v);
        auto& mask = x.payload.emplace<TypeMask>();
        auto add = [&](const Json& t) {
          uint8_t b = t.type == Json::Type::String ? type_bit(t.text) : 0;
          if (!b) error("unknown type " + t.dump(), at, k);
          mask.types |= b;
        };
        if (v.type == Json::Type::Array)
          for (auto& t : v.arr) add(t);
        else
          add(v);
        mask.draft4 = d == Dialect::Draft4;
        kws.push_back(std::move(x));
      } else if (k == "enum") {
        if (v.type != Json::Type::Array) error("'enum' must be an array", at, k);
        Keyword x = kw(Op::Enum, k, &v);
        auto& c = x.payload.emplace<Constants>();
        for (auto& e : v.arr) c.values.push_back(&e);
        if (c.values.size() > kLinearEnum) {
          for (uint32_t i = 0; i < c.values.size(); ++i)
            c.hashes.emplace_back(json_hash<JsonView>({}, c.values[i], 0, opt.limits.max_instance_depth), i);
          std::sort(c.hashes.begin(), c.hashes.end());
        }
        kws.push_back(std::move(x));
      } else if (k == "const" && d >= Dialect::Draft6) {
        Keyword x = kw(Op::Const, k, &v);
        x.payload = Constants{{&v}, {}};
        kws.push_back(std::move(x));
      } else if (k == "multipleOf") {
        Keyword x = kw(Op::MultipleOf, k, &v);
        x.payload = NumberLimit{number_of(v, at, k), false};
        if (compare(x.as<NumberLimit>().num, Num{}) <= 0) error("'multipleOf' must be greater than 0", at, k);
        kws.push_back(std::move(x));
      } else if (k == "maximum" || k == "minimum") {
        Keyword x = kw(k == "maximum" ? Op::Maximum : Op::Minimum, k, &v);
        auto& limit = x.payload.emplace<NumberLimit>(NumberLimit{number_of(v, at, k), false});
        if (d == Dialect::Draft4) {
          const Json* e = j->get(k == "maximum" ? "exclusiveMaximum" : "exclusiveMinimum");
          limit.exclusive = e && e->type == Json::Type::Bool && e->boolean;
        }
        kws.push_back(std::move(x));
      } else if ((k == "exclusiveMaximum" || k == "exclusiveMinimum") && d >= Dialect::Draft6) {
        Keyword x = kw(k == "exclusiveMaximum" ? Op::Maximum : Op::Minimum, k, &v);
        x.payload = NumberLimit{number_of(v, at, k), true};
        kws.push_back(std::move(x));
      } else if (k == "maxLength" || k == "minLength" || k == "maxItems" || k == "minItems" || k == "maxProperties" ||
                 k == "minProperties") {
        Op op = k == "maxLength"       ? Op::MaxLength
                : k == "minLength"     ? Op::MinLength
                : k == "maxItems"      ? Op::MaxItems
                : k == "minItems"      ? Op::MinItems
                : k == "maxProperties" ? Op::MaxProperties
                                       : Op::MinProperties;
        Keyword x = kw(op, k, &v);
        x.payload = CountLimit{count_of(v, at, k)};
        kws.push_back(std::move(x));
      } else if (k == "pattern") {
        if (v.type != Json::Type::String) error("'pattern' must be a string", at, k);
        Keyword x = kw(Op::Pattern, k, &v);
        x.payload = PatternMatch{regex(v.text, at, k)};
        kws.push_back(std::move(x));
      } else if (k == "format") {
        if ((opt.formats || at.format_assertion) && v.type == Json::Type::String) {
          if (auto f = formats::find(v.text)) {
            Keyword x = kw(Op::Format, k, &v);
            x.payload = FormatCheck{f};
            kws.push_back(std::move(x));
          }
        }
      } else if (k == "items") {
        if (v.type == Json::Type::Array && d <= Dialect::Draft201909) {
          Keyword x = kw(Op::PrefixItems, k, &v);
          for (size_t i = 0; i < v.arr.size(); ++i)
            x.kids.push_back(child(&v.arr[i], at, {PathTok::of(k), PathTok::at(i)}));
          kws.push_back(std::move(x));
          if (const Json* ai = j->get("additionalItems")) {
            Keyword y = kw(Op::RestItems, "additionalItems", ai);
            y.payload = ItemsFrom{v.arr.size()};
            y.kids.push_back(child(ai, at, {PathTok::of("additionalItems")}));
            kws.push_back(std::move(y));
          }
        } else {
          Keyword x = kw(Op::RestItems, k, &v);
          const Json* pi = d >= Dialect::Draft202012 ? j->get("prefixItems") : nullptr;
          x.payload = ItemsFrom{pi && pi->type == Json::Type::Array ? pi->arr.size() : 0};
          x.kids.push_back(child(&v, at, {PathTok::of(k)}));
          kws.push_back(std::move(x));
        }
      } else if (k == "prefixItems" && d >= Dialect::Draft202012) {
        if (v.type != Json::Type::Array) error("'prefixItems' must be an array", at, k);
        Keyword x = kw(Op::PrefixItems, k, &v);
        for (size_t i = 0; i < v.arr.size(); ++i)
          x.kids.push_back(child(&v.arr[i], at, {PathTok::of(k), PathTok::at(i)}));
        kws.push_back(std::move(x));
      } else if (k == "contains" && d >= Dialect::Draft6) {
        Keyword x = kw(Op::Contains, k, &v);
        x.kids.push_back(child(&v, at, {PathTok::of(k)}));
        auto& count = x.payload.emplace<ContainsCount>();
        count.annotate = d >= Dialect::Draft202012;
        if (d >= Dialect::Draft201909 && !at.no_validation) {
          if (const Json* mn = j->get("minContains")) count.min = count_of(*mn, at, "minContains");
          if (const Json* mx = j->get("maxContains")) count.max = (int64_t)count_of(*mx, at, "maxContains");
        }
        kws.push_back(std::move(x));
      } else if (k == "uniqueItems") {
        if (v.type == Json::Type::Bool && v.boolean) kws.push_back(kw(Op::UniqueItems, k, &v));
      } else if (k == "required") {
        if (v.type != Json::Type::Array) {
          if (d == Dialect::Draft4 || v.type != Json::Type::Bool) error("'required' must be an array", at, k);
          continue;
        }
        Keyword x = kw(Op::Required, k, &v);
        auto& names = x.payload.emplace<KeyList>();
        for (auto& r : v.arr) {
          if (r.type != Json::Type::String) error("'required' must list strings", at, k);
          names.keys.push_back(key_id(r.text));
        }
        if (!names.keys.empty()) kws.push_back(std::move(x));
      } else if (k == "properties" || k == "patternProperties" || k == "additionalProperties") {
        if (props_at < 0) props_at = (int)kws.size();
        if (k == "additionalProperties") {
          table.additional = child(&v, at, {PathTok::of(k)});
        } else {
          if (v.type != Json::Type::Object) error("'" + std::string(k) + "' must be an object", at, k);
          for (auto& [pk, pv] : v.obj) {
            uint32_t c = child(&pv, at, {PathTok::of(k), PathTok::of(pk)});
            if (k == "properties")
              table.props.emplace_back(key_id(pk), c);
            else
              table.patterns.emplace_back(regex(pk, at, k), c);
          }
        }
      } else if (k == "propertyNames" && d >= Dialect::Draft6) {
        Keyword x = kw(Op::PropertyNames, k, &v);
        x.kids.push_back(child(&v, at, {PathTok::of(k)}));
        kws.push_back(std::move(x));
      } else if (k == "dependencies" || k == "dependentRequired" || k == "dependentSchemas") {
        if (d < Dialect::Draft201909 && k != "dependencies") continue;
        if (v.type != Json::Type::Object) error("'" + std::string(k) + "' must be an object", at, k);
        Keyword req = kw(Op::DependentRequired, k, &v), sch = kw(Op::DependentSchemas, k, &v);
        auto& deps_of = req.payload.emplace<KeyDependencies>();
        auto& schema_keys = sch.payload.emplace<KeyList>();
        for (auto& [dk, dv] : v.obj) {
          if (dv.type == Json::Type::Array && k != "dependentSchemas") {
            std::vector<uint32_t> deps;
            for (auto& s : dv.arr) {
              if (s.type != Json::Type::String) error("dependencies must list strings", at, k);
              deps.push_back(key_id(s.text));
            }
            deps_of.keys.push_back(key_id(dk));
            deps_of.required.push_back(std::move(deps));
          } else if (k != "dependentRequired") {
            schema_keys.keys.push_back(key_id(dk));
            sch.kids.push_back(child(&dv, at, {PathTok::of(k), PathTok::of(dk)}));
          } else {
            error("'dependentRequired' values must be arrays", at, k);
          }
        }
        if (!deps_of.keys.empty()) kws.push_back(std::move(req));
        if (!schema_keys.keys.empty()) kws.push_back(std::move(sch));
      } else if (k == "allOf" || k == "anyOf" || k == "oneOf") {
        if (v.type != Json::Type::Array || v.arr.empty())
          error("'" + std::string(k) + "' must be a non-empty array", at, k);
        Keyword x = kw(k == "allOf" ? Op::AllOf : k == "anyOf" ? Op::AnyOf : Op::OneOf, k, &v);
        if (x.op != Op::AllOf) x.payload = Branches{};
        for (size_t i = 0; i < v.arr.size(); ++i)
          x.kids.push_back(child(&v.arr[i], at, {PathTok::of(k), PathTok::at(i)}));
        kws.push_back(std::move(x));
      } else if (k == "not") {
        Keyword x = kw(Op::Not, k, &v);
        x.kids.push_back(child(&v, at, {PathTok::of(k)}));
        kws.push_back(std::move(x));
      } else if (k == "if" && d >= Dialect::Draft7) {
        const Json* th = j->get("then");
        const Json* el = j->get("else");
        Keyword x = kw(Op::IfThenElse, k, &v);
        x.kids.push_back(child(&v, at, {PathTok::of(k)}));
        auto& branches = x.payload.emplace<Conditional>();
        if (th) branches.then_node = child(th, at, {PathTok::of("then")});
        if (el) branches.else_node = child(el, at, {PathTok::of("else")});
        kws.push_back(std::move(x));
      } else if ((k == "unevaluatedItems" || k == "unevaluatedProperties") && d >= Dialect::Draft201909) {
        Keyword x = kw(k == "unevaluatedItems" ? Op::UnevaluatedItems : Op::UnevaluatedProperties, k, &v);
        x.kids.push_back(child(&v, at, {PathTok::of(k)}));
        node.tracks = true;
        last.push_back(std::move(x));
      }
    }
    if (props_at >= 0) {
      size_t cap = 2;
      while (cap < table.props.size() * 2) cap *= 2;
      table.slots.assign(cap, -1);
      for (size_t i = 0; i < table.props.size(); ++i) {
        uint64_t h = P.key_hashes[table.props[i].first];
        size_t s = h & (cap - 1);
        while (table.slots[s] >= 0) s = (s + 1) & (cap - 1);
        table.slots[s] = (int32_t)i;
        table.lengths |= uint64_t{1} << (P.keys[table.props[i].first].size() & 63);
      }
      // Required names that are declared properties are checked by the same lookups.
      table.required.assign(table.props.size(), 0);
      for (auto it = kws.begin(); it != kws.end(); ++it) {
        if (it->op != Op::Required) continue;
        std::vector<uint32_t> rest;
        auto& names = it->as<KeyList>().keys;
        for (uint32_t key : names) {
          auto pos = std::find_if(table.props.begin(), table.props.end(), [&](auto& p) { return p.first == key; });
          if (pos == table.props.end()) {
            rest.push_back(key);
          } else if (!table.required[pos - table.props.begin()]) {
            table.required[pos - table.props.begin()] = ++table.n_required;
            table.required_value = it->value;
          }
        }
        names = std::move(rest);
        if (names.empty()) {
          if ((int)(it - kws.begin()) < props_at) --props_at;
          kws.erase(it);
        }
        break;
      }
      kws.insert(kws.begin() + props_at, std::move(props));
    }
  }
  // Cheap checks of the value itself first: failures are found before descending.
  std::stable_partition(kws.begin(), kws.end(), [](const Keyword& k) { return is_simple(k.op); });
  // `type` moves into the node: checked first, without a keyword dispatch.
  for (auto it = kws.begin(); it != kws.end(); ++it) {
    if (it->op == Op::Type && !it->as<TypeMask>().draft4) {
      node.types = it->as<TypeMask>().types;
      node.type_value = it->value;
      kws.erase(it);
      break;
    }
  }
  for (auto& x : last) kws.push_back(std::move(x));
  node.first = (uint32_t)P.keywords.size();
  node.count = (uint32_t)kws.size();
  if (kws.empty() && !node.types) node.boolean = 1;
  for (auto& x : kws) P.keywords.push_back(std::move(x));
  P.nodes[n] = node;
}

}  // namespace mcp_native::schema
