// The engine's Json values, numbers, paths and small helpers.
#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "mcp_native/json/writer.hpp"
#include "mcp_native/schema/schema.hpp"

namespace mcp_native::schema {

Json::Json() = default;
Json::Json(const Json&) = default;
Json::Json(Json&&) noexcept = default;
Json& Json::operator=(const Json&) = default;
Json& Json::operator=(Json&&) noexcept = default;
Json::~Json() = default;

const Json* Json::get(std::string_view key) const {
  for (auto& [k, v] : obj)
    if (k == key) return &v;
  return nullptr;
}

static void dump_to(std::string& out, const Json& j) {
  switch (j.type) {
    case Json::Type::Null: out += "null"; break;
    case Json::Type::Bool: out += j.boolean ? "true" : "false"; break;
    case Json::Type::Int: out += std::to_string(j.int64); break;
    case Json::Type::UInt: out += std::to_string(j.uint64); break;
    case Json::Type::BigInt: out += j.text; break;
    case Json::Type::Float: {
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof buf, j.number);
      std::string_view s(buf, r.ptr - buf);
      out += s;
      if (s.find_first_of(".en") == std::string_view::npos) out += ".0";
      break;
    }
    case Json::Type::String: append_json_string(out, j.text); break;
    case Json::Type::Array:
      out += '[';
      for (size_t i = 0; i < j.arr.size(); ++i) {
        if (i) out += ',';
        dump_to(out, j.arr[i]);
      }
      out += ']';
      break;
    case Json::Type::Object:
      out += '{';
      for (size_t i = 0; i < j.obj.size(); ++i) {
        if (i) out += ',';
        append_json_string(out, j.obj[i].first);
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
      j.type = Json::Type::Array;
      {
        simdjson::dom::array a = e.get_array().value_unsafe();
        for (auto x : a) j.arr.push_back(from_element(x));
      }
      break;
    case simdjson::dom::element_type::OBJECT:
      j.type = Json::Type::Object;
      {
        simdjson::dom::object o = e.get_object().value_unsafe();
        for (auto m : o) j.obj.emplace_back(std::string(m.key), from_element(m.value));
      }
      break;
    case simdjson::dom::element_type::INT64:
      j.type = Json::Type::Int;
      j.int64 = e.get_int64().value_unsafe();
      break;
    case simdjson::dom::element_type::UINT64:
      j.type = Json::Type::UInt;
      j.uint64 = e.get_uint64().value_unsafe();
      break;
    case simdjson::dom::element_type::DOUBLE:
      j.type = Json::Type::Float;
      j.number = e.get_double().value_unsafe();
      break;
    case simdjson::dom::element_type::STRING:
      j.type = Json::Type::String;
      j.text = std::string(e.get_string().value_unsafe());
      break;
    case simdjson::dom::element_type::BOOL:
      j.type = Json::Type::Bool;
      j.boolean = e.get_bool().value_unsafe();
      break;
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
      if (c == '~')
        out += "~0";
      else if (c == '/')
        out += "~1";
      else
        out += c;
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
  // Immutable, initialized once (a C++11 static: thread-safe), then only read.
  static const std::pair<const char*, Dialect> table[] = {
      {"http://json-schema.org/draft-04/schema", Dialect::Draft4},
      {"http://json-schema.org/draft-06/schema", Dialect::Draft6},
      {"http://json-schema.org/draft-07/schema", Dialect::Draft7},
      {"http://json-schema.org/draft/2019-09/schema", Dialect::Draft201909},
      {"http://json-schema.org/draft/2020-12/schema", Dialect::Draft202012},
      {"draft-04", Dialect::Draft4},
      {"draft4", Dialect::Draft4},
      {"draft-06", Dialect::Draft6},
      {"draft6", Dialect::Draft6},
      {"draft-07", Dialect::Draft7},
      {"draft7", Dialect::Draft7},
      {"2019-09", Dialect::Draft201909},
      {"2020-12", Dialect::Draft202012},
  };
  for (auto& [k, d] : table)
    if (n == k) {
      out = d;
      return true;
    }
  return false;
}

// Exact arithmetic on integers beyond 128 bits, as decimal magnitudes (no sign, no leading
// zeros). Rare by nature: big numbers in schemas or instances, so plain digit loops suffice.
namespace {

std::string digits_of(uint128 v) {
  std::string s;
  do {
    s += char('0' + (int)(v % 10));
    v /= 10;
  } while (v);
  return {s.rbegin(), s.rend()};
}

uint128 magnitude(const Num& n) {
  if (n.kind == Num::Int) return n.int64 < 0 ? (uint128)(-(n.int64 + 1)) + 1 : (uint128)n.int64;
  if (n.kind == Num::UInt) return n.uint64;
  return n.wide < 0 ? (uint128)(-(n.wide + 1)) + 1 : (uint128)n.wide;
}

// The exact decimal digits of an integral double's magnitude: mantissa * 2^exp in base 1e9.
std::string digits_of_integral(double d) {
  int exp;
  double m = std::frexp(std::fabs(d), &exp);
  uint64_t mant = (uint64_t)std::ldexp(m, 53);
  exp -= 53;
  if (exp <= 0) return digits_of(mant >> -exp);
  std::vector<uint32_t> limbs{(uint32_t)(mant % 1000000000), (uint32_t)(mant / 1000000000 % 1000000000),
                              (uint32_t)(mant / 1000000000000000000ULL)};
  for (; exp > 0; exp -= std::min(exp, 30)) {
    uint64_t carry = 0;
    for (auto& limb : limbs) {
      uint64_t t = ((uint64_t)limb << std::min(exp, 30)) + carry;
      limb = (uint32_t)(t % 1000000000);
      carry = t / 1000000000;
    }
    while (carry) {
      limbs.push_back((uint32_t)(carry % 1000000000));
      carry /= 1000000000;
    }
  }
  while (limbs.size() > 1 && limbs.back() == 0) limbs.pop_back();
  std::string s = std::to_string(limbs.back());
  char buf[16];
  for (size_t i = limbs.size() - 1; i-- > 0;) {
    std::snprintf(buf, sizeof buf, "%09u", limbs[i]);
    s += buf;
  }
  return s;
}

int compare_magnitude(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  int c = a.compare(b);
  return (c > 0) - (c < 0);
}

// a - b for magnitudes with a >= b.
std::string subtract(std::string_view a, std::string_view b) {
  std::string r(a);
  int borrow = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    size_t ri = r.size() - 1 - i;
    int x = (r[ri] - '0') - borrow - (i < b.size() ? b[b.size() - 1 - i] - '0' : 0);
    borrow = x < 0;
    r[ri] = char('0' + (x + 10) % 10);
  }
  size_t nz = r.find_first_not_of('0');
  return nz == std::string::npos ? "0" : r.substr(nz);
}

// (digits * 10^zeros) mod m, with m < 2^127 (doubling keeps every step below 2^128).
uint128 mod_small(std::string_view digits, size_t zeros, uint128 m) {
  auto times10 = [m](uint128 r) {
    uint128 r2 = (r + r) % m, r8 = (((r2 + r2) % m) * 2) % m;
    return (r8 + r2) % m;
  };
  uint128 r = 0;
  for (char c : digits) r = (times10(r) + (unsigned)(c - '0')) % m;
  for (size_t i = 0; i < zeros; ++i) r = times10(r);
  return r;
}

// digits mod m, both magnitudes.
bool divisible(std::string_view digits, std::string_view m) {
  std::string r = "0";
  for (char c : digits) {
    r = r == "0" ? std::string(1, c) : r + c;
    if (r == "0") continue;
    while (compare_magnitude(r, m) >= 0) r = subtract(r, m);
  }
  return r == "0";
}

// Sign and exact digits of an integer-valued Num.
struct Exact {
  bool neg;
  std::string digits;
};
Exact exact(const Num& n) {
  switch (n.kind) {
    case Num::Big: return {n.neg, std::string(n.digits)};
    case Num::Float: return {n.number < 0, digits_of_integral(n.number)};
    case Num::Int: return {n.int64 < 0, digits_of(magnitude(n))};
    case Num::UInt: return {false, digits_of(n.uint64)};
    case Num::Wide: return {n.wide < 0, digits_of(magnitude(n))};
  }
  return {};
}

}  // namespace

int compare_wide(const Num& a, const Num& b) {
  if (a.kind != Num::Float && a.kind != Num::Big && b.kind != Num::Float && b.kind != Num::Big) {
    auto wide = [](const Num& n) {
      return n.kind == Num::Int ? n.int64 : n.kind == Num::UInt ? (int128)n.uint64 : n.wide;
    };
    int128 x = wide(a), y = wide(b);
    return (x > y) - (x < y);
  }
  if (a.kind != Num::Big && b.kind != Num::Big) {
    // long double holds every int64/uint64/double exactly on the platforms we build for; a
    // 128-bit integer meets a double here only beyond 2^64, where both sides are integers.
    if (a.kind == Num::Wide || b.kind == Num::Wide) {
      const Num& f = a.kind == Num::Float ? a : b;
      if (std::isfinite(f.number) && std::fabs(f.number) >= 0x1p64) {
        Exact x = exact(a), y = exact(b);
        if (x.neg != y.neg) return x.neg ? -1 : 1;
        int c = compare_magnitude(x.digits, y.digits);
        return x.neg ? -c : c;
      }
    }
    long double x = a.kind == Num::Float  ? (long double)a.number
                    : a.kind == Num::Wide ? (long double)a.wide
                    : a.kind == Num::UInt ? (long double)a.uint64
                                          : (long double)a.int64;
    long double y = b.kind == Num::Float  ? (long double)b.number
                    : b.kind == Num::Wide ? (long double)b.wide
                    : b.kind == Num::UInt ? (long double)b.uint64
                                          : (long double)b.int64;
    return (x > y) - (x < y);
  }
  // A B is beyond 2^127 in magnitude: only another B or a double that large can compare by digits.
  auto beyond = [](const Num& n) {
    return n.kind == Num::Big || (n.kind == Num::Float && std::isfinite(n.number) && std::fabs(n.number) >= 0x1p127);
  };
  if (!beyond(a) || !beyond(b)) {
    if (a.kind == Num::Float && std::isinf(a.number)) return a.number > 0 ? 1 : -1;
    if (b.kind == Num::Float && std::isinf(b.number)) return b.number > 0 ? -1 : 1;
    return a.kind == Num::Big ? (a.neg ? -1 : 1) : (b.neg ? 1 : -1);
  }
  Exact x = exact(a), y = exact(b);
  if (x.neg != y.neg) return x.neg ? -1 : 1;
  int c = compare_magnitude(x.digits, y.digits);
  return x.neg ? -c : c;
}

// value = mant * 10^exp, from the shortest decimal representation (integers exactly).
static bool decimal(const Num& n, uint128& mant, int& exp) {
  if (n.kind != Num::Float) {
    mant = magnitude(n);
    exp = 0;
    return true;
  }
  if (!std::isfinite(n.number)) return false;
  if (std::fabs(n.number) >= 0x1p53 && std::fabs(n.number) < 0x1p127) {  // integral: its exact binary value
    mant = (uint128)std::fabs(n.number);
    exp = 0;
    return true;
  }
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, std::fabs(n.number), std::chars_format::scientific);
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

static bool is_multiple_big(const Num& x, const Num& m) {
  if (m.kind == Num::Big)  // |m| > 2^127 > |x| unless x is a B too: then only 0 is a multiple
    return x.kind == Num::Big ? divisible(x.digits, m.digits) : x.approx() == 0;
  // x is a B; m = b * 10^q.
  uint128 b;
  int q;
  if (!decimal(m, b, q) || b == 0) return false;
  std::string_view xd = x.digits;
  if (q < 0) return mod_small(xd, (size_t)-q, b) == 0;
  if ((size_t)q >= xd.size() || xd.find_first_not_of('0', xd.size() - q) != std::string_view::npos) return false;
  return mod_small(xd.substr(0, xd.size() - q), 0, b) == 0;
}

bool is_multiple(const Num& x, const Num& m) {
  if (x.kind == Num::Int && m.kind == Num::Int && m.int64 > 0) return x.int64 % m.int64 == 0;  // the common case
  // Doubles beyond 2^127 are integers: take their exact value, like 2**200 == 2.0**200 does.
  std::string xs, ms;
  auto as_big = [](const Num& n, std::string& store) {
    if (n.kind != Num::Float || !std::isfinite(n.number) || std::fabs(n.number) < 0x1p127) return n;
    Num b;
    b.kind = Num::Big;
    b.neg = n.number < 0;
    b.number = n.number;
    store = digits_of_integral(n.number);
    b.digits = store;
    return b;
  };
  if (x.kind == Num::Big || m.kind == Num::Big || x.kind == Num::Float || m.kind == Num::Float) {
    Num bx = as_big(x, xs), bm = as_big(m, ms);
    if (bx.kind == Num::Big || bm.kind == Num::Big) return is_multiple_big(bx, bm);
  }
  uint128 a, b;
  int p, q;
  if (!decimal(x, a, p) || !decimal(m, b, q) || b == 0) return false;
  if (a == 0) return true;
  if (q > p) {  // x / m = a / (b * 10^(q-p))
    int k = q - p;
    if (k > 20) return false;  // b * 10^k > a, and a != 0
    uint128 bb = b;
    for (int i = 0; i < k; ++i) bb *= 10;
    return a % bb == 0;
  }
  // (a * 10^(p-q)) mod b, by modular exponentiation.
  uint128 r = a % b, ten = 10 % b;
  for (int k = p - q; k > 0; k >>= 1) {
    if (k & 1) r = (r * ten) % b;
    ten = (ten * ten) % b;
  }
  return r == 0;
}

Num num_of(const Json& j) {
  Num n;
  switch (j.type) {
    case Json::Type::Int:
      n.kind = Num::Int;
      n.int64 = j.int64;
      break;
    case Json::Type::UInt:
      n.kind = Num::UInt;
      n.uint64 = j.uint64;
      break;
    case Json::Type::BigInt: return num_of_decimal(j.text);
    default:
      n.kind = Num::Float;
      n.number = j.number;
      break;
  }
  return n;
}

Num num_of_decimal(std::string_view text) {
  Num n;
  bool neg = !text.empty() && text[0] == '-';
  std::string_view mag = text.substr(neg);
  mag.remove_prefix(std::min(mag.find_first_not_of('0'), mag.size() - (mag.empty() ? 0 : 1)));
  uint128 v = 0;
  const uint128 limit = ((uint128)1 << 127) - 1;
  for (char c : mag) {
    if (v > (limit - (unsigned)(c - '0')) / 10) {
      n.kind = Num::Big;
      n.neg = neg;
      n.digits = mag;
      n.number = std::strtod(std::string(text).c_str(), nullptr);  // correctly rounded (±inf beyond range)
      return n;
    }
    v = v * 10 + (unsigned)(c - '0');
  }
  n.kind = Num::Wide;
  n.wide = neg ? -(int128)v : (int128)v;
  return n;
}

}  // namespace mcp_native::schema
