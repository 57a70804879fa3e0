#include "posembed/sincos2d.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>

#include "posembed/sinusoidal.hpp"

namespace posembed {

Status validate(const Sincos2dParams& p) {
  if (p.grid_h < 1 || p.grid_h > 65536) return out_of_range("gridH", "an integer in [1, 65536]", static_cast<double>(p.grid_h));
  if (p.grid_w < 1 || p.grid_w > 65536) return out_of_range("gridW", "an integer in [1, 65536]", static_cast<double>(p.grid_w));
  if (p.d_model < 4 || p.d_model > 65536 || p.d_model % 4 != 0) {
    return out_of_range("dModel", "a multiple of 4 in [4, 65536]", static_cast<double>(p.d_model));
  }
  return {};
}

Status sincos2d(const Sincos2dParams& p, std::span<float> out) {
  POSEMBED_RETURN_IF_ERROR(validate(p));
  const auto half = static_cast<std::size_t>(p.d_model / 2);
  const std::size_t first_patch = p.cls_token ? 1 : 0;
  const std::size_t needed = (first_patch + static_cast<std::size_t>(p.grid_h * p.grid_w)) * 2 * half;
  if (out.size() != needed) return output_size_error(needed, out.size());
  // One 1-D table over the longer side serves both coordinates.
  const int64_t positions = std::max(p.grid_h, p.grid_w);
  std::unique_ptr<float[]> table(new (std::nothrow) float[static_cast<std::size_t>(positions) * half]);
  if (!table) return Status::range_error("sincos2d: out of memory for its 1-D table");
  const SinusoidalParams one_d{.length = positions, .d_model = static_cast<int64_t>(half), .base = p.base, .layout = SinusoidalLayout::kSplit};
  POSEMBED_RETURN_IF_ERROR(sinusoidal(one_d, {table.get(), static_cast<std::size_t>(positions) * half}));
  if (p.cls_token) std::memset(out.data(), 0, 2 * half * sizeof(float));
  for (std::size_t r = 0; r < static_cast<std::size_t>(p.grid_h); ++r) {
    for (std::size_t c = 0; c < static_cast<std::size_t>(p.grid_w); ++c) {
      float* row = out.data() + (first_patch + r * static_cast<std::size_t>(p.grid_w) + c) * 2 * half;
      std::memcpy(row, table.get() + c * half, half * sizeof(float));
      std::memcpy(row + half, table.get() + r * half, half * sizeof(float));
    }
  }
  return {};
}

}  // namespace posembed
