#include "posembed/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <new>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "posembed/limits.hpp"
#include "posembed/simd.hpp"
#include "posembed/threads.hpp"

namespace posembed {
namespace {

// The product a · bᵀ as a packed GEMM: b is copied once into panels of kPanelWidth rows, stored depth-major
// (panel[k][c] = b[row c of the panel][k]), so the micro-kernel reads kRowsPerKernel rows of a as scalars
// and one panel as vectors, with kRowsPerKernel * 2 vector accumulators and no horizontal sums.
constexpr std::size_t kPanelWidth = 2 * simd::kFloatLanes;
constexpr int64_t kRowsPerKernel = 4;
constexpr int64_t kRowsPerChunk = 64;  // rows of a kept in cache while every panel passes over them

template <int64_t Rows>
void multiply_panel(const float* a, std::size_t depth, const float* panel, float* out, std::size_t out_stride, std::size_t width) {
  using V = simd::Widest;
  constexpr std::size_t W = simd::kFloatLanes;
  V sums[Rows][2];
  for (auto& row : sums) row[0] = row[1] = V(0.0f);
  for (std::size_t k = 0; k < depth; ++k) {
    const V low = simd::load<V>(panel + k * kPanelWidth);
    const V high = simd::load<V>(panel + k * kPanelWidth + W);
    for (int64_t r = 0; r < Rows; ++r) {
      const V a_rk(a[static_cast<std::size_t>(r) * depth + k]);
      sums[r][0] = simd::mul_add(a_rk, low, sums[r][0]);
      sums[r][1] = simd::mul_add(a_rk, high, sums[r][1]);
    }
  }
  for (int64_t r = 0; r < Rows; ++r) {
    float* row = out + static_cast<std::size_t>(r) * out_stride;
    if (width == kPanelWidth) {
      simd::store(row, sums[r][0]);
      simd::store(row + W, sums[r][1]);
    } else {  // the last, partial panel
      float lanes[kPanelWidth];
      simd::store(lanes, sums[r][0]);
      simd::store(lanes + W, sums[r][1]);
      std::copy(lanes, lanes + width, row);
    }
  }
}

float dot(const float* a, const float* b, std::size_t d) {
  using V = simd::Widest;
  V sum(0.0f);
  std::size_t k = 0;
  for (; k + simd::kFloatLanes <= d; k += simd::kFloatLanes) sum = simd::mul_add(simd::load<V>(a + k), simd::load<V>(b + k), sum);
  float total = simd::reduce_add(sum);
  for (; k < d; ++k) total += a[k] * b[k];
  return total;
}

// x's rows scaled to unit length (the scale taken in double; a zero row stays zero): their dot products are
// cosines, with no overflow or underflow on the way however large or small x's values. Null where memory
// runs out.
std::unique_ptr<float[]> unit_rows(std::span<const float> x, std::size_t d) {
  std::unique_ptr<float[]> units(new (std::nothrow) float[x.size()]);
  if (!units) return units;
  for (std::size_t at = 0; at < x.size(); at += d) {
    double sum = 0.0;
    for (std::size_t k = 0; k < d; ++k) sum += static_cast<double>(x[at + k]) * x[at + k];
    const double scale = sum > 0.0 ? 1.0 / std::sqrt(sum) : 0.0;
    for (std::size_t k = 0; k < d; ++k) units[at + k] = static_cast<float>(x[at + k] * scale);
  }
  return units;
}

// Where a's rows are rows of b (a self-similarity, or a block of one's rows), the index in b of a's first row.
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

Status check_matrix(std::string_view name, std::span<const float> x, int64_t rows, int64_t d) {
  if (rows < 1 || rows > limits::kMaxLength) return out_of_range(std::string(name) + ".shape[0]", "an integer in [1, 16777216]", static_cast<double>(rows));
  if (d < 1 || d > limits::kMaxDModel) return out_of_range(std::string(name) + ".shape[1]", "an integer in [1, 65536]", static_cast<double>(d));
  if (x.size() != static_cast<std::size_t>(rows * d)) {
    return Status::range_error(std::string(name) + " must hold " + std::to_string(rows * d) + " elements, got " + std::to_string(x.size()));
  }
  return {};
}

// Eigen-decomposition of a small symmetric matrix (row-major, p x p) by cyclic Jacobi rotations.
// On return the diagonal of `matrix` holds the eigenvalues and the columns of `vectors` the eigenvectors.
void jacobi_eigen(std::vector<double>& matrix, std::vector<double>& vectors, std::size_t p) {
  vectors.assign(p * p, 0.0);
  for (std::size_t i = 0; i < p; ++i) vectors[i * p + i] = 1.0;
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0.0;
    for (std::size_t i = 0; i < p; ++i) for (std::size_t j = i + 1; j < p; ++j) off += matrix[i * p + j] * matrix[i * p + j];
    if (off < 1e-30) return;
    for (std::size_t i = 0; i < p; ++i) {
      for (std::size_t j = i + 1; j < p; ++j) {
        const double aij = matrix[i * p + j];
        if (std::abs(aij) < 1e-300) continue;
        const double theta = (matrix[j * p + j] - matrix[i * p + i]) / (2.0 * aij);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0);
        const double s = t * c;
        for (std::size_t k = 0; k < p; ++k) {  // columns i, j
          const double mki = matrix[k * p + i], mkj = matrix[k * p + j];
          matrix[k * p + i] = c * mki - s * mkj;
          matrix[k * p + j] = s * mki + c * mkj;
        }
        for (std::size_t k = 0; k < p; ++k) {  // rows i, j
          const double mik = matrix[i * p + k], mjk = matrix[j * p + k];
          matrix[i * p + k] = c * mik - s * mjk;
          matrix[j * p + k] = s * mik + c * mjk;
        }
        for (std::size_t k = 0; k < p; ++k) {
          const double vki = vectors[k * p + i], vkj = vectors[k * p + j];
          vectors[k * p + i] = c * vki - s * vkj;
          vectors[k * p + j] = s * vki + c * vkj;
        }
      }
    }
  }
}

