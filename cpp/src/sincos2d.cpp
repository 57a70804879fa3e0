#include "posembed/sincos2d.hpp"

#include <algorithm>
#include <memory>
#include <new>
#include <string>

#include "posembed/limits.hpp"
#include "posembed/sinusoidal.hpp"

namespace posembed {

Status validate(const Sincos2dParams& p) {
  POSEMBED_RETURN_IF_ERROR(check_integer("gridH", p.grid_h, 1, limits::kMaxGridSide));
  POSEMBED_RETURN_IF_ERROR(check_integer("gridW", p.grid_w, 1, limits::kMaxGridSide));
  if (p.d_model < 4 || p.d_model > limits::kMaxDModel || p.d_model % 4 != 0) {
    return out_of_range("dModel", "a multiple of 4 in [4, " + std::to_string(limits::kMaxDModel) + "]", static_cast<double>(p.d_model));
  }
  return {};
}

Status sincos2d(const Sincos2dParams& p, std::span<float> out) {
  POSEMBED_RETURN_IF_ERROR(validate(p));
  const auto rows = static_cast<std::size_t>((p.cls_token ? 1 : 0) + p.grid_h * p.grid_w);
  if (out.size() != rows * static_cast<std::size_t>(p.d_model)) return output_size_error(rows * static_cast<std::size_t>(p.d_model), out.size());
  // One 1-D table over the longer side serves both coordinates.
  const int64_t positions = std::max(p.grid_h, p.grid_w);
  const auto table_size = static_cast<std::size_t>(positions * p.d_model / 2);
  std::unique_ptr<float[]> table(new (std::nothrow) float[table_size]);
  if (!table) return Status::range_error("sincos2d: out of memory for its 1-D table");
  const SinusoidalParams one_d{.length = positions, .d_model = p.d_model / 2, .base = p.base, .layout = SinusoidalLayout::kSplit};
  POSEMBED_RETURN_IF_ERROR(sinusoidal(one_d, {table.get(), table_size}));
  return sincos2d_rows(p, {table.get(), table_size}, 0, out);
}

Status sincos2d_rows(const Sincos2dParams& p, std::span<const float> table, int64_t first_row, std::span<float> out) {
  POSEMBED_RETURN_IF_ERROR(validate(p));
  const auto half = static_cast<std::size_t>(p.d_model / 2);
  const auto rows = static_cast<std::size_t>((p.cls_token ? 1 : 0) + p.grid_h * p.grid_w);
  if (table.size() != static_cast<std::size_t>(std::max(p.grid_h, p.grid_w)) * half) {
    return Status::range_error("table must hold max(gridH, gridW) * dModel / 2 = " + std::to_string(std::max(p.grid_h, p.grid_w) * p.d_model / 2) +
                               " elements, got " + std::to_string(table.size()));
  }
  POSEMBED_RETURN_IF_ERROR(check_row_run(first_row, out.size(), 2 * half, rows, "clsToken + gridH * gridW", "dModel"));
  const std::size_t first_patch = p.cls_token ? 1 : 0;
  for (std::size_t r = 0; r < out.size() / (2 * half); ++r) {
    float* row = out.data() + r * 2 * half;
    const std::size_t index = static_cast<std::size_t>(first_row) + r;
    if (index < first_patch) {
      std::fill_n(row, 2 * half, 0.0f);
      continue;
    }
    const std::size_t patch = index - first_patch;
    std::copy_n(table.data() + (patch % static_cast<std::size_t>(p.grid_w)) * half, half, row);         // its column
    std::copy_n(table.data() + (patch / static_cast<std::size_t>(p.grid_w)) * half, half, row + half);  // its row
  }
  return {};
}

}  // namespace posembed
