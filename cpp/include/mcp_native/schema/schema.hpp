// The compiled JSON Schema engine: schema documents, compile options, limits and the immutable
// program that evaluation (evaluator.hpp) runs over any instance view.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "mcp_native/schema/formats.hpp"
#include "mcp_native/schema/regex.hpp"

namespace mcp_native::schema {

/// A JSON value owned by the engine: schema documents and `const`/`enum` constants. Objects keep
/// member order. Integers beyond 64 bits are kept as their decimal text (kind BigInt) plus a
/// double approximation.
struct Json {
  enum class Type : uint8_t { Null, Bool, Int, UInt, Float, BigInt, String, Array, Object };
  Type type = Type::Null;
  bool boolean = false;
  int64_t int64 = 0;    ///< an Int
  uint64_t uint64 = 0;  ///< a UInt (beyond int64)
  double number = 0;    ///< a Float
  std::string text;     ///< a String, or the decimal text of a BigInt
  std::vector<Json> arr;
  std::vector<std::pair<std::string, Json>> obj;

  // Defined where Json is complete: in the class, clang (with libstdc++'s constexpr vector)
  // instantiates ~vector<pair<string, Json>> while that pair's Json is still incomplete.
  Json();
  Json(const Json&);
  Json(Json&&) noexcept;
  Json& operator=(const Json&);
  Json& operator=(Json&&) noexcept;
  ~Json();

