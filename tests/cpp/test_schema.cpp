// Core engine tests on the simdjson DOM view.
#include <gtest/gtest.h>

#include <algorithm>

#include "mcp_native/schema/text_views.hpp"

using namespace mcp_native::schema;

namespace {

// A walk that visits the instance itself and applies walkable nodes value by value, as the tool
// response writer does while writing (Evaluator's guided walks); other nodes decide with test().
bool guided(const Program& P, Evaluator<DomView, false>& ev, DomView::Value v, uint32_t at) {
  const DomView::Env env;
  const int64_t settled = ev.settle(at, v);
  if (settled < 0) return settled == -1;
  const auto si = (uint32_t)settled;
  const Node& n = P.nodes[si];
  if (n.boolean >= 0) return n.boolean;
  if (!n.walkable || n.leaf) return ev.test(si, v);
  const Kind k = DomView::kind(env, v);
  if (!ev.check_self(n, k, v)) return false;
  const Keyword* props = n.props >= 0 ? &P.keywords[(size_t)n.props] : nullptr;
  const Keyword *prefix = nullptr, *rest = nullptr;
  for (uint32_t i = n.first; i < n.first + n.count; ++i) {
    const Keyword& kw = P.keywords[i];
    if (kw.op == Op::PrefixItems) prefix = &kw;
    if (kw.op == Op::RestItems) rest = &kw;
  }
  bool ok = true;
  if (k == Kind::Object) {
    size_t next = 0;
    uint64_t seen = 0;
    DomView::obj_each(env, v, [&](std::string_view key, DomView::Value x) {
      int64_t kid = props ? ev.member_schema(*props, key, next, seen) : -1;
      return ok = kid != -2 && (kid < 0 || guided(P, ev, x, (uint32_t)kid));
    });
    return ok && (!props || ev.required_present(*props, v, seen));
  }
  if (k == Kind::Array) {
    DomView::arr_each(env, v, [&](size_t i, DomView::Value x) {
      int64_t kid = -1;
      if (prefix && i < prefix->kids.size())
        kid = prefix->kids[i];
      else if (rest && i >= rest->count)
        kid = rest->kids[0];
      return ok = kid < 0 || guided(P, ev, x, (uint32_t)kid);
    });
  }
  return ok;
}

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
  EXPECT_EQ(tev.run(TapeView::root(parser.doc)), verdict) << schema << " on " << instance;
  // So must a guided walk.
  Counters gc;
  Evaluator<DomView, false> gev(*prog, env, gc);
  EXPECT_EQ(guided(*prog, gev, doc, prog->root), verdict) << "guided walk: " << schema << " on " << instance;
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
