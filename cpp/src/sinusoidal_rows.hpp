// Shared by the sinusoidal and RoPE kernels: rows of sin/cos(position * w_i) for consecutive positions,
// from a few exact anchors and rotations (see sinusoidal.cpp), for any frequencies.
#pragma once

#include "posembed/sinusoidal.hpp"

namespace posembed::detail {

// out: [params.length, params.d_model] in params.layout, positions params.offset ..; frequencies: d_model / 2
// values in [0, 1]. params.base and params.timescale are not used.
Status write_sinusoidal_rows(const SinusoidalParams& params, const double* frequencies, float* out);

// The same rows at arbitrary positions (each >= 0): out [positions.size(), params.d_model]; params.length and
// params.offset are not used.
Status write_sinusoidal_rows_at(const SinusoidalParams& params, const double* frequencies, std::span<const int32_t> positions, float* out);

}  // namespace posembed::detail
