// The engine's Json values, numbers, paths and small helpers.
#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "mcp_native/schema.hpp"

namespace mcp_native::schema {

const Json* Json::get(std::string_view key) const {
  for (auto& [k, v] : obj)
    if (k == key) return &v;
  return nullptr;
}

static void dump_string(std::string& out, std::string_view s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += (char)c;
        }
    }
  }
  out += '"';
}

static void dump_to(std::string& out, const Json& j) {
  switch (j.t) {
    case Json::T::Null: out += "null"; break;
    case Json::T::Bool: out += j.b ? "true" : "false"; break;
    case Json::T::Int: out += std::to_string(j.i); break;
    case Json::T::UInt: out += std::to_string(j.u); break;
    case Json::T::BigInt: out += j.s; break;
    case Json::T::Float: {
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof buf, j.d);
      std::string_view s(buf, r.ptr - buf);
      out += s;
      if (s.find_first_of(".en") == std::string_view::npos) out += ".0";
      break;
    }
    case Json::T::String: dump_string(out, j.s); break;
    case Json::T::Array:
      out += '[';
      for (size_t i = 0; i < j.arr.size(); ++i) {
        if (i) out += ',';
        dump_to(out, j.arr[i]);
      }
      out += ']';
      break;
    case Json::T::Object:
      out += '{';
      for (size_t i = 0; i < j.obj.size(); ++i) {
        if (i) out += ',';
        dump_string(out, j.obj[i].first);
        out += ':';
        dump_to(out, j.obj[i].second);
      }
      out += '}';
      break;
  }
}

std::string Json::dump() const {
  std::string out;
  dump_to(out, *this);
  return out;
}

static Json from_element(simdjson::dom::element e) {
  Json j;
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY:
      j.t = Json::T::Array;
      {
        simdjson::dom::array a = e.get_array().value_unsafe();
        for (auto x : a) j.arr.push_back(from_element(x));
      }
      break;
    case simdjson::dom::element_type::OBJECT:
      j.t = Json::T::Object;
      {
        simdjson::dom::object o = e.get_object().value_unsafe();
        for (auto m : o) j.obj.emplace_back(std::string(m.key), from_element(m.value));
      }
      break;
    case simdjson::dom::element_type::INT64: j.t = Json::T::Int; j.i = e.get_int64().value_unsafe(); break;
    case simdjson::dom::element_type::UINT64: j.t = Json::T::UInt; j.u = e.get_uint64().value_unsafe(); break;
    case simdjson::dom::element_type::DOUBLE: j.t = Json::T::Float; j.d = e.get_double().value_unsafe(); break;
    case simdjson::dom::element_type::STRING: j.t = Json::T::String; j.s = std::string(e.get_string().value_unsafe()); break;
    case simdjson::dom::element_type::BOOL: j.t = Json::T::Bool; j.b = e.get_bool().value_unsafe(); break;
    case simdjson::dom::element_type::NULL_VALUE: break;
  }
  return j;
}

Json parse_json(std::string_view text) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(text);
  auto doc = parser.parse(padded);
  // simdjson 3.0.1 reports integers beyond 64 bits as NUMBER_ERROR: let the caller try another parser.
  if (doc.error() == simdjson::NUMBER_ERROR) throw BigIntError("number not representable in 64 bits, or invalid");
  if (doc.error()) throw std::invalid_argument(std::string("invalid JSON: ") + simdjson::error_message(doc.error()));
  return from_element(doc.value_unsafe());
}

std::string pointer(const std::vector<PathTok>& path) {
  std::string out;
  for (auto& t : path) {
    out += '/';
    if (t.index >= 0) {
      out += std::to_string(t.index);
      continue;
    }
    for (char c : t.key) {
      if (c == '~') out += "~0";
      else if (c == '/') out += "~1";
      else out += c;
    }
  }
  return out;
}

const char* dialect_name(Dialect d) {
  switch (d) {
    case Dialect::Draft4: return "draft-04";
    case Dialect::Draft6: return "draft-06";
    case Dialect::Draft7: return "draft-07";
    case Dialect::Draft201909: return "2019-09";
    case Dialect::Draft202012: return "2020-12";
  }
  return "?";
}

