#include "posembed/sinusoidal.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <new>
#include <string>

#include "sinusoidal_rows.hpp"
#include "posembed/limits.hpp"

namespace posembed {

std::optional<SinusoidalLayout> parse_sinusoidal_layout(std::string_view name) {
  if (name == "interleaved") return SinusoidalLayout::kInterleaved;
  if (name == "split") return SinusoidalLayout::kSplit;
  return std::nullopt;
}

std::optional<SinusoidalTimescale> parse_sinusoidal_timescale(std::string_view name) {
  if (name == "standard") return SinusoidalTimescale::kStandard;
  if (name == "t2t") return SinusoidalTimescale::kT2T;
  return std::nullopt;
}

Status validate(const SinusoidalParams& params) {
  POSEMBED_RETURN_IF_ERROR(check_integer("length", params.length, 1, limits::kMaxLength));
  POSEMBED_RETURN_IF_ERROR(check_even_integer("dModel", params.d_model, 2, limits::kMaxDModel));
  POSEMBED_RETURN_IF_ERROR(check_number("base", params.base, limits::kMinBase, limits::kMaxBase));
  return check_integer("offset", params.offset, 0, limits::kMaxPosition - (params.length - 1), "the last position, offset + length - 1, at most " + std::to_string(limits::kMaxPosition));
}

double sinusoidal_frequency(const SinusoidalParams& params, int64_t pair) {
  const double log_base = std::log(params.base);
  if (params.timescale == SinusoidalTimescale::kT2T) {
    const int64_t steps = std::max<int64_t>(params.d_model / 2 - 1, 1);
    return std::exp(-log_base * static_cast<double>(pair) / static_cast<double>(steps));
  }
  return std::exp(-log_base * static_cast<double>(2 * pair) / static_cast<double>(params.d_model));
}

namespace {

// The rows params asks for: positions offset .. offset + length - 1, d_model columns in its layout.
detail::SinusoidalRows rows_of(const SinusoidalParams& params) {
  return {.first = params.offset, .count = params.length, .width = params.d_model, .layout = params.layout};
}

// The frequencies of params into a new array, or nothing when out of memory.
std::unique_ptr<double[]> frequencies_of(const SinusoidalParams& params) {
  const auto half = static_cast<std::size_t>(params.d_model / 2);
  std::unique_ptr<double[]> frequencies(new (std::nothrow) double[half]);
  if (frequencies) {
    for (std::size_t i = 0; i < half; ++i) frequencies[i] = sinusoidal_frequency(params, static_cast<int64_t>(i));
  }
  return frequencies;
}

}  // namespace

Status sinusoidal_at_positions(const SinusoidalParams& params, std::span<const int32_t> positions, std::span<float> out) {
  SinusoidalParams checked = params;
  checked.length = static_cast<int64_t>(positions.size());
  checked.offset = 0;
  POSEMBED_RETURN_IF_ERROR(validate(checked));
  const auto half = static_cast<std::size_t>(params.d_model / 2);
  if (out.size() != positions.size() * 2 * half) return output_size_error(positions.size() * 2 * half, out.size());
  for (std::size_t r = 0; r < positions.size(); ++r) {
    if (positions[r] < 0) return check_integer("positions[" + std::to_string(r) + "]", positions[r], 0, limits::kMaxPosition);
  }
  const auto frequencies = frequencies_of(params);
  if (!frequencies) return Status::range_error("sinusoidal: out of memory for its frequencies");
  return detail::write_sinusoidal_rows_at(params.d_model, params.layout, frequencies.get(), positions, out.data());
}

Status sinusoidal(const SinusoidalParams& params, std::span<float> out) {
  POSEMBED_RETURN_IF_ERROR(validate(params));
  const auto needed = static_cast<std::size_t>(params.length * params.d_model);
  if (out.size() != needed) return output_size_error(needed, out.size());
  const auto frequencies = frequencies_of(params);
  if (!frequencies) return Status::range_error("sinusoidal: out of memory for its frequencies");
  return detail::write_sinusoidal_rows(rows_of(params), frequencies.get(), out.data());
}

Status sinusoidal_blocks(const SinusoidalParams& params, std::span<float> block, const std::function<void(int64_t, int64_t)>& on_block) {
  POSEMBED_RETURN_IF_ERROR(validate(params));
  const auto d = static_cast<std::size_t>(params.d_model);
  const std::size_t block_rows = block.size() / d;
  if (block_rows == 0 || block.size() % d != 0 || block_rows % kSinusoidalBlockRows != 0) {
    return Status::range_error("block must hold a positive multiple of " + std::to_string(kSinusoidalBlockRows) + " rows of dModel values");
  }
  const auto frequencies = frequencies_of(params);
  if (!frequencies) return Status::range_error("sinusoidal: out of memory for its frequencies");
  return detail::write_sinusoidal_rows_in_blocks(rows_of(params), frequencies.get(), block, on_block);
}

}  // namespace posembed
