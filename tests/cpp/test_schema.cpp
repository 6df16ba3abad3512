// Core engine tests on the simdjson DOM view.
#include <gtest/gtest.h>

#include <algorithm>

#include "mcp_native/json/writer.hpp"
#include "dom_view.hpp"
#include "mcp_native/schema/text_views.hpp"
#include "mcp_native/schema/walk.hpp"
#include "mcp_native/util/utf8.hpp"

using namespace mcp_native::schema;

namespace {

// A GuidedWalk sink that writes simdjson elements, as the tool response writer writes Python
// objects.
class DomWriter {
 public:
  using Value = DomView::Value;
  explicit DomWriter(mcp_native::JsonWriter& w) : w_(w) {}

  bool write(Value v) { return write_dom(w_, v), true; }
  bool write_null() { return w_.write_null(), true; }
  bool item(Value v, bool comma) { return (comma && item_comma()), write(v); }
  bool item_comma() { return w_.put(','), true; }
  bool member(Value v) { return write(v); }
  static bool enterable(Value v) { return v.is_object() || v.is_array(); }
  static bool is_array(Value v) { return v.is_array(); }
  template <class F>
  static bool held(Value, F&& write) {
    return write();
  }
  static bool key_ok(std::string_view) { return true; }
  static bool key_is(std::string_view, uint32_t) { return false; }  // no interned names
  static std::string_view key_text(std::string_view k) { return k; }
  bool key(std::string_view k, bool first) {
    if (!first) w_.put(',');
    w_.write_string(k);
    return w_.put(':'), true;
  }
  template <class F>
  bool object(Value v, F&& member) {
    w_.put('{');
    bool first = true;
    const simdjson::dom::object members = v.get_object().value_unsafe();
    for (simdjson::dom::key_value_pair kv : members) {
      if (!member(kv.key, kv.value, first)) return false;
      first = false;
    }
    return w_.put('}'), true;
  }
  template <class F>
  bool array(Value v, F&& each) {
    w_.put('[');
    size_t i = 0;
    const simdjson::dom::array items = v.get_array().value_unsafe();
    for (simdjson::dom::element x : items)
      if (!each(i++, x)) return false;
    return w_.put(']'), true;
  }
  template <class F>
  bool scalar(Value v, const Node& c, bool comma, F&& other) {
    if (v.is_string()) {
      const std::string_view s = v.get_string().value_unsafe();
      if (!ScalarVerdict::string(c, mcp_native::utf8::length(s))) return false;
      if (comma) item_comma();
      return w_.write_string(s), true;
    }
    if (v.is_int64()) return ScalarVerdict::integer(c, v.get_int64().value_unsafe()) && item(v, comma);
    return other();
  }
  template <class F>
  static bool typed_item(Value, uint8_t, bool, F&& other) {
    return other();
  }

 private:
  mcp_native::JsonWriter& w_;
};

bool valid(const std::string& schema, const std::string& instance, Options o = {}) {
  auto prog = compile(parse_json(schema), o);
  simdjson::dom::parser parser;
  simdjson::padded_string text(instance);
  auto doc = parser.parse(text).value();
  DomView::Env env;
  Counters c;
  Evaluator<DomView, false> ev(*prog, env, c);
  bool verdict = ev.run(doc);
  // The tape view must agree with the element view.
  TapeView::Env tenv;
  Counters tc;
  Evaluator<TapeView, false> tev(*prog, tenv, tc);
  EXPECT_EQ(tev.run(mcp_native::tape::root(parser.doc)), verdict) << schema << " on " << instance;
  // So must a guided walk, which writes a valid instance as it is.
  mcp_native::JsonWriter w;
  DomWriter sink(w);
  GuidedWalk<DomView, DomWriter> walk(*prog, env, sink);
  EXPECT_EQ(walk.run(doc), verdict) << "guided walk: " << schema << " on " << instance;
  if (verdict) {
    mcp_native::JsonWriter plain;
    write_dom(plain, doc);
    EXPECT_EQ(w.view(), plain.view()) << "guided walk: " << schema << " on " << instance;
  }
  return verdict;
}

}  // namespace

TEST(Schema, TypesAndNumbers) {
  EXPECT_TRUE(valid(R"({"type":"integer"})", "1.0"));
  EXPECT_FALSE(valid(R"({"type":"integer"})", "1.5"));
  EXPECT_FALSE(valid(R"({"type":"number"})", "\"65\""));
  EXPECT_TRUE(valid(R"({"multipleOf":0.0001})", "0.0075"));
  EXPECT_FALSE(valid(R"({"multipleOf":0.0001})", "0.00751"));
  EXPECT_FALSE(valid(R"({"type":"integer","multipleOf":0.123456789})", "1e308"));
  EXPECT_TRUE(valid(R"({"const":1})", "1.0"));
  EXPECT_FALSE(valid(R"({"const":1})", "true"));
}