bool dialect_from_name(std::string_view name, Dialect& out) {
  std::string n(name);
  if (!n.empty() && n.back() == '#') n.pop_back();
  if (n.rfind("https://", 0) == 0) n.erase(4, 1);  // http and https name the same dialect
  static const std::pair<const char*, Dialect> table[] = {
      {"http://json-schema.org/draft-04/schema", Dialect::Draft4},
      {"http://json-schema.org/draft-06/schema", Dialect::Draft6},
      {"http://json-schema.org/draft-07/schema", Dialect::Draft7},
      {"http://json-schema.org/draft/2019-09/schema", Dialect::Draft201909},
      {"http://json-schema.org/draft/2020-12/schema", Dialect::Draft202012},
      {"draft-04", Dialect::Draft4}, {"draft4", Dialect::Draft4},
      {"draft-06", Dialect::Draft6}, {"draft6", Dialect::Draft6},
      {"draft-07", Dialect::Draft7}, {"draft7", Dialect::Draft7},
      {"2019-09", Dialect::Draft201909}, {"2020-12", Dialect::Draft202012},
  };
  for (auto& [k, d] : table)
    if (n == k) {
      out = d;
      return true;
    }
  return false;
}

bool Num::is_integer() const {
  if (k != F || big) return true;
  return std::isfinite(d) && std::floor(d) == d;
}

static __int128 wide(const Num& n) { return n.k == Num::I ? n.i : n.k == Num::U ? (__int128)n.u : n.l; }

int compare_wide(const Num& a, const Num& b) {
  if (a.k != Num::F && b.k != Num::F) {
    __int128 x = wide(a), y = wide(b);
    return (x > y) - (x < y);
  }
  // long double holds every int64/uint64/double exactly on the platforms we build for.
  long double x = a.ld(), y = b.ld();
  return (x > y) - (x < y);
}

// value = mant * 10^exp, from the shortest decimal representation.
static bool decimal(const Num& n, unsigned __int128& mant, int& exp) {
  if (n.k == Num::I) {
    mant = n.i < 0 ? (unsigned __int128)(-(n.i + 1)) + 1 : (unsigned __int128)n.i;
    exp = 0;
    return true;
  }
  if (n.k == Num::U) {
    mant = n.u;
    exp = 0;
    return true;
  }
  if (n.k == Num::L) {
    mant = n.l < 0 ? (unsigned __int128)(-(n.l + 1)) + 1 : (unsigned __int128)n.l;
    exp = 0;
    return true;
  }
  if (!std::isfinite(n.d)) return false;
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, std::fabs(n.d), std::chars_format::scientific);
  std::string_view s(buf, r.ptr - buf);
  size_t e = s.find('e');
  mant = 0;
  int digits = 0;
  for (size_t i = 0; i < e; ++i) {
    if (s[i] == '.') continue;
    mant = mant * 10 + (s[i] - '0');
    ++digits;
  }
  exp = std::atoi(std::string(s.substr(e + 1)).c_str()) - (digits - 1);
  return true;
}

bool is_multiple(const Num& x, const Num& m) {
  if (x.k == Num::I && m.k == Num::I && m.i > 0) return x.i % m.i == 0;  // the common case
  unsigned __int128 a, b;
  int p, q;
  if (!decimal(x, a, p) || !decimal(m, b, q) || b == 0) return false;
  if (a == 0) return true;
  if (x.big) {  // beyond 64 bits only an approximation is known: fall back to doubles
    double r = std::fmod(x.d, (double)m.ld());
    return r == 0;
  }
  if (q > p) {  // x / m = a / (b * 10^(q-p))
    int k = q - p;
    if (k > 20) return false;  // b * 10^k > a, and a != 0
    unsigned __int128 bb = b;
    for (int i = 0; i < k; ++i) bb *= 10;
    return a % bb == 0;
  }
  // (a * 10^(p-q)) mod b, by modular exponentiation.
  unsigned __int128 r = a % b, ten = 10 % b;
  for (int k = p - q; k > 0; k >>= 1) {
    if (k & 1) r = (r * ten) % b;
    ten = (ten * ten) % b;
  }
  return r == 0;
}

Num num_of(const Json& j) {
  Num n;
  switch (j.t) {
    case Json::T::Int: n.k = Num::I; n.i = j.i; break;
    case Json::T::UInt: n.k = Num::U; n.u = j.u; break;
    case Json::T::BigInt: return num_of_decimal(j.s);
    default: n.k = Num::F; n.d = j.d; break;
  }
  return n;
}

Num num_of_decimal(const std::string& text) {
  Num n;
  bool neg = !text.empty() && text[0] == '-';
  unsigned __int128 v = 0;
  const unsigned __int128 limit = ((unsigned __int128)1 << 127) - 1;
  for (size_t i = neg; i < text.size(); ++i) {
    v = v * 10 + (unsigned)(text[i] - '0');
    if (v > limit) {
      n.k = Num::F;
      n.big = true;
      n.d = std::strtod(text.c_str(), nullptr);
      return n;
    }
  }
  n.k = Num::L;
  n.l = neg ? -(__int128)v : (__int128)v;
  return n;
}

size_t utf8_length(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace mcp_native::schema
