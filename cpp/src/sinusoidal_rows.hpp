// Rows of sin/cos(position × w_i), for any frequencies w_i (the sinusoidal encoder's from its base and timescale,
// RoPE's from its scaling rule): written from a few exact anchors and rotations (sinusoidal_rows.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "posembed/sinusoidal.hpp"

namespace posembed::detail {

// Positions first .. first + count - 1, one row each of `width` columns: the sine and cosine of each of width / 2
// frequencies, in `layout`.
struct SinusoidalRows {
  int64_t first = 0;
  int64_t count = 0;
  int64_t width = 0;
  SinusoidalLayout layout = SinusoidalLayout::kInterleaved;
};

// out: [rows.count, rows.width]; frequencies: rows.width / 2 values in [0, 1].
Status write_sinusoidal_rows(const SinusoidalRows& rows, const double* frequencies, float* out);

// The same rows a block at a time: `block` holds a multiple of kSinusoidalBlockRows rows, refilled from its start;
// on_block(first, count) hears each fill.
Status write_sinusoidal_rows_in_blocks(const SinusoidalRows& rows, const double* frequencies, std::span<float> block,
                                       const std::function<void(int64_t, int64_t)>& on_block);

// Rows at arbitrary positions (each >= 0): out [positions.size(), width].
Status write_sinusoidal_rows_at(int64_t width, SinusoidalLayout layout, const double* frequencies, std::span<const int32_t> positions, float* out);

}  // namespace posembed::detail