TEST(Schema, TapeContainers) {
  const char* s = R"({"type":"array","minItems":2,"maxItems":3,"items":{"type":"object","minProperties":1,
                      "maxProperties":2,"properties":{"a":{"type":"integer"},"b":{"type":"string"}},
                      "additionalProperties":{"type":"array","items":{"type":"number"}}}})";
  EXPECT_TRUE(valid(s, R"([{"a":1},{"b":"x","c":[1,2.5,-3]}])"));
  EXPECT_FALSE(valid(s, R"([{"c":[]},{"c":[[]],"a":2},{"a":18446744073709551615}])"));
  EXPECT_FALSE(valid(s, R"([{"a":1}])"));
  EXPECT_FALSE(valid(s, R"([{"a":1},{"a":1},{"a":1},{"a":1}])"));
  EXPECT_FALSE(valid(s, R"([{"a":1},{}])"));
  EXPECT_FALSE(valid(s, R"([{"a":1},{"a":1,"b":"x","c":[]}])"));
  EXPECT_FALSE(valid(s, R"([{"a":1.5},{"b":"x"}])"));
  EXPECT_FALSE(valid(s, R"([{"b":2},{"b":"x"}])"));
  EXPECT_FALSE(valid(s, R"([{"c":[1,{"x":null}]},{"b":"x"}])"));
  EXPECT_TRUE(valid(s, R"([{"a":-9223372036854775808},{"a":18446744073709551615,"b":"\u00e9"}])"));
  // Members out of the declared order, duplicate names, keys past a nested container.
  const char* o = R"({"properties":{"a":{"const":1},"b":{"const":2},"c":{"const":3}},"required":["a","c"],
                      "additionalProperties":false})";
  EXPECT_TRUE(valid(o, R"({"c":3,"b":2,"a":1})"));
  EXPECT_TRUE(valid(o, R"({"a":1,"c":3})"));
  EXPECT_FALSE(valid(o, R"({"a":1,"a":2,"c":3})"));
  EXPECT_FALSE(valid(o, R"({"b":2,"c":3})"));
  EXPECT_FALSE(valid(o, R"({"a":1,"c":3,"d":{"e":[1,{"a":1}]}})"));
  // A repeated name counts once towards `required`.
  const char* r = R"({"properties":{"a":{},"b":{}},"required":["a","b"]})";
  EXPECT_FALSE(valid(r, R"({"a":1,"a":2})"));
  EXPECT_TRUE(valid(r, R"({"b":1,"a":2,"b":3})"));
  EXPECT_TRUE(valid(R"({"minLength":2,"maxLength":2})", R"("\u00e9\u00e9")"));
  EXPECT_FALSE(valid(R"({"maxLength":1})", R"("\u00e9\u00e9")"));
  EXPECT_TRUE(valid(R"({"enum":[null,true,"x",[1]]})", "true"));
  EXPECT_FALSE(valid(R"({"enum":[null,true,"x",[1]]})", "false"));
}

TEST(Schema, OptionalValues) {
  const char* u = R"({"anyOf":[{"type":"integer"},{"type":"null"}]})";
  EXPECT_TRUE(valid(u, "1"));
  EXPECT_TRUE(valid(u, "1.0"));
  EXPECT_TRUE(valid(u, "null"));
  EXPECT_FALSE(valid(u, "1.5"));
  EXPECT_FALSE(valid(u, R"("1")"));
  const char* items = R"({"type":"array","items":{"anyOf":[{"type":"string"},{"type":"null"}]}})";
  EXPECT_TRUE(valid(items, R"([null,"a"])"));
  EXPECT_FALSE(valid(items, R"([null,1])"));
  const char* o = R"({"$defs":{"A":{"type":"object","required":["x"],"properties":{"x":{"minimum":0}}}},
                      "properties":{"a":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/A"}],"title":"A"},
                                    "n":{"anyOf":[{"type":"integer","minimum":0},{"type":"null"}]}}})";
  EXPECT_TRUE(valid(o, R"({"a":null,"n":null})"));
  EXPECT_TRUE(valid(o, R"({"a":{"x":0},"n":0})"));
  EXPECT_FALSE(valid(o, R"({"a":{"x":-1}})"));
  EXPECT_FALSE(valid(o, R"({"a":{}})"));
  EXPECT_FALSE(valid(o, R"({"a":1})"));
  EXPECT_FALSE(valid(o, R"({"n":-1})"));
  EXPECT_FALSE(valid(o, R"({"n":"1"})"));
}

