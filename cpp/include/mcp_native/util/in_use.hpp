// Detection of an object used by two callers at once, for the objects that hold per-stream state
// and are not to be shared while in use (the streaming decoders).
#pragma once

#include <atomic>
#include <stdexcept>
#include <string>

namespace mcp_native {

/// An object that serves one caller at a time was entered while in use: by another thread, or
/// from a callback of the very call that is using it.
struct InUseError : std::logic_error {
  using std::logic_error::logic_error;
};

/// Marks an object in use for the length of a call. A second entry meanwhile throws InUseError
/// before it touches anything, so the first call finishes undisturbed. One atomic exchange per
/// call; the flag also orders one thread's use before the next one's. A copy is not in use.
class UseFlag {
 public:
  UseFlag() noexcept = default;
  UseFlag(const UseFlag&) noexcept {}
  UseFlag& operator=(const UseFlag&) noexcept { return *this; }

  /// Holds the flag for its lifetime; `what` names the object in the error.
  class Scope {
   public:
    Scope(UseFlag& flag, const char* what) : flag_(flag) {
      if (flag.busy_.exchange(true, std::memory_order_acquire)) {
        throw InUseError(std::string(what) +
                         " is already in use (by another thread, or by the call this one is made from): "
                         "it serves one stream, one call at a time");
      }
    }
    ~Scope() { flag_.busy_.store(false, std::memory_order_release); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    UseFlag& flag_;
  };

 private:
  std::atomic<bool> busy_{false};
};

}  // namespace mcp_native