  /// The member `key` of an object, or nullptr.
  const Json* get(std::string_view key) const;
  /// Compact JSON text of this value.
  std::string dump() const;
};

/// Parses JSON text into a Json (via simdjson). Throws std::invalid_argument on invalid JSON;
/// number errors (integers beyond 64 bits) throw BigIntError so that callers can fall back.
Json parse_json(std::string_view text);

/// simdjson reported a number error: an integer beyond 64 bits (or an invalid number).
struct BigIntError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// One step of a JSON Pointer-like path: an object key or an array index.
struct PathTok {
  std::string key;
  int64_t index = -1;  ///< >= 0 for an array index (then key is empty)
  static PathTok at(int64_t i) { return {std::string(), i}; }
  static PathTok of(std::string_view k) { return {std::string(k), -1}; }
};

/// Renders a path as a JSON Pointer ("/a/0/b").
std::string pointer(const std::vector<PathTok>& path);

/// Supported dialects.
enum class Dialect : uint8_t { Draft4, Draft6, Draft7, Draft201909, Draft202012 };

/// Short name of a dialect ("2020-12", "draft-07", ...).
const char* dialect_name(Dialect d);

/// The dialect named by a `$schema` URI or short name, if it is one of the official ones.
bool dialect_from_name(std::string_view name, Dialect& out);

/// Bounds against schema and instance bombs. Exceeding one raises SchemaError (compile) or
/// LimitError (evaluation) naming the limit.
struct Limits {
  uint32_t max_schema_depth = 256;    ///< nesting depth of a schema document
  uint32_t max_subschemas = 100000;   ///< compiled subschemas per validator
  uint32_t max_instance_depth = 512;  ///< nesting depth of an instance
  uint64_t max_steps = 1000000;       ///< subschema evaluations per call
};

/// The schema cannot be compiled: invalid for its dialect, unknown dialect, unresolvable `$ref`,
/// invalid regex, or a limit. `path` locates the problem in the schema (`where` names a document
/// other than the root one, or is empty).
struct SchemaError : std::invalid_argument {
  SchemaError(const std::string& msg, std::vector<PathTok> p, std::string w = {})
      : std::invalid_argument(msg), path(std::move(p)), where(std::move(w)) {}
  std::vector<PathTok> path;
  std::string where;
};

/// An evaluation limit was exceeded (instance depth, steps, recursion) or a pattern hit the regex
/// engine's limits.
struct LimitError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The instance is not a JSON value (e.g. NaN, a non-string key, an unsupported type).
struct InstanceError : std::invalid_argument {
  InstanceError(const std::string& msg, bool wrong_type) : std::invalid_argument(msg), type_error(wrong_type) {}
  bool type_error;  ///< a value of a type JSON does not have (else a bad value such as NaN)
};

/// Compile options.
struct Options {
  Dialect default_dialect = Dialect::Draft202012;  ///< for schemas without `$schema`
  bool formats = false;                            ///< assert `format`
  Limits limits;
  /// Documents that `$ref` may reach, by URI (never fetched from anywhere else).
  std::vector<std::pair<std::string, Json>> registry;
};

/// 128-bit integers (a GCC/Clang extension; `__extension__` keeps -Wpedantic quiet about it).
__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

/// A number of an instance or a schema: exact integers up to 128 bits (Int, UInt, Wide),
/// doubles (Float), and larger integers (Big) kept exactly as their decimal digits.
struct Num {
  enum Kind : uint8_t { Int, UInt, Wide, Float, Big } kind = Int;
  bool neg = false;     ///< the sign of a Big
  int64_t int64 = 0;    ///< an Int
  uint64_t uint64 = 0;  ///< a UInt (beyond int64)
  int128 wide = 0;      ///< a Wide (beyond 64 bits)
  double number = 0;    ///< the value of a Float; the nearest double of a Big
  /// Magnitude of a Big, no leading zeros; a view into the text it was read from (the schema
  /// document, or storage the instance view keeps for the call).
  std::string_view digits;
  bool is_integer() const { return kind != Float || (std::isfinite(number) && std::floor(number) == number); }
  /// The value as the nearest double (exact for Int and UInt up to 2^53, and for Float).
  double approx() const {
    switch (kind) {
      case Int: return (double)int64;
      case UInt: return (double)uint64;
      case Wide: return (double)wide;
      default: return number;
    }
  }
};

/// The Num of an integer given as decimal text (optional '-' then digits), always exact; a B
/// refers to `text`, which must outlive it.
Num num_of_decimal(std::string_view text);

/// -1, 0 or 1, exact for every pair of Nums (compare() inlines the common case).
int compare_wide(const Num& a, const Num& b);
/// -1, 0 or 1, exact for every pair of Nums.
inline int compare(const Num& a, const Num& b) {
  if (a.kind == Num::Int && b.kind == Num::Int) return (a.int64 > b.int64) - (a.int64 < b.int64);
  return compare_wide(a, b);
}
/// `x` is an integer multiple of `m` (exact for integers; decimal semantics for doubles, so
/// 0.0075 / 0.0001 is).
bool is_multiple(const Num& x, const Num& m);
/// The Num of a numeric Json.
Num num_of(const Json& j);

/// Kinds of instance values as JSON Schema sees them.
enum class Kind : uint8_t { Null, Bool, Number, String, Array, Object };

/// `type` bit mask.
enum TypeBit : uint8_t { kNull = 1, kBool = 2, kObject = 4, kArray = 8, kNumber = 16, kString = 32, kInteger = 64 };

/// Keyword operations of the program.
enum class Op : uint8_t {
  Type,
  Enum,
  Const,
  MultipleOf,
  Minimum,
  Maximum,
  MinLength,
  MaxLength,
  Pattern,
  Format,
  PrefixItems,
  RestItems,
  Contains,
  MinItems,
  MaxItems,
  UniqueItems,
  MinProperties,
  MaxProperties,
  Required,
  Props,
  PropertyNames,
  DependentRequired,
  DependentSchemas,
  AllOf,
  AnyOf,
  OneOf,
  Not,
  IfThenElse,
  Ref,
  DynamicRef,
  RecursiveRef,
  UnevaluatedItems,
  UnevaluatedProperties
};

/// Keywords that check the value itself, without subschemas: a node of only these is a leaf,
/// and the compiler orders them first.
constexpr bool is_simple(Op op) {
  constexpr auto bit = [](Op o) { return uint64_t{1} << static_cast<unsigned>(o); };
  constexpr uint64_t kSimple = bit(Op::Type) | bit(Op::Enum) | bit(Op::Const) | bit(Op::MultipleOf) | bit(Op::Minimum) |
                               bit(Op::Maximum) | bit(Op::MinLength) | bit(Op::MaxLength) | bit(Op::Pattern) |
                               bit(Op::Format) | bit(Op::MinItems) | bit(Op::MaxItems) | bit(Op::UniqueItems) |
                               bit(Op::MinProperties) | bit(Op::MaxProperties) | bit(Op::Required) |
                               bit(Op::DependentRequired);
  return kSimple >> static_cast<unsigned>(op) & 1;
}

// What a keyword carries beside its subschemas: one payload type per kind of keyword, read
// with Keyword::as<T>() by the code of its Op.

/// Type.
struct TypeMask {
  uint8_t types = 0;    ///< TypeBit mask
  bool draft4 = false;  ///< draft-04: a float is never an integer (1.0 is a number only)
};

/// Enum, Const.
struct Constants {
  std::vector<const Json*> values;
  /// Enum of many values: (json_hash, index into values), sorted; empty for short enums.
  std::vector<std::pair<uint64_t, uint32_t>> hashes;
};

/// MultipleOf (num is the divisor), Minimum, Maximum.
struct NumberLimit {
  Num num;
  bool exclusive = false;
};

/// MinLength, MaxLength, MinItems, MaxItems, MinProperties, MaxProperties.
struct CountLimit {
  uint64_t count = 0;
};

/// Pattern.
struct PatternMatch {
  uint32_t regex = 0;  ///< index into Program::regexes
};

/// Format (only formats that assert).
struct FormatCheck {
  formats::Checker check = nullptr;
};

/// RestItems: `items` (2020-12) or `additionalItems`, applying kids[0] from an index on.
struct ItemsFrom {
  uint64_t start = 0;  ///< how many items prefixItems (or an array `items`) covers
};

/// Contains (kids[0]) with minContains/maxContains.
struct ContainsCount {
  uint64_t min = 1;
  int64_t max = -1;      ///< -1: no maxContains
  bool annotate = true;  ///< marks matching items for unevaluatedItems (2020-12)
};

/// Required; DependentSchemas (kids[i] applies when keys[i] is present).
struct KeyList {
  std::vector<uint32_t> keys;  ///< ids into Program::keys
};

/// DependentRequired (and `dependencies` with arrays): when keys[i] is present, so must
/// required[i] be.
struct KeyDependencies {
  std::vector<uint32_t> keys;
  std::vector<std::vector<uint32_t>> required;
};

/// Props: `properties`, `patternProperties` and `additionalProperties` of one subschema, and
/// the `required` names that are declared properties, checked by the same lookups.
struct PropertyTable {
  std::vector<std::pair<uint32_t, uint32_t>> props;  ///< (key id, subschema), in order
  std::vector<int32_t> slots;                        ///< open-addressing table over props
  uint64_t lengths = 0;  ///< bit (length % 64) of each property name: most others skip the table
  std::vector<std::pair<uint32_t, uint32_t>> patterns;  ///< (regex, subschema)
  int64_t additional = -1;                              ///< additionalProperties subschema
  /// props[i] is also `required`: its ordinal among those, from 1 (else 0).
  std::vector<uint32_t> required;
  uint32_t n_required = 0;               ///< how many are
  const Json* required_value = nullptr;  ///< the `required` value (for messages)
};

/// AnyOf, OneOf: shortcuts to the branch an instance can match.
struct Branches {
  /// Per Kind of instance: the only branch whose type admits it, -2 when none does, -1 when
  /// several may (then no shortcut).
  std::array<int16_t, 6> by_kind{-1, -1, -1, -1, -1, -1};
  int32_t disc_key = -1;  ///< the discriminator property most branches pin (-1: none)
  /// With disc_key: (pinned value, branch index) sorted by shorter_or_less then index, and the
  /// branches that do not pin it (always candidates).
  std::vector<std::pair<std::string_view, uint32_t>> disc_table;
  std::vector<uint32_t> disc_rest;
};

/// IfThenElse: kids[0] is `if`.
struct Conditional {
  int64_t then_node = -1, else_node = -1;  ///< -1: absent
};

/// DynamicRef, RecursiveRef: kids[0] is the static target.
struct DynamicTarget {
  bool dynamic = false;  ///< resolve through the dynamic scope
  std::string anchor;    ///< DynamicRef: the anchor name
};

/// One keyword of a compiled subschema.
struct Keyword {
  using Payload =
      std::variant<std::monostate, TypeMask, Constants, NumberLimit, CountLimit, PatternMatch, FormatCheck, ItemsFrom,
                   ContainsCount, KeyList, KeyDependencies, PropertyTable, Branches, Conditional, DynamicTarget>;
  Op op;
  std::string name;             ///< the keyword as written ("additionalItems", "dependencies", ...)
  const Json* value = nullptr;  ///< its value in the schema document (for messages)
  /// The subschemas it applies, in order (one for Not, Contains, Ref, ...; one per branch or
  /// item position); PropertyTable and Conditional hold the others.
  std::vector<uint32_t> kids;
  Payload payload;

