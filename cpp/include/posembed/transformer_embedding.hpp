// The Transformer's input layer in one pass: out[b, s] = table[ids[b, s]] * scale + positions[s], then
// (training only) inverted dropout: each value kept with probability 1 - p and divided by 1 - p.
#pragma once

#include <cstdint>
#include <span>

#include "posembed/random.hpp"
#include "posembed/status.hpp"
#include "posembed/token_embedding.hpp"

namespace posembed {

struct CombinedEmbeddingParams {
  TokenEmbeddingShape shape;
  float scale = 1.0f;
  int64_t max_length = 0;  // rows of the position table; the longest sequence
  float dropout = 0.0f;    // in [0, 1)
};

// ids: [batch, seq] flattened (seq given); positions: [max_length, d_model] or empty (no positional part);
// random: the dropout generator, used only when training. out: [batch, seq, d_model].
Status combined_embedding(const CombinedEmbeddingParams& params, std::span<const float> table, std::span<const float> positions,
                          std::span<const int32_t> ids, int64_t seq, bool training, Random& random, std::span<float> out);

// The rows of ids first_row .. first_row + ids.size() of such a [batch, seq] call (ids and out hold just
// those), the same values, the generator drawing on where the previous block left it: for writing the
// output a block at a time.
Status combined_embedding_rows(const CombinedEmbeddingParams& params, std::span<const float> table, std::span<const float> positions,
                               std::span<const int32_t> ids, int64_t seq, int64_t first_row, bool training, Random& random,
                               std::span<float> out);

}  // namespace posembed
