// Matrices of float32 rows and their products: the checks on a [rows, d] argument, and the packed GEMM kernel that
// similarity, the covariance and the Krylov passes multiply with.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "posembed/limits.hpp"
#include "posembed/simd.hpp"
#include "posembed/status.hpp"

namespace posembed::detail {

// The product a · bᵀ as a packed GEMM: b is copied once into panels of kPanelWidth rows, stored depth-major
// (panel[k][c] = b[row c of the panel][k]), so the micro-kernel reads kRowsPerKernel rows of a as scalars
// and one panel as vectors, with kRowsPerKernel * 2 vector accumulators and no horizontal sums. Row r of a holds
// its k-th value at a[r * a_row_stride + k * a_depth_stride]: rows of a row-major a (depth, 1), or the columns of
// a panel ((1, kPanelWidth)), as the covariance reads them.
constexpr std::size_t kPanelWidth = 2 * simd::kFloatLanes;
constexpr int64_t kRowsPerKernel = 4;
constexpr int64_t kRowsPerChunk = 64;  // rows of a kept in cache while every panel passes over them

template <int64_t Rows>
inline void multiply_panel(const float* a, std::size_t a_row_stride, std::size_t a_depth_stride, std::size_t depth, const float* panel, float* out,
                    std::size_t out_stride, std::size_t width) {
  using V = simd::Widest;
  constexpr std::size_t W = simd::kFloatLanes;
  V sums[Rows][2];
  for (auto& row : sums) row[0] = row[1] = V(0.0f);
  // Pointers that step, rather than indices multiplied at each step: in the wasm engine's code, where an address
  // cannot be scaled, that is four instructions fewer per step of eight vector multiply-adds (measured: the
  // covariance 10% faster).
  for (const float* end = panel + depth * kPanelWidth; panel != end; panel += kPanelWidth, a += a_depth_stride) {
    const V low = simd::load<V>(panel);
    const V high = simd::load<V>(panel + W);
    for (int64_t r = 0; r < Rows; ++r) {
      const V a_rk(a[static_cast<std::size_t>(r) * a_row_stride]);
      sums[r][0] = simd::mul_add(a_rk, low, sums[r][0]);
      sums[r][1] = simd::mul_add(a_rk, high, sums[r][1]);
    }
  }
  for (int64_t r = 0; r < Rows; ++r) {
    float* row = out + static_cast<std::size_t>(r) * out_stride;
    if (width == kPanelWidth) {
      simd::store(row, sums[r][0]);
      simd::store(row + W, sums[r][1]);
    } else {  // the last, partial panel
      float lanes[kPanelWidth];
      simd::store(lanes, sums[r][0]);
      simd::store(lanes + W, sums[r][1]);
      std::copy(lanes, lanes + width, row);
    }
  }
}

// Rows [first, end) of a against packed panel p of b, kRowsPerKernel rows at a time, into out ([n, cols]).
inline void multiply_rows(const float* a, int64_t first, int64_t end, std::size_t depth, const float* panel, float* out, std::size_t cols,
                                     std::size_t p) {
  const std::size_t width = std::min(kPanelWidth, cols - p * kPanelWidth);
  for (int64_t i = first; i < end; i += kRowsPerKernel) {
    const float* rows = a + static_cast<std::size_t>(i) * depth;
    float* target = out + static_cast<std::size_t>(i) * cols + p * kPanelWidth;
    switch (std::min(kRowsPerKernel, end - i)) {
      case 4: multiply_panel<4>(rows, depth, 1, depth, panel, target, cols, width); break;
      case 3: multiply_panel<3>(rows, depth, 1, depth, panel, target, cols, width); break;
      case 2: multiply_panel<2>(rows, depth, 1, depth, panel, target, cols, width); break;
      default: multiply_panel<1>(rows, depth, 1, depth, panel, target, cols, width); break;
    }
  }
}

// A [rows, d] matrix argument: its shape within the core's limits and its size rows · d.
inline Status check_matrix(std::string_view name, std::span<const float> x, int64_t rows, int64_t d) {
  POSEMBED_RETURN_IF_ERROR(check_integer(std::string(name) + ".shape[0]", rows, 1, limits::kMaxLength));
  POSEMBED_RETURN_IF_ERROR(check_integer(std::string(name) + ".shape[1]", d, 1, limits::kMaxDModel));
  if (x.size() != static_cast<std::size_t>(rows * d)) {
    return Status::range_error(std::string(name) + " must hold " + std::to_string(rows * d) + " elements, got " + std::to_string(x.size()));
  }
  return {};
}

}  // namespace posembed::detail
