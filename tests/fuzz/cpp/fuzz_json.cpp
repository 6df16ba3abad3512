// JSON syntax checker against simdjson, the JSON writer by round trip, the text mirror against a
// plain escape, and the indented layouts by round trip and against the compact text.
#include <simdjson.h>

#include <cmath>
#include <optional>

#include "fuzz_common.hpp"
#include "mcp_native/json/indent.hpp"
#include "mcp_native/json/syntax.hpp"
#include "mcp_native/json/writer.hpp"
#include "mcp_native/mcp/text_mirror.hpp"

using namespace mcp_native;

namespace {

// Writes `e` in `layout`, in one walk (empty containers as "[]" and "{}").
void write(JsonWriter& w, JsonLayout& layout, simdjson::dom::element e) {
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY: {
      const simdjson::dom::array items = e.get_array().value();  // (not a range-for over a temporary)
      if (items.size() == 0) {
        w.append("[]");
        break;
      }
      layout.open(w, '[');
      bool first = true;
      for (auto x : items) {
        if (!first) layout.comma(w);
        first = false;
        write(w, layout, x);
      }
      layout.close(w, ']');
      break;
    }
    case simdjson::dom::element_type::OBJECT: {
      const simdjson::dom::object members = e.get_object().value();
      if (members.size() == 0) {
        w.append("{}");
        break;
      }
      layout.open(w, '{');
      bool first = true;
      for (auto [k, v] : members) {
        if (!first) layout.comma(w);
        first = false;
        w.write_string(k);
        layout.colon(w);
        write(w, layout, v);
      }
      layout.close(w, '}');
      break;
    }
    case simdjson::dom::element_type::INT64: w.write_int(e.get_int64().value()); break;
    case simdjson::dom::element_type::UINT64: w.write_uint(e.get_uint64().value()); break;
    case simdjson::dom::element_type::DOUBLE: {
      const double v = e.get_double().value();
      FUZZ_CHECK(std::isfinite(v), "simdjson gave a double that is not finite");
      layout.write_double(w, v);
      break;
    }
    case simdjson::dom::element_type::STRING: w.write_string(e.get_string().value()); break;
    case simdjson::dom::element_type::BOOL: w.write_bool(e.get_bool().value()); break;
    case simdjson::dom::element_type::NULL_VALUE: w.write_null(); break;
  }
}

bool same(simdjson::dom::element a, simdjson::dom::element b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case simdjson::dom::element_type::ARRAY: {
      const simdjson::dom::array x = a.get_array().value(), y = b.get_array().value();
      if (x.size() != y.size()) return false;
      for (auto i = x.begin(), j = y.begin(); i != x.end(); ++i, ++j)
        if (!same(*i, *j)) return false;
      return true;
    }
    case simdjson::dom::element_type::OBJECT: {
      const simdjson::dom::object x = a.get_object().value(), y = b.get_object().value();
      if (x.size() != y.size()) return false;
      for (auto i = x.begin(), j = y.begin(); i != x.end(); ++i, ++j)
        if (i.key() != j.key() || !same(i.value(), j.value())) return false;
      return true;
    }
    case simdjson::dom::element_type::INT64: return a.get_int64().value() == b.get_int64().value();
    case simdjson::dom::element_type::UINT64: return a.get_uint64().value() == b.get_uint64().value();
    case simdjson::dom::element_type::DOUBLE: return a.get_double().value() == b.get_double().value();
    case simdjson::dom::element_type::STRING: return a.get_string().value() == b.get_string().value();
    case simdjson::dom::element_type::BOOL: return a.get_bool().value() == b.get_bool().value();
    case simdjson::dom::element_type::NULL_VALUE: return true;
  }
  return false;
}

std::string plain_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// `text` without the whitespace outside its strings.
std::string without_layout(std::string_view text) {
  std::string out;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;  // the character after a backslash never ends the string
      } else if (c == '\\') {
        escaped = true;
      } else {
        in_string = c != '"';
      }
    } else if (c == ' ' || c == '\n') {
      continue;
    } else {
      in_string = c == '"';
    }
    out += c;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view doc(reinterpret_cast<const char*>(data), size);
  static simdjson::dom::parser parser(1 << 20);
  simdjson::dom::element root;
  const simdjson::padded_string padded(doc);
  const auto err = parser.parse(padded).get(root);
  const JsonSyntaxError syntax = find_json_error(doc, 1024);
  if (!err) FUZZ_CHECK(!syntax.found, "simdjson accepts, the checker says '%s' at %zu", syntax.message, syntax.offset);
  if (err && !syntax.found) {
    // What the strict checker accepts and simdjson cannot represent: big or huge numbers,
    // escaped lone surrogates.
    const bool representable =
        err != simdjson::NUMBER_ERROR && !(err == simdjson::STRING_ERROR && doc.find("\\u") != std::string_view::npos);
    FUZZ_CHECK(!representable, "the checker accepts, simdjson says %s", simdjson::error_message(err));
  }
  if (err) return 0;

  std::string out;
  {
    JsonWriter w;
    JsonLayout compact(std::nullopt, FloatSpelling::kRepr);
    write(w, compact, root);
    const size_t n = w.size();
    // The mirror of what was written, with each kernel the CPU has.
    for (auto k : {MirrorKernel::kPortable, MirrorKernel::kSsse3}) {
      if (!use_mirror_kernel(k)) continue;
      append_escaped_copy(w, 0, n);
      const std::string_view all(w.data(), w.size());
      FUZZ_CHECK(all.substr(n) == plain_escape(all.substr(0, n)), "mirror differs");
      w.truncate(w.size() - n);
    }
    out.assign(w.data(), w.size());
  }
  static simdjson::dom::parser again;
  simdjson::dom::element back;
  const simdjson::padded_string text(out);
  FUZZ_CHECK(!again.parse(text).get(back), "written JSON does not parse: %s", out.c_str());
  FUZZ_CHECK(same(root, back), "round trip differs: %s", out.c_str());

  // The other layouts (json.dumps(indent=N), pydantic's float spelling) hold the same value, and
  // differ from the compact text only in whitespace outside strings and in float spelling.
  for (auto floats : {FloatSpelling::kRepr, FloatSpelling::kPydantic}) {
    for (std::optional<unsigned> indent :
         {std::optional<unsigned>{}, std::optional<unsigned>{0}, std::optional<unsigned>{3}}) {
      if (floats == FloatSpelling::kRepr && !indent) continue;  // `out` itself
      JsonWriter w;
      JsonLayout layout(indent, floats);
      write(w, layout, root);
      static simdjson::dom::parser third;
      simdjson::dom::element laid;
      const simdjson::padded_string laid_text(w.view());
      FUZZ_CHECK(!third.parse(laid_text).get(laid), "indented JSON does not parse: %s", std::string(w.view()).c_str());
      FUZZ_CHECK(same(root, laid), "indented layout differs: %s", std::string(w.view()).c_str());
      if (floats == FloatSpelling::kRepr)
        FUZZ_CHECK(without_layout(w.view()) == out, "indenting changed more than whitespace");
    }
  }
  return 0;
}
