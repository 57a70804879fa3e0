#include "posembed/t5.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <new>
#include <string>

#include "head_ramps.hpp"
#include "posembed/limits.hpp"

namespace posembed {
namespace {

Status validate_lengths(int64_t query_length, int64_t key_length) {
  POSEMBED_RETURN_IF_ERROR(check_integer("queryLength", query_length, 1, limits::kMaxLength));
  return check_integer("keyLength", key_length, 1, limits::kMaxLength);
}

// The buckets of every relative position j - i of a query_length x key_length matrix, indexed by
// (j - i) + query_length - 1 (params and lengths valid), or null where memory runs out.
std::unique_ptr<int32_t[]> relative_buckets(const T5BucketParams& params, int64_t query_length, int64_t key_length) {
  const auto span = static_cast<std::size_t>(query_length + key_length - 1);
  std::unique_ptr<int32_t[]> buckets(new (std::nothrow) int32_t[span]);
  if (buckets) {
    for (std::size_t r = 0; r < span; ++r) buckets[r] = t5_bucket(params, static_cast<int64_t>(r) - (query_length - 1));
  }
  return buckets;
}

// The arguments of a run of rows (of the bucket matrix or the bias) written from relative buckets:
// total_rows (named by total_rows_are) rows of keyLength values in all, out_size values from first_row on.
Status validate_rows(int64_t query_length, int64_t key_length, std::span<const int32_t> relative_buckets, int64_t first_row,
                     std::size_t out_size, int64_t total_rows, const char* total_rows_are) {
  POSEMBED_RETURN_IF_ERROR(validate_lengths(query_length, key_length));
  const auto k = static_cast<std::size_t>(key_length);
  const auto span = static_cast<std::size_t>(query_length + key_length - 1);
  if (relative_buckets.size() != span) {
    return Status::range_error("relative buckets must hold queryLength + keyLength - 1 = " + std::to_string(span) + " elements, got " +
                               std::to_string(relative_buckets.size()));
  }
  return check_row_run(first_row, out_size, k, static_cast<std::size_t>(total_rows), total_rows_are, "keyLength");
}

Status validate_heads(int64_t num_heads) { return check_integer("numHeads", num_heads, 1, limits::kMaxHeads); }

Status out_of_memory(const char* op) {
  return Status::range_error(std::string(op) + ": out of memory for the bucket table");
}

}  // namespace

Status validate(const T5BucketParams& params) {
  POSEMBED_RETURN_IF_ERROR(check_integer("numBuckets", params.num_buckets, params.bidirectional ? 4 : 2, limits::kMaxBuckets,
                                         params.bidirectional ? "bidirectional" : ""));
  const int64_t max_exact = (params.bidirectional ? params.num_buckets / 2 : params.num_buckets) / 2;
  POSEMBED_RETURN_IF_ERROR(check_integer("maxDistance", params.max_distance, max_exact + 1, limits::kMaxPosition, "above the exact buckets"));
  return {};
}

int32_t t5_bucket(const T5BucketParams& params, int64_t relative_position) {
  int64_t buckets = params.num_buckets;
  int64_t bucket = 0;
  int64_t distance = 0;
  if (params.bidirectional) {
    buckets /= 2;
    if (relative_position > 0) bucket += buckets;
    distance = relative_position < 0 ? -relative_position : relative_position;
  } else {
    distance = relative_position < 0 ? -relative_position : 0;
  }
  const int64_t max_exact = buckets / 2;
  if (distance < max_exact) return static_cast<int32_t>(bucket + distance);
  // Each step in float32, as HF's torch code computes it.
  const float ratio = static_cast<float>(distance) / static_cast<float>(max_exact);
  const auto log_range = static_cast<float>(std::log(static_cast<double>(params.max_distance) / static_cast<double>(max_exact)));
  const float scaled = std::log(ratio) / log_range * static_cast<float>(buckets - max_exact);
  const int64_t large = max_exact + static_cast<int64_t>(scaled);
  return static_cast<int32_t>(bucket + std::min(large, buckets - 1));
}

Status t5_buckets(const T5BucketParams& params, std::span<const int32_t> relative_positions, std::span<int32_t> out) {
  POSEMBED_RETURN_IF_ERROR(validate(params));
  if (out.size() != relative_positions.size()) return output_size_error(relative_positions.size(), out.size());
  std::transform(relative_positions.begin(), relative_positions.end(), out.begin(), [&](int32_t r) { return t5_bucket(params, r); });
  return {};
}

Status t5_bucket_matrix(const T5BucketParams& params, int64_t query_length, int64_t key_length, std::span<int32_t> out) {
  POSEMBED_RETURN_IF_ERROR(validate(params));
  POSEMBED_RETURN_IF_ERROR(validate_lengths(query_length, key_length));
  const auto elements = static_cast<std::size_t>(query_length) * static_cast<std::size_t>(key_length);
  if (out.size() != elements) return output_size_error(elements, out.size());
  const auto buckets = relative_buckets(params, query_length, key_length);
  if (!buckets) return out_of_memory("t5Buckets");
  return t5_bucket_matrix_rows(query_length, key_length, {buckets.get(), static_cast<std::size_t>(query_length + key_length - 1)}, 0, out);
}

Status t5_bucket_matrix_rows(int64_t query_length, int64_t key_length, std::span<const int32_t> relative_buckets, int64_t first_row,
                             std::span<int32_t> out) {
  POSEMBED_RETURN_IF_ERROR(validate_rows(query_length, key_length, relative_buckets, first_row, out.size(), query_length, "queryLength"));
  const auto q = static_cast<std::size_t>(query_length);
  const auto k = static_cast<std::size_t>(key_length);
  const std::size_t rows = out.size() / k;
  for (std::size_t r = 0; r < rows; ++r) {
    const int32_t* by_key = relative_buckets.data() + (q - 1 - (static_cast<std::size_t>(first_row) + r));  // by_key[j] = bucket(j - i)
    std::copy_n(by_key, k, out.data() + r * k);
  }
  return {};
}

// t5Buckets as an op of the core's table: its input is the bucket of each relative position -(queryLength - 1) ..
// keyLength - 1, which each row copies its run of (and the GPU form spreads over the matrix).
namespace {

constexpr std::array kT5BucketsOptions{
    OpOption{.name = "queryLength", .min = 1, .max = static_cast<double>(limits::kMaxLength.value), .doc = "queries"},
    OpOption{.name = "keyLength", .min = 1, .max = static_cast<double>(limits::kMaxLength.value), .doc = "keys"},
    OpOption{.name = "numBuckets", .min = 2, .max = static_cast<double>(limits::kMaxBuckets.value), .default_value = 32,
             .doc = "buckets (at least 4 when bidirectional)", .attribute = "buckets"},
    OpOption{.name = "maxDistance", .min = 2, .max = static_cast<double>(limits::kMaxPosition.value), .default_value = 128,
             .doc = "the distance past which buckets stop growing: above the exact buckets' range"},
    OpOption{.name = "bidirectional", .kind = OptionKind::kBoolean, .default_value = 1, .doc = "false: one-directional (decoder) buckets"},
};

T5BucketParams bucket_params(std::span<const double> values) {
  return {.num_buckets = static_cast<int64_t>(values[2]), .max_distance = static_cast<int64_t>(values[3]), .bidirectional = values[4] != 0};
}

}  // namespace

const CoreOp kT5BucketsOp{
    .name = "t5Buckets",
    .doc = "T5's relative position buckets [queryLength, keyLength], bucket(key − query)",
    .options = kT5BucketsOptions,
    .shape = [](std::span<const double> values, OpShape& shape) {
      POSEMBED_RETURN_IF_ERROR(validate(bucket_params(values)));
      const auto query_length = static_cast<int64_t>(values[0]);
      const auto key_length = static_cast<int64_t>(values[1]);
      shape = {.dims = {query_length, key_length}, .rank = 2, .input_elements = query_length + key_length - 1};
      return Status{};
    },
    .input = [](std::span<const double> values, std::span<float> out) {
      const T5BucketParams params = bucket_params(values);
      const auto query_length = static_cast<int64_t>(values[0]);
      for (std::size_t r = 0; r < out.size(); ++r) out[r] = static_cast<float>(t5_bucket(params, static_cast<int64_t>(r) - (query_length - 1)));
      return Status{};
    },
    .int_rows = [](std::span<const double> values, std::span<const float> input, int64_t first_row, std::span<int32_t> out) {
      const auto query_length = static_cast<std::size_t>(values[0]);
      const auto key_length = static_cast<std::size_t>(values[1]);
      for (std::size_t r = 0; r < out.size() / key_length; ++r) {
        const float* by_key = input.data() + (query_length - 1 - (static_cast<std::size_t>(first_row) + r));  // by_key[j] = bucket(j - i)
        std::transform(by_key, by_key + key_length, out.data() + r * key_length, [](float bucket) { return static_cast<int32_t>(bucket); });
      }
      return Status{};
    },
};

Status t5_bias(const T5BucketParams& params, std::span<const float> table, int64_t num_heads, int64_t query_length,
               int64_t key_length, std::span<float> out) {
  POSEMBED_RETURN_IF_ERROR(validate(params));
  POSEMBED_RETURN_IF_ERROR(validate_lengths(query_length, key_length));
  POSEMBED_RETURN_IF_ERROR(validate_heads(num_heads));
  const auto elements = static_cast<std::size_t>(num_heads * query_length) * static_cast<std::size_t>(key_length);
  if (out.size() != elements) return output_size_error(elements, out.size());
  const auto buckets = relative_buckets(params, query_length, key_length);
  if (!buckets) return out_of_memory("t5Bias");
  return t5_bias_rows(table, params.num_buckets, num_heads, query_length, key_length,
                      {buckets.get(), static_cast<std::size_t>(query_length + key_length - 1)}, 0, out);
}

Status t5_bias_rows(std::span<const float> table, int64_t num_buckets, int64_t num_heads, int64_t query_length, int64_t key_length,
                    std::span<const int32_t> relative_buckets, int64_t first_row, std::span<float> out) {
  POSEMBED_RETURN_IF_ERROR(validate_heads(num_heads));
  POSEMBED_RETURN_IF_ERROR(validate_rows(query_length, key_length, relative_buckets, first_row, out.size(), num_heads * query_length, "numHeads * queryLength"));
  POSEMBED_RETURN_IF_ERROR(check_integer("numBuckets", num_buckets, 1, limits::kMaxBuckets));
  const auto heads = static_cast<std::size_t>(num_heads);
  if (table.size() != static_cast<std::size_t>(num_buckets) * heads) {
    return Status::range_error("table must hold numBuckets * numHeads = " + std::to_string(num_buckets * num_heads) +
                               " elements, got " + std::to_string(table.size()));
  }
  const auto q = static_cast<std::size_t>(query_length);
  const auto k = static_cast<std::size_t>(key_length);
  for (std::size_t r = 0; r < relative_buckets.size(); ++r) {
    if (relative_buckets[r] < 0 || relative_buckets[r] >= num_buckets) {
      return out_of_range("relative bucket " + std::to_string(r), "an integer in [0, numBuckets - 1] = [0, " + std::to_string(num_buckets - 1) + "]",
                          static_cast<double>(relative_buckets[r]));
    }
  }
  const std::size_t rows = out.size() / k;
  // A head's ramp is its bias at each relative position key - query = p - (q - 1), p < q + k - 1: the row of
  // query starts at q - 1 - query.
  const auto bias = [&](std::size_t p, std::size_t head) { return table[static_cast<std::size_t>(relative_buckets[p]) * heads + head]; };
  detail::write_rows_from_ramps(
      first_row, rows, q, k, relative_buckets.size(),
      [&](float* ramp, std::size_t head) {
        for (std::size_t p = 0; p < relative_buckets.size(); ++p) ramp[p] = bias(p, head);
      },
      [&](float* row, std::size_t head, std::size_t start, const float* window) {
        if (window) {
          std::copy_n(window, k, row);
        } else {
          for (std::size_t j = 0; j < k; ++j) row[j] = bias(start + j, head);
        }
      },
      out.data());
  return {};
}

}  // namespace posembed
