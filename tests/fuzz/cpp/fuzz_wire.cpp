// The JSON-RPC line decoder and the SSE decoder: the same bytes fed in one chunk and in pieces
// (cut where the first bytes say) give the same messages and events.
#include <simdjson.h>

#include "fuzz_common.hpp"
#include "mcp_native/mcp/jsonrpc.hpp"
#include "mcp_native/mcp/sse.hpp"
#include "../../cpp/tape_json.hpp"

namespace rpc = mcp_native::jsonrpc;
namespace sse = mcp_native::sse;

namespace {

struct RpcLog final : rpc::MessageSink {
  std::string log;
  void on_message(const rpc::Message& m) override {
    log += std::to_string(static_cast<int>(m.kind)) + "|" + std::to_string(static_cast<int>(m.id.kind)) + "|" +
           std::to_string(m.id.int_value) + "|" + std::to_string(m.id.uint_value) + "|" +
           std::string(m.id.string_value) + "|" + std::string(m.method) + "|" + std::to_string(m.error_code) + "|" +
           std::string(m.error_detail) + "|" + std::string(m.response) + "|" + std::string(m.line) + "|" +
           (m.exact ? "e" : "i");
    if (m.has_body) log += mcp_native::tape_json(m.body);
    log += "\n";
  }
};

struct SseLog final : sse::EventSink {
  std::string log;
  void on_event(const sse::Event& e) override {
    log += std::string(e.type) + "|" + std::string(e.data) + "|" + std::string(e.id) + "|" +
           std::string(e.retry_digits) + "\n";
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  const std::string_view seed = in.substr(0, 8);
  const size_t limit = !in.empty() && static_cast<unsigned char>(in[0]) > 200 ? 1 + in[0] : 1 << 20;
  const auto version = static_cast<mcp_native::ProtocolVersion>(in.size() % 5);  // any of the five
  RpcLog whole, cut;
  {
    rpc::Decoder d(limit, version);
    d.feed(in, whole);
    d.close(whole);
  }
  {
    rpc::Decoder d(limit, version);
    for (auto p : pieces(in, seed)) d.feed(p, cut);
    d.close(cut);
  }
  FUZZ_CHECK(whole.log == cut.log, "one chunk:\n%s\npieces:\n%s", whole.log.c_str(), cut.log.c_str());

  SseLog swhole, scut;
  {
    sse::Decoder d;
    d.feed(in, swhole);
  }
  {
    sse::Decoder d;
    for (auto p : pieces(in, seed)) d.feed(p, scut);
  }
  FUZZ_CHECK(swhole.log == scut.log, "one chunk:\n%s\npieces:\n%s", swhole.log.c_str(), scut.log.c_str());
  return 0;
}
