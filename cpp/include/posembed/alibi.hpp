// ALiBi (Press et al. 2022, as in BLOOM): a per-head linear bias on attention scores instead of position
// embeddings. bias[h][i][j] = -slope_h * |q0 + i - j| with q0 = keyLength - queryLength, so the queries are
// the last queryLength positions of the keys (a kv-cache step); causal masks j > q0 + i with -Infinity.
#pragma once

#include <cstdint>
#include <span>

#include "posembed/core_ops.hpp"
#include "posembed/status.hpp"

namespace posembed {

// Slopes for any head count: 2^(-8/n * k), k = 1..n for the largest power of two n <= numHeads, then the
// odd powers of 2^(-8/2n) for the remaining heads (the paper's rule, not a plain geometric series).
Status alibi_slopes(int64_t num_heads, std::span<float> out);
// The same as the core's op alibiSlopes (core_ops.hpp), which the package calls.
extern const CoreOp kAlibiSlopesOp;

struct AlibiBiasParams {
  int64_t num_heads = 0;
  int64_t query_length = 0;
  int64_t key_length = 0;
  bool causal = false;
  std::span<const float> slopes;  // a model's own slopes, one per head (MPT's differ); empty: alibi_slopes' rule
};

Status validate(const AlibiBiasParams& params);

// out: [numHeads, queryLength, keyLength].
Status alibi_bias(const AlibiBiasParams& params, std::span<float> out);

// Rows first_row .. first_row + out.size() / keyLength of that bias (a row: one head and query), the same
// values: for writing it a block at a time.
Status alibi_bias_rows(const AlibiBiasParams& params, int64_t first_row, std::span<float> out);

}  // namespace posembed
