// The schema compiler's internals, shared by its four parts: compile.cpp (the entry points and
// the order of the passes), index.cpp (documents, resources, anchors, `$ref` resolution),
// keywords.cpp (one Node and its Keywords per subschema, per dialect) and passes.cpp (the
// rewrites and fast-path flags decided once the whole program is known).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "mcp_native/schema/evaluator.hpp"

namespace mcp_native::schema {

// A location in a schema document. Locations share their prefixes (a child's is its parent's
// plus one token), so recording one per subschema copies no tokens.
struct PathLink;
using PathRef = std::shared_ptr<const PathLink>;
struct PathLink {
  PathRef parent;
  PathTok tok;
  size_t depth;
};

inline PathRef extend(const PathRef& p, PathTok tok) {
  return std::make_shared<const PathLink>(PathLink{p, std::move(tok), p ? p->depth + 1 : 1});
}

inline size_t depth_of(const PathRef& p) { return p ? p->depth : 0; }

inline std::vector<PathTok> tokens(const PathRef& p) {
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

class Compiler {
 public:
  Compiler(Program& p, const Options& o);
  /// Compiles the document at `root` and everything it references; the root node's index.
  uint32_t compile_root(const Json* root);

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

  [[noreturn]] void error(const std::string& msg, const Info& at, std::string_view kw = {});

  // index.cpp
  uint32_t new_resource(const Json* root);
  Dialect dialect_of(const std::string& uri, Info& at);
  void index_doc(const Json* root, const std::string& uri, Dialect d);
  void walk(const Json* j, Info at, bool resource_root);
  const Json* find_resource(const std::string& uri, const Info& from, std::string_view kw);
  const Json* resolve_ref(const std::string& ref, const Info& from, std::string_view kw);

  // keywords.cpp
  uint32_t node_for(const Json* j);
  void drain();
  uint32_t key_id(const std::string& k);
  uint32_t child(const Json* j, const Info& parent, std::initializer_list<PathTok> toks);
  uint64_t count_of(const Json& v, const Info& at, std::string_view kw);
  Num number_of(const Json& v, const Info& at, std::string_view kw);
  uint32_t regex(const std::string& pattern, const Info& at, std::string_view kw);
  void compile_node(uint32_t n);

  // passes.cpp
  void resolve_outermost_dynamic_refs(uint32_t root);
  void check_cycles();
  void skip_pure_refs();
  void find_discriminators();
  void shortcut_optional_values();
  void drop_true_additional();
  void mark_fast_paths();
  void bound_leaf(Node& node);
  void branches_by_kind();
};

/// A schema's failure of its metaschema as its author would say it.
struct MetaschemaMessage {
  std::string text;           ///< e.g. "'minLength' must be a non-negative integer, not the integer -1"
  std::vector<PathTok> path;  ///< where in the schema
};

/// The message for metaschema error `e` (found checking a schema against its dialect's
/// metaschema), for the common mistakes: a wrong type name, a keyword's value of the wrong JSON
/// type or below its bound, an empty or repeating array. None for the rest, which keep the
/// metaschema's own detail. (metaschema_errors.cpp)
std::optional<MetaschemaMessage> metaschema_message(const EvalError<const Json*>& e);

}  // namespace mcp_native::schema
