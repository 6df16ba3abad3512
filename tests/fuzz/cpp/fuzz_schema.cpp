// The schema compiler and evaluator: input is `schema NUL instance` (both JSON text); the first
// byte also picks the dialect, format assertion and small limits. Invariants: the tape, DOM
// and engine-JSON views agree on the verdict, and error collection finds errors exactly when
// the verdict is false.
#include <simdjson.h>

#include "fuzz_common.hpp"
#include "../../cpp/dom_view.hpp"
#include "mcp_native/schema/text_views.hpp"

using namespace mcp_native::schema;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const unsigned char opts = data[0];
  auto [schema_text, instance_text] = split_nul({reinterpret_cast<const char*>(data) + 1, size - 1});
  Options o;
  o.default_dialect = static_cast<Dialect>(opts % 5);
  o.formats = opts & 8;
  if (opts & 16) o.limits = {16, 200, 16, 1000};
  std::shared_ptr<const Program> prog;
  try {
    prog = compile(parse_json(schema_text), o);
  } catch (const std::invalid_argument&) {  // not JSON, or SchemaError
    return 0;
  } catch (const LimitError&) {
    return 0;
  }
  static simdjson::dom::parser parser;
  simdjson::dom::element root;
  const simdjson::padded_string padded(instance_text);
  if (parser.parse(padded).get(root)) return 0;
  try {
    Counters c1, c2, c3, c4;
    DomView::Env denv;
    TapeView::Env tenv;
    const bool dom = Evaluator<DomView, false>(*prog, denv, c1).run(root);
    const bool tape = Evaluator<TapeView, false>(*prog, tenv, c2).run(mcp_native::tape::root(parser.doc));
    FUZZ_CHECK(dom == tape, "DOM says %d, tape %d", dom, tape);
    Evaluator<DomView, true> collect(*prog, denv, c3);
    const bool collected = collect.run(root);
    FUZZ_CHECK(collected == dom && collect.errors.empty() == dom, "verdict %d, collected %d with %zu errors", dom,
               collected, collect.errors.size());
    const Json own = parse_json(instance_text);
    JsonView::Env jenv;
    const bool json = Evaluator<JsonView, false>(*prog, jenv, c4).run(&own);
    FUZZ_CHECK(json == dom, "engine JSON says %d, DOM %d", json, dom);
  } catch (const LimitError&) {             // views count steps alike, but a limit ends the comparison
  } catch (const std::invalid_argument&) {  // parse_json: an integer beyond 64 bits
  }
  return 0;
}
