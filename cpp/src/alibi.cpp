#include "posembed/alibi.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <memory>
#include <new>
#include <string>

#include "head_ramps.hpp"
#include "posembed/limits.hpp"
#include "posembed/simd.hpp"

namespace posembed {
namespace {

// out[j] = negative_slope * |query - j| for j < n; distances are exact integers in float up to 2^24.
void write_distances(float* out, std::size_t n, std::size_t query, float negative_slope) {
  const auto query_f = static_cast<float>(query);
  simd::for_each_float(n, [&]<class V>(std::size_t j) {
    simd::store(out + j, xsimd::abs(V(query_f) - simd::iota<V>(static_cast<float>(j))) * V(negative_slope));
  });
}

Status validate_heads(int64_t num_heads) { return check_integer("numHeads", num_heads, 1, limits::kMaxHeads); }

// The slopes of out.size() heads: 2^(-8k/n), k = 1..n, for the largest power of two n <= heads, then the odd
// powers of 2^(-8/2n) for the remaining heads.
void write_slopes(std::span<float> out) {
  const std::size_t power = std::bit_floor(out.size());
  for (std::size_t k = 0; k < out.size(); ++k) {
    const double exponent = k < power ? static_cast<double>(k + 1) / static_cast<double>(power)
                                      : static_cast<double>(2 * (k - power) + 1) / static_cast<double>(2 * power);
    out[k] = static_cast<float>(std::exp2(-8.0 * exponent));
  }
}

}  // namespace

Status alibi_slopes(int64_t num_heads, std::span<float> out) {
  POSEMBED_RETURN_IF_ERROR(validate_heads(num_heads));
  if (out.size() != static_cast<std::size_t>(num_heads)) return output_size_error(static_cast<std::size_t>(num_heads), out.size());
  write_slopes(out);
  return {};
}

// The slopes as an op of the core's table: alibiSlopes(numHeads) → [numHeads].
namespace {
constexpr std::array kAlibiSlopesOptions{
    OpOption{.name = "numHeads", .min = 1, .max = static_cast<double>(limits::kMaxHeads.value), .doc = "heads", .positional = true},
};
}  // namespace

const CoreOp kAlibiSlopesOp{
    .name = "alibiSlopes",
    .doc = "ALiBi's slope of each head [numHeads]",
    .options = kAlibiSlopesOptions,
    .shape = [](std::span<const double> values, OpShape& shape) {
      shape = {.dims = {static_cast<int64_t>(values[0])}, .rank = 1};
      return Status{};
    },
    .rows = [](std::span<const double>, std::span<const float>, int64_t, std::span<float> out) {  // one row: every head
      write_slopes(out);
      return Status{};
    },
};

Status validate(const AlibiBiasParams& params) {
  POSEMBED_RETURN_IF_ERROR(validate_heads(params.num_heads));
  POSEMBED_RETURN_IF_ERROR(check_integer("keyLength", params.key_length, 1, limits::kMaxLength));
  if (params.query_length < 1 || params.query_length > params.key_length) {
    return out_of_range("queryLength", "an integer in [1, keyLength] = [1, " + std::to_string(params.key_length) + "]",
                        static_cast<double>(params.query_length));
  }
  return {};
}

Status alibi_bias(const AlibiBiasParams& params, std::span<float> out) {
  POSEMBED_RETURN_IF_ERROR(validate(params));
  const std::size_t needed = static_cast<std::size_t>(params.num_heads * params.query_length * params.key_length);
  if (out.size() != needed) return output_size_error(needed, out.size());
  return alibi_bias_rows(params, 0, out);
}

Status alibi_bias_rows(const AlibiBiasParams& params, int64_t first_row, std::span<float> out) {
  POSEMBED_RETURN_IF_ERROR(validate(params));
  const auto q = static_cast<std::size_t>(params.query_length);
  const auto k = static_cast<std::size_t>(params.key_length);
  const std::size_t total_rows = static_cast<std::size_t>(params.num_heads) * q;
  POSEMBED_RETURN_IF_ERROR(check_row_run(first_row, out.size(), k, total_rows, "numHeads * queryLength", "keyLength"));
  const std::size_t rows = out.size() / k;
  const auto heads = static_cast<std::size_t>(params.num_heads);
  std::unique_ptr<float[]> slopes(new (std::nothrow) float[heads]);
  if (!slopes) return Status::range_error("alibiBias: out of memory for the slopes");
  if (params.slopes.empty()) {
    POSEMBED_RETURN_IF_ERROR(alibi_slopes(params.num_heads, {slopes.get(), heads}));
  } else {
    if (params.slopes.size() != heads) {
      return Status::range_error("slopes must hold numHeads = " + std::to_string(heads) + " values, got " + std::to_string(params.slopes.size()));
    }
    for (std::size_t h = 0; h < heads; ++h) {
      if (!check_number("slopes", params.slopes[h], 0.0, limits::kMaxScalingValue).ok()) {
        return check_number("slopes[" + std::to_string(h) + "]", params.slopes[h], 0.0, limits::kMaxScalingValue);
      }
    }
    std::copy(params.slopes.begin(), params.slopes.end(), slopes.get());
  }
  // A head's ramp is its 2k - 1 values -slope * |p - (k - 1)|: the row of query starts at k - 1 - query (the
  // same products as computing it, so the same bits).
  detail::write_rows_from_ramps(
      first_row, rows, q, k, 2 * k - 1, [&](float* ramp, std::size_t head) { write_distances(ramp, 2 * k - 1, k - 1, -slopes[head]); },
      [&](float* row, std::size_t head, std::size_t start, const float* window) {
        const std::size_t query = k - 1 - start;
        // Keys beyond the query are masked when causal.
        const std::size_t visible = params.causal ? query + 1 : k;
        if (window) {
          std::copy_n(window, visible, row);
        } else {
          write_distances(row, visible, query, -slopes[head]);
        }
        std::fill(row + visible, row + k, -std::numeric_limits<float>::infinity());
      },
      out.data());
  return {};
}

}  // namespace posembed
