#include "mcp_native/mcp/sse.hpp"

#include <cstring>

namespace mcp_native::sse {

namespace {

// Finds the next "\r" or "\n" in [p, end) with memchr. `nl` caches the next "\n" at or after p
// (null: not searched yet), so that a stream of "\r"-only line ends stays linear.
const char* find_eol(const char* p, const char* end, const char*& nl) {
  if (nl == nullptr || nl < p) {
    nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    if (nl == nullptr) nl = end;
  }
  const char* cr = static_cast<const char*>(std::memchr(p, '\r', static_cast<std::size_t>(nl - p)));
  if (cr) return cr;
  return nl < end ? nl : nullptr;
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

bool has_line_break(std::string_view s) noexcept { return s.find_first_of("\r\n") != std::string_view::npos; }

void write_event(std::string& out, std::string_view data, std::string_view event, const std::string_view* id,
                 std::string_view retry_digits) {
  out.reserve(out.size() + data.size() + event.size() + 32);
  out.append("event: ").append(event).push_back('\n');
  if (id) out.append("id: ").append(*id).push_back('\n');
  if (!retry_digits.empty()) out.append("retry: ").append(retry_digits).push_back('\n');
  const char* p = data.data();
  const char* const end = p + data.size();
  const char* nl = nullptr;
  for (;;) {
    const char* eol = find_eol(p, end, nl);
    const char* stop = eol ? eol : end;
    out.append("data: ").append(p, static_cast<std::size_t>(stop - p)).push_back('\n');
    if (!eol) break;
    p = eol + 1;
    if (*eol == '\r' && p < end && *p == '\n') ++p;
  }
  out.push_back('\n');
}

void Decoder::feed(std::string_view chunk, EventSink& sink) {
  UseFlag::Scope in_use(in_use_, "this sse::Decoder");
  const char* p = chunk.data();
  const char* const end = p + chunk.size();
  if (at_start_) {
    // One leading U+FEFF (EF BB BF in UTF-8) is dropped; it may arrive a byte at a time.
    static constexpr char kBom[] = "\xEF\xBB\xBF";
    while (p < end && bom_seen_ < 3 && *p == kBom[bom_seen_]) {
      ++p;
      ++bom_seen_;
    }
    if (bom_seen_ < 3) {
      if (p == end) return;
      pending_.append(kBom, bom_seen_);  // not a BOM after all: those bytes are text
    }
    at_start_ = false;
  }
  if (skip_lf_ && p < end) {
    skip_lf_ = false;
    if (*p == '\n') ++p;
  }
  const char* nl = nullptr;
  while (p < end) {
    const char* eol = find_eol(p, end, nl);
    if (!eol) {
      pending_.append(p, static_cast<std::size_t>(end - p));
      return;
    }
    std::string_view text(p, static_cast<std::size_t>(eol - p));
    p = eol + 1;
    if (*eol == '\r') {
      if (p == end) {
        skip_lf_ = true;
      } else if (*p == '\n') {
        ++p;
      }
    }
    if (pending_.empty()) {
      line(text, sink);
    } else {
      // Take the buffered start out first, so that a throwing sink leaves no half line behind.
      line_.swap(pending_);
      pending_.clear();
      line_.append(text);
      line(line_, sink);
    }
  }
}

void Decoder::close() {
  UseFlag::Scope in_use(in_use_, "this sse::Decoder");
  pending_.clear();
  bom_seen_ = 0;
  at_start_ = true;
  skip_lf_ = false;
  data_.clear();
  type_.clear();
}

void Decoder::line(std::string_view l, EventSink& sink) {
  if (l.empty()) {  // dispatch
    if (data_.empty()) {
      type_.clear();
      return;
    }
    data_.pop_back();  // the "\n" after the last data line
    struct Reset {
      Decoder& d;
      ~Reset() {
        d.data_.clear();
        d.type_.clear();
      }
    } reset{*this};
    sink.on_event(
        Event{type_.empty() ? std::string_view("message") : std::string_view(type_), data_, last_id_, retry_});
    return;
  }
  if (l[0] == ':') return;  // a comment
  const std::size_t colon = l.find(':');
  const std::string_view name = l.substr(0, colon);
  std::string_view value;
  if (colon != std::string_view::npos) {
    value = l.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
  }
  if (name == "data") {
    data_.append(value).push_back('\n');
  } else if (name == "event") {
    type_.assign(value);
  } else if (name == "id") {
    if (value.find('\0') == std::string_view::npos) last_id_.assign(value);
  } else if (name == "retry") {
    if (all_digits(value)) retry_.assign(value);
  }
  // any other field is ignored
}

}  // namespace mcp_native::sse
