// What a schema that fails its metaschema gets wrong, in the words of the schema's author: the
// metaschema's error (a keyword of the metaschema failing on a value of the schema) is turned
// into "'minLength' must be a non-negative integer, not the integer -1 at /minLength" for the
// common mistakes, and left as the metaschema's walk for the rest.
#include <algorithm>
#include <optional>
#include <set>

#include "schema/compiler.hpp"

namespace mcp_native::schema {
namespace {

constexpr size_t kShownMax = 60;

// A string as a message quotes it: between single quotes (as Python shows it) when that needs
// no escapes, else as JSON.
std::string quoted(const std::string& text) {
  const bool plain =
      std::none_of(text.begin(), text.end(), [](char c) { return c == '\'' || c == '\\' || (unsigned char)c < 0x20; });
  if (plain) return "'" + text + "'";
  Json j;
  j.type = Json::Type::String;
  j.text = text;
  return j.dump();
}

// A value as a message shows it: a string quoted, anything else as compact JSON, both cut short
// past kShownMax.
std::string shown(const Json& j) {
  std::string t = j.type == Json::Type::String ? quoted(j.text) : j.dump();
  return t.size() > kShownMax ? t.substr(0, kShownMax - 3) + "..." : t;
}

// "the string 'name'", "the integer -1", "an empty array", ...
std::string described(const Json& j) {
  switch (j.type) {
    case Json::Type::Null: return "null";
    case Json::Type::Bool: return j.boolean ? "true" : "false";
    case Json::Type::Int:
    case Json::Type::UInt:
    case Json::Type::BigInt: return "the integer " + shown(j);
    case Json::Type::Float: return "the number " + shown(j);
    case Json::Type::String: return "the string " + shown(j);
    case Json::Type::Array: return j.arr.empty() ? "an empty array" : "an array";
    case Json::Type::Object: return j.obj.empty() ? "an empty object" : "an object";
  }
  return "a value";
}

// What a metaschema `type` asks for: "an array", "a schema (an object or a boolean)", ...
std::string wanted_type(const Json& type) {
  auto one = [](const std::string& t) -> std::string {
    if (t == "boolean") return "true or false";
    if (t == "null") return "null";
    if (t == "array" || t == "object" || t == "integer") return "an " + t;
    return "a " + t;
  };
  if (type.type == Json::Type::String) return one(type.text);
  std::vector<std::string> names;
  for (const Json& t : type.arr)
    if (t.type == Json::Type::String) names.push_back(t.text);
  if (names == std::vector<std::string>{"object", "boolean"}) return "a schema (an object or a boolean)";
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? " or " : "") + one(names[i]);
  return out;
}

// What a keyword's value must be, where its type or its lower bound is what failed.
const char* keyword_wants(std::string_view kw) {
  // Immutable, initialized once (a C++11 static: thread-safe), then only read.
  static const std::pair<std::string_view, const char*> table[] = {
      {"required", "an array of property names"},
      {"enum", "an array of the allowed values"},
      {"properties", "an object mapping property names to schemas"},
      {"patternProperties", "an object mapping patterns to schemas"},
      {"$defs", "an object mapping names to schemas"},
      {"definitions", "an object mapping names to schemas"},
      {"dependentRequired", "an object mapping property names to arrays of property names"},
      {"dependentSchemas", "an object mapping property names to schemas"},
      {"allOf", "a non-empty array of schemas"},
      {"anyOf", "a non-empty array of schemas"},
      {"oneOf", "a non-empty array of schemas"},
      {"prefixItems", "a non-empty array of schemas"},
      {"minLength", "a non-negative integer"},
      {"maxLength", "a non-negative integer"},
      {"minItems", "a non-negative integer"},
      {"maxItems", "a non-negative integer"},
      {"minProperties", "a non-negative integer"},
      {"maxProperties", "a non-negative integer"},
      {"minContains", "a non-negative integer"},
      {"maxContains", "a non-negative integer"},
      {"multipleOf", "a number greater than 0"},
  };
  for (auto& [name, wants] : table)
    if (name == kw) return wants;
  return nullptr;
}

const std::set<std::string, std::less<>>& type_names() {
  // Immutable, initialized once (a C++11 static: thread-safe), then only read.
  static const std::set<std::string, std::less<>> names = {"array",  "boolean", "integer", "null",
                                                           "number", "object",  "string"};
  return names;
}

std::string type_list() {
  std::string out;
  for (const std::string& t : type_names()) out += (out.empty() ? "'" : ", '") + t + "'";
  return out;
}

// How the metaschema reached the last step of the instance path: as keyword `name` of a schema
// (its `properties`), as an item of keyword `name`'s array, or as member `member` of keyword
// `name`'s object.
struct Step {
  enum Kind { kRoot, kKeyword, kItem, kMember } kind = kRoot;
  std::string name, member;
};

// Lines up the metaschema's schema path with the instance path: each `properties/N`,
// `patternProperties/P`, `additionalProperties`, `items`, `prefixItems/i`, `additionalItems`
// or `contains` step went one level down the instance.
std::optional<Step> last_step(const std::vector<PathTok>& spath, const std::vector<PathTok>& ipath) {
  std::vector<Step> steps;
  for (size_t i = 0; i < spath.size(); ++i) {
    const std::string& t = spath[i].key;
    const bool named = spath[i].index < 0;
    const bool has_arg = i + 1 < spath.size();
    if (!named) continue;
    if (t == "properties" && has_arg) {
      steps.push_back({Step::kKeyword, spath[++i].key, {}});
    } else if ((t == "patternProperties" && has_arg) || t == "additionalProperties") {
      if (t == "patternProperties") ++i;
      steps.push_back({Step::kMember, {}, {}});
    } else if ((t == "prefixItems" && has_arg) || t == "items" || t == "additionalItems" || t == "contains") {
      if (t == "prefixItems" || (t == "items" && has_arg && spath[i + 1].index >= 0)) ++i;
      steps.push_back({Step::kItem, {}, {}});
    } else if ((t == "allOf" || t == "anyOf" || t == "oneOf" || t == "$defs" || t == "definitions" ||
                t == "dependentSchemas" || t == "dependencies") &&
               has_arg) {
      ++i;
    }
  }
  if (steps.size() != ipath.size()) return std::nullopt;
  if (steps.empty()) return Step{};
  Step last = steps.back();
  if (last.kind != Step::kKeyword) {  // an item or member of a keyword's value, or unknown
    if (steps.size() < 2 || steps[steps.size() - 2].kind != Step::kKeyword) return std::nullopt;
    if ((last.kind == Step::kMember) != (ipath.back().index < 0)) return std::nullopt;
    last.name = steps[steps.size() - 2].name;
    last.member = last.kind == Step::kItem ? std::to_string(ipath.back().index) : ipath.back().key;
  }
  return last;
}

std::string subject(const Step& s) {
  switch (s.kind) {
    case Step::kKeyword: return "'" + s.name + "'";
    case Step::kItem: return "item " + s.member + " of '" + s.name + "'";
    case Step::kMember: return "the value of " + quoted(s.member) + " in '" + s.name + "'";
    case Step::kRoot: break;
  }
  return "the schema";
}

// The value of a `type` keyword: a type name, or a non-empty array of distinct ones.
std::optional<MetaschemaMessage> type_keyword(const Json& v, std::vector<PathTok> path) {
  const std::string expected = " (expected one of " + type_list() + ")";
  if (v.type == Json::Type::String)
    return MetaschemaMessage{shown(v) + " is not a JSON Schema type" + expected, std::move(path)};
  if (v.type != Json::Type::Array)
    return MetaschemaMessage{"'type' must be a type name or an array of type names, not " + described(v),
                             std::move(path)};
  if (v.arr.empty())
    return MetaschemaMessage{"'type' must name at least one type, not an empty array", std::move(path)};
  std::set<std::string, std::less<>> seen;
  for (size_t i = 0; i < v.arr.size(); ++i) {
    const Json& t = v.arr[i];
    path.push_back(PathTok::at((int64_t)i));
    if (t.type != Json::Type::String)
      return MetaschemaMessage{"item " + std::to_string(i) + " of 'type' must be a type name, not " + described(t),
                               std::move(path)};
    if (!type_names().count(t.text))
      return MetaschemaMessage{shown(t) + " is not a JSON Schema type" + expected, std::move(path)};
    if (!seen.insert(t.text).second)
      return MetaschemaMessage{"'type' lists " + shown(t) + " more than once", std::move(path)};
    path.pop_back();
  }
  return std::nullopt;
}

}  // namespace

