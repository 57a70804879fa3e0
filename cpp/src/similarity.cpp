// Similarity matrices (the GEMM kernel over packed panels of b), a few queries' scores, the nearest rows of a table
// in any dtype, and the SIMD scan for non-finite values.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <new>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gemm.hpp"
#include "posembed/analysis.hpp"
#include "posembed/simd.hpp"
#include "posembed/threads.hpp"

namespace posembed {
namespace {

using detail::check_matrix;
using detail::kPanelWidth;
using detail::kRowsPerChunk;
using detail::multiply_rows;

float dot(const float* a, const float* b, std::size_t d) {
  using V = simd::Widest;
  V sum(0.0f);
  std::size_t k = 0;
  for (; k + simd::kFloatLanes <= d; k += simd::kFloatLanes) sum = simd::mul_add(simd::load<V>(a + k), simd::load<V>(b + k), sum);
  float total = simd::reduce_add(sum);
  for (; k < d; ++k) total += a[k] * b[k];
  return total;
}

// 1 / |row| (0 for a zero row): its squares summed in float SIMD while they stay far inside float's range, else
// in double, where products of floats are exact and neither overflow nor underflow.
double unit_scale(const float* row, std::size_t d) {
  const float squares = dot(row, row, d);
  double sum = squares;
  if (!(squares > 1e-30f && squares < 1e30f)) {
    sum = 0.0;
    for (std::size_t k = 0; k < d; ++k) sum += static_cast<double>(row[k]) * row[k];
  }
  return sum > 0.0 ? 1.0 / std::sqrt(sum) : 0.0;
}

// x's rows scaled to unit length (a zero row stays zero): their dot products are cosines, with no overflow or
// underflow on the way however large or small x's values. Null where memory runs out.
std::unique_ptr<float[]> unit_rows(std::span<const float> x, std::size_t d) {
  std::unique_ptr<float[]> units(new (std::nothrow) float[x.size()]);
  if (!units) return units;
  for (std::size_t at = 0; at < x.size(); at += d) {
    const double scale = unit_scale(x.data() + at, d);
    for (std::size_t k = 0; k < d; ++k) units[at + k] = static_cast<float>(x[at + k] * scale);
  }
  return units;
}

std::optional<std::size_t> first_shared_row(std::span<const float> a, std::span<const float> b, std::size_t depth) {
  const auto a_start = reinterpret_cast<std::uintptr_t>(a.data()), b_start = reinterpret_cast<std::uintptr_t>(b.data());
  const std::uintptr_t b_end = b_start + b.size_bytes();
  if (a_start < b_start || a_start + a.size_bytes() > b_end) return std::nullopt;
  const std::size_t offset = (a_start - b_start) / sizeof(float);
  if ((a_start - b_start) % sizeof(float) != 0 || offset % depth != 0) return std::nullopt;
  return offset / depth;
}

// Row i of a being row shared + i of b, out[i][shared + j] and out[j][shared + i] are the same products summed
// in the same order, so the same bits: the kernel skips panels wholly below the diagonal and they are copied
// here, in tiles so that both sides stay in cache.
void mirror_lower_half(std::span<float> out, std::size_t n, std::size_t cols, std::size_t shared) {
  constexpr std::size_t kTile = 32;
  for (std::size_t i0 = 0; i0 < n; i0 += kTile) {
    for (std::size_t j0 = 0; j0 <= i0; j0 += kTile) {
      for (std::size_t i = i0; i < std::min(n, i0 + kTile); ++i) {
        for (std::size_t j = j0; j < std::min(i, j0 + kTile); ++j) out[i * cols + shared + j] = out[j * cols + shared + i];
      }
    }
  }
}

// similarity's and query_similarity's arguments: a [n, d], b [m, d], out [n, m].
Status check_similarity(std::span<const float> a, int64_t n, std::span<const float> b, int64_t m, int64_t d, std::span<float> out) {
  POSEMBED_RETURN_IF_ERROR(check_matrix("a", a, n, d));
  POSEMBED_RETURN_IF_ERROR(check_matrix("b", b, m, d));
  const auto elements = static_cast<std::size_t>(n) * static_cast<std::size_t>(m);
  if (out.size() != elements) return output_size_error(elements, out.size());
  return {};
}

// Σ row·unit and Σ row² in one pass over the row (a vocabulary's rows are read once each), each in two chains of
// vectors taken in turn, so that an add waits on the one two steps back.
std::pair<float, float> dot_and_squares(const float* row, const float* unit, std::size_t depth) {
  using V = simd::Widest;
  constexpr std::size_t L = simd::kFloatLanes;
  V along[2] = {V(0.0f), V(0.0f)}, squares[2] = {V(0.0f), V(0.0f)};
  std::size_t k = 0;
  for (; k + 2 * L <= depth; k += 2 * L) {
    for (std::size_t chain = 0; chain < 2; ++chain) {
      const V r = simd::load<V>(row + k + chain * L);
      along[chain] = simd::mul_add(r, simd::load<V>(unit + k + chain * L), along[chain]);
      squares[chain] = simd::mul_add(r, r, squares[chain]);
    }
  }
  float along_total = simd::reduce_add(along[0] + along[1]), squares_total = simd::reduce_add(squares[0] + squares[1]);
  for (; k < depth; ++k) {
    along_total += row[k] * unit[k];
    squares_total += row[k] * row[k];
  }
  return {along_total, squares_total};
}

// One row of a table scored against a query: dot, or cosine against the query scaled to unit length (in double),
// the row in float SIMD while its squares stay far inside float's range, else in double, where products of floats
// are exact and neither overflow nor underflow: exact for rows of any finite size, fast for the usual ones.
float row_score(const float* row, const float* query, const float* unit_query, std::size_t depth, SimilarityMetric metric) {
  if (metric == SimilarityMetric::kDot) return dot(row, query, depth);
  if (const auto [along, squares] = dot_and_squares(row, unit_query, depth); squares > 1e-30f && squares < 1e30f) {
    return static_cast<float>(along / std::sqrt(static_cast<double>(squares)));
  }
  double product = 0.0, norm = 0.0;
  for (std::size_t j = 0; j < depth; ++j) {
    product += static_cast<double>(row[j]) * unit_query[j];
    norm += static_cast<double>(row[j]) * row[j];
  }
  return norm > 0.0 ? static_cast<float>(product / std::sqrt(norm)) : 0.0f;
}

}  // namespace

std::optional<SimilarityMetric> parse_similarity_metric(std::string_view name) {
  if (name == "dot") return SimilarityMetric::kDot;
  if (name == "cosine") return SimilarityMetric::kCosine;
  return std::nullopt;
}

Status similarity(std::span<const float> a, int64_t n, std::span<const float> b, int64_t m, int64_t d, SimilarityMetric metric,
                  std::span<float> out) {
  POSEMBED_RETURN_IF_ERROR(check_similarity(a, n, b, m, d, out));
  const auto cols = static_cast<std::size_t>(m);
  const auto depth = static_cast<std::size_t>(d);
  const std::optional<std::size_t> shared = first_shared_row(a, b, depth);
  if (metric == SimilarityMetric::kCosine) {  // the dot products of unit rows
    const auto unit_b = unit_rows(b, depth);
    const auto unit_a = shared ? nullptr : unit_rows(a, depth);
    if (!unit_b || (!shared && !unit_a)) return Status::range_error("similarity: out of memory for the unit rows");
    const std::span<const float> units_of_b(unit_b.get(), b.size());
    const std::span<const float> units_of_a = shared ? units_of_b.subspan(*shared * depth, a.size()) : std::span<const float>(unit_a.get(), a.size());
    return similarity(units_of_a, n, units_of_b, m, d, SimilarityMetric::kDot, out);
  }
  const std::size_t panels = (cols + kPanelWidth - 1) / kPanelWidth;
  std::unique_ptr<float[]> packed(new (std::nothrow) float[panels * depth * kPanelWidth]);
  if (!packed) return Status::range_error("similarity: out of memory for the packed copy of b");
  for (std::size_t p = 0; p < panels; ++p) {
    float* panel = packed.get() + p * depth * kPanelWidth;
    for (std::size_t k = 0; k < depth; ++k) {
      for (std::size_t c = 0; c < kPanelWidth; ++c) {
        const std::size_t row = p * kPanelWidth + c;
        panel[k * kPanelWidth + c] = row < cols ? b[row * depth + k] : 0.0f;
      }
    }
  }
  // Chunks of rows of a are independent: they are split over the threads.
  parallel_rows((n + kRowsPerChunk - 1) / kRowsPerChunk, 1, [&](int64_t first_chunk, int64_t chunk_count) {
    for (int64_t chunk = first_chunk * kRowsPerChunk; chunk < std::min(n, (first_chunk + chunk_count) * kRowsPerChunk); chunk += kRowsPerChunk) {
      const int64_t chunk_end = std::min(n, chunk + kRowsPerChunk);
      for (std::size_t p = 0; p < panels; ++p) {
        if (shared && p * kPanelWidth >= *shared && p * kPanelWidth + kPanelWidth <= *shared + static_cast<std::size_t>(chunk)) continue;  // mirrored below
        multiply_rows(a.data(), chunk, chunk_end, depth, packed.get() + p * depth * kPanelWidth, out.data(), cols, p);
      }
    }
  });
  if (shared) mirror_lower_half(out, static_cast<std::size_t>(n), cols, *shared);
  return {};
}

Status query_similarity(std::span<const float> queries, int64_t n, std::span<const float> b, int64_t m, int64_t d, SimilarityMetric metric,
                        std::span<float> out) {
  POSEMBED_RETURN_IF_ERROR(check_similarity(queries, n, b, m, d, out));
  const auto cols = static_cast<std::size_t>(m);
  const auto depth = static_cast<std::size_t>(d);
  const auto units = unit_rows(queries, depth);
  if (!units) return Status::range_error("similarity: out of memory for the unit queries");
  parallel_rows(m, 1, [&](int64_t first, int64_t count) {
    for (auto c = static_cast<std::size_t>(first); c < static_cast<std::size_t>(first + count); ++c) {
      for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
        out[i * cols + c] = row_score(b.data() + c * depth, queries.data() + i * depth, units.get() + i * depth, depth, metric);
      }
    }
  });
  return {};
}