// Orthonormalises the p columns of basis ([d, p], column j at basis[k * p + j]) by modified Gram-Schmidt.
// A column that vanishes (data of lower rank than p) is replaced by the first axis independent of the others.
void orthonormalise(std::vector<double>& basis, std::size_t d, std::size_t p) {
  auto norm_of = [&](std::size_t j) {
    double norm = 0.0;
    for (std::size_t k = 0; k < d; ++k) norm += basis[k * p + j] * basis[k * p + j];
    return std::sqrt(norm);
  };
  auto remove_earlier = [&](std::size_t j) {
    for (std::size_t i = 0; i < j; ++i) {
      double projection = 0.0;
      for (std::size_t k = 0; k < d; ++k) projection += basis[k * p + i] * basis[k * p + j];
      for (std::size_t k = 0; k < d; ++k) basis[k * p + j] -= projection * basis[k * p + i];
    }
    return norm_of(j);
  };
  for (std::size_t j = 0; j < p; ++j) {
    // A column (all but) in the span of the earlier ones, measured against its own length (the data's scale
    // is anyone's: 1e-30 as well as 1e30), is replaced by a unit axis.
    double length = norm_of(j);
    double norm = remove_earlier(j);
    for (std::size_t axis = 0; !(norm > 1e-9 * length) && axis < d; ++axis) {
      for (std::size_t k = 0; k < d; ++k) basis[k * p + j] = k == axis ? 1.0 : 0.0;
      length = 1.0;
      norm = remove_earlier(j);
    }
    for (std::size_t k = 0; k < d; ++k) basis[k * p + j] /= norm;
  }
}

}  // namespace

std::optional<SimilarityMetric> parse_similarity_metric(std::string_view name) {
  if (name == "dot") return SimilarityMetric::kDot;
  if (name == "cosine") return SimilarityMetric::kCosine;
  return std::nullopt;
}

