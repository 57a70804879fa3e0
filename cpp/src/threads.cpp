#include "posembed/threads.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

#ifdef POSEMBED_THREADS
#include <pthread.h>
#endif

namespace posembed {
namespace {

#ifdef POSEMBED_THREADS
// Set on a thread while it runs a part: a part that splits rows again runs them itself.
thread_local bool in_job = false;

// Helpers keep looking for work for kSpinTime after their last job before they sleep: the ops streamed in
// blocks hand out a job per block, microseconds apart, and waking a sleeping helper costs about 0.25 ms
// (measured in Node), more than most jobs take. The caller spins until its helpers are done (a browser's
// main thread may not block).
class ThreadPool {
 public:
  static ThreadPool& instance() {
    static ThreadPool* pool = new ThreadPool;  // never destroyed: its helpers run until the process ends
    return *pool;
  }

  // Starts helpers up to n threads in all (as many as can be had) and uses n of them from now on.
  void resize(int n) {
    while (helpers_ + 1 < n && start_helper()) ++helpers_;
    active_ = std::min(n, helpers_ + 1);
  }

  int active() const { return active_; }

  // job(0) on the calling thread and job(1) .. job(parts - 1) on helpers; returns when all are done. One
  // job at a time: callers on other threads wait their turn.
  void run(int parts, const std::function<void(int)>& job) {
    std::lock_guard turn(turn_);
    {
      std::lock_guard lock(mutex_);
      job_ = &job;
      parts_ = parts;
      pending_.store(parts - 1, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    in_job = true;
    job(0);
    in_job = false;
    while (pending_.load(std::memory_order_acquire) != 0) {
    }
  }

 private:
  struct HelperStart {
    ThreadPool* pool;
    int index;
  };

  bool start_helper() {
    auto* start = new HelperStart{this, helpers_ + 1};
    pthread_t thread;
    if (pthread_create(&thread, nullptr, &ThreadPool::helper_main, start) != 0) {
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
      const bool mine = index < parts_;
      lock.unlock();
      if (mine) {
        in_job = true;
        (*job)(index);
        in_job = false;
        pending_.fetch_sub(1, std::memory_order_acq_rel);
      }
    }
  }

  static constexpr auto kSpinTime = std::chrono::milliseconds(2);
  std::mutex turn_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  const std::function<void(int)>* job_ = nullptr;
  int parts_ = 0;
  int helpers_ = 0;
  int active_ = 1;
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
  const int64_t available = in_job ? 1 : threads();
#else
  const int64_t available = 1;
#endif
  const int64_t parts = std::min<int64_t>(available, rows / std::max<int64_t>(min_rows, 1));
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
