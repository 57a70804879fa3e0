// Shared by the token lookup and the combined layer: visiting the rows of a gather from a large table.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>

#include "posembed/threads.hpp"

namespace posembed::detail {

// A gather from a large table (GPT-2's is 154 MB) is bound by DRAM latency, one miss per row, not by
// bandwidth. WebAssembly has no prefetch instruction, so before each group of kGatherGroup rows is visited,
// the rows of the next group are touched (loaded, and the sum of what was loaded stored where no compiler can
// drop it): their misses then overlap this group's work instead of following it. How much to touch depends
// on the visit (measured in V8 on random ids from GPT-2's table):
enum class GatherTouch {
  kFirstLine,  // a row copied by memcpy (memory.copy), which streams the rest itself: ~15% faster
  kEveryLine,  // a row read by a SIMD loop, which needs every 64-byte line on its way: ~12% faster than copying first
};
inline std::atomic<unsigned> gather_touched{0};
constexpr std::size_t kGatherGroup = 8;
// Runs of fewer rows than this cost more to hand out to a thread than to copy.
constexpr int64_t kGatherRowsPerRun = 16;

enum class GatherOrder {
  kAnyThread,  // rows in contiguous runs over the threads of posembed::threads()
  kInOrder,    // every row in order, on the calling thread (a visit that draws random numbers row by row)
};

// Calls visit(j) once for each j in [0, ids.size()). Every id must be a row of table (row_bytes bytes each).
template <class Visit>
void for_each_gathered_row(std::span<const int32_t> ids, const void* table, std::size_t row_bytes, GatherTouch touch, GatherOrder order, Visit visit) {
  const std::size_t stride = touch == GatherTouch::kFirstLine ? row_bytes : 64;  // one line
  const auto visit_run = [&](int64_t run_first, int64_t run_count) {
    const auto begin = static_cast<std::size_t>(run_first);
    const std::size_t end_of_run = begin + static_cast<std::size_t>(run_count);
    unsigned touched = 0;
    for (std::size_t first = begin; first < end_of_run; first += kGatherGroup) {
      const std::size_t next_end = std::min(end_of_run, first + 2 * kGatherGroup);
      for (std::size_t j = first + kGatherGroup; j < next_end; ++j) {
        const auto* row = static_cast<const unsigned char*>(table) + static_cast<std::size_t>(ids[j]) * row_bytes;
        for (std::size_t at = 0; at < row_bytes; at += stride) touched += row[at];
      }
      const std::size_t end = std::min(end_of_run, first + kGatherGroup);
      for (std::size_t j = first; j < end; ++j) visit(j);
    }
    gather_touched.store(touched, std::memory_order_relaxed);
  };
  const auto rows = static_cast<int64_t>(ids.size());
  if (order == GatherOrder::kAnyThread) {
    parallel_rows(rows, kGatherRowsPerRun, visit_run);
  } else {
    visit_run(0, rows);
  }
}

}  // namespace posembed::detail
