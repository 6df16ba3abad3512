#include "mcp_native/mcp/jsonrpc.hpp"

#include <charconv>
#include <cstring>

#include "mcp_native/json/padded.hpp"
#include "mcp_native/json/syntax.hpp"
#include "mcp_native/json/writer.hpp"

namespace mcp_native::jsonrpc {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

constexpr std::string_view kParseErrorMessage = "Parse error";
constexpr std::string_view kInvalidRequestMessage = "Invalid Request";

template <class Int>
void append_int(std::string& out, Int v) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}

std::string_view type_phrase(element e) {
  switch (e.type()) {
    case element_type::ARRAY: return "an array";
    case element_type::OBJECT: return "an object";
    case element_type::INT64:
    case element_type::UINT64: return "an integer";
    case element_type::DOUBLE: return "a number with a fraction or exponent";
    case element_type::STRING: return "a string";
    case element_type::BOOL: return "a boolean";
    case element_type::NULL_VALUE: return "null";
  }
  return "an unknown value";
}

bool is_blank(const char* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r') return false;
  }
  return true;
}

// Reads a string-or-integer id. Returns false for any other type (including null).
bool read_id(element e, RequestId& id) {
  switch (e.type()) {
    case element_type::INT64:
      id.kind = RequestId::Kind::Int;
      id.int_value = e.get_int64().value_unsafe();
      return true;
    case element_type::UINT64:
      id.kind = RequestId::Kind::UInt;
      id.uint_value = e.get_uint64().value_unsafe();
      return true;
    case element_type::STRING:
      id.kind = RequestId::Kind::String;
      id.string_value = e.get_string().value_unsafe();
      return true;
    default: return false;
  }
}

