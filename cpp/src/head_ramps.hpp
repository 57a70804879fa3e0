// Shared by the ALiBi and T5 biases: rows of a [heads, q, k] bias in which each row of a head is a window of
// one "ramp" of that head's values by relative position, so that rows can be copied instead of computed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

#include "posembed/threads.hpp"

namespace posembed::detail {

// Rows a head needs before building its ramp (about twice a row) pays, and the longest ramp worth keeping in
// cache.
constexpr std::size_t kRowsPerRamp = 16;
constexpr std::size_t kMaxRampLength = 65536;

// Writes rows [first_row, first_row + rows) of a [heads, q, k] bias into out (rows * k floats), split over the
// threads. Row i of a head (i < q) reads its head's ramp from position q - 1 - i on: fill_ramp(ramp, head)
// writes a head's ramp_length values, and write_row(row, head, start, window) one row, given window = the ramp
// from start (the row is a copy of it) or nullptr where no ramp pays (few rows a head, a long ramp, no memory
// for it), when the row is computed.
template <class FillRamp, class WriteRow>
void write_rows_from_ramps(int64_t first_row, std::size_t rows, std::size_t q, std::size_t k, std::size_t ramp_length, FillRamp&& fill_ramp,
                           WriteRow&& write_row, float* out) {
  const bool use_ramp = q >= kRowsPerRamp && ramp_length <= kMaxRampLength;
  parallel_rows(static_cast<int64_t>(rows), min_rows_per_part(static_cast<int64_t>(k)), [&](int64_t first, int64_t count) {
    std::unique_ptr<float[]> ramp(use_ramp ? new (std::nothrow) float[ramp_length] : nullptr);
    bool filled = false;
    std::size_t ramp_head = 0;
    for (auto r = static_cast<std::size_t>(first); r < static_cast<std::size_t>(first + count); ++r) {
      const std::size_t index = static_cast<std::size_t>(first_row) + r;
      const std::size_t head = index / q;
      const std::size_t start = q - 1 - index % q;
      if (ramp && (!filled || head != ramp_head)) {
        fill_ramp(ramp.get(), head);
        filled = true;
        ramp_head = head;
      }
      write_row(out + r * k, head, start, ramp ? ramp.get() + start : nullptr);
    }
  });
}

}  // namespace posembed::detail
