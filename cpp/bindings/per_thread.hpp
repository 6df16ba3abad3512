// Per-thread objects of the bindings: buffers that no two threads may share (with or without a
// GIL), cheaper to reach than a thread_local with a destructor.
#pragma once

#include <memory>
#include <new>

namespace mcp_native::bindings {

/// One T per thread, made on the thread's first get() and deleted when the thread exits. A
/// get() is one thread-local load (the pointer is constant-initialized and trivially
/// destructible, so no guard); the exit hook is registered only when the T is made. T must be
/// pure C++ (it is deleted at thread exit, where the thread may no longer run Python code).
template <class T, class Tag = T>
class PerThread {
 public:
  /// The calling thread's T; nullptr when memory ran out making it.
  static T* get() noexcept {
    T* p = ptr_;
    return p != nullptr ? p : make();
  }

 private:
  struct Owner {
    std::unique_ptr<T> object;
    ~Owner() { ptr_ = nullptr; }
  };
  [[gnu::noinline]] static T* make() noexcept {
    thread_local Owner owner;
    owner.object.reset(new (std::nothrow) T());
    ptr_ = owner.object.get();
    return ptr_;
  }
  static inline thread_local constinit T* ptr_ = nullptr;
};

}  // namespace mcp_native::bindings
