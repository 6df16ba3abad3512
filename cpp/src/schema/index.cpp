// Indexing schema documents: resources (`$id`), anchors, dialects, and `$ref` resolution to the
// subschema it names (in the document, the registry or the embedded metaschemas).
#include <algorithm>

#include "schema/compiler.hpp"
#include "schema/uri.hpp"

namespace mcp_native::schema {
namespace {

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

}  // namespace

Compiler::Compiler(Program& p, const Options& o) : P(p), opt(o) {
  for (auto& [uri, doc] : o.registry) {
    P.docs.push_back(std::make_unique<Json>(doc));
    // Keyed as references resolve (IRIs mapped, dot segments removed), so that they meet.
    registry_[uri::resolve("", uri).value_or(uri::strip_empty_fragment(uri))] = P.docs.back().get();
  }
}

uint32_t Compiler::new_resource(const Json* root) {
  P.resources.emplace_back();
  res_roots_.push_back(root);
  dyn_anchor_json_.emplace_back();
  return (uint32_t)P.resources.size() - 1;
}

// The dialect named by `$schema`; custom metaschemas from the registry are accepted when their
// own `$schema` is an official dialect (their `$vocabulary` may drop the validation keywords).
Dialect Compiler::dialect_of(const std::string& uri, Info& at) {
  Dialect d;
  if (dialect_from_name(uri, d)) return d;
  auto it = registry_.find(uri::strip_empty_fragment(uri));
  if (it != registry_.end() && it->second->type == Json::Type::Object) {
    const Json* s = it->second->get("$schema");
    if (s && s->type == Json::Type::String && dialect_from_name(s->text, d)) {
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

void Compiler::index_doc(const Json* root, const std::string& uri, Dialect d) {
  if (!indexed_docs_.insert(root).second) return;
  Info at{uri, d, 0, {}, uri, false};
  resources_.emplace(uri, root);
  walk(root, at, true);
}

void Compiler::walk(const Json* j, Info at, bool resource_root) {
  if (depth_of(at.path) > opt.limits.max_schema_depth)
    error("schema nesting exceeds max_schema_depth=" + std::to_string(opt.limits.max_schema_depth), at);
  if (j->type != Json::Type::Object) {
    if (resource_root) at.resource = new_resource(j);
    info_.emplace(j, at);
    return;
  }
  Dialect d = at.dialect;
  const char* id_kw = d == Dialect::Draft4 ? "id" : "$id";
  const Json* id = j->get(id_kw);
  const bool ref_overrides = d <= Dialect::Draft7 && j->get("$ref");
  if (id && (id->type != Json::Type::String || ref_overrides)) id = nullptr;
  bool anchor_id = id && d <= Dialect::Draft7 && !id->text.empty() && id->text[0] == '#';
  const Json* sch = j->get("$schema");
  if (sch && sch->type == Json::Type::String && (resource_root || (id && !anchor_id))) {
    at.dialect = d = dialect_of(sch->text, at);
    id_kw = d == Dialect::Draft4 ? "id" : "$id";
    id = j->get(id_kw);
    if (id && (id->type != Json::Type::String || (d <= Dialect::Draft7 && j->get("$ref")))) id = nullptr;
    anchor_id = id && d <= Dialect::Draft7 && !id->text.empty() && id->text[0] == '#';
  }
  if (id && !anchor_id) {
    std::optional<std::string> resolved = uri::resolve(at.base, id->text);
    if (!resolved) error("'" + id->text + "' is not a URI reference", at, id_kw);
    std::string full = std::move(*resolved);
    auto [uri, frag] = uri::split_fragment(full);
    at.base = uri;
    // The first declaration of a URI keeps it: a document that repeats its `$id` inside (an error
    // the spec leaves undefined) still resolves the URI to its root, as a Validator of it applies.
    resources_.emplace(uri, j);
    resource_root = true;
    if (!frag.empty() && d <= Dialect::Draft7) anchors_[full] = j;
  }
  if (anchor_id) anchors_[at.base + id->text] = j;
  if (resource_root) at.resource = new_resource(j);
  if (d >= Dialect::Draft201909) {
    if (const Json* a = j->get("$anchor"); a && a->type == Json::Type::String) anchors_[at.base + "#" + a->text] = j;
    if (d >= Dialect::Draft202012) {
      if (const Json* a = j->get("$dynamicAnchor"); a && a->type == Json::Type::String) {
        anchors_[at.base + "#" + a->text] = j;
        dyn_anchor_json_[at.resource][a->text] = j;
      }
    } else if (const Json* ra = j->get("$recursiveAnchor");
               ra && ra->type == Json::Type::Bool && ra->boolean && resource_root) {
      P.resources[at.resource].recursive_anchor = true;
    }
  }
  info_.emplace(j, at);
  // Patterns are checked everywhere, also in subschemas no `$ref` reaches.
  if (const Json* p = j->get("pattern"); p && p->type == Json::Type::String && !Regex::is_valid(p->text))
    error("invalid regular expression '" + p->text + "'", at, "pattern");
  if (const Json* pp = j->get("patternProperties"); pp && pp->type == Json::Type::Object)
    for (auto& [k, v] : pp->obj)
      if (!Regex::is_valid(k)) error("invalid regular expression '" + k + "'", at, "patternProperties");
  const PathRef parent = at.path;
  for (auto& [k, v] : j->obj) {
    if (is_schema_kw_array(k, d) && v.type == Json::Type::Array) {
      PathRef kp = extend(parent, PathTok::of(k));
      for (size_t i = 0; i < v.arr.size(); ++i) {
        at.path = extend(kp, PathTok::at(i));
        walk(&v.arr[i], at, false);
      }
    } else if (is_schema_kw_map(k, d) && v.type == Json::Type::Object) {
      PathRef kp = extend(parent, PathTok::of(k));
      for (auto& [k2, v2] : v.obj) {
        if (v2.type != Json::Type::Object && v2.type != Json::Type::Bool) continue;
        at.path = extend(kp, PathTok::of(k2));
        walk(&v2, at, false);
      }
    } else if (is_schema_kw_single(k, d) && (v.type == Json::Type::Object || v.type == Json::Type::Bool)) {
      at.path = extend(parent, PathTok::of(k));
      walk(&v, at, false);
    }
  }
}

const Json* Compiler::find_resource(const std::string& uri, const Info& from, std::string_view kw) {
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

const Json* Compiler::resolve_ref(const std::string& ref, const Info& from, std::string_view kw) {
  std::optional<std::string> resolved = uri::resolve(from.base, ref);
  if (!resolved) error("'" + ref + "' is not a URI reference", from, kw);
  std::string full = std::move(*resolved);
  auto [uri, frag] = uri::split_fragment(full);
  const Json* root = find_resource(uri, from, kw);
  if (frag.empty()) return root;
  frag = uri::percent_decode(frag);
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
    if (cur->type == Json::Type::Object) {
      next = cur->get(tok);
      rel.push_back(PathTok::of(tok));
    } else if (cur->type == Json::Type::Array && !tok.empty() && std::all_of(tok.begin(), tok.end(), ::isdigit)) {
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

}  // namespace mcp_native::schema