  /// The payload of this keyword's Op (the compiler sets the one each Op reads).
  template <class T>
  const T& as() const {
    return *std::get_if<T>(&payload);
  }
  template <class T>
  T& as() {
    return *std::get_if<T>(&payload);
  }
};

/// How a verdict on a node is reached: its fast path, decided once by the compiler (passes.cpp)
/// and served by one function of the evaluator (Evaluator::test) and of the guided walk. Each
/// shape reads its own payload in Node.
enum class Shape : uint8_t {
  kGeneral,     ///< the keywords in turn (Evaluator::schema)
  kTypes,       ///< a type mask alone, `{"type": ...}` or an anyOf of bare types: only_types
  kTypedArray,  ///< an array whose items have bare types, with count bounds: item_types, min/max_items
  kBounded,     ///< a type with integer or length bounds: int_min/int_max, min/max_length
  kLeaf,        ///< keywords without subschemas, or items of bare types: nothing nests deeper
  kOptional,    ///< `anyOf [X, {"type": "null"}]`: null, or X (or_null)
  kByKind,      ///< an anyOf/oneOf whose one branch the value's kind selects: select
};

/// The shapes whose verdict never evaluates a subschema (no depth, steps or scope to manage).
inline bool is_leaf(Shape s) {
  return s == Shape::kTypes || s == Shape::kTypedArray || s == Shape::kBounded || s == Shape::kLeaf;
}

/// One compiled subschema.
struct Node {
  int8_t boolean = -1;            ///< 0/1 for boolean schemas (and `{}` = 1), -1 otherwise
  bool tracks = false;            ///< has unevaluated*: evaluates with annotations
  bool simple = false;            ///< only keywords that look at this value itself (no subschemas)
  Shape shape = Shape::kGeneral;  ///< the verdict's fast path; the fields below name their shape
  /// A walk that visits the instance itself may apply it value by value (Evaluator's guided
  /// walks): beside keywords without subschemas it has only `properties`/`additionalProperties`
  /// (no `patternProperties`) and item keywords, and no annotations or dynamic scope.
  bool walkable = false;
  int32_t props = -1;        ///< walkable: its `properties` keyword (-1: none)
  bool self_checks = false;  ///< walkable: has keywords without subschemas (for check_self)
  uint8_t types = 0;         ///< its `type` mask (0: none), checked before the keywords
  uint8_t only_types = 0;    ///< kTypes: the type mask (or a union of them) it is for a verdict
  int32_t or_null = -1;      ///< kOptional: the node is `null` or this subschema (-1: no)
  int32_t select = -1;       ///< kByKind (and unions of kTypes): the node is only this anyOf/oneOf (Branches::by_kind)
  const Json* type_value = nullptr;  ///< the `type` value (for messages)
  /// kTypedArray (e.g. `{"type": "array", "items": {"type": "number"}, "minItems": 2}`): the
  /// items' type mask, with the item count bounds; 0 when the node is not one.
  uint8_t item_types = 0;
  uint64_t min_items = 0, max_items = UINT64_MAX;
  /// kBounded (e.g. `{"type": "integer", "minimum": 0}`, `{"maxLength": 64}`): its only keywords
  /// are integer minimum/maximum (exclusive or not) and minLength/maxLength, held here as
  /// inclusive ranges.
  int64_t int_min = INT64_MIN, int_max = INT64_MAX;
  uint64_t min_length = 0, max_length = UINT64_MAX;
  uint32_t first = 0, count = 0;  ///< keyword range
  uint32_t resource = 0;          ///< schema resource containing it (for the dynamic scope)
  /// Discriminator: `properties[keys[disc_key]]` must be one of the strings disc_values (and
  /// the property is required when disc_required); -1 when there is none.
  int32_t disc_key = -1;
  bool disc_required = false;
  std::vector<std::string_view> disc_values;
};

/// A schema resource (document root or subschema with `$id`), for dynamic references.
struct Resource {
  std::unordered_map<std::string, uint32_t> dynamic_anchors;  ///< name -> subschema
  bool recursive_anchor = false;
  uint32_t root = 0;
};

/// a == b, inline: for property names a library call costs more than the compare itself.
[[gnu::always_inline]] inline bool same_text(std::string_view a, std::string_view b) {
  size_t n = a.size();
  if (n != b.size()) return false;
  if (n > 16) return std::memcmp(a.data(), b.data(), n) == 0;
  if (n >= 8) {  // two overlapping 8-byte words
    uint64_t a0, a1, b0, b1;
    std::memcpy(&a0, a.data(), 8);
    std::memcpy(&b0, b.data(), 8);
    std::memcpy(&a1, a.data() + n - 8, 8);
    std::memcpy(&b1, b.data() + n - 8, 8);
    return a0 == b0 && a1 == b1;
  }
  if (n >= 4) {  // two overlapping 4-byte words
    uint32_t a0, a1, b0, b1;
    std::memcpy(&a0, a.data(), 4);
    std::memcpy(&b0, b.data(), 4);
    std::memcpy(&a1, a.data() + n - 4, 4);
    std::memcpy(&b1, b.data() + n - 4, 4);
    return a0 == b0 && a1 == b1;
  }
  return n == 0 || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1]);
}