std::optional<MetaschemaMessage> metaschema_message(const EvalError<const Json*>& e) {
  if (e.instance_is_key || e.instance == nullptr) return std::nullopt;
  const std::optional<Step> step = last_step(e.schema_path, e.instance_path);
  if (!step) return std::nullopt;
  const Json& v = *e.instance;
  if (step->kind == Step::kKeyword && step->name == "type" && e.keyword != "type")
    return type_keyword(v, e.instance_path);
  const std::string who = subject(*step);
  const char* wants = step->kind == Step::kKeyword ? keyword_wants(step->name) : nullptr;
  std::string must;
  if (e.keyword == "type" && e.value && step->kind == Step::kRoot) {
    must = "must be " + wanted_type(*e.value) + ", not " + described(v);
    if (must.starts_with("must be a schema (")) must = "must be an object or a boolean, not " + described(v);
  } else if (e.keyword == "type" && e.value) {
    must = "must be " + (wants ? std::string(wants) : wanted_type(*e.value)) + ", not " + described(v);
  } else if ((e.keyword == "minimum" || e.keyword == "exclusiveMinimum") && e.value) {
    const char* bound = e.keyword == "minimum" ? "at least " : "greater than ";
    must = "must be " + (wants ? std::string(wants) : bound + e.value->dump()) + ", not " + described(v);
  } else if (e.keyword == "minItems" && e.value && v.type == Json::Type::Array) {
    must = e.value->dump() == "1" ? "must not be empty" : "must have at least " + e.value->dump() + " items";
  } else if (e.keyword == "uniqueItems" && v.type == Json::Type::Array) {
    for (size_t i = 0; i < v.arr.size() && must.empty(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (v.arr[j].dump() == v.arr[i].dump()) {
          must = "lists " + shown(v.arr[i]) + " more than once";
          break;
        }
  }
  if (must.empty()) return std::nullopt;
  return MetaschemaMessage{who + " " + must, e.instance_path};
}

}  // namespace mcp_native::schema
