#include "posembed/t5.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <new>
#include <string>

#include "posembed/limits.hpp"

namespace posembed {
namespace {

Status validate_lengths(int64_t query_length, int64_t key_length) {
  if (query_length < 1 || query_length > limits::kMaxLength) {
    return out_of_range("queryLength", "an integer in [1, 16777216]", static_cast<double>(query_length));
  }
  if (key_length < 1 || key_length > limits::kMaxLength) {
    return out_of_range("keyLength", "an integer in [1, 16777216]", static_cast<double>(key_length));
  }
  return {};
}

// Buckets of every relative position j - i of a query_length x key_length matrix, indexed by
// (j - i) + query_length - 1; calls use(relative_bucket, row, column) per cell.
template <class Use>
Status for_each_cell(const T5BucketParams& params, int64_t query_length, int64_t key_length, Use&& use) {
  const auto span = static_cast<std::size_t>(query_length + key_length - 1);
  std::unique_ptr<int32_t[]> buckets(new (std::nothrow) int32_t[span]);
  if (!buckets) return Status::range_error("t5: out of memory for the bucket table");
  for (std::size_t r = 0; r < span; ++r) buckets[r] = t5_bucket(params, static_cast<int64_t>(r) - (query_length - 1));
  for (int64_t i = 0; i < query_length; ++i) {
    const int32_t* by_key = buckets.get() + (query_length - 1 - i);  // by_key[j] = bucket(j - i)
    use(by_key, i);
  }
  return {};
}

}  // namespace

Status validate(const T5BucketParams& params) {
  const int64_t lowest = params.bidirectional ? 4 : 2;
  if (params.num_buckets < lowest || params.num_buckets > 65536) {
    return out_of_range("numBuckets", params.bidirectional ? "an integer in [4, 65536] when bidirectional" : "an integer in [2, 65536]",
                        static_cast<double>(params.num_buckets));
  }
  const int64_t max_exact = (params.bidirectional ? params.num_buckets / 2 : params.num_buckets) / 2;
  if (params.max_distance <= max_exact || params.max_distance > limits::kMaxPosition) {
    return out_of_range("maxDistance", "an integer in [" + std::to_string(max_exact + 1) + ", 2147483647] (above the exact buckets)",
                        static_cast<double>(params.max_distance));
  }
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
  const auto k = static_cast<std::size_t>(key_length);
  if (out.size() != static_cast<std::size_t>(query_length) * k) return output_size_error(static_cast<std::size_t>(query_length) * k, out.size());
  return for_each_cell(params, query_length, key_length, [&](const int32_t* by_key, int64_t i) {
    std::copy(by_key, by_key + k, out.data() + static_cast<std::size_t>(i) * k);
  });
}

Status t5_bias(const T5BucketParams& params, std::span<const float> table, int64_t num_heads, int64_t query_length,
               int64_t key_length, std::span<float> out) {
  POSEMBED_RETURN_IF_ERROR(validate(params));
  POSEMBED_RETURN_IF_ERROR(validate_lengths(query_length, key_length));
  if (num_heads < 1 || num_heads > 4096) return out_of_range("numHeads", "an integer in [1, 4096]", static_cast<double>(num_heads));
  const auto heads = static_cast<std::size_t>(num_heads);
  if (table.size() != static_cast<std::size_t>(params.num_buckets) * heads) {
    return Status::range_error("table must hold numBuckets * numHeads = " + std::to_string(params.num_buckets * num_heads) +
                               " elements, got " + std::to_string(table.size()));
  }
  const auto q = static_cast<std::size_t>(query_length);
  const auto k = static_cast<std::size_t>(key_length);
  if (out.size() != heads * q * k) return output_size_error(heads * q * k, out.size());
  return for_each_cell(params, query_length, key_length, [&](const int32_t* by_key, int64_t i) {
    for (std::size_t h = 0; h < heads; ++h) {
      float* row = out.data() + (h * q + static_cast<std::size_t>(i)) * k;
      for (std::size_t j = 0; j < k; ++j) row[j] = table[static_cast<std::size_t>(by_key[j]) * heads + h];
    }
  });
}

}  // namespace posembed