std::string_view parse_error_detail(simdjson::error_code err) {
  switch (err) {
    case simdjson::UTF8_ERROR: return "invalid JSON: the line is not valid UTF-8";
    case simdjson::DEPTH_ERROR: return "invalid JSON: nested deeper than 1024 arrays or objects";
    case simdjson::NUMBER_ERROR:
    case simdjson::NUMBER_OUT_OF_RANGE: return "invalid JSON: malformed number";
    case simdjson::EMPTY: return "invalid JSON: no value";
    case simdjson::STRING_ERROR: return "invalid JSON: bad string escape";
    case simdjson::UNESCAPED_CHARS: return "invalid JSON: unescaped control character in a string";
    case simdjson::UNCLOSED_STRING: return "invalid JSON: unterminated string";
    case simdjson::CAPACITY:
    case simdjson::MEMALLOC: return "the message is too large to parse";
    default: return "invalid JSON: syntax error";
  }
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

bool is_number_char(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

// The value of the 4 hex digits at p (valid JSON guarantees them after "\u").
unsigned hex4(const char* p) {
  unsigned v = 0;
  for (int k = 0; k < 4; ++k) {
    const char c = p[k];
    v = v * 16 + static_cast<unsigned>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
  }
  return v;
}

}  // namespace

void write_error_response(std::string& out, ProtocolVersion version, const RequestId& id, int code,
                          std::string_view message, std::string_view detail) {
  out.assign(R"({"jsonrpc":"2.0",)");
  if (id.kind == RequestId::Kind::Absent) {
    if (error_id_required(version)) out.append(R"("id":null,)");
  } else {
    out.append(R"("id":)");
    switch (id.kind) {
      case RequestId::Kind::Int: append_int(out, id.int_value); break;
      case RequestId::Kind::UInt: append_int(out, id.uint_value); break;
      case RequestId::Kind::String: append_json_string(out, id.string_value); break;
      case RequestId::Kind::Json: out.append(id.string_value); break;
      case RequestId::Kind::Absent: break;
    }
    out.push_back(',');
  }
  out.append(R"("error":{"code":)");
  append_int(out, code);
  out.append(R"(,"message":)");
  append_json_string(out, message);
  if (!detail.empty()) {
    out.append(R"(,"data":)");
    append_json_string(out, detail);
  }
  out.append("}}\n");
}

Decoder::Decoder(std::size_t max_message_bytes, ProtocolVersion version)
    : max_(max_message_bytes), version_(version), buf_(kInitialBytes + simdjson::SIMDJSON_PADDING) {}

void Decoder::append(const char* data, std::size_t n) {
  if (len_ + n + simdjson::SIMDJSON_PADDING > buf_.size()) {
    // Doubling keeps a line that arrives in many small chunks linear in its length.
    buf_.resize(std::max(buf_.size() * 2, len_ + n + simdjson::SIMDJSON_PADDING));
  }
  std::memcpy(buf_.data() + len_, data, n);
  len_ += n;
}

void Decoder::feed(std::string_view chunk, MessageSink& sink) {
  UseFlag::Scope in_use(in_use_, "this jsonrpc::Decoder");
  const char* p = chunk.data();
  const char* const end = p + chunk.size();
  while (p < end) {
    const auto* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    const char* piece_end = nl ? nl : end;
    const auto piece = static_cast<std::size_t>(piece_end - p);
    if (skipping_) {
      if (!nl) return;
      skipping_ = false;
      p = nl + 1;
      continue;
    }
    const std::size_t total = len_ + piece;
    // Without a newline yet, one more byte may still be the "\r" of a "\r\n" ending.
    bool too_long = total > max_ + 1;
    if (!too_long && nl && total > max_) {
      const char last = piece ? piece_end[-1] : buf_[len_ - 1];
      too_long = last != '\r';
    }
    if (too_long) {
      release_if_big(len_);
      len_ = 0;
      skipping_ = nl == nullptr;
      detail_.assign("the message is longer than the limit of ");
      append_int(detail_, max_);
      detail_.append(" bytes");
      emit_invalid(sink, RequestId{}, kInvalidRequest, detail_);
      if (!nl) return;
      p = nl + 1;
      continue;
    }
    // simdjson reads SIMDJSON_PADDING bytes past the line: the rest of the chunk, or its page.
    if (nl && len_ == 0 &&
        (static_cast<std::size_t>(end - piece_end) >= simdjson::SIMDJSON_PADDING || padding_in_page({p, piece}))) {
      // A whole line inside the chunk is parsed where it is, without a copy.
      const char* line = p;
      p = nl + 1;
      try {
        classify_line(line, piece, sink);
      } catch (...) {
        release_if_big(piece);
        throw;
      }
      release_if_big(piece);
      continue;
    }
    append(p, piece);
    if (!nl) return;
    p = nl + 1;
    decode_line(sink);
  }
}

void Decoder::close(MessageSink& sink) {
  UseFlag::Scope in_use(in_use_, "this jsonrpc::Decoder");
  const bool had_line = len_ > 0 && !skipping_;
  skipping_ = false;
  if (had_line) decode_line(sink);
  len_ = 0;
}

void Decoder::emit_invalid(MessageSink& sink, const RequestId& id, int code, std::string_view detail) {
  const std::string_view message = code == kParseError ? kParseErrorMessage : kInvalidRequestMessage;
  write_error_response(response_, version_, id, code, message, detail);
  Message m;
  m.kind = MessageKind::Invalid;
  m.id = id;
  m.error_code = code;
  m.error_message = message;
  m.error_detail = detail;
  m.response = response_;
  sink.on_message(m);
}

void Decoder::decode_line(MessageSink& sink) {
  const std::size_t n = len_;
  // The line is consumed whatever happens next, also if the sink throws.
  len_ = 0;
  // A line ending after the line, as in a chunk, rather than stale bytes of an earlier line.
  std::memset(buf_.data() + n, ' ', simdjson::SIMDJSON_PADDING);
  try {
    classify_line(buf_.data(), n, sink);
  } catch (...) {
    release_if_big(n);
    throw;
  }
  release_if_big(n);
}

void Decoder::release_if_big(std::size_t line_bytes) {
  // Don't keep the memory of one huge message (the parser needs several times its size).
  if (line_bytes > kKeepBytes) {
    parser_ = simdjson::dom::parser();
    std::vector<char>(kInitialBytes + simdjson::SIMDJSON_PADDING).swap(buf_);
    std::vector<char>().swap(placeholders_);
  }
}

bool Decoder::parse_placeholders(std::string_view line, element& root) {
  // Valid JSON that simdjson rejects holds integers beyond 64 bits, numbers beyond the double
  // range or escaped lone surrogates. A copy of the line with each such token replaced, in
  // place and without changing the line's length or structure, by a placeholder of the same
  // JSON type is what gets classified: a lone surrogate escape becomes \ufffd, a number with a
  // fraction or exponent 0.0 and an integer of 19 or more digits 0 (padded with spaces). That
  // replaces some representable numbers too, which is harmless: every replaced value is taken
  // from the line itself by a complete parser (Message::exact is false).
  const std::size_t n = line.size();
  placeholders_.assign(line.begin(), line.end());
  placeholders_.resize(n + simdjson::SIMDJSON_PADDING, ' ');
  char* const s = placeholders_.data();
  members_.clear();
  constexpr std::size_t kNone = ~std::size_t{0};
  int depth = 0;
  bool object_root = false, replaced = false;
  std::size_t value_begin = kNone;
  auto end_member = [&](std::size_t end) {
    if (value_begin == kNone) return;
    std::size_t b = value_begin;
    while (b < end && is_space(line[b])) ++b;
    while (end > b && is_space(line[end - 1])) --end;
    members_.push_back({line.substr(b, end - b), replaced});
    value_begin = kNone;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const char c = s[i];
    if (c == '"') {
      for (++i; s[i] != '"'; ++i) {
        if (s[i] != '\\') continue;
        if (s[++i] != 'u') continue;  // i is at the "u" of \uXXXX
        const unsigned v = hex4(s + i + 1);
        if (v >= 0xD800 && v <= 0xDBFF && s[i + 5] == '\\' && s[i + 6] == 'u') {
          const unsigned low = hex4(s + i + 7);
          if (low >= 0xDC00 && low <= 0xDFFF) {
            i += 10;  // a surrogate pair
            continue;
          }
        }
        if (v >= 0xD800 && v <= 0xDFFF) {
          std::memcpy(s + i + 1, "fffd", 4);
          replaced = true;
        }
        i += 4;
      }
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      std::size_t j = i, digits = 0;
      bool real = false;
      for (; j < n && is_number_char(s[j]); ++j) {
        digits += s[j] >= '0' && s[j] <= '9';
        real = real || s[j] == '.' || s[j] == 'e' || s[j] == 'E';
      }
      if (real || digits >= 19) {
        std::memset(s + i, ' ', j - i);
        // A number with a fraction or exponent has at least 3 bytes ("1e5").
        std::memcpy(s + i, real ? "0.0" : "0", real ? 3 : 1);
        replaced = true;
      }
      i = j - 1;
    } else if (c == '{' || c == '[') {
      object_root = object_root || (depth == 0 && c == '{');
      ++depth;
    } else if (c == '}' || c == ']') {
      if (depth == 1 && object_root) end_member(i);
      --depth;
    } else if (depth == 1 && object_root) {
      if (c == ':') {
        value_begin = i + 1;
        replaced = false;
      } else if (c == ',') {
        end_member(i);
      }
    }
  }
  return !parser_.parse(s, n, false).get(root);
}

void Decoder::classify_line(const char* line, std::size_t n, MessageSink& sink) {
  if (n && line[n - 1] == '\r') --n;
  if (is_blank(line, n)) return;

  // simdjson reads up to SIMDJSON_PADDING bytes past the line: in a chunk, the line ending and
  // whatever follows it; in the buffer, spaces.
  element root;
  exact_ = true;
  if (auto err = parser_.parse(line, n, false).get(root)) {
    // A line that is valid JSON is never a parse error, whatever simdjson can represent.
    const bool representable =
        err != simdjson::NUMBER_ERROR && err != simdjson::NUMBER_OUT_OF_RANGE && err != simdjson::STRING_ERROR;
    if (representable) {
      emit_invalid(sink, RequestId{}, kParseError, parse_error_detail(err));
      return;
    }
    if (const JsonSyntaxError e = find_json_error({line, n}, 1024); e.found) {
      // simdjson's error may be another one than the first: say what and where that is.
      const std::string_view what = e.message;
      detail_.assign("invalid JSON: ");
      detail_.append(what);
      detail_.append(what.size() >= 3 && what.substr(what.size() - 3) == " at" ? " byte " : " at byte ");
      append_int(detail_, e.offset);
      emit_invalid(sink, RequestId{}, kParseError, detail_);
      return;
    }
    exact_ = false;
    if (!parse_placeholders({line, n}, root)) {
      emit_invalid(sink, RequestId{}, kParseError, "the message is too large to parse");
      return;
    }
  }
  if (root.type() == element_type::ARRAY) {
    emit_invalid(sink, RequestId{}, kInvalidRequest, "batches (JSON arrays) are not supported: one message per line");
    return;
  }
  if (root.type() != element_type::OBJECT) {
    detail_.assign("a message must be a JSON object, not ");
    detail_.append(type_phrase(root));
    emit_invalid(sink, RequestId{}, kInvalidRequest, detail_);
    return;
  }

  element jsonrpc, id, method, params, result, error;
  bool has_jsonrpc = false, has_id = false, has_method = false, has_params = false, has_result = false,
       has_error = false;
  // A body's position on the tape, for Message::body: the walk follows the members on the
  // tape (a key's word, then its value's) in step with the DOM's.
  const std::uint64_t* const words = parser_.doc.tape.get();
  const std::uint64_t *at = words + 2, *params_at = nullptr, *result_at = nullptr, *error_at = nullptr;
  // One pass over the members; a repeated key keeps its last value, as Python's json does.
  const simdjson::dom::object members = root.get_object().value_unsafe();
  std::size_t index = 0, id_index = 0;
  for (auto field : members) {
    const std::string_view key = field.key;
    const std::uint64_t* value_at = at + 1;
    at = tape::next(words, value_at);
    if (key == "jsonrpc") {
      jsonrpc = field.value, has_jsonrpc = true;
    } else if (key == "id") {
      id = field.value, has_id = true, id_index = index;
    } else if (key == "method") {
      method = field.value, has_method = true;
    } else if (key == "params") {
      params = field.value, has_params = true, params_at = value_at;
    } else if (key == "result") {
      result = field.value, has_result = true, result_at = value_at;
    } else if (key == "error") {
      error = field.value, has_error = true, error_at = value_at;
    }
    ++index;
  }

  RequestId rid;
  const bool id_ok = has_id && read_id(id, rid);
  if (id_ok && !exact_ && id_index < members_.size() && members_[id_index].replaced) {
    rid.kind = RequestId::Kind::Json;  // the placeholder's type, the line's value
    rid.string_value = members_[id_index].text;
  }
  const bool id_null = has_id && id.type() == element_type::NULL_VALUE;
  auto invalid = [&](std::string_view detail) { emit_invalid(sink, rid, kInvalidRequest, detail); };
  auto bad_id = [&](std::string_view what) {
    detail_.assign(what);
    detail_.append(" must be a string or an integer, not ");
    detail_.append(type_phrase(id));
    invalid(detail_);
  };

  if (!has_jsonrpc || jsonrpc.type() != element_type::STRING || jsonrpc.get_string().value_unsafe() != "2.0") {
    invalid(R"("jsonrpc" must be the string "2.0")");
    return;
  }

  Message m;
  if (has_method) {
    if (method.type() != element_type::STRING) {
      detail_.assign(R"("method" must be a string, not )");
      detail_.append(type_phrase(method));
      invalid(detail_);
      return;
    }
    if (has_result || has_error) {
      invalid(R"(a request or notification cannot carry "result" or "error")");
      return;
    }
    if (has_params && params.type() != element_type::OBJECT) {
      detail_.assign(R"("params" must be an object, not )");
      detail_.append(type_phrase(params));
      invalid(detail_);
      return;
    }
    if (has_id && !id_ok) {
      bad_id(R"(the "id" of a request)");
      return;
    }
    m.kind = has_id ? MessageKind::Request : MessageKind::Notification;
    m.id = rid;
    m.method = method.get_string().value_unsafe();
    m.has_body = has_params;
    m.body = {&parser_.doc, params_at};
  } else if (has_result && has_error) {
    invalid(R"(a response cannot carry both "result" and "error")");
    return;
  } else if (has_result) {
    if (!id_ok) {
      if (has_id) {
        bad_id(R"(the "id" of a response)");
      } else {
        invalid(R"(a response needs an "id")");
      }
      return;
    }
    if (result.type() != element_type::OBJECT) {
      detail_.assign(R"("result" must be an object, not )");
      detail_.append(type_phrase(result));
      invalid(detail_);
      return;
    }
    m.kind = MessageKind::Response;
    m.id = rid;
    m.has_body = true;
    m.body = {&parser_.doc, result_at};
  } else if (has_error) {
    // The id of an error response is absent or null when the request's id was unreadable.
    if (has_id && !id_ok && !id_null) {
      bad_id(R"(the "id" of an error response)");
      return;
    }
    element code, message;
    const bool shape_ok = error.type() == element_type::OBJECT && !error["code"].get(code) &&
                          !error["message"].get(message) &&
                          (code.type() == element_type::INT64 || code.type() == element_type::UINT64) &&
                          message.type() == element_type::STRING;
    if (!shape_ok) {
      invalid(R"("error" must be an object with an integer "code" and a string "message")");
      return;
    }
    m.kind = MessageKind::ErrorResponse;
    m.id = rid;
    m.has_body = true;
    m.body = {&parser_.doc, error_at};
  } else {
    invalid(R"(a message needs a "method", a "result" or an "error")");
    return;
  }
  m.exact = exact_;
  m.line = {line, n};
  sink.on_message(m);
}

}  // namespace mcp_native::jsonrpc