Status similarity(std::span<const float> a, int64_t n, std::span<const float> b, int64_t m, int64_t d, SimilarityMetric metric,
                  std::span<float> out) {
  POSEMBED_RETURN_IF_ERROR(check_matrix("a", a, n, d));
  POSEMBED_RETURN_IF_ERROR(check_matrix("b", b, m, d));
  const auto cols = static_cast<std::size_t>(m);
  if (out.size() != static_cast<std::size_t>(n) * cols) return output_size_error(static_cast<std::size_t>(n) * cols, out.size());
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
        const float* panel = packed.get() + p * depth * kPanelWidth;
        const std::size_t width = std::min(kPanelWidth, cols - p * kPanelWidth);
        for (int64_t i = chunk; i < chunk_end; i += kRowsPerKernel) {
          const float* rows = a.data() + static_cast<std::size_t>(i) * depth;
          float* target = out.data() + static_cast<std::size_t>(i) * cols + p * kPanelWidth;
          switch (std::min(kRowsPerKernel, chunk_end - i)) {
            case 4: multiply_panel<4>(rows, depth, panel, target, cols, width); break;
            case 3: multiply_panel<3>(rows, depth, panel, target, cols, width); break;
            case 2: multiply_panel<2>(rows, depth, panel, target, cols, width); break;
            default: multiply_panel<1>(rows, depth, panel, target, cols, width); break;
          }
        }
      }
    }
  });
  if (shared) mirror_lower_half(out, static_cast<std::size_t>(n), cols, *shared);
  return {};
}

