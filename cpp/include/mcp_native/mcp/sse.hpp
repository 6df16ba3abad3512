// Server-Sent Events (the event stream format of the WHATWG HTML standard): an encoder and an
// incremental parser. The parser works on bytes: line ends, colons and field names are ASCII,
// so splitting UTF-8 before decoding gives the same text as decoding first; callers decode the
// dispatched fields as UTF-8 with replacement, as the standard's stream decoding does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "mcp_native/util/in_use.hpp"

namespace mcp_native::sse {

/// True if `s` contains "\r" or "\n" (not allowed in an event name or id).
bool has_line_break(std::string_view s) noexcept;

/// Appends one event to `out`: "event: <event>\n", then "id: <id>\n" if `id` is not null,
/// "retry: <retry_digits>\n" if non-empty, one "data: <line>\n" per line of `data` (any of
/// "\r\n", "\r", "\n" ends a line) and a blank line. The fields must be free of line breaks.
void write_event(std::string& out, std::string_view data, std::string_view event, const std::string_view* id,
                 std::string_view retry_digits);

/// A dispatched event; views are valid only during the EventSink callback.
struct Event {
  /// The event type ("message" unless an `event` field set another).
  std::string_view type;
  /// The data lines joined with "\n" (raw bytes of the stream).
  std::string_view data;
  /// The stream's last event ID ("" if none was set).
  std::string_view id;
  /// The ASCII digits of the stream's reconnection time, "" if never set.
  std::string_view retry_digits;
};

/// Receives the events of a Decoder, in stream order.
class EventSink {
 public:
  virtual ~EventSink() = default;
  /// Called once per dispatched event. May throw; the decoder stays consistent.
  virtual void on_event(const Event& event) = 0;
};

/// Incremental event stream parser following the standard's interpretation rules exactly.
///
/// Threads: a decoder holds one stream's state and serves one call at a time. Different decoders
/// run in parallel freely; feed() or close() entered while another call on the same decoder is
/// running (from another thread, or from the sink of that call) throws InUseError instead of
/// corrupting it.
class Decoder {
 public:
  /// Parses the lines that `chunk` completes and dispatches the events they complete.
  void feed(std::string_view chunk, EventSink& sink);
  /// Ends the stream: an event not ended by a blank line is discarded (as the standard says),
  /// the parser is ready for a new stream; the last event ID and reconnection time persist.
  /// Throws InUseError only when the decoder is in use (see the class comment).
  void close();

  /// The last event ID (what a reconnection sends as Last-Event-ID).
  std::string_view last_event_id() const noexcept { return last_id_; }
  /// The digits of the reconnection time, "" if never set.
  std::string_view retry_digits() const noexcept { return retry_; }

 private:
  void line(std::string_view line, EventSink& sink);

  std::string pending_;       // the start of an incomplete line
  std::string line_;          // a line completed from pending_ (kept for its capacity)
  std::size_t bom_seen_ = 0;  // bytes of a leading BOM matched so far
  bool at_start_ = true;      // a leading BOM may still come
  bool skip_lf_ = false;      // the last chunk ended in "\r": a "\n" first is its pair
  std::string data_;          // data lines, each followed by "\n"
  std::string type_;
  std::string last_id_;
  std::string retry_;
  UseFlag in_use_;  // set during feed() and close(): one caller at a time
};

}  // namespace mcp_native::sse
