// T5 relative position buckets (Raffel et al. 2020, as in HF transformers): relative position key - query
// goes to one of numBuckets buckets, exact for small distances and logarithmic up to maxDistance. The log
// is taken in float32, as HF does, so bucket ids match it to the integer.
#pragma once

#include <cstdint>
#include <span>

#include "posembed/core_ops.hpp"
#include "posembed/status.hpp"

namespace posembed {

struct T5BucketParams {
  int64_t num_buckets = 32;
  int64_t max_distance = 128;
  bool bidirectional = true;
};

Status validate(const T5BucketParams& params);

// The bucket of one relative position (params assumed valid).
int32_t t5_bucket(const T5BucketParams& params, int64_t relative_position);

Status t5_buckets(const T5BucketParams& params, std::span<const int32_t> relative_positions, std::span<int32_t> out);

// out[i][j] = bucket(j - i), [queryLength, keyLength].
Status t5_bucket_matrix(const T5BucketParams& params, int64_t query_length, int64_t key_length, std::span<int32_t> out);

// The same as the core's op t5Buckets (core_ops.hpp), which the package calls: its input is the bucket of each
// relative position, as t5_bias_rows takes them (exact integers in float32: at most 65,536 buckets).
extern const CoreOp kT5BucketsOp;

// A run of t5_bucket_matrix's rows, from first_row on, as many as out holds, given relative_buckets as for
// t5_bias_rows below: a large matrix can be written a block of rows at a time, its buckets computed once.
Status t5_bucket_matrix_rows(int64_t query_length, int64_t key_length, std::span<const int32_t> relative_buckets, int64_t first_row,
                             std::span<int32_t> out);

// out[h][i][j] = table[bucket(j - i)][h]; table: [numBuckets, numHeads].
Status t5_bias(const T5BucketParams& params, std::span<const float> table, int64_t num_heads, int64_t query_length,
               int64_t key_length, std::span<float> out);

// A run of t5_bias's rows (row h * queryLength + i), from first_row on, as many as out holds, given
// relative_buckets[r] = bucket(r - (queryLength - 1)) for every relative position -(queryLength - 1) ..
// keyLength - 1 (from t5_buckets): a large bias can be written a block of rows at a time, its buckets
// computed once.
Status t5_bias_rows(std::span<const float> table, int64_t num_buckets, int64_t num_heads, int64_t query_length, int64_t key_length,
                    std::span<const int32_t> relative_buckets, int64_t first_row, std::span<float> out);

}  // namespace posembed