Status nearest_rows(std::span<const float> table, int64_t rows, int64_t d, std::span<const float> query, SimilarityMetric metric,
                    std::span<int32_t> indices, std::span<float> scores) {
  POSEMBED_RETURN_IF_ERROR(check_matrix("table", table, rows, d));
  const auto depth = static_cast<std::size_t>(d);
  if (query.size() != depth) return Status::range_error("query must hold dModel = " + std::to_string(d) + " elements, got " + std::to_string(query.size()));
  const std::size_t k = indices.size();
  if (k < 1 || k > static_cast<std::size_t>(rows) || scores.size() != k) {
    return out_of_range("k", "an integer in [1, " + std::to_string(rows) + "]", static_cast<double>(k));
  }
  std::vector<float> all(static_cast<std::size_t>(rows));
  // Cosine: against the query scaled to unit length (in double), each row in float SIMD while its squares
  // stay far inside float's range, else in double, where products of floats are exact and neither overflow
  // nor underflow: exact for rows of any finite size, fast for the usual ones.
  const auto unit_query = unit_rows(query, depth);  // zeros for a zero query: every cosine 0
  if (!unit_query) return Status::range_error("nearest: out of memory for the unit query");
  for (std::size_t r = 0; r < all.size(); ++r) {
    const float* row = table.data() + r * depth;
    if (metric == SimilarityMetric::kDot) {
      all[r] = dot(row, query.data(), depth);
    } else if (const float squares = dot(row, row, depth); squares > 1e-30f && squares < 1e30f) {
      all[r] = static_cast<float>(dot(row, unit_query.get(), depth) / std::sqrt(static_cast<double>(squares)));
    } else {
      double product = 0.0, norm = 0.0;
      for (std::size_t j = 0; j < depth; ++j) {
        product += static_cast<double>(row[j]) * unit_query[j];
        norm += static_cast<double>(row[j]) * row[j];
      }
      all[r] = norm > 0.0 ? static_cast<float>(product / std::sqrt(norm)) : 0.0f;
    }
  }
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

Status pca(std::span<const float> x, int64_t n, int64_t d, int64_t components, std::span<float> out, std::span<float> axes) {
  POSEMBED_RETURN_IF_ERROR(check_matrix("x", x, n, d));
  if (n < 2) return out_of_range("x.shape[0]", "an integer >= 2 (PCA needs at least two rows)", static_cast<double>(n));
  if (components < 1 || components > std::min(n, d)) {
    return out_of_range("components", "an integer in [1, min(rows, dModel)] = [1, " + std::to_string(std::min(n, d)) + "]", static_cast<double>(components));
  }
  const auto rows = static_cast<std::size_t>(n);
  const auto depth = static_cast<std::size_t>(d);
  const auto kept = static_cast<std::size_t>(components);
  if (out.size() != rows * kept) return output_size_error(rows * kept, out.size());
  if (!axes.empty() && axes.size() != kept * depth) return output_size_error(kept * depth, axes.size());

  std::vector<double> mean(depth, 0.0);
  for (std::size_t r = 0; r < rows; ++r) for (std::size_t j = 0; j < depth; ++j) mean[j] += x[r * depth + j];
  for (double& m : mean) m /= static_cast<double>(rows);

  // Subspace iteration on the covariance, applied as Xcᵀ (Xc V) so it is never formed; a few spare
  // directions speed convergence. Rayleigh-Ritz each step keeps the basis ordered by variance.
  const std::size_t p = std::min(depth, kept + 4);
  std::vector<double> basis(depth * p), projected(rows * p), next(depth * p), small(p * p), rotation;
  for (std::size_t k = 0; k < depth; ++k) for (std::size_t j = 0; j < p; ++j) basis[k * p + j] = std::sin(1.0 + 7.0 * static_cast<double>(k) + 13.0 * static_cast<double>(j));
  orthonormalise(basis, depth, p);
  // projected = Xc · basis: [rows, p].
  auto project = [&] {
    std::fill(projected.begin(), projected.end(), 0.0);
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t k = 0; k < depth; ++k) {
        const double centred = x[r * depth + k] - mean[k];
        for (std::size_t j = 0; j < p; ++j) projected[r * p + j] += centred * basis[k * p + j];
      }
    }
  };
  std::vector<double> previous(p, 0.0);
  for (int iteration = 0; iteration < 2000; ++iteration) {
    project();
    // Rayleigh-Ritz: the covariance restricted to the basis, diagonalised; its eigenvalues, largest first.
    for (std::size_t i = 0; i < p; ++i) {
      for (std::size_t j = 0; j < p; ++j) {
        double sum = 0.0;
        for (std::size_t r = 0; r < rows; ++r) sum += projected[r * p + i] * projected[r * p + j];
        small[i * p + j] = sum / static_cast<double>(rows - 1);
      }
    }
    jacobi_eigen(small, rotation, p);
    std::vector<std::size_t> order(p);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return small[a * p + a] > small[b * p + b]; });
    const double largest = std::max(small[order[0] * p + order[0]], 1e-300);
    double change = 0.0;
    for (std::size_t j = 0; j < kept; ++j) {
      const double value = small[order[j] * p + order[j]];
      change = std::max(change, std::abs(value - previous[j]) / largest);
      previous[j] = value;
    }
    // basis <- basis · rotation, in order of variance.
    std::fill(next.begin(), next.end(), 0.0);
    for (std::size_t k = 0; k < depth; ++k) {
      for (std::size_t j = 0; j < p; ++j) {
        for (std::size_t i = 0; i < p; ++i) next[k * p + j] += basis[k * p + i] * rotation[i * p + order[j]];
      }
    }
    basis.swap(next);
    if (iteration > 3 && change < 1e-14) break;
    // A power step: basis <- Xcᵀ Xc basis, orthonormalised.
    project();
    std::fill(next.begin(), next.end(), 0.0);
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t k = 0; k < depth; ++k) {
        const double centred = x[r * depth + k] - mean[k];
        for (std::size_t j = 0; j < p; ++j) next[k * p + j] += centred * projected[r * p + j];
      }
    }
    basis.swap(next);
    orthonormalise(basis, depth, p);
  }

  for (std::size_t j = 0; j < kept; ++j) {
    std::size_t largest = 0;
    for (std::size_t k = 1; k < depth; ++k) if (std::abs(basis[k * p + j]) > std::abs(basis[largest * p + j])) largest = k;
    const double sign = basis[largest * p + j] < 0 ? -1.0 : 1.0;
    for (std::size_t k = 0; k < depth; ++k) basis[k * p + j] *= sign;
    if (!axes.empty()) for (std::size_t k = 0; k < depth; ++k) axes[j * depth + k] = static_cast<float>(basis[k * p + j]);
  }
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t j = 0; j < kept; ++j) {
      double sum = 0.0;
      for (std::size_t k = 0; k < depth; ++k) sum += (x[r * depth + k] - mean[k]) * basis[k * p + j];
      out[r * kept + j] = static_cast<float>(sum);
    }
  }
  return {};
}

}  // namespace posembed
