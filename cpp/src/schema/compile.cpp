// Compiling schema documents into a Program: the entry points, the order of the compiler's
// passes, and the check of each document against its dialect's metaschema.
#include <algorithm>
#include <memory>
#include <mutex>

#include "schema/compiler.hpp"
#include "schema/uri.hpp"

namespace mcp_native::schema {

[[noreturn]] void Compiler::error(const std::string& msg, const Info& at, std::string_view kw) {
  std::vector<PathTok> path = tokens(at.path);
  if (!kw.empty()) path.push_back(PathTok::of(kw));
  std::string where = at.doc.empty() ? "" : " in " + at.doc;
  throw SchemaError(msg + " at '" + pointer(path) + "'" + where, path, at.doc);
}

uint32_t Compiler::compile_root(const Json* root) {
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
  drop_true_additional();
  mark_fast_paths();
  return nodes_.at(root);
}

namespace {

std::shared_ptr<const Program> compile_unchecked(Json schema, const Options& options) {
  auto p = std::make_shared<Program>();
  p->limits = options.limits;
  p->docs.push_back(std::make_unique<Json>(std::move(schema)));
  Compiler c(*p, options);
  p->root = c.compile_root(p->docs.front().get());
  return p;
}

const Program& metaschema_program(Dialect d) {
  // Locked (cold: once per compile): a slot is filled once under `mu` and never replaced, so the
  // Program returned is immutable and read by any thread after the lock is gone.
  static std::mutex mu;
  static std::shared_ptr<const Program> cache[5];
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = cache[(int)d];
  if (!slot) {
    static const char* const uris[] = {
        "http://json-schema.org/draft-04/schema", "http://json-schema.org/draft-06/schema",
        "http://json-schema.org/draft-07/schema", "https://json-schema.org/draft/2019-09/schema",
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
  if (schema.type == Json::Type::Object) {
    if (const Json* s = schema.get("$schema"); s && s->type == Json::Type::String && !dialect_from_name(s->text, d)) {
      // A custom metaschema: its own `$schema` names the dialect (checked by the compiler).
      for (auto& [uri, doc] : options.registry)
        if (uri::strip_empty_fragment(uri) == uri::strip_empty_fragment(s->text) && doc.type == Json::Type::Object)
          if (const Json* ms = doc.get("$schema"); ms && ms->type == Json::Type::String) dialect_from_name(ms->text, d);
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
    // The deepest error is the most specific one; one that can be said in the schema author's
    // words (metaschema_message) comes first.
    std::stable_sort(full.errors.begin(), full.errors.end(),
                     [](auto& a, auto& b) { return a.instance_path.size() > b.instance_path.size(); });
    for (auto& e : full.errors)
      if (std::optional<MetaschemaMessage> m = metaschema_message(e))
        throw SchemaError(m->text + (m->path.empty() ? "" : " at " + pointer(m->path)), m->path);
    std::string msg = std::string("schema is invalid under the ") + dialect_name(d) + " metaschema";
    std::vector<PathTok> path;
    if (!full.errors.empty()) {
      auto& e = full.errors.front();
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
