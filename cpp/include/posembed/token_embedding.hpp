// Token embedding: a [vocabSize, dModel] table, rows gathered by token id, optionally scaled (by sqrt(dModel)
// in the original Transformer, or any constant). The padding id's row reads as zeros.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "posembed/status.hpp"
#include "posembed/stored_table.hpp"

namespace posembed {

struct TokenEmbeddingShape {
  int64_t vocab_size = 0;
  int64_t d_model = 0;
  int64_t padding_idx = -1;  // -1: none
};

Status validate(const TokenEmbeddingShape& shape);

enum class EmbeddingInitKind { kNormal, kXavierUniform };
std::optional<EmbeddingInitKind> parse_embedding_init(std::string_view name);

struct EmbeddingInit {
  EmbeddingInitKind kind = EmbeddingInitKind::kNormal;
  double std = 0.02;   // kNormal: N(0, std^2)
  double gain = 1.0;   // kXavierUniform: U(-a, a), a = gain * sqrt(6 / (vocabSize + dModel))
  uint64_t seed = 0;
};

// Fills table ([vocab_size, d_model]) from the seeded generator; the padding row is zeroed.
Status init_embedding_table(const TokenEmbeddingShape& shape, const EmbeddingInit& init, std::span<float> table);

enum class EmbeddingScaleKind { kNone, kSqrt, kConstant };
std::optional<EmbeddingScaleKind> parse_embedding_scale(std::string_view name);

// The factor rows are multiplied by: 1, sqrt(d_model), or the given constant.
double embedding_scale_factor(EmbeddingScaleKind kind, double constant, int64_t d_model);

// Every id in [0, vocab_size); else a RangeError naming the first bad one (ids[first_index + j], for ids
// that are a block of a larger array).
Status validate_ids(const TokenEmbeddingShape& shape, std::span<const int32_t> ids, int64_t first_index = 0);

// out[j, :] = table[ids[j], :] * scale (zeros for the padding id), the table ([vocab_size, d_model]) in any table
// dtype. Every id is checked first; on error nothing is written.
Status token_embedding_lookup(const TokenEmbeddingShape& shape, float scale, const StoredTable& table, std::span<const int32_t> ids,
                              std::span<float> out);
// The same for a float32 table.
Status token_embedding_lookup(const TokenEmbeddingShape& shape, float scale, std::span<const float> table,
                              std::span<const int32_t> ids, std::span<float> out);

}  // namespace posembed
