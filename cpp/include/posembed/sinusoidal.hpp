// Sinusoidal positional encoding (Vaswani et al. 2017; tensor2tensor / fairseq timescales).
//
//   PE(p, i) = sin(p * w_i), cos(p * w_i)   for i in [0, dModel/2)
//   standard: w_i = base^(-2i / dModel)
//   t2t:      w_i = base^(-i / max(dModel/2 - 1, 1))      (tensor2tensor's get_timing_signal_1d)
//
// Layout 'interleaved' puts sin/cos of w_i in columns 2i, 2i+1; 'split' puts all sines first, then all
// cosines (tensor2tensor, fairseq, Marian). Angles are reduced in double precision, so values stay within
// 2e-6 of float64 for positions up to 2^24 and beyond.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>

#include "posembed/status.hpp"

namespace posembed {

enum class SinusoidalLayout { kInterleaved, kSplit };
enum class SinusoidalTimescale { kStandard, kT2T };

std::optional<SinusoidalLayout> parse_sinusoidal_layout(std::string_view name);
std::optional<SinusoidalTimescale> parse_sinusoidal_timescale(std::string_view name);

struct SinusoidalParams {
  int64_t length = 0;   // rows: positions offset .. offset + length - 1
  int64_t d_model = 0;  // columns, even
  double base = 10000.0;
  SinusoidalLayout layout = SinusoidalLayout::kInterleaved;
  SinusoidalTimescale timescale = SinusoidalTimescale::kStandard;
  int64_t offset = 0;
};

Status validate(const SinusoidalParams& params);

// Angular frequency w_i of pair i, in double precision.
double sinusoidal_frequency(const SinusoidalParams& params, int64_t pair);

// Fills out ([length, d_model], row-major) with the encoding.
Status sinusoidal(const SinusoidalParams& params, std::span<float> out);

// Rows a block for sinusoidal_blocks holds a multiple of.
inline constexpr int64_t kSinusoidalBlockRows = 64;

// The same table, written through `block` (a multiple of kSinusoidalBlockRows rows): each time the block is
// full, or the table done, on_block(first_row, rows) is called while the block holds rows first_row ..
// first_row + rows. Values equal sinusoidal()'s bit for bit: for writing the table a block at a time
// (into memory elsewhere) while the block stays in cache.
Status sinusoidal_blocks(const SinusoidalParams& params, std::span<float> block, const std::function<void(int64_t, int64_t)>& on_block);

// Rows at arbitrary positions (each in [0, 2^31 - 1]), each computed from its own reduced angles:
// out [positions.size(), d_model]. params.length and params.offset are not used.
Status sinusoidal_at_positions(const SinusoidalParams& params, std::span<const int32_t> positions, std::span<float> out);

}  // namespace posembed