Status nearest_rows(const StoredTable& table, std::span<const float> query, SimilarityMetric metric, std::span<int32_t> indices,
                    std::span<float> scores) {
  POSEMBED_RETURN_IF_ERROR(check_stored_table("table", table));
  const auto depth = static_cast<std::size_t>(table.cols);
  if (query.size() != depth) return Status::range_error("query must hold dModel = " + std::to_string(depth) + " elements, got " + std::to_string(query.size()));
  const std::size_t k = indices.size();
  if (k < 1 || k > static_cast<std::size_t>(table.rows) || scores.size() != k) {
    return out_of_range("k", "an integer in [1, " + std::to_string(table.rows) + "]", static_cast<double>(k));
  }
  std::vector<float> all(static_cast<std::size_t>(table.rows));
  const auto unit_query = unit_rows(query, depth);  // zeros for a zero query: every cosine 0
  if (!unit_query) return Status::range_error("nearest: out of memory for the unit query");
  // Runs of rows over the threads; a table kept in another dtype is widened a few rows at a time into a buffer that
  // stays in the core's first-level cache while they are scored.
  const std::size_t block_rows = std::max<std::size_t>(1, (std::size_t{16} << 10) / (depth * sizeof(float)));
  parallel_rows(table.rows, static_cast<int64_t>(block_rows), [&](int64_t first, int64_t count) {
    std::vector<float> scratch;
    for (auto begin = static_cast<std::size_t>(first); begin < static_cast<std::size_t>(first + count); begin += block_rows) {
      const std::size_t height = std::min(block_rows, static_cast<std::size_t>(first + count) - begin);
      const float* rows = table_rows(table, begin, height, scratch);
      for (std::size_t r = 0; r < height; ++r) all[begin + r] = row_score(rows + r * depth, query.data(), unit_query.get(), depth, metric);
    }
  });
  std::vector<int32_t> order(all.size());
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(), [&](int32_t x, int32_t y) {
    return all[static_cast<std::size_t>(x)] > all[static_cast<std::size_t>(y)] || (all[static_cast<std::size_t>(x)] == all[static_cast<std::size_t>(y)] && x < y);
  });
  for (std::size_t i = 0; i < k; ++i) {
    indices[i] = order[i];
    scores[i] = all[static_cast<std::size_t>(order[i])];
  }
  return {};
}

Status nearest_rows(std::span<const float> table, int64_t rows, int64_t d, std::span<const float> query, SimilarityMetric metric,
                    std::span<int32_t> indices, std::span<float> scores) {
  POSEMBED_RETURN_IF_ERROR(check_matrix("table", table, rows, d));
  return nearest_rows(StoredTable{table.data(), FileDType::kF32, rows, d}, query, metric, indices, scores);
}

int64_t first_non_finite(std::span<const float> values) {
  // Blocks are summed as x − x, 0 for every finite x and NaN otherwise; only a block whose sum is not 0 is searched.
  constexpr std::size_t kBlock = 4096;
  for (std::size_t start = 0; start < values.size(); start += kBlock) {
    const std::size_t count = std::min(kBlock, values.size() - start);
    const float sum = simd::sum_each<float>(count, [&]<class V>(std::size_t i) {
      const V x = simd::load<V>(values.data() + start + i);
      return x - x;
    });
    if (sum == 0.0f) continue;
    for (std::size_t i = start; i < start + count; ++i) {
      if (!std::isfinite(values[i])) return static_cast<int64_t>(i);
    }
  }
  return -1;
}

}  // namespace posembed
