#include "mcp_native/jsonrpc.hpp"

#include <charconv>
#include <cstring>

namespace mcp_native::jsonrpc {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

constexpr std::string_view kParseErrorMessage = "Parse error";
constexpr std::string_view kInvalidRequestMessage = "Invalid Request";

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(ch);
    } else if (c < 0x20) {
      switch (c) {
        case '\n': out.append("\\n"); break;
        case '\r': out.append("\\r"); break;
        case '\t': out.append("\\t"); break;
        case '\b': out.append("\\b"); break;
        case '\f': out.append("\\f"); break;
        default:
          out.append("\\u00");
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 0xf]);
      }
    } else {
      out.push_back(ch);
    }
  }
  out.push_back('"');
}

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
    default:
      return false;
  }
}

std::string_view parse_error_detail(simdjson::error_code err) {
  switch (err) {
    case simdjson::UTF8_ERROR: return "invalid JSON: the line is not valid UTF-8";
    case simdjson::DEPTH_ERROR: return "invalid JSON: nested deeper than 1024 arrays or objects";
    case simdjson::NUMBER_ERROR:
    case simdjson::NUMBER_OUT_OF_RANGE:
      return "invalid JSON: malformed number, or an integer outside the 64-bit range";
    case simdjson::EMPTY: return "invalid JSON: no value";
    case simdjson::STRING_ERROR:
      return "invalid JSON: bad string escape (unknown escape or unpaired surrogate)";
    case simdjson::UNESCAPED_CHARS: return "invalid JSON: unescaped control character in a string";
    case simdjson::UNCLOSED_STRING: return "invalid JSON: unterminated string";
    case simdjson::CAPACITY:
    case simdjson::MEMALLOC: return "the message is too large to parse";
    default: return "invalid JSON: syntax error";
  }
}

}  // namespace

std::optional<ProtocolVersion> parse_protocol_version(std::string_view name) noexcept {
  if (name == "2025-06-18") return ProtocolVersion::v2025_06_18;
  if (name == "2025-11-25") return ProtocolVersion::v2025_11_25;
  if (name == "2026-07-28") return ProtocolVersion::v2026_07_28;
  return std::nullopt;
}

void write_error_response(std::string& out, ProtocolVersion version, const RequestId& id, int code,
                          std::string_view message, std::string_view detail) {
  out.assign(R"({"jsonrpc":"2.0",)");
  switch (id.kind) {
    case RequestId::Kind::Absent:
      if (version == ProtocolVersion::v2025_06_18) out.append(R"("id":null,)");
      break;
    case RequestId::Kind::Int:
      out.append(R"("id":)");
      append_int(out, id.int_value);
      out.push_back(',');
      break;
    case RequestId::Kind::UInt:
      out.append(R"("id":)");
      append_int(out, id.uint_value);
      out.push_back(',');
      break;
    case RequestId::Kind::String:
      out.append(R"("id":)");
      append_json_string(out, id.string_value);
      out.push_back(',');
      break;
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
    append(p, piece);
    if (!nl) return;
    p = nl + 1;
    decode_line(sink);
  }
}

void Decoder::close(MessageSink& sink) {
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
  }
}

void Decoder::classify_line(char* line, std::size_t n, MessageSink& sink) {
  if (n && line[n - 1] == '\r') --n;
  if (is_blank(line, n)) return;

  // simdjson may read the padding; keep it free of stale bytes from a longer earlier line.
  std::memset(line + n, ' ', simdjson::SIMDJSON_PADDING);
  element root;
  if (auto err = parser_.parse(line, n, false).get(root)) {
    emit_invalid(sink, RequestId{}, kParseError, parse_error_detail(err));
    return;
  }
  if (root.type() == element_type::ARRAY) {
    emit_invalid(sink, RequestId{}, kInvalidRequest,
                 "batches (JSON arrays) are not supported since protocol version 2025-06-18");
    return;
  }
  if (root.type() != element_type::OBJECT) {
    detail_.assign("a message must be a JSON object, not ");
    detail_.append(type_phrase(root));
    emit_invalid(sink, RequestId{}, kInvalidRequest, detail_);
    return;
  }

  element jsonrpc, id, method, params, result, error;
  bool has_jsonrpc = false, has_id = false, has_method = false, has_params = false,
       has_result = false, has_error = false;
  // One pass over the members; a repeated key keeps its last value, as Python's json does.
  const simdjson::dom::object members = root.get_object().value_unsafe();
  for (auto field : members) {
    const std::string_view key = field.key;
    if (key == "jsonrpc") {
      jsonrpc = field.value, has_jsonrpc = true;
    } else if (key == "id") {
      id = field.value, has_id = true;
    } else if (key == "method") {
      method = field.value, has_method = true;
    } else if (key == "params") {
      params = field.value, has_params = true;
    } else if (key == "result") {
      result = field.value, has_result = true;
    } else if (key == "error") {
      error = field.value, has_error = true;
    }
  }

  RequestId rid;
  const bool id_ok = has_id && read_id(id, rid);
  const bool id_null = has_id && id.type() == element_type::NULL_VALUE;
  auto invalid = [&](std::string_view detail) {
    emit_invalid(sink, rid, kInvalidRequest, detail);
  };
  auto bad_id = [&](std::string_view what) {
    detail_.assign(what);
    detail_.append(" must be a string or an integer, not ");
    detail_.append(type_phrase(id));
    invalid(detail_);
  };

  if (!has_jsonrpc || jsonrpc.type() != element_type::STRING ||
      jsonrpc.get_string().value_unsafe() != "2.0") {
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
    m.body = params;
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
    m.body = result;
  } else if (has_error) {
    // The id of an error response is absent or null when the request's id was unreadable.
    if (has_id && !id_ok && !id_null) {
      bad_id(R"(the "id" of an error response)");
      return;
    }
    element code, message;
    const bool shape_ok = error.type() == element_type::OBJECT &&
                          !error["code"].get(code) && !error["message"].get(message) &&
                          (code.type() == element_type::INT64 || code.type() == element_type::UINT64) &&
                          message.type() == element_type::STRING;
    if (!shape_ok) {
      invalid(R"("error" must be an object with an integer "code" and a string "message")");
      return;
    }
    m.kind = MessageKind::ErrorResponse;
    m.id = rid;
    m.has_body = true;
    m.body = error;
  } else {
    invalid(R"(a message needs a "method", a "result" or an "error")");
    return;
  }
  sink.on_message(m);
}

}  // namespace mcp_native::jsonrpc
