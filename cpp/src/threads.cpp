#include "posembed/threads.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <new>

#ifdef POSEMBED_THREADS
#include <pthread.h>
#endif

namespace posembed {
namespace {

#ifdef POSEMBED_THREADS
constexpr int64_t kRunsPerThread = 4;

// Set on a thread while it runs a part: a part that splits rows again runs them itself.
thread_local bool in_job = false;

// A job is split into parts that threads claim one at a time from a ticket counter, the calling thread
// too: the caller waits only for parts a helper has claimed, never for a helper that has not woken up (on a
// busy machine a helper may wait milliseconds for a core; the caller then runs the parts itself). Helpers keep
// looking for work for kSpinTime after a job before they sleep: the ops streamed in blocks hand out a job
// per block, microseconds apart, and waking a sleeping helper takes about 0.25 ms (measured in Node). The
// caller spins until its helpers are done (a browser's main thread may not block).
class ThreadPool {
 public:
  static ThreadPool& instance() {
    static ThreadPool* pool = new ThreadPool;  // never destroyed: its helpers run until the process ends
    return *pool;
  }

  // Starts helpers up to n threads in all (as many as can be had) and uses n of them from now on.
  void resize(int n) {
    while (helpers_ + 1 < n && start_helper()) ++helpers_;
    active_.store(std::min(n, helpers_ + 1), std::memory_order_relaxed);
  }

  int active() const { return active_.load(std::memory_order_relaxed); }

  // job(0) .. job(parts - 1), each once, on this thread and the helpers; returns when all are done. One job
  // at a time: callers on other threads wait their turn.
  void run(int parts, const std::function<void(int)>& job) {
    std::lock_guard turn(turn_);
    uint64_t generation;
    {
      std::lock_guard lock(mutex_);
      job_ = &job;
      parts_ = parts;
      finished_.store(0, std::memory_order_relaxed);
      generation = generation_.load(std::memory_order_relaxed) + 1;
      tickets_.store(generation << 32, std::memory_order_relaxed);
      generation_.store(generation, std::memory_order_release);
    }
    wake_.notify_all();
    work(generation, parts, &job);
    while (finished_.load(std::memory_order_acquire) != parts) {
    }
  }

 private:
  struct HelperStart {
    ThreadPool* pool;
    int index;  // 1, 2, ...: the calling thread is 0
  };

  bool start_helper() {
    auto* start = new (std::nothrow) HelperStart{this, helpers_ + 1};
    pthread_t thread;
    if (start == nullptr || pthread_create(&thread, nullptr, &ThreadPool::helper_main, start) != 0) {
      delete start;
      return false;
    }
    pthread_detach(thread);
    return true;
  }

  static void* helper_main(void* argument) {
    const HelperStart start = *static_cast<HelperStart*>(argument);
    delete static_cast<HelperStart*>(argument);
    start.pool->serve(start.index);
    return nullptr;
  }

  // Claims and runs parts of the job of `generation` until none is left (or a newer job has begun, whose
  // tickets carry another generation: then `job` may be gone, and is not touched).
  void work(uint64_t generation, int parts, const std::function<void(int)>* job) {
    uint64_t ticket = tickets_.load(std::memory_order_acquire);
    for (;;) {
      const auto index = static_cast<int>(ticket & 0xffffffffu);
      if ((ticket >> 32) != (generation & 0xffffffffu) || index >= parts) return;
      if (!tickets_.compare_exchange_weak(ticket, ticket + 1, std::memory_order_acq_rel)) continue;
      in_job = true;
      (*job)(index);
      in_job = false;
      finished_.fetch_add(1, std::memory_order_release);
      ticket = tickets_.load(std::memory_order_acquire);
    }
  }

  // Helpers beyond the threads in use (after set_threads lowered them) wait, and take no part.
  [[noreturn]] void serve(int index) {
    uint64_t seen = 0;
    for (;;) {
      const auto until = std::chrono::steady_clock::now() + kSpinTime;
      for (uint32_t spin = 1; generation_.load(std::memory_order_acquire) == seen; ++spin) {
        if (spin % 1024 == 0 && std::chrono::steady_clock::now() >= until) break;
      }
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
      seen = generation_.load(std::memory_order_acquire);
      const std::function<void(int)>* job = job_;
      const int parts = parts_;
      lock.unlock();
      if (index < active()) work(seen, parts, job);
    }
  }

  static constexpr auto kSpinTime = std::chrono::milliseconds(2);
  std::mutex turn_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<uint64_t> tickets_{0};  // the job's generation (low 32 bits) above the next part to claim
  std::atomic<int> finished_{0};
  const std::function<void(int)>* job_ = nullptr;
  int parts_ = 0;
  int helpers_ = 0;
  std::atomic<int> active_{1};
};
#endif

}  // namespace

void set_threads(int n) {
#ifdef POSEMBED_THREADS
  ThreadPool::instance().resize(std::clamp(n, 1, 64));
#else
  (void)n;
#endif
}

int threads() {
#ifdef POSEMBED_THREADS
  return ThreadPool::instance().active();
#else
  return 1;
#endif
}

void parallel_rows(int64_t rows, int64_t min_rows, const std::function<void(int64_t, int64_t)>& part) {
#ifdef POSEMBED_THREADS
  // A few runs per thread: a helper that wakes late still finds some to take.
  const int64_t most = in_job || threads() == 1 ? 1 : kRunsPerThread * threads();
#else
  const int64_t most = 1;
#endif
  const int64_t parts = std::min<int64_t>(most, rows / std::max<int64_t>(min_rows, 1));
  if (parts <= 1) {
    if (rows > 0) part(0, rows);
    return;
  }
#ifdef POSEMBED_THREADS
  ThreadPool::instance().run(static_cast<int>(parts), [&](int index) {
    const int64_t first = rows * index / parts;
    part(first, rows * (index + 1) / parts - first);
  });
#endif
}

}  // namespace posembed