TEST(Schema, BranchesByType) {
  const char* o = R"({"oneOf":[{"type":"string"},{"type":"array","items":{"type":"integer"}},
                               {"type":"object","required":["a"]}]})";
  EXPECT_TRUE(valid(o, R"("x")"));
  EXPECT_TRUE(valid(o, "[1]"));
  EXPECT_FALSE(valid(o, R"(["x"])"));
  EXPECT_TRUE(valid(o, R"({"a":1})"));
  EXPECT_FALSE(valid(o, "{}"));
  EXPECT_FALSE(valid(o, "1"));
  EXPECT_FALSE(valid(o, "null"));
  EXPECT_FALSE(valid(R"({"oneOf":[{"type":"integer"},{"type":"number"}]})", "1"));
  EXPECT_TRUE(valid(R"({"oneOf":[{"type":"integer"},{"type":"number"}]})", "1.5"));
  const char* a = R"({"anyOf":[{"type":"integer","minimum":5},{"type":"string"}]})";
  EXPECT_FALSE(valid(a, "3"));
  EXPECT_TRUE(valid(a, "7"));
  EXPECT_FALSE(valid(a, "7.5"));
  EXPECT_FALSE(valid(a, "true"));
  // An untyped branch admits every kind.
  const char* u = R"({"anyOf":[{"type":"integer","minimum":5},{"type":"string"},{"maxLength":2}]})";
  EXPECT_TRUE(valid(u, "3"));
  EXPECT_TRUE(valid(u, R"("abc")"));
  EXPECT_TRUE(valid(u, "true"));
  // A property whose schema is only such a oneOf, recursively (the tree of recursive_schema).
  const char* t = R"({"$defs":{"node":{"oneOf":[{"type":"string"},{"type":"array","items":{"$ref":"#/$defs/node"}},
                      {"type":"object","required":["tag"],"properties":{"tag":{"type":"string"},
                       "content":{"$ref":"#/$defs/node"}},"additionalProperties":false}]}},
                      "properties":{"root":{"$ref":"#/$defs/node"}}})";
  EXPECT_TRUE(valid(t, R"({"root":["a",{"tag":"b","content":["c",{"tag":"d"}]}]})"));
  EXPECT_FALSE(valid(t, R"({"root":["a",{"tag":"b","content":["c",{"tag":1}]}]})"));
  EXPECT_FALSE(valid(t, R"({"root":["a",{"tag":"b","content":[null]}]})"));
  EXPECT_FALSE(valid(t, R"({"root":1})"));
  EXPECT_FALSE(valid(t, R"({"root":{"tag":"x","other":1}})"));
  const char* d4 =
      R"({"$schema":"http://json-schema.org/draft-04/schema#","oneOf":[{"type":"integer"},{"type":"string"}]})";
  EXPECT_FALSE(valid(d4, "1.0"));  // draft-04: a float is never an integer
  EXPECT_TRUE(valid(d4, "1"));
}

TEST(Schema, ObjectsAndRefs) {
  const char* s = R"({"$defs":{"n":{"type":"number"}},"type":"object","required":["a"],
                      "properties":{"a":{"$ref":"#/$defs/n"}},"additionalProperties":false})";
  EXPECT_TRUE(valid(s, R"({"a":1})"));
  EXPECT_FALSE(valid(s, R"({"a":"1"})"));
  EXPECT_FALSE(valid(s, R"({"a":1,"b":2})"));
  EXPECT_FALSE(valid(s, R"({})"));
}

TEST(Schema, Unevaluated) {
  const char* s = R"({"allOf":[{"properties":{"a":true}}],"unevaluatedProperties":false})";
  EXPECT_TRUE(valid(s, R"({"a":1})"));
  EXPECT_FALSE(valid(s, R"({"a":1,"b":1})"));
  // `additionalProperties: true` marks members evaluated: kept where unevaluatedProperties reads
  // that, dropped (checking nothing) elsewhere.
  const char* t = R"({"allOf":[{"properties":{"a":{"type":"integer"}},"additionalProperties":{}}],
                      "unevaluatedProperties":false})";
  EXPECT_TRUE(valid(t, R"({"a":1,"b":"x"})"));
  EXPECT_FALSE(valid(t, R"({"a":"1","b":"x"})"));
  auto prog = compile(parse_json(R"({"properties":{"a":{"type":"integer"}},"additionalProperties":true})"), {});
  for (const Keyword& k : prog->keywords) EXPECT_TRUE(k.op != Op::Props || k.as<PropertyTable>().additional < 0);
  EXPECT_TRUE(valid(R"({"properties":{"a":{"type":"integer"}},"additionalProperties":true})", R"({"b":[],"a":2})"));
  EXPECT_FALSE(valid(R"({"properties":{"a":{"type":"integer"}},"additionalProperties":true})", R"({"b":[],"a":[]})"));
}

