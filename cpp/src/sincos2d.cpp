#include "posembed/sincos2d.hpp"

#include <algorithm>
#include <array>
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

namespace {

// One 1-D table over the longer side serves both coordinates.
int64_t table_size(const Sincos2dParams& p) { return std::max(p.grid_h, p.grid_w) * (p.d_model / 2); }

Status write_table(const Sincos2dParams& p, std::span<float> table) {
  const SinusoidalParams one_d{.length = std::max(p.grid_h, p.grid_w), .d_model = p.d_model / 2, .base = p.base, .layout = SinusoidalLayout::kSplit};
  return sinusoidal(one_d, table);
}

}  // namespace

Status sincos2d(const Sincos2dParams& p, std::span<float> out) {
  POSEMBED_RETURN_IF_ERROR(validate(p));
  const auto rows = static_cast<std::size_t>((p.cls_token ? 1 : 0) + p.grid_h * p.grid_w);
  if (out.size() != rows * static_cast<std::size_t>(p.d_model)) return output_size_error(rows * static_cast<std::size_t>(p.d_model), out.size());
  const auto size = static_cast<std::size_t>(table_size(p));
  std::unique_ptr<float[]> table(new (std::nothrow) float[size]);
  if (!table) return Status::range_error("sincos2d: out of memory for its 1-D table");
  POSEMBED_RETURN_IF_ERROR(write_table(p, {table.get(), size}));
  return sincos2d_rows(p, {table.get(), size}, 0, out);
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

// sincos2d as an op of the core's table: its input is the 1-D table, which the GPU form reads too.
namespace {

constexpr std::array kSincos2dOptions{
    OpOption{.name = "gridH", .min = 1, .max = static_cast<double>(limits::kMaxGridSide.value), .doc = "patch rows"},
    OpOption{.name = "gridW", .min = 1, .max = static_cast<double>(limits::kMaxGridSide.value), .doc = "patch columns"},
    OpOption{.name = "dModel", .min = 4, .max = static_cast<double>(limits::kMaxDModel.value), .doc = "columns, a multiple of 4"},
    OpOption{.name = "base", .kind = OptionKind::kNumber, .min = limits::kMinBase.value, .max = limits::kMaxBase.value, .default_value = 10000,
             .doc = "the frequencies' base"},
    OpOption{.name = "clsToken", .kind = OptionKind::kBoolean, .default_value = 0, .doc = "a row of zeros first, for the class token"},
};

Sincos2dParams params_of(std::span<const double> values) {
  return {.grid_h = static_cast<int64_t>(values[0]), .grid_w = static_cast<int64_t>(values[1]), .d_model = static_cast<int64_t>(values[2]),
          .base = values[3], .cls_token = values[4] != 0};
}

}  // namespace

const CoreOp kSincos2dOp{
    .name = "sincos2d",
    .doc = "2-D sin-cos positions of a patch grid [clsToken + gridH × gridW, dModel]",
    .options = kSincos2dOptions,
    .shape = [](std::span<const double> values, OpShape& shape) {
      const Sincos2dParams p = params_of(values);
      POSEMBED_RETURN_IF_ERROR(validate(p));
      shape = {.dims = {(p.cls_token ? 1 : 0) + p.grid_h * p.grid_w, p.d_model}, .rank = 2, .input_elements = table_size(p)};
      return Status{};
    },
    .input = [](std::span<const double> values, std::span<float> out) { return write_table(params_of(values), out); },
    .rows = [](std::span<const double> values, std::span<const float> input, int64_t first_row, std::span<float> out) {
      return sincos2d_rows(params_of(values), input, first_row, out);
    },
};

}  // namespace posembed
