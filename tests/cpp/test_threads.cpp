#include "posembed/threads.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "posembed/token_embedding.hpp"
#include "posembed/transformer_embedding.hpp"

namespace posembed {
namespace {

// Sets the threads for one test and puts back what was there, whatever happens in it.
struct ThreadsFor {
  explicit ThreadsFor(int n) : before(threads()) { set_threads(n); }
  ~ThreadsFor() { set_threads(before); }
  int before;
};

TEST_CASE("parallel_rows covers every row exactly once, in runs, on up to threads() threads", "[threads]") {
  // Each run is claimed by whichever thread gets to it first (the caller takes what helpers have not):
  // how many threads take part varies, never more than there are runs.
  for (const int n : {1, 2, 3, 4}) {
    const ThreadsFor pool(n);
    for (const int64_t rows : {0, 1, 5, 127, 128, 129, 1000, 12345}) {
      for (const int64_t min_rows : {1, 64}) {
        std::vector<std::atomic<int>> visits(static_cast<std::size_t>(rows));
        std::mutex mutex;
        std::set<std::thread::id> threads_seen;
        int runs = 0;
        int empty_runs = 0;
        parallel_rows(rows, min_rows, [&](int64_t first, int64_t count) {  // (Catch2 asserts on the test's thread only)
          for (int64_t r = first; r < first + count; ++r) visits[static_cast<std::size_t>(r)]++;
          std::lock_guard lock(mutex);
          threads_seen.insert(std::this_thread::get_id());
          ++runs;
          if (count <= 0) ++empty_runs;
        });
        CHECK(empty_runs == 0);
        INFO("threads " << n << ", rows " << rows << ", min_rows " << min_rows);
        for (const auto& v : visits) REQUIRE(v.load() == 1);
        const int64_t most = threads() == 1 ? 1 : 4 * threads();  // a few runs per thread
        const int64_t expected_runs = rows == 0 ? 0 : std::max<int64_t>(1, std::min<int64_t>(most, rows / min_rows));
        CHECK(runs == expected_runs);
        CHECK(static_cast<int64_t>(threads_seen.size()) <= std::min<int64_t>(expected_runs, threads()));
      }
    }
  }
}

TEST_CASE("helpers take runs: slow runs are shared among the threads", "[threads]") {
  const ThreadsFor pool(2);
  if (threads() < 2) return;  // a build without threads: nothing to share
  std::mutex mutex;
  std::set<std::thread::id> threads_seen;
  for (int job = 0; job < 50; ++job) {
    parallel_rows(8, 1, [&](int64_t, int64_t) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
      while (std::chrono::steady_clock::now() < until) {
      }
      std::lock_guard lock(mutex);
      threads_seen.insert(std::this_thread::get_id());
    });
  }
  CHECK(threads_seen.size() > 1);
}

TEST_CASE("a run that splits rows again runs them itself", "[threads]") {
  const ThreadsFor pool(4);
  std::vector<std::atomic<int>> visits(4000);
  parallel_rows(40, 1, [&](int64_t first, int64_t count) {
    parallel_rows(count * 100, 1, [&](int64_t inner_first, int64_t inner_count) {
      for (int64_t r = inner_first; r < inner_first + inner_count; ++r) visits[static_cast<std::size_t>(first * 100 + r)]++;
    });
  });
  for (const auto& v : visits) REQUIRE(v.load() == 1);
}

TEST_CASE("the gather and the fused layer give the same bits on any number of threads", "[threads]") {
  const TokenEmbeddingShape shape{.vocab_size = 3001, .d_model = 40, .padding_idx = 7};
  std::vector<float> table(static_cast<std::size_t>(shape.vocab_size * shape.d_model));
  REQUIRE(init_embedding_table(shape, {.seed = 3}, table).ok());
  std::vector<int32_t> ids(5000);
  for (std::size_t j = 0; j < ids.size(); ++j) ids[j] = static_cast<int32_t>((j * 7919) % 3001);
  std::vector<float> positions(1000 * 40);
  for (std::size_t i = 0; i < positions.size(); ++i) positions[i] = static_cast<float>(i % 97) * 0.01f;
  const auto run = [&](int n, float scale) {
    const ThreadsFor pool(n);
    std::vector<float> lookup(ids.size() * 40), fused(ids.size() * 40);
    REQUIRE(token_embedding_lookup(shape, scale, table, ids, lookup).ok());
    Random random(0);
    REQUIRE(combined_embedding({.shape = shape, .scale = scale, .max_length = 1000}, table, positions, ids, 1000, false, random, fused).ok());
    return std::pair{lookup, fused};
  };
  for (const float scale : {1.0f, 2.5f}) {
    const auto one = run(1, scale);
    for (const int n : {2, 3, 4}) CHECK(run(n, scale) == one);
  }
}

}  // namespace
}  // namespace posembed
