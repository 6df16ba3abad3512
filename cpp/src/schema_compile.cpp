// Compiling schema documents into a Program: URI resolution, resource indexing, keywords per
// dialect, `$ref` cycle detection and the metaschema check.
#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <unordered_set>

#include "mcp_native/schema_eval.hpp"

namespace mcp_native::schema {
namespace {

// ---- URIs (RFC 3986 reference resolution) -------------------------------------------------

struct Uri {
  std::string scheme, authority, path, query, fragment;
  bool has_scheme = false, has_authority = false, has_query = false, has_fragment = false;
};

Uri parse_uri(std::string_view s) {
  Uri u;
  size_t hash = s.find('#');
  if (hash != std::string_view::npos) {
    u.has_fragment = true;
    u.fragment = std::string(s.substr(hash + 1));
    s = s.substr(0, hash);
  }
  size_t q = s.find('?');
  if (q != std::string_view::npos) {
    u.has_query = true;
    u.query = std::string(s.substr(q + 1));
    s = s.substr(0, q);
  }
  size_t colon = s.find(':');
  size_t slash = s.find('/');
  if (colon != std::string_view::npos && colon > 0 && (slash == std::string_view::npos || colon < slash)) {
    u.has_scheme = true;
    u.scheme = std::string(s.substr(0, colon));
    s = s.substr(colon + 1);
  }
  if (s.substr(0, 2) == "//") {
    s = s.substr(2);
    size_t end = s.find('/');
    u.has_authority = true;
    u.authority = std::string(s.substr(0, end));
    s = end == std::string_view::npos ? std::string_view() : s.substr(end);
  }
  u.path = std::string(s);
  return u;
}

std::string remove_dots(const std::string& in) {
  std::vector<std::string> out;
  size_t i = 0;
  bool absolute = !in.empty() && in[0] == '/';
  std::string seg;
  std::vector<std::string> segs;
  size_t start = absolute ? 1 : 0;
  for (i = start; i <= in.size(); ++i) {
    if (i == in.size() || in[i] == '/') {
      segs.push_back(in.substr(start, i - start));
      start = i + 1;
    }
  }
  for (size_t k = 0; k < segs.size(); ++k) {
    const std::string& s = segs[k];
    bool last = k + 1 == segs.size();
    if (s == ".") {
      if (last) out.push_back("");
    } else if (s == "..") {
      if (!out.empty()) out.pop_back();
      if (last) out.push_back("");
    } else {
      out.push_back(s);
    }
  }
  std::string r = absolute ? "/" : "";
  for (size_t k = 0; k < out.size(); ++k) {
    if (k) r += '/';
    r += out[k];
  }
  return r;
}

std::string to_string(const Uri& u) {
  std::string r;
  if (u.has_scheme) r += u.scheme + ":";
  if (u.has_authority) r += "//" + u.authority;
  r += u.path;
  if (u.has_query) r += "?" + u.query;
  if (u.has_fragment) r += "#" + u.fragment;
  return r;
}

std::string resolve(std::string_view base_s, std::string_view ref_s) {
  Uri r = parse_uri(ref_s), b = parse_uri(base_s), t;
  if (r.has_scheme) {
    t = r;
    t.path = remove_dots(r.path);
  } else {
    t.has_scheme = b.has_scheme;
    t.scheme = b.scheme;
    if (r.has_authority) {
      t.has_authority = true;
      t.authority = r.authority;
      t.path = remove_dots(r.path);
      t.has_query = r.has_query;
      t.query = r.query;
    } else {
      t.has_authority = b.has_authority;
      t.authority = b.authority;
      if (r.path.empty()) {
        t.path = b.path;
        t.has_query = r.has_query || b.has_query;
        t.query = r.has_query ? r.query : b.query;
      } else {
        if (r.path[0] == '/') {
          t.path = remove_dots(r.path);
        } else {
          std::string merged;
          if (b.has_authority && b.path.empty())
            merged = "/" + r.path;
          else {
            size_t last = b.path.rfind('/');
            merged = (last == std::string::npos ? "" : b.path.substr(0, last + 1)) + r.path;
          }
          t.path = remove_dots(merged);
        }
        t.has_query = r.has_query;
        t.query = r.query;
      }
    }
    t.has_fragment = r.has_fragment;
    t.fragment = r.fragment;
  }
  if (t.has_fragment && t.fragment.empty()) t.has_fragment = false;
  return to_string(t);
}

std::pair<std::string, std::string> split_fragment(const std::string& uri) {
  size_t h = uri.find('#');
  if (h == std::string::npos) return {uri, ""};
  return {uri.substr(0, h), uri.substr(h + 1)};
}

std::string strip_empty_fragment(std::string s) {
  if (!s.empty() && s.back() == '#') s.pop_back();
  return s;
}

std::string percent_decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit((unsigned char)s[i + 1]) &&
        std::isxdigit((unsigned char)s[i + 2])) {
      out += (char)std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// ---- the compiler ---------------------------------------------------------------------------

// A location in a schema document. Locations share their prefixes (a child's is its parent's
// plus one token), so recording one per subschema copies no tokens.
struct PathLink;
using PathRef = std::shared_ptr<const PathLink>;
struct PathLink {
  PathRef parent;
  PathTok tok;
  size_t depth;
};

PathRef extend(const PathRef& p, PathTok tok) {
  return std::make_shared<const PathLink>(PathLink{p, std::move(tok), p ? p->depth + 1 : 1});
}

size_t depth_of(const PathRef& p) { return p ? p->depth : 0; }

std::vector<PathTok> tokens(const PathRef& p) {
  std::vector<PathTok> out(depth_of(p));
  for (const PathLink* l = p.get(); l; l = l->parent.get()) out[l->depth - 1] = l->tok;
  return out;
}

struct Info {
  std::string base;
  Dialect dialect;
  uint32_t resource;
  PathRef path;
  std::string doc;                // URI of the document ("" for the root document)
  bool no_validation = false;     // custom metaschema without the validation vocabulary
  bool format_assertion = false;  // custom metaschema with the format-assertion vocabulary
};

bool is_schema_kw_single(std::string_view k, Dialect d) {
  if (k == "additionalProperties" || k == "not" || k == "additionalItems") return true;
  if (d >= Dialect::Draft6 && (k == "contains" || k == "propertyNames")) return true;
  if (d >= Dialect::Draft7 && (k == "if" || k == "then" || k == "else")) return true;
  if (d >= Dialect::Draft201909 && (k == "unevaluatedItems" || k == "unevaluatedProperties" || k == "contentSchema"))
    return true;
  return k == "items";
}
bool is_schema_kw_array(std::string_view k, Dialect d) {
  if (k == "allOf" || k == "anyOf" || k == "oneOf") return true;
  if (k == "items" && d <= Dialect::Draft201909) return true;
  return k == "prefixItems" && d >= Dialect::Draft202012;
}
bool is_schema_kw_map(std::string_view k, Dialect d) {
  if (k == "properties" || k == "patternProperties" || k == "definitions") return true;
  if (d >= Dialect::Draft201909 && (k == "$defs" || k == "dependentSchemas")) return true;
  return k == "dependencies";
}

bool is_validation_kw(std::string_view k) {
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

class Compiler {
 public:
  Compiler(Program& p, const Options& o) : P(p), opt(o) {
    for (auto& [uri, doc] : o.registry) {
      P.docs.push_back(std::make_unique<Json>(doc));
      registry_[strip_empty_fragment(uri)] = P.docs.back().get();
    }
  }

  uint32_t compile_root(const Json* root) {
    index_doc(root, "", opt.default_dialect);
    P.dialect = info_.at(root).dialect;
    node_for(root);
    drain();
    if (P.dynamic) {
      // Every dynamic target must be compiled: anchors and $recursiveAnchor roots.
      for (size_t pass = 0; pass < 2; ++pass) {
        for (size_t r2 = 0; r2 < res_roots_.size(); ++r2) {
          if (P.resources[r2].recursive_anchor) P.resources[r2].root = node_for(res_roots_[r2]);
          for (auto& [name, j] : dyn_anchor_json_[r2]) P.resources[r2].dynamic_anchors[name] = node_for(j);
        }
        drain();
      }
    }
    if (P.dynamic) resolve_outermost_dynamic_refs(nodes_.at(root));
    check_cycles();
    if (!P.dynamic) skip_pure_refs();
    find_discriminators();
    shortcut_optional_values();
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
                         (k.op == Op::Props && k.patterns.empty());
        if (k.op == Op::Props) node.props = (int32_t)i;
        node.self_checks |= is_simple(k.op);
      }
    }
    // Item keywords whose subschemas are bare types keep a node a leaf (e.g. arrays of numbers).
    for (auto& node : P.nodes) {
      node.leaf = node.simple;
      if (node.simple || node.boolean >= 0 || node.tracks) continue;
      bool leafy = true;
      for (uint32_t i = node.first; leafy && i < node.first + node.count; ++i) {
        const Keyword& k = P.keywords[i];
        if (is_simple(k.op)) continue;
        leafy = k.op == Op::PrefixItems || k.op == Op::RestItems;
        for (uint32_t kid : k.kids) leafy &= P.nodes[kid].only_types != 0 || P.nodes[kid].boolean == 1;
      }
      node.leaf = leafy;
    }
    // Typed arrays: only item count bounds and bare-typed `items` for every item.
    for (auto& node : P.nodes) {
      if (!node.leaf || node.simple) continue;
      uint8_t item_types = 0;
      uint64_t lo = 0, hi = UINT64_MAX;
      for (uint32_t i = node.first; i < node.first + node.count; ++i) {
        const Keyword& k = P.keywords[i];
        if (k.op == Op::MinItems)
          lo = std::max(lo, k.count);
        else if (k.op == Op::MaxItems)
          hi = std::min(hi, k.count);
        else if (k.op == Op::RestItems && k.count == 0 && P.nodes[k.kids[0]].only_types && !item_types)
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
    branches_by_kind();
    return nodes_.at(root);
  }

 private:
  Program& P;
  const Options& opt;
  std::unordered_map<std::string, const Json*> registry_;
  std::unordered_map<const Json*, Info> info_;
  std::unordered_map<std::string, const Json*> resources_;  // absolute URI -> resource root
  std::unordered_map<std::string, const Json*> anchors_;    // URI#name -> subschema
  std::unordered_set<const Json*> indexed_docs_;
  std::vector<const Json*> res_roots_;
  std::vector<std::unordered_map<std::string, const Json*>> dyn_anchor_json_;
  std::unordered_map<const Json*, uint32_t> nodes_;
  std::vector<const Json*> node_json_;
  std::vector<uint32_t> queue_;
  std::unordered_map<std::string, uint32_t> key_ids_;

  [[noreturn]] void error(const std::string& msg, const Info& at, std::string_view kw = {}) {
    std::vector<PathTok> path = tokens(at.path);
    if (!kw.empty()) path.push_back(PathTok::of(kw));
    std::string where = at.doc.empty() ? "" : " in " + at.doc;
    throw SchemaError(msg + " at '" + pointer(path) + "'" + where, path, at.doc);
  }

  uint32_t new_resource(const Json* root) {
    P.resources.emplace_back();
    res_roots_.push_back(root);
    dyn_anchor_json_.emplace_back();
    return (uint32_t)P.resources.size() - 1;
  }

  // The dialect named by `$schema`; custom metaschemas from the registry are accepted when their
  // own `$schema` is an official dialect (their `$vocabulary` may drop the validation keywords).
  Dialect dialect_of(const std::string& uri, Info& at) {
    Dialect d;
    if (dialect_from_name(uri, d)) return d;
    auto it = registry_.find(strip_empty_fragment(uri));
    if (it != registry_.end() && it->second->t == Json::T::Object) {
      const Json* s = it->second->get("$schema");
      if (s && s->t == Json::T::String && dialect_from_name(s->s, d)) {
        if (const Json* voc = it->second->get("$vocabulary")) {
          auto ends = [](const std::string& k, std::string_view tail) {
            return k.size() > tail.size() && k.compare(k.size() - tail.size(), tail.size(), tail) == 0;
          };
          bool has_validation = false;
          for (auto& [k, v] : voc->obj) {
            if (ends(k, "/vocab/validation")) has_validation = true;
            if (ends(k, "/vocab/format-assertion")) at.format_assertion = true;
          }
          at.no_validation = !has_validation;
        }
        return d;
      }
    }
    error("unsupported dialect '" + uri + "'", at, "$schema");
  }

  void index_doc(const Json* root, const std::string& uri, Dialect d) {
    if (!indexed_docs_.insert(root).second) return;
    Info at{uri, d, 0, {}, uri, false};
    resources_.emplace(uri, root);
    walk(root, at, true);
  }

  void walk(const Json* j, Info at, bool resource_root) {
    if (depth_of(at.path) > opt.limits.max_schema_depth)
      error("schema nesting exceeds max_schema_depth=" + std::to_string(opt.limits.max_schema_depth), at);
    if (j->t != Json::T::Object) {
      if (resource_root) at.resource = new_resource(j);
      info_.emplace(j, at);
      return;
    }
    Dialect d = at.dialect;
    const char* id_kw = d == Dialect::Draft4 ? "id" : "$id";
    const Json* id = j->get(id_kw);
    const bool ref_overrides = d <= Dialect::Draft7 && j->get("$ref");
    if (id && (id->t != Json::T::String || ref_overrides)) id = nullptr;
    bool anchor_id = id && d <= Dialect::Draft7 && !id->s.empty() && id->s[0] == '#';
    const Json* sch = j->get("$schema");
    if (sch && sch->t == Json::T::String && (resource_root || (id && !anchor_id))) {
      at.dialect = d = dialect_of(sch->s, at);
      id_kw = d == Dialect::Draft4 ? "id" : "$id";
      id = j->get(id_kw);
      if (id && (id->t != Json::T::String || (d <= Dialect::Draft7 && j->get("$ref")))) id = nullptr;
      anchor_id = id && d <= Dialect::Draft7 && !id->s.empty() && id->s[0] == '#';
    }
    if (id && !anchor_id) {
      std::string full = resolve(at.base, id->s);
      auto [uri, frag] = split_fragment(full);
      at.base = uri;
      resources_[uri] = j;
      resource_root = true;
      if (!frag.empty() && d <= Dialect::Draft7) anchors_[full] = j;
    }
    if (anchor_id) anchors_[at.base + id->s] = j;
    if (resource_root) at.resource = new_resource(j);
    if (d >= Dialect::Draft201909) {
      if (const Json* a = j->get("$anchor"); a && a->t == Json::T::String) anchors_[at.base + "#" + a->s] = j;
      if (d >= Dialect::Draft202012) {
        if (const Json* a = j->get("$dynamicAnchor"); a && a->t == Json::T::String) {
          anchors_[at.base + "#" + a->s] = j;
          dyn_anchor_json_[at.resource][a->s] = j;
        }
      } else if (const Json* ra = j->get("$recursiveAnchor"); ra && ra->t == Json::T::Bool && ra->b && resource_root) {
        P.resources[at.resource].recursive_anchor = true;
      }
    }
    info_.emplace(j, at);
    // Patterns are checked everywhere, also in subschemas no `$ref` reaches.
    if (const Json* p = j->get("pattern"); p && p->t == Json::T::String && !Regex::is_valid(p->s))
      error("invalid regular expression '" + p->s + "'", at, "pattern");
    if (const Json* pp = j->get("patternProperties"); pp && pp->t == Json::T::Object)
      for (auto& [k, v] : pp->obj)
        if (!Regex::is_valid(k)) error("invalid regular expression '" + k + "'", at, "patternProperties");
    const PathRef parent = at.path;
    for (auto& [k, v] : j->obj) {
      if (is_schema_kw_array(k, d) && v.t == Json::T::Array) {
        PathRef kp = extend(parent, PathTok::of(k));
        for (size_t i = 0; i < v.arr.size(); ++i) {
          at.path = extend(kp, PathTok::at(i));
          walk(&v.arr[i], at, false);
        }
      } else if (is_schema_kw_map(k, d) && v.t == Json::T::Object) {
        PathRef kp = extend(parent, PathTok::of(k));
        for (auto& [k2, v2] : v.obj) {
          if (v2.t != Json::T::Object && v2.t != Json::T::Bool) continue;
          at.path = extend(kp, PathTok::of(k2));
          walk(&v2, at, false);
        }
      } else if (is_schema_kw_single(k, d) && (v.t == Json::T::Object || v.t == Json::T::Bool)) {
        at.path = extend(parent, PathTok::of(k));
        walk(&v, at, false);
      }
    }
  }

  const Json* find_resource(const std::string& uri, const Info& from, std::string_view kw) {
    auto it = resources_.find(uri);
    if (it != resources_.end()) return it->second;
    auto reg = registry_.find(uri);
    if (reg != registry_.end()) {
      index_doc(reg->second, uri, from.dialect);
      return reg->second;
    }
    for (auto& [muri, text] : metaschemas()) {
      if (muri == uri) {
        P.docs.push_back(std::make_unique<Json>(parse_json(text)));
        Dialect d;
        dialect_from_name(uri, d);
        index_doc(P.docs.back().get(), uri, d);
        return P.docs.back().get();
      }
    }
    // An embedded `$id` of a registry document not indexed yet.
    for (auto& [ruri, doc] : registry_) index_doc(doc, ruri, from.dialect);
    it = resources_.find(uri);
    if (it != resources_.end()) return it->second;
    error("unresolvable reference '" + uri + "' (not in the schema, the registry or the metaschemas)", from, kw);
  }

  const Json* resolve_ref(const std::string& ref, const Info& from, std::string_view kw) {
    std::string full = resolve(from.base, ref);
    auto [uri, frag] = split_fragment(full);
    const Json* root = find_resource(uri, from, kw);
    if (frag.empty()) return root;
    frag = percent_decode(frag);
    if (frag[0] != '/') {
      auto it = anchors_.find(uri + "#" + frag);
      if (it == anchors_.end()) error("unresolvable reference '" + full + "' (no such anchor)", from, kw);
      return it->second;
    }
    // JSON Pointer walk; subschemas outside known keywords are indexed on the way.
    const Json* cur = root;
    const Info* last = &info_.at(root);
    std::vector<PathTok> rel;
    size_t pos = 1;
    while (pos <= frag.size()) {
      size_t end = frag.find('/', pos);
      if (end == std::string::npos) end = frag.size();
      std::string tok;
      for (size_t i = pos; i < end; ++i) {
        if (frag[i] == '~' && i + 1 < end) {
          tok += frag[i + 1] == '1' ? '/' : '~';
          ++i;
        } else {
          tok += frag[i];
        }
      }
      pos = end + 1;
      const Json* next = nullptr;
      if (cur->t == Json::T::Object) {
        next = cur->get(tok);
        rel.push_back(PathTok::of(tok));
      } else if (cur->t == Json::T::Array && !tok.empty() && std::all_of(tok.begin(), tok.end(), ::isdigit)) {
        size_t i = std::stoul(tok);
        if (i < cur->arr.size()) next = &cur->arr[i];
        rel.push_back(PathTok::at(i));
      }
      if (!next) error("unresolvable reference '" + full + "' (no such location)", from, kw);
      cur = next;
      auto it = info_.find(cur);
      if (it != info_.end()) {
        last = &it->second;
        rel.clear();
      }
    }
    if (!info_.count(cur)) {
      Info at = *last;
      for (auto& t : rel) at.path = extend(at.path, t);
      walk(cur, at, false);
    }
    return cur;
  }

  uint32_t node_for(const Json* j) {
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

  void drain() {
    while (!queue_.empty()) {
      uint32_t n = queue_.back();
      queue_.pop_back();
      compile_node(n);
    }
  }

  uint32_t key_id(const std::string& k) {
    auto [it, fresh] = key_ids_.emplace(k, (uint32_t)P.keys.size());
    if (fresh) {
      P.keys.push_back(k);
      P.key_hashes.push_back(hash_key(k));
    }
    return it->second;
  }

  uint32_t child(const Json* j, const Info& parent, std::initializer_list<PathTok> toks) {
    if (!info_.count(j)) {
      // Reached through a keyword the index does not know (e.g. a dialect mismatch): index now.
      Info at = parent;
      for (auto& t : toks) at.path = extend(at.path, t);
      walk(j, at, false);
    }
    return node_for(j);
  }

  uint64_t count_of(const Json& v, const Info& at, std::string_view kw) {
    Num n = num_of(v);
    if (!(v.t == Json::T::Int || v.t == Json::T::UInt || v.t == Json::T::Float || v.t == Json::T::BigInt) ||
        !n.is_integer() || n.approx() < 0)
      error("'" + std::string(kw) + "' must be a non-negative integer", at, kw);
    return n.approx() > 1e18 ? (uint64_t)1e18 : (uint64_t)n.approx();
  }

  Num number_of(const Json& v, const Info& at, std::string_view kw) {
    if (!(v.t == Json::T::Int || v.t == Json::T::UInt || v.t == Json::T::Float || v.t == Json::T::BigInt))
      error("'" + std::string(kw) + "' must be a number", at, kw);
    return num_of(v);
  }

  uint32_t regex(const std::string& pattern, const Info& at, std::string_view kw) {
    try {
      P.regexes.emplace_back(pattern);
    } catch (const RegexError& e) {
      error("invalid regular expression '" + pattern + "' (" + e.what() + ")", at, kw);
    }
    return (uint32_t)P.regexes.size() - 1;
  }

  static uint8_t type_bit(const std::string& t) {
    if (t == "null") return kNull;
    if (t == "boolean") return kBool;
    if (t == "object") return kObject;
    if (t == "array") return kArray;
    if (t == "number") return kNumber;
    if (t == "string") return kString;
    if (t == "integer") return kInteger;
    return 0;
  }

  void compile_node(uint32_t n) {
    const Json* j = node_json_[n];
    const Info& at = info_.at(j);  // stable: unordered_map nodes do not move
    Node node;
    node.resource = at.resource;
    if (j->t == Json::T::Bool) {
      node.boolean = j->b;
      P.nodes[n] = node;
      return;
    }
    if (j->t != Json::T::Object) error("a schema must be an object or a boolean", at);
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
      if (v.t != Json::T::String) error("'" + std::string(name) + "' must be a string", at, name);
      const Json* target = resolve_ref(v.s, at, name);
      return target;
    };
    const Json* ref = j->get("$ref");
    if (d <= Dialect::Draft7 && ref) {  // `$ref` siblings are ignored before 2019-09
      Keyword k = kw(Op::Ref, "$ref", ref);
      k.kids.push_back(node_for(ref_to("$ref", *ref)));
      kws.push_back(std::move(k));
    } else {
      Keyword props = kw(Op::Props, "properties", nullptr);
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
          auto [u, frag] = split_fragment(resolve(at.base, v.s));
          const Json* da = target->t == Json::T::Object ? target->get("$dynamicAnchor") : nullptr;
          if (!frag.empty() && frag[0] != '/' && da && da->t == Json::T::String && da->s == frag) {
            x.dynamic = true;
            x.anchor = frag;
            P.dynamic = true;
          }
          kws.push_back(std::move(x));
        } else if (k == "$recursiveRef" && d == Dialect::Draft201909) {
          const Json* target = ref_to(k, v);
          Keyword x = kw(Op::RecursiveRef, k, &v);
          x.kids.push_back(node_for(target));
          const Json* ra = target->t == Json::T::Object ? target->get("$recursiveAnchor") : nullptr;
          if (ra && ra->t == Json::T::Bool && ra->b) {
            x.dynamic = true;
            P.dynamic = true;
          }
          kws.push_back(std::move(x));
        } else if (k == "type") {
          Keyword x = kw(Op::Type, k, &v);
          auto add = [&](const Json& t) {
            uint8_t b = t.t == Json::T::String ? type_bit(t.s) : 0;
            if (!b) error("unknown type " + t.dump(), at, k);
            x.types |= b;
          };
          if (v.t == Json::T::Array)
            for (auto& t : v.arr) add(t);
          else
            add(v);
          x.exclusive = d == Dialect::Draft4;  // there, 1.0 is a number but not an integer
          kws.push_back(std::move(x));
        } else if (k == "enum") {
          if (v.t != Json::T::Array) error("'enum' must be an array", at, k);
          Keyword x = kw(Op::Enum, k, &v);
          for (auto& c : v.arr) x.consts.push_back(&c);
          if (x.consts.size() > kLinearEnum) {
            for (uint32_t i = 0; i < x.consts.size(); ++i)
              x.const_hashes.emplace_back(json_hash<JsonView>({}, x.consts[i], 0, opt.limits.max_instance_depth), i);
            std::sort(x.const_hashes.begin(), x.const_hashes.end());
          }
          kws.push_back(std::move(x));
        } else if (k == "const" && d >= Dialect::Draft6) {
          Keyword x = kw(Op::Const, k, &v);
          x.consts.push_back(&v);
          kws.push_back(std::move(x));
        } else if (k == "multipleOf") {
          Keyword x = kw(Op::MultipleOf, k, &v);
          x.num = number_of(v, at, k);
          if (compare(x.num, Num{}) <= 0) error("'multipleOf' must be greater than 0", at, k);
          kws.push_back(std::move(x));
        } else if (k == "maximum" || k == "minimum") {
          Keyword x = kw(k == "maximum" ? Op::Maximum : Op::Minimum, k, &v);
          x.num = number_of(v, at, k);
          if (d == Dialect::Draft4) {
            const Json* e = j->get(k == "maximum" ? "exclusiveMaximum" : "exclusiveMinimum");
            x.exclusive = e && e->t == Json::T::Bool && e->b;
          }
          kws.push_back(std::move(x));
        } else if ((k == "exclusiveMaximum" || k == "exclusiveMinimum") && d >= Dialect::Draft6) {
          Keyword x = kw(k == "exclusiveMaximum" ? Op::Maximum : Op::Minimum, k, &v);
          x.num = number_of(v, at, k);
          x.exclusive = true;
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
          x.count = count_of(v, at, k);
          kws.push_back(std::move(x));
        } else if (k == "pattern") {
          if (v.t != Json::T::String) error("'pattern' must be a string", at, k);
          Keyword x = kw(Op::Pattern, k, &v);
          x.regex = regex(v.s, at, k);
          kws.push_back(std::move(x));
        } else if (k == "format") {
          if ((opt.formats || at.format_assertion) && v.t == Json::T::String) {
            if (auto f = formats::find(v.s)) {
              Keyword x = kw(Op::Format, k, &v);
              x.format = f;
              kws.push_back(std::move(x));
            }
          }
        } else if (k == "items") {
          if (v.t == Json::T::Array && d <= Dialect::Draft201909) {
            Keyword x = kw(Op::PrefixItems, k, &v);
            for (size_t i = 0; i < v.arr.size(); ++i)
              x.kids.push_back(child(&v.arr[i], at, {PathTok::of(k), PathTok::at(i)}));
            kws.push_back(std::move(x));
            if (const Json* ai = j->get("additionalItems")) {
              Keyword y = kw(Op::RestItems, "additionalItems", ai);
              y.count = v.arr.size();
              y.kids.push_back(child(ai, at, {PathTok::of("additionalItems")}));
              kws.push_back(std::move(y));
            }
          } else {
            Keyword x = kw(Op::RestItems, k, &v);
            const Json* pi = d >= Dialect::Draft202012 ? j->get("prefixItems") : nullptr;
            x.count = pi && pi->t == Json::T::Array ? pi->arr.size() : 0;
            x.kids.push_back(child(&v, at, {PathTok::of(k)}));
            kws.push_back(std::move(x));
          }
        } else if (k == "prefixItems" && d >= Dialect::Draft202012) {
          if (v.t != Json::T::Array) error("'prefixItems' must be an array", at, k);
          Keyword x = kw(Op::PrefixItems, k, &v);
          for (size_t i = 0; i < v.arr.size(); ++i)
            x.kids.push_back(child(&v.arr[i], at, {PathTok::of(k), PathTok::at(i)}));
          kws.push_back(std::move(x));
        } else if (k == "contains" && d >= Dialect::Draft6) {
          Keyword x = kw(Op::Contains, k, &v);
          x.kids.push_back(child(&v, at, {PathTok::of(k)}));
          x.count = 1;
          x.annotate = d >= Dialect::Draft202012;
          if (d >= Dialect::Draft201909 && !at.no_validation) {
            if (const Json* mn = j->get("minContains")) x.count = count_of(*mn, at, "minContains");
            if (const Json* mx = j->get("maxContains")) x.max = (int64_t)count_of(*mx, at, "maxContains");
          }
          kws.push_back(std::move(x));
        } else if (k == "uniqueItems") {
          if (v.t == Json::T::Bool && v.b) kws.push_back(kw(Op::UniqueItems, k, &v));
        } else if (k == "required") {
          if (v.t != Json::T::Array) {
            if (d == Dialect::Draft4 || v.t != Json::T::Bool) error("'required' must be an array", at, k);
            continue;
          }
          Keyword x = kw(Op::Required, k, &v);
          for (auto& r : v.arr) {
            if (r.t != Json::T::String) error("'required' must list strings", at, k);
            x.keys.push_back(key_id(r.s));
          }
          if (!x.keys.empty()) kws.push_back(std::move(x));
        } else if (k == "properties" || k == "patternProperties" || k == "additionalProperties") {
          if (props_at < 0) props_at = (int)kws.size();
          if (k == "additionalProperties") {
            props.additional = child(&v, at, {PathTok::of(k)});
          } else {
            if (v.t != Json::T::Object) error("'" + std::string(k) + "' must be an object", at, k);
            for (auto& [pk, pv] : v.obj) {
              uint32_t c = child(&pv, at, {PathTok::of(k), PathTok::of(pk)});
              if (k == "properties")
                props.props.emplace_back(key_id(pk), c);
              else
                props.patterns.emplace_back(regex(pk, at, k), c);
            }
          }
        } else if (k == "propertyNames" && d >= Dialect::Draft6) {
          Keyword x = kw(Op::PropertyNames, k, &v);
          x.kids.push_back(child(&v, at, {PathTok::of(k)}));
          kws.push_back(std::move(x));
        } else if (k == "dependencies" || k == "dependentRequired" || k == "dependentSchemas") {
          if (d < Dialect::Draft201909 && k != "dependencies") continue;
          if (v.t != Json::T::Object) error("'" + std::string(k) + "' must be an object", at, k);
          Keyword req = kw(Op::DependentRequired, k, &v), sch = kw(Op::DependentSchemas, k, &v);
          for (auto& [dk, dv] : v.obj) {
            if (dv.t == Json::T::Array && k != "dependentSchemas") {
              std::vector<uint32_t> deps;
              for (auto& s : dv.arr) {
                if (s.t != Json::T::String) error("dependencies must list strings", at, k);
                deps.push_back(key_id(s.s));
              }
              req.keys.push_back(key_id(dk));
              req.dep_keys.push_back(std::move(deps));
            } else if (k != "dependentRequired") {
              sch.keys.push_back(key_id(dk));
              sch.kids.push_back(child(&dv, at, {PathTok::of(k), PathTok::of(dk)}));
            } else {
              error("'dependentRequired' values must be arrays", at, k);
            }
          }
          if (!req.keys.empty()) kws.push_back(std::move(req));
          if (!sch.keys.empty()) kws.push_back(std::move(sch));
        } else if (k == "allOf" || k == "anyOf" || k == "oneOf") {
          if (v.t != Json::T::Array || v.arr.empty())
            error("'" + std::string(k) + "' must be a non-empty array", at, k);
          Keyword x = kw(k == "allOf" ? Op::AllOf : k == "anyOf" ? Op::AnyOf : Op::OneOf, k, &v);
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
          if (th) x.then_ = child(th, at, {PathTok::of("then")});
          if (el) x.else_ = child(el, at, {PathTok::of("else")});
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
        while (cap < props.props.size() * 2) cap *= 2;
        props.slots.assign(cap, -1);
        for (size_t i = 0; i < props.props.size(); ++i) {
          uint64_t h = P.key_hashes[props.props[i].first];
          size_t s = h & (cap - 1);
          while (props.slots[s] >= 0) s = (s + 1) & (cap - 1);
          props.slots[s] = (int32_t)i;
          props.prop_lengths |= uint64_t{1} << (P.keys[props.props[i].first].size() & 63);
        }
        // Required names that are declared properties are checked by the same lookups.
        props.prop_required.assign(props.props.size(), 0);
        for (auto it = kws.begin(); it != kws.end(); ++it) {
          if (it->op != Op::Required) continue;
          std::vector<uint32_t> rest;
          for (uint32_t key : it->keys) {
            auto pos = std::find_if(props.props.begin(), props.props.end(), [&](auto& p) { return p.first == key; });
            if (pos == props.props.end()) {
              rest.push_back(key);
            } else if (!props.prop_required[pos - props.props.begin()]) {
              props.prop_required[pos - props.props.begin()] = ++props.n_required;
              props.required_value = it->value;
            }
          }
          it->keys = std::move(rest);
          if (it->keys.empty()) {
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
      if (it->op == Op::Type && !it->exclusive) {
        node.types = it->types;
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

  static bool is_simple(Op op) {
    switch (op) {
      case Op::Type:
      case Op::Enum:
      case Op::Const:
      case Op::MultipleOf:
      case Op::Minimum:
      case Op::Maximum:
      case Op::MinLength:
      case Op::MaxLength:
      case Op::Pattern:
      case Op::Format:
      case Op::MinItems:
      case Op::MaxItems:
      case Op::UniqueItems:
      case Op::MinProperties:
      case Op::MaxProperties:
      case Op::Required:
      case Op::DependentRequired: return true;
      default: return false;
    }
  }

  // A subschema that is only a `$ref` adds nothing but a step (schema paths skip `$ref`), so
  // edges point at its target directly. Not with dynamic references, whose scope it may enter.
  void skip_pure_refs() {
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
      for (auto& pr : k.props) fix(pr.second);
      for (auto& pt : k.patterns) fix(pt.second);
      fix64(k.additional);
      fix64(k.then_);
      fix64(k.else_);
    }
    nodes_[node_json_[0]] = target(nodes_.at(node_json_[0]));
  }

  // Node::bounded for a simple node whose keywords are only integer minimum/maximum (exclusive
  // bounds made inclusive) and minLength/maxLength.
  void bound_leaf(Node& node) {
    if (!node.simple || node.count == 0) return;
    Node b;
    for (uint32_t i = node.first; i < node.first + node.count; ++i) {
      const Keyword& k = P.keywords[i];
      if (k.op == Op::MinLength) {
        b.min_length = std::max(b.min_length, k.count);
      } else if (k.op == Op::MaxLength) {
        b.max_length = std::min(b.max_length, k.count);
      } else if ((k.op == Op::Minimum || k.op == Op::Maximum) && k.num.k == Num::I) {
        const bool min = k.op == Op::Minimum;
        int64_t x = k.num.i;
        if (k.exclusive) {
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
    node.bounded = true;
    node.int_min = b.int_min;
    node.int_max = b.int_max;
    node.min_length = b.min_length;
    node.max_length = b.max_length;
  }

  // For verdicts: a node that is only an `anyOf` of bare types is their union (`only_types`); one
  // that is only `anyOf: [X, {"type": "null"}]` (an optional value) is null or X (`or_null`).
  // Errors still come from the anyOf.
  void shortcut_optional_values() {
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

  // anyOf/oneOf whose branches declare types: for a kind of instance that only one branch
  // admits, that branch alone decides (the others fail on their type).
  void branches_by_kind() {
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
      if ((k.op != Op::AnyOf && k.op != Op::OneOf) || k.kids.size() > 0x7fff) continue;
      std::array<int, 6> count{};
      std::array<int16_t, 6> only{};
      for (size_t i = 0; i < k.kids.size(); ++i) {
        unsigned m = kinds(k.kids[i]);
        for (int kind = 0; kind < 6; ++kind)
          if (m >> kind & 1) ++count[kind], only[kind] = (int16_t)i;
      }
      for (int kind = 0; kind < 6; ++kind) k.by_kind[kind] = count[kind] == 0 ? -2 : count[kind] == 1 ? only[kind] : -1;
    }
    // A node that is nothing but such a keyword goes straight to the branch (not with dynamic
    // references: the node may open a resource of the dynamic scope).
    for (auto& node : P.nodes) {
      if (P.dynamic || node.boolean >= 0 || node.tracks || node.types || node.count != 1) continue;
      const Keyword& k = P.keywords[node.first];
      if ((k.op == Op::AnyOf || k.op == Op::OneOf) &&
          std::any_of(k.by_kind.begin(), k.by_kind.end(), [](int16_t b) { return b >= 0; }))
        node.select = (int32_t)node.first;
    }
  }

  void find_discriminators() {
    for (auto& node : P.nodes) {
      if (node.boolean >= 0) continue;
      const Keyword* props = nullptr;
      std::vector<uint32_t> required;
      for (uint32_t i = node.first; i < node.first + node.count; ++i) {
        const Keyword& k = P.keywords[i];
        if (k.op == Op::Props) {
          props = &k;
          for (size_t j = 0; j < k.props.size(); ++j)
            if (k.prop_required[j]) required.push_back(k.props[j].first);
        }
        if (k.op == Op::Required) required.insert(required.end(), k.keys.begin(), k.keys.end());
      }
      if (!props) continue;
      for (auto [key, kid] : props->props) {
        const Node& c = P.nodes[kid];
        const Keyword* pin = nullptr;
        for (uint32_t i = c.first; c.boolean < 0 && i < c.first + c.count; ++i) {
          const Keyword& k = P.keywords[i];
          if ((k.op == Op::Const || k.op == Op::Enum) && k.consts.size() <= 16 &&
              std::all_of(k.consts.begin(), k.consts.end(), [](const Json* x) { return x->t == Json::T::String; }))
            pin = &k;
        }
        if (!pin) continue;
        node.disc_key = (int32_t)key;
        for (const Json* x : pin->consts) node.disc_values.push_back(x->s);
        node.disc_required = std::find(required.begin(), required.end(), key) != required.end();
        break;
      }
    }
    for (auto& k : P.keywords) {
      if (k.op != Op::AnyOf && k.op != Op::OneOf) continue;
      for (uint32_t kid : k.kids)
        if (P.nodes[kid].disc_key >= 0) {
          k.disc_key = P.nodes[kid].disc_key;
          break;
        }
      if (k.disc_key < 0) continue;
      for (uint32_t i = 0; i < k.kids.size(); ++i) {
        const Node& c = P.nodes[k.kids[i]];
        if (c.disc_key != k.disc_key)
          k.disc_rest.push_back(i);
        else
          for (std::string_view s : c.disc_values) k.disc_table.emplace_back(s, i);
      }
      std::sort(k.disc_table.begin(), k.disc_table.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? shorter_or_less(a.first, b.first) : a.second < b.second;
      });
      k.disc_table.erase(std::unique(k.disc_table.begin(), k.disc_table.end()), k.disc_table.end());
    }
  }

  // The root's resource is always the outermost dynamic scope, so a `$dynamicRef` to an anchor
  // that the root resource declares always lands there: resolve it now. When no dynamic reference
  // is left (e.g. in the 2020-12 metaschema), evaluation needs no dynamic scope.
  void resolve_outermost_dynamic_refs(uint32_t root) {
    const auto& anchors = P.resources[P.nodes[root].resource].dynamic_anchors;
    bool dynamic = false;
    for (Keyword& k : P.keywords) {
      if (!k.dynamic) continue;
      auto it = k.op == Op::DynamicRef ? anchors.find(k.anchor) : anchors.end();
      if (it == anchors.end()) {
        dynamic = true;
        continue;
      }
      k.kids[0] = it->second;
      k.dynamic = false;
    }
    P.dynamic = dynamic;
  }

  // A subschema that reaches itself through keywords that apply to the same instance
  // ($ref, allOf, ...) would recurse forever: reject it here.
  void check_cycles() {
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
          case Op::IfThenElse:
            edges[n].push_back(k.kids[0]);
            if (k.then_ >= 0) edges[n].push_back((uint32_t)k.then_);
            if (k.else_ >= 0) edges[n].push_back((uint32_t)k.else_);
            break;
          case Op::DynamicRef:
          case Op::RecursiveRef: {
            edges[n].push_back(k.kids[0]);
            if (!k.dynamic) break;
            auto& more = k.op == Op::DynamicRef ? by_anchor[k.anchor] : recursive_roots;
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
};

std::shared_ptr<const Program> compile_unchecked(Json schema, const Options& options) {
  auto p = std::make_shared<Program>();
  p->limits = options.limits;
  p->docs.push_back(std::make_unique<Json>(std::move(schema)));
  Compiler c(*p, options);
  p->root = c.compile_root(p->docs.front().get());
  return p;
}

const Program& metaschema_program(Dialect d) {
  static std::mutex mu;
  static std::shared_ptr<const Program> cache[5];
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = cache[(int)d];
  if (!slot) {
    static const char* uris[] = {"http://json-schema.org/draft-04/schema", "http://json-schema.org/draft-06/schema",
                                 "http://json-schema.org/draft-07/schema",
                                 "https://json-schema.org/draft/2019-09/schema",
                                 "https://json-schema.org/draft/2020-12/schema"};
    for (auto& [uri, text] : metaschemas()) {
      if (uri == uris[(int)d]) {
        Options o;
        o.default_dialect = d;
        slot = compile_unchecked(parse_json(text), o);
      }
    }
  }
  return *slot;
}

}  // namespace

std::shared_ptr<const Program> compile(Json schema, const Options& options) {
  // The root's dialect decides which metaschema checks the document.
  Dialect d = options.default_dialect;
  if (schema.t == Json::T::Object) {
    if (const Json* s = schema.get("$schema"); s && s->t == Json::T::String && !dialect_from_name(s->s, d)) {
      // A custom metaschema: its own `$schema` names the dialect (checked by the compiler).
      for (auto& [uri, doc] : options.registry)
        if (strip_empty_fragment(uri) == strip_empty_fragment(s->s) && doc.t == Json::T::Object)
          if (const Json* ms = doc.get("$schema"); ms && ms->t == Json::T::String) dialect_from_name(ms->s, d);
    }
  }
  const Program& meta = metaschema_program(d);
  JsonView::Env env;
  Counters counters;
  Evaluator<JsonView, false> quick(meta, env, counters);
  bool valid;
  try {
    valid = quick.run(&schema);
  } catch (const LimitError& e) {
    throw SchemaError(std::string("schema exceeds the limits: ") + e.what(), {});
  }
  if (!valid) {
    Counters c2;
    Evaluator<JsonView, true> full(meta, env, c2);
    full.run(&schema);
    std::string msg = std::string("schema is invalid under the ") + dialect_name(d) + " metaschema";
    std::vector<PathTok> path;
    if (!full.errors.empty()) {
      // The deepest error is the most specific one.
      auto& e = *std::max_element(full.errors.begin(), full.errors.end(),
                                  [](auto& a, auto& b) { return a.instance_path.size() < b.instance_path.size(); });
      path = e.instance_path;
      auto brief = [](std::string t) { return t.size() > 60 ? t.substr(0, 57) + "..." : t; };
      msg += ": " + brief(e.instance->dump()) + " fails '" + e.keyword + "'";
      if (e.value) msg += " " + brief(e.value->dump());
    }
    throw SchemaError(msg + " at '" + pointer(path) + "'", path);
  }
  return compile_unchecked(std::move(schema), options);
}

}  // namespace mcp_native::schema