/// An order of strings that settles most pairs by their lengths: shorter first, then bytewise.
inline bool shorter_or_less(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return std::memcmp(a.data(), b.data(), a.size()) < 0;
}

/// The compiled, immutable program. Safe to evaluate from many threads at once.
struct Program {
  std::vector<Node> nodes;
  std::vector<Keyword> keywords;
  std::vector<std::string> keys;     ///< property names used by the program
  std::vector<uint64_t> key_hashes;  ///< hash_key(keys[i])
  std::vector<Regex> regexes;
  std::vector<Resource> resources;
  std::vector<std::unique_ptr<Json>> docs;  ///< owned documents (values referenced by keywords)
  uint32_t root = 0;
  bool dynamic = false;  ///< uses $dynamicRef/$recursiveRef: evaluation tracks the dynamic scope
  Dialect dialect = Dialect::Draft202012;
  Limits limits;

  /// Index of `key` in t.props (-1 when absent); hash is hash_key(key).
  int64_t find_prop(const PropertyTable& t, std::string_view key, uint64_t hash) const {
    size_t mask = t.slots.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      int32_t s = t.slots[i];
      if (s < 0) return -1;
      uint32_t id = t.props[s].first;
      if (key_hashes[id] == hash && same_text(keys[id], key)) return s;
    }
  }
};

/// Hash of a property name as the Props tables use it: length plus the first and last 8
/// bytes, mixed (property names are short and a collision only costs a compare).
inline uint64_t hash_key(std::string_view s) {
  uint64_t a = 0, b = 0;
  size_t n = s.size();
  if (n >= 8) {
    std::memcpy(&a, s.data(), 8);
    std::memcpy(&b, s.data() + n - 8, 8);
  } else {
    std::memcpy(&a, s.data(), n);
  }
  uint64_t h = (a ^ (b * 0x9E3779B97F4A7C15ull) ^ n) * 0xff51afd7ed558ccdull;
  return h ^ (h >> 29);
}

/// Compiles a schema (a Json document) into a program. Checks it against its dialect's
/// metaschema. Throws SchemaError.
std::shared_ptr<const Program> compile(Json schema, const Options& options);

/// The embedded official metaschemas: (URI without '#', JSON text).
const std::vector<std::pair<std::string_view, std::string_view>>& metaschemas();

}  // namespace mcp_native::schema
