// JSON-RPC 2.0 framing for the MCP stdio transport: newline-delimited messages, split into lines
// incrementally, parsed with simdjson and classified by their envelope. Lines that are not valid
// messages become values carrying the error response to send back, never exceptions.
#pragma once

#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mcp_native/json/tape.hpp"
#include "mcp_native/mcp/protocol.hpp"
#include "mcp_native/util/in_use.hpp"

namespace mcp_native::jsonrpc {

/// Standard JSON-RPC 2.0 error code: the line is not valid JSON.
inline constexpr int kParseError = -32700;
/// Standard JSON-RPC 2.0 error code: the JSON is not a valid message envelope.
inline constexpr int kInvalidRequest = -32600;
/// Standard JSON-RPC 2.0 error code: the method does not exist or is not available.
inline constexpr int kMethodNotFound = -32601;
/// Standard JSON-RPC 2.0 error code: invalid method parameters.
inline constexpr int kInvalidParams = -32602;
/// Standard JSON-RPC 2.0 error code: internal error of the receiver.
inline constexpr int kInternalError = -32603;

/// What a decoded line turned out to be.
enum class MessageKind : std::uint8_t { Request, Notification, Response, ErrorResponse, Invalid };

/// A request id as read from a message: absent (or unreadable), an integer or a string.
struct RequestId {
  /// Which member holds the value. Json: an id that only a complete JSON parser represents (an
  /// integer beyond 64 bits, a string with an escaped lone surrogate), kept as its JSON text.
  enum class Kind : std::uint8_t { Absent, Int, UInt, String, Json };
  /// Which member holds the value.
  Kind kind = Kind::Absent;
  /// The value when kind is Int.
  std::int64_t int_value = 0;
  /// The value when kind is UInt (integers above INT64_MAX).
  std::uint64_t uint_value = 0;
  /// The value when kind is String (unescaped UTF-8) or Json (the JSON text of the value as it
  /// appeared in the line); valid until the next line is decoded.
  std::string_view string_value;
};

/// One decoded line. Its views and body are valid only during the MessageSink callback.
struct Message {
  /// The classification of the line.
  MessageKind kind = MessageKind::Invalid;
  /// Request, Response: the id. ErrorResponse: the id or Absent (absent or null on the wire).
  /// Invalid: the id of the offending message when it could be read, else Absent.
  RequestId id;
  /// Request, Notification: the method name.
  std::string_view method;
  /// Request, Notification: whether `params` was present.
  bool has_body = false;
  /// Request, Notification: `params` (an object) when has_body. Response: `result` (an object).
  /// ErrorResponse: `error` (an object with an integer `code` and a string `message`). A value
  /// on the tape of the decoder's parsed line (json/tape.hpp).
  tape::Value body;
  /// Invalid: kParseError or kInvalidRequest.
  int error_code = 0;
  /// Invalid: the standard error message ("Parse error" or "Invalid Request").
  std::string_view error_message;
  /// Invalid: what exactly is wrong, sent as the error's `data`.
  std::string_view error_detail;
  /// Invalid: the complete error response line to send back (compact JSON ending in "\n").
  std::string_view response;
  /// False when the line holds values simdjson cannot represent (integers beyond 64 bits,
  /// numbers beyond the double range, escaped lone surrogates): the line was classified with
  /// those values replaced by placeholders of the same JSON type, so `method`, `body` and an
  /// Int/String `id` may differ from the line; take them from `line` with a complete parser.
  /// Always true for Invalid (an id the placeholders would change is a Json id).
  bool exact = true;
  /// Request, Notification, Response, ErrorResponse: the line, without its line ending.
  std::string_view line;
};

/// Receives the messages of a Decoder, in stream order.
class MessageSink {
 public:
  virtual ~MessageSink() = default;
  /// Called once per non-blank line. May throw; the decoder then stays usable and continues
  /// with the line after this one on the next feed().
  virtual void on_message(const Message& message) = 0;
};

/// Writes the error response line for an unreadable or invalid message into `out` (replacing
/// its content): {"jsonrpc":"2.0","id":...,"error":{"code":...,"message":...,"data":...}}\n.
/// An Absent id is written as null for 2025-06-18 (JSON-RPC 2.0) and left out for later
/// versions, whose schemas make the id of an error response optional but never null.
void write_error_response(std::string& out, ProtocolVersion version, const RequestId& id, int code,
                          std::string_view message, std::string_view detail);

/// Incremental newline-delimited JSON-RPC decoder. Lines end in "\n" (a "\r" before it is
/// dropped); blank lines are skipped. A line that arrives whole within a chunk is parsed where it
/// is; a line split over chunks is gathered once into a reusable padded buffer and parsed there,
/// so a message split over many chunks costs about as much as one fed whole.
///
/// Threads: a decoder holds one stream's state (its buffered line, its parser) and serves one
/// call at a time. Different decoders run in parallel freely; one decoder may pass from thread to
/// thread between calls, but feed() or close() entered while another call on it is running (from
/// another thread, or from the sink of that call) throws InUseError instead of corrupting it.
class Decoder {
 public:
  /// `max_message_bytes` bounds the length of a line (without its line ending); longer lines
  /// are reported as Invalid as soon as they are known to be too long, and their remaining
  /// bytes are skipped up to the next newline without being buffered.
  Decoder(std::size_t max_message_bytes, ProtocolVersion version);

  /// Decodes every complete line in `chunk` (plus the buffered start of the first one). Throws
  /// InUseError when the decoder is already in use (see the class comment).
  void feed(std::string_view chunk, MessageSink& sink);
  /// Ends the stream: decodes a last line that had no newline, then resets the decoder.
  void close(MessageSink& sink);

  /// Bytes of an incomplete line currently buffered.
  std::size_t pending_bytes() const noexcept { return len_; }
  /// The line length limit given at construction.
  std::size_t max_message_bytes() const noexcept { return max_; }
  /// The protocol version given at construction.
  ProtocolVersion version() const noexcept { return version_; }

 private:
  void append(const char* data, std::size_t n);
  void decode_line(MessageSink& sink);
  void classify_line(const char* line, std::size_t n, MessageSink& sink);
  void release_if_big(std::size_t line_bytes);
  // A member value of a line's top-level object: its JSON text, and whether the parsed copy
  // holds a placeholder in its place.
  struct MemberSpan {
    std::string_view text;
    bool replaced = false;
  };
  bool parse_placeholders(std::string_view line, simdjson::dom::element& root);

  static constexpr std::size_t kInitialBytes = 4096;
  void emit_invalid(MessageSink& sink, const RequestId& id, int code, std::string_view detail);

  std::size_t max_;
  ProtocolVersion version_;
  simdjson::dom::parser parser_;
  std::vector<char> buf_;  // the current line; buf_.size() >= len_ + SIMDJSON_PADDING
  std::size_t len_ = 0;
  bool skipping_ = false;  // inside an oversized line: drop bytes up to the next newline
  std::string response_;
  std::string detail_;
  std::vector<char> placeholders_;   // a copy of the line parsed when the line itself cannot be
  std::vector<MemberSpan> members_;  // of that line's top-level object
  bool exact_ = true;                // false while classifying such a copy
  UseFlag in_use_;                   // set during feed() and close(): one caller at a time
};

}  // namespace mcp_native::jsonrpc