TEST(Schema, Errors) {
  EXPECT_THROW(compile(parse_json(R"({"$ref":"http://example.com/x"})"), {}), SchemaError);
  EXPECT_THROW(compile(parse_json(R"({"$ref":"#"})"), {}), SchemaError);
  EXPECT_THROW(compile(parse_json(R"({"$schema":"http://example.com/s"})"), {}), SchemaError);
  EXPECT_THROW(compile(parse_json(R"({"type":12})"), {}), SchemaError);
  EXPECT_THROW(compile(parse_json(R"({"pattern":"("})"), {}), SchemaError);
}

TEST(Schema, Metaschemas) {
  for (auto& [uri, text] : metaschemas()) {
    Options o;
    EXPECT_NO_THROW(compile(parse_json(R"({"$ref":")" + std::string(uri) + "\"}"), o)) << uri;
  }
  EXPECT_TRUE(valid(R"({"$ref":"https://json-schema.org/draft/2020-12/schema"})", R"({"type":"string"})"));
  EXPECT_FALSE(valid(R"({"$ref":"https://json-schema.org/draft/2020-12/schema"})", R"({"type":12})"));
}

TEST(Schema, CollectsErrorsWithPaths) {
  auto prog = compile(parse_json(R"({"properties":{"a":{"type":"string"}},"required":["b"]})"), {});
  simdjson::dom::parser parser;
  simdjson::padded_string text(std::string(R"({"a":1})"));
  auto doc = parser.parse(text).value();
  DomView::Env env;
  Counters c;
  Evaluator<DomView, true> ev(*prog, env, c);
  EXPECT_FALSE(ev.run(doc));
  ASSERT_EQ(ev.errors.size(), 2u);
  std::vector<std::string> got;
  for (auto& e : ev.errors) got.push_back(e.keyword + " " + pointer(e.instance_path) + " " + pointer(e.schema_path));
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got[0], "required  /required");
  EXPECT_EQ(got[1], "type /a /properties/a/type");
}

TEST(Schema, Limits) {
  Options o;
  o.limits.max_instance_depth = 8;
  EXPECT_THROW(valid(R"({"items":{"$ref":"#"}})", "[[[[[[[[[[[[1]]]]]]]]]]]]", o), LimitError);
  EXPECT_TRUE(valid(R"({"items":{"$ref":"#"}})", "[[[1]]]", o));
  Options small;
  small.limits.max_steps = 50;
  std::string defs;
  for (int i = 0; i < 30; ++i)
    defs += "\"l" + std::to_string(i) + "\":{\"anyOf\":[{\"$ref\":\"#/$defs/l" + std::to_string(i + 1) +
            "\"},{\"$ref\":\"#/$defs/l" + std::to_string(i + 1) + "\"}]},";
  std::string bomb = "{\"$defs\":{" + defs + "\"l30\":{\"type\":\"string\"}},\"$ref\":\"#/$defs/l0\"}";
  EXPECT_THROW(valid(bomb, "1", small), LimitError);
  Options few;
  few.limits.max_subschemas = 3;
  EXPECT_THROW(compile(parse_json(R"({"properties":{"a":{},"b":{},"c":{},"d":{}}})"), few), SchemaError);
}

TEST(Schema, Dialects) {
  Options d7;
  d7.default_dialect = Dialect::Draft7;
  EXPECT_TRUE(valid(R"({"definitions":{"s":{"type":"string"}},"$ref":"#/definitions/s","maxLength":1})", "\"ab\"", d7));
  EXPECT_FALSE(valid(R"({"$defs":{"s":{"type":"string"}},"$ref":"#/$defs/s","maxLength":1})", "\"ab\""));
  Dialect d;
  EXPECT_TRUE(dialect_from_name("https://json-schema.org/draft-07/schema#", d));
  EXPECT_EQ(d, Dialect::Draft7);
  EXPECT_FALSE(dialect_from_name("draft-03", d));
}

TEST(Schema, MultipleOfIsDecimal) {
  Num x = num_of(parse_json("0.0075")), m = num_of(parse_json("0.0001"));
  EXPECT_TRUE(is_multiple(x, m));
  EXPECT_FALSE(is_multiple(num_of(parse_json("0.00751")), m));
  EXPECT_TRUE(is_multiple(num_of(parse_json("1e300")), num_of(parse_json("1e-5"))));
  EXPECT_FALSE(is_multiple(num_of(parse_json("1e308")), num_of(parse_json("0.123456789"))));
}
