#include "posembed/transformer_embedding.hpp"

#include <string>

#include "posembed/simd.hpp"
#include "row_gather.hpp"

namespace posembed {

Status combined_embedding(const CombinedEmbeddingParams& params, std::span<const float> table, std::span<const float> positions,
                          std::span<const int32_t> ids, int64_t seq, bool training, Random& random, std::span<float> out) {
  if (seq >= 1 && ids.size() % static_cast<std::size_t>(seq) != 0) return Status::range_error("ids must hold a whole number of sequences of length seq");
  return combined_embedding_rows(params, table, positions, ids, seq, 0, training, random, out);
}

Status combined_embedding_rows(const CombinedEmbeddingParams& params, std::span<const float> table, std::span<const float> positions,
                               std::span<const int32_t> ids, int64_t seq, int64_t first_row, bool training, Random& random,
                               std::span<float> out) {
  POSEMBED_RETURN_IF_ERROR(validate(params.shape));
  const auto d = static_cast<std::size_t>(params.shape.d_model);
  if (params.max_length < 1 || seq < 1 || seq > params.max_length) {
    return out_of_range("ids.shape[-1] (seq)", "an integer in [1, maxLength] = [1, " + std::to_string(params.max_length) + "]", static_cast<double>(seq));
  }
  if (first_row < 0) return Status::range_error("first_row must be >= 0");
  if (!(params.dropout >= 0.0f && params.dropout < 1.0f)) return out_of_range("dropout", "a number in [0, 1)", params.dropout);
  if (!positions.empty() && positions.size() != static_cast<std::size_t>(params.max_length) * d) {
    return Status::range_error("positions must hold maxLength * dModel elements");
  }
  if (out.size() != ids.size() * d) return output_size_error(ids.size() * d, out.size());
  if (table.size() != static_cast<std::size_t>(params.shape.vocab_size) * d) return Status::range_error("table must hold vocabSize * dModel elements");
  POSEMBED_RETURN_IF_ERROR(validate_ids(params.shape, ids, first_row));
  const float keep_scale = 1.0f / (1.0f - params.dropout);
  const bool drop = training && params.dropout > 0.0f;
  // One pass over the output, row by row: token, scale, position and dropout while the row is hot. Dropout
  // draws its random numbers in row order.
  const auto order = drop ? detail::GatherOrder::kInOrder : detail::GatherOrder::kAnyThread;
  detail::for_each_gathered_row(ids, table.data(), d * sizeof(float), detail::GatherTouch::kEveryLine, order, [&](std::size_t j) {
    float* row = out.data() + j * d;
    const bool padding = ids[j] == params.shape.padding_idx;
    const float* token = table.data() + static_cast<std::size_t>(ids[j]) * d;
    const float* position = positions.empty() ? nullptr : positions.data() + ((static_cast<std::size_t>(first_row) + j) % static_cast<std::size_t>(seq)) * d;
    const float scale = padding ? 0.0f : params.scale;
    // The token row is far away (a random row of a large table), but touched ahead line by line: one SIMD
    // pass reads it, scales it and adds the position.
    if (position) {
      simd::for_each_float(d, [&]<class V>(std::size_t i) { simd::store(row + i, simd::mul_add(simd::load<V>(token + i), V(scale), simd::load<V>(position + i))); });
    } else {
      simd::for_each_float(d, [&]<class V>(std::size_t i) { simd::store(row + i, simd::load<V>(token + i) * V(scale)); });
    }
    if (drop) {
      for (std::size_t i = 0; i < d; ++i) row[i] = random.uniform() < params.dropout ? 0.0f : row[i] * keep_scale;
    }
  });
  return {};
}

}  // namespace posembed
