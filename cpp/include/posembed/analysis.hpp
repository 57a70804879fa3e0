// Looking at embeddings: similarity matrices (a blocked SIMD A·Bᵀ), nearest rows of a table, and PCA.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "posembed/status.hpp"
#include "posembed/stored_table.hpp"

namespace posembed {

enum class SimilarityMetric { kDot, kCosine };
std::optional<SimilarityMetric> parse_similarity_metric(std::string_view name);

// out[i][j] = a_i · b_j (dot) or a_i · b_j / (|a_i| |b_j|) (cosine; 0 where a norm is 0).
// a: [n, d], b: [m, d], out: [n, m].
Status similarity(std::span<const float> a, int64_t n, std::span<const float> b, int64_t m, int64_t d, SimilarityMetric metric,
                  std::span<float> out);

// similarity for a few queries (a: [n, d], n small) against a table b ([m, d]): each score a dot product of its own,
// as nearest_rows scores rows, where the GEMM above would first pack all of b. The package uses it for up to
// kQueryRows queries; its values may differ from similarity's in the last bits (another order of summation).
constexpr int64_t kQueryRows = 16;
Status query_similarity(std::span<const float> queries, int64_t n, std::span<const float> b, int64_t m, int64_t d, SimilarityMetric metric,
                        std::span<float> out);

// The k rows of table ([rows, d], any table dtype) most similar to query ([d]), best first; ties go to the lower index.
Status nearest_rows(const StoredTable& table, std::span<const float> query, SimilarityMetric metric, std::span<int32_t> indices,
                    std::span<float> scores);
// The same for a float32 table.
Status nearest_rows(std::span<const float> table, int64_t rows, int64_t d, std::span<const float> query, SimilarityMetric metric,
                    std::span<int32_t> indices, std::span<float> scores);

// The index of the first NaN or ±Infinity among values, or -1. A SIMD pass at memory speed: the package checks a
// table this way once it is on the heap, where a JS loop over its tens of millions of values would take longer than
// the op.
int64_t first_non_finite(std::span<const float> values);

// Projections of the centred rows of x ([n, d]) on its first `components` principal axes: out [n, components].
// Each axis's sign makes its largest-magnitude loading positive. axes (optional, [components, d]) receives them.
// A NaN or ±Infinity in x is refused, naming the first.
Status pca(std::span<const float> x, int64_t n, int64_t d, int64_t components, std::span<float> out, std::span<float> axes = {});
// The same for a table in any table dtype, its rows widened a block at a time where they are read; name: the table's
// name in errors.
Status pca(const StoredTable& x, int64_t components, std::span<float> out, std::span<float> axes = {}, std::string_view name = "table");

}  // namespace posembed
