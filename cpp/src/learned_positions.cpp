#include "posembed/learned_positions.hpp"

#include <algorithm>
#include <string>

#include "posembed/limits.hpp"
#include "posembed/simd.hpp"

namespace posembed {

Status interpolate_positions(std::span<const float> table, int64_t length, int64_t d_model, int64_t new_length, std::span<float> out) {
  POSEMBED_RETURN_IF_ERROR(check_integer("table.shape[0]", length, 1, limits::kMaxLength));
  POSEMBED_RETURN_IF_ERROR(check_integer("table.shape[1]", d_model, 1, limits::kMaxDModel));
  POSEMBED_RETURN_IF_ERROR(check_integer("newLength", new_length, 1, limits::kMaxLength));
  const auto d = static_cast<std::size_t>(d_model);
  if (table.size() != static_cast<std::size_t>(length) * d) {
    return Status::range_error("table must hold " + std::to_string(length * d_model) + " elements, got " + std::to_string(table.size()));
  }
  if (out.size() != static_cast<std::size_t>(new_length) * d) return output_size_error(static_cast<std::size_t>(new_length) * d, out.size());
  const double step = new_length > 1 ? static_cast<double>(length - 1) / static_cast<double>(new_length - 1) : 0.0;
  for (int64_t i = 0; i < new_length; ++i) {
    const double x = static_cast<double>(i) * step;
    const auto below = std::min(static_cast<int64_t>(x), length - 1);
    const int64_t above = std::min(below + 1, length - 1);
    const double weight = x - static_cast<double>(below);
    const float* a = table.data() + static_cast<std::size_t>(below) * d;
    const float* b = table.data() + static_cast<std::size_t>(above) * d;
    float* row = out.data() + static_cast<std::size_t>(i) * d;
    // (1 - w)·a + w·b, as PyTorch weighs the two rows: exact at w = 0 and 1 and, unlike a + w·(b - a), never
    // overflowing for any finite rows (the clamp keeps the rounding of two weights inside [a, b]).
    simd::for_each_float(d, [&]<class V>(std::size_t j) {
      const V low = simd::load<V>(a + j);
      const V high = simd::load<V>(b + j);
      const V mixed = low * V(static_cast<float>(1.0 - weight)) + high * V(static_cast<float>(weight));
      simd::store(row + j, simd::clamp_between(mixed, low, high));
    });
  }
  return {};
}

}  // namespace posembed
