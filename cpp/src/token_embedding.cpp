#include "posembed/token_embedding.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "posembed/limits.hpp"
#include "posembed/random.hpp"
#include "posembed/simd.hpp"
#include "posembed/stored_table.hpp"
#include "row_gather.hpp"

namespace posembed {

Status validate(const TokenEmbeddingShape& shape) {
  POSEMBED_RETURN_IF_ERROR(check_integer("vocabSize", shape.vocab_size, 1, limits::kMaxVocabSize));
  POSEMBED_RETURN_IF_ERROR(check_integer("dModel", shape.d_model, 1, limits::kMaxDModel));
  if (shape.padding_idx < -1 || shape.padding_idx >= shape.vocab_size) {
    return out_of_range("paddingIdx", "an integer in [0, vocabSize - 1] = [0, " + std::to_string(shape.vocab_size - 1) + "]",
                        static_cast<double>(shape.padding_idx));
  }
  return {};
}

std::optional<EmbeddingInitKind> parse_embedding_init(std::string_view name) {
  if (name == "normal") return EmbeddingInitKind::kNormal;
  if (name == "xavier-uniform") return EmbeddingInitKind::kXavierUniform;
  return std::nullopt;
}

std::optional<EmbeddingScaleKind> parse_embedding_scale(std::string_view name) {
  if (name == "none") return EmbeddingScaleKind::kNone;
  if (name == "sqrt") return EmbeddingScaleKind::kSqrt;
  return std::nullopt;
}

double embedding_scale_factor(EmbeddingScaleKind kind, double constant, int64_t d_model) {
  switch (kind) {
    case EmbeddingScaleKind::kNone: return 1.0;
    case EmbeddingScaleKind::kSqrt: return std::sqrt(static_cast<double>(d_model));
    case EmbeddingScaleKind::kConstant: return constant;
  }
  return 1.0;
}

Status init_embedding_table(const TokenEmbeddingShape& shape, const EmbeddingInit& init, std::span<float> table) {
  POSEMBED_RETURN_IF_ERROR(validate(shape));
  const auto d = static_cast<std::size_t>(shape.d_model);
  const std::size_t needed = static_cast<std::size_t>(shape.vocab_size) * d;
  if (table.size() != needed) return output_size_error(needed, table.size());
  Random random(init.seed);
  if (init.kind == EmbeddingInitKind::kNormal) {
    POSEMBED_RETURN_IF_ERROR(check_number("init.std", init.std, 0.0, limits::kMaxScalingValue));
    fill_normal(random, 0.0, init.std, table);
  } else {
    POSEMBED_RETURN_IF_ERROR(check_number("init.gain", init.gain, 0.0, limits::kMaxScalingValue));
    const double bound = init.gain * std::sqrt(6.0 / static_cast<double>(shape.vocab_size + shape.d_model));
    fill_uniform(random, -bound, bound, table);
  }
  if (shape.padding_idx >= 0) std::memset(table.data() + static_cast<std::size_t>(shape.padding_idx) * d, 0, d * sizeof(float));
  return {};
}

Status validate_ids(const TokenEmbeddingShape& shape, std::span<const int32_t> ids, int64_t first_index) {
  for (std::size_t j = 0; j < ids.size(); ++j) {
    if (ids[j] < 0 || ids[j] >= shape.vocab_size) {
      return out_of_range("ids[" + std::to_string(first_index + static_cast<int64_t>(j)) + "]",
                          "a token id in [0, vocabSize - 1] = [0, " + std::to_string(shape.vocab_size - 1) + "]", ids[j]);
    }
  }
  return {};
}

Status token_embedding_lookup(const TokenEmbeddingShape& shape, float scale, const StoredTable& table, std::span<const int32_t> ids,
                              std::span<float> out) {
  POSEMBED_RETURN_IF_ERROR(validate(shape));
  POSEMBED_RETURN_IF_ERROR(check_stored_table("table", table));
  if (!std::isfinite(scale)) return out_of_range("scale", "a finite number", scale);
  if (table.rows != shape.vocab_size || table.cols != shape.d_model) {
    return Status::range_error("table must be [vocabSize, dModel] = [" + std::to_string(shape.vocab_size) + ", " + std::to_string(shape.d_model) +
                               "], got [" + std::to_string(table.rows) + ", " + std::to_string(table.cols) + "]");
  }
  const auto d = static_cast<std::size_t>(shape.d_model);
  if (out.size() != ids.size() * d) return output_size_error(ids.size() * d, out.size());
  POSEMBED_RETURN_IF_ERROR(validate_ids(shape, ids));
  detail::for_each_gathered_row(ids, table.data, table.row_bytes(), detail::GatherTouch::kFirstLine, detail::GatherOrder::kAnyThread, [&](std::size_t j) {
    float* destination = out.data() + j * d;
    if (ids[j] == shape.padding_idx) {
      std::memset(destination, 0, d * sizeof(float));
      return;
    }
    // A row copied (memory.copy) or widened where it goes, then scaled in place.
    widen_values(table.dtype, static_cast<const unsigned char*>(table.data) + static_cast<std::size_t>(ids[j]) * table.row_bytes(), d, destination);
    if (scale != 1.0f) simd::for_each_float(d, [&]<class V>(std::size_t i) { simd::store(destination + i, simd::load<V>(destination + i) * V(scale)); });
  });
  return {};
}

Status token_embedding_lookup(const TokenEmbeddingShape& shape, float scale, std::span<const float> table, std::span<const int32_t> ids,
                              std::span<float> out) {
  const std::size_t table_size = static_cast<std::size_t>(std::max<int64_t>(shape.vocab_size, 0)) * static_cast<std::size_t>(std::max<int64_t>(shape.d_model, 0));
  if (validate(shape).ok() && table.size() != table_size) {
    return Status::range_error("table must hold vocabSize * dModel = " + std::to_string(table_size) + " elements, got " + std::to_string(table.size()));
  }
  return token_embedding_lookup(shape, scale, StoredTable{table.data(), FileDType::kF32, shape.vocab_size, shape.d_model}, ids, out);
}

}  // namespace posembed
