#include "posembed/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <new>
#include <numeric>
#include <string>
#include <vector>

#include "posembed/limits.hpp"
#include "posembed/simd.hpp"

namespace posembed {
namespace {

// Rows of b kept hot in cache while every block of a passes over them.
constexpr int64_t kRowsPerPanel = 256;
constexpr int64_t kBlock = 4;

// dots[r][c] = a_rows[r] · b_rows[c] for an A x B block: A * B vector accumulators held across the whole
// row (horizontal sums once at the end), each load of a or b used B or A times.
template <int64_t A, int64_t B>
void dot_block_fixed(const float* const* a_rows, const float* const* b_rows, std::size_t d, float dots[kBlock][kBlock]) {
  std::size_t k = 0;
#ifndef XSIMD_NO_SUPPORTED_ARCHITECTURE
  using V = simd::FloatBatch;
  V sums[A][B];
  for (auto& row : sums) for (auto& s : row) s = V(0.0f);
  for (; k + V::size <= d; k += V::size) {
    V b[B];
    for (int64_t c = 0; c < B; ++c) b[c] = V::load_unaligned(b_rows[c] + k);
    for (int64_t r = 0; r < A; ++r) {
      const V a = V::load_unaligned(a_rows[r] + k);
      for (int64_t c = 0; c < B; ++c) sums[r][c] = simd::mul_add(a, b[c], sums[r][c]);
    }
  }
  for (int64_t r = 0; r < A; ++r) for (int64_t c = 0; c < B; ++c) dots[r][c] = xsimd::hadd(sums[r][c]);
#else
  for (int64_t r = 0; r < A; ++r) for (int64_t c = 0; c < B; ++c) dots[r][c] = 0.0f;
#endif
  for (; k < d; ++k) {
    for (int64_t r = 0; r < A; ++r) for (int64_t c = 0; c < B; ++c) dots[r][c] += a_rows[r][k] * b_rows[c][k];
  }
}

float dot(const float* a, const float* b, std::size_t d) {
  const float* a_rows[1] = {a};
  const float* b_rows[1] = {b};
  float dots[kBlock][kBlock];
  dot_block_fixed<1, 1>(a_rows, b_rows, d, dots);
  return dots[0][0];
}

std::vector<double> row_norms(std::span<const float> x, int64_t rows, std::size_t d) {
  std::vector<double> norms(static_cast<std::size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x.data() + static_cast<std::size_t>(r) * d;
    double sum = 0.0;
    for (std::size_t k = 0; k < d; ++k) sum += static_cast<double>(row[k]) * row[k];
    norms[static_cast<std::size_t>(r)] = std::sqrt(sum);
  }
  return norms;
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
  auto remove_earlier = [&](std::size_t j) {
    for (std::size_t i = 0; i < j; ++i) {
      double projection = 0.0;
      for (std::size_t k = 0; k < d; ++k) projection += basis[k * p + i] * basis[k * p + j];
      for (std::size_t k = 0; k < d; ++k) basis[k * p + j] -= projection * basis[k * p + i];
    }
    double norm = 0.0;
    for (std::size_t k = 0; k < d; ++k) norm += basis[k * p + j] * basis[k * p + j];
    return std::sqrt(norm);
  };
  for (std::size_t j = 0; j < p; ++j) {
    double norm = remove_earlier(j);
    for (std::size_t axis = 0; norm < 1e-9 && axis < d; ++axis) {
      for (std::size_t k = 0; k < d; ++k) basis[k * p + j] = k == axis ? 1.0 : 0.0;
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
  for (int64_t panel = 0; panel < m; panel += kRowsPerPanel) {
    const int64_t panel_end = std::min(m, panel + kRowsPerPanel);
    for (int64_t i = 0; i < n; i += kBlock) {
      const int64_t a_count = std::min(kBlock, n - i);
      const float* a_rows[kBlock];
      for (int64_t r = 0; r < a_count; ++r) a_rows[r] = a.data() + static_cast<std::size_t>(i + r) * depth;
      for (int64_t j = panel; j < panel_end; j += kBlock) {
        const int64_t b_count = std::min(kBlock, panel_end - j);
        const float* b_rows[kBlock];
        for (int64_t c = 0; c < b_count; ++c) b_rows[c] = b.data() + static_cast<std::size_t>(j + c) * depth;
        float dots[kBlock][kBlock];
        if (a_count == kBlock && b_count == kBlock) {
          dot_block_fixed<kBlock, kBlock>(a_rows, b_rows, depth, dots);
        } else {
          for (int64_t r = 0; r < a_count; ++r) for (int64_t c = 0; c < b_count; ++c) dots[r][c] = dot(a_rows[r], b_rows[c], depth);
        }
        for (int64_t r = 0; r < a_count; ++r) {
          for (int64_t c = 0; c < b_count; ++c) out[static_cast<std::size_t>(i + r) * cols + static_cast<std::size_t>(j + c)] = dots[r][c];
        }
      }
    }
  }
  if (metric == SimilarityMetric::kCosine) {
    const auto a_norms = row_norms(a, n, depth);
    const auto b_norms = row_norms(b, m, depth);
    for (int64_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < cols; ++j) {
        const double norms = a_norms[static_cast<std::size_t>(i)] * b_norms[j];
        float& value = out[static_cast<std::size_t>(i) * cols + j];
        value = norms > 0.0 ? static_cast<float>(value / norms) : 0.0f;
      }
    }
  }
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
  double query_norm = 0.0;
  for (float v : query) query_norm += static_cast<double>(v) * v;
  query_norm = std::sqrt(query_norm);
  for (std::size_t r = 0; r < all.size(); ++r) {
    const float* row = table.data() + r * depth;
    all[r] = dot(row, query.data(), depth);
    if (metric == SimilarityMetric::kCosine) {
      double norm = 0.0;
      for (std::size_t j = 0; j < depth; ++j) norm += static_cast<double>(row[j]) * row[j];
      const double norms = std::sqrt(norm) * query_norm;
      all[r] = norms > 0.0 ? static_cast<float>(all[r] / norms) : 0.0f;
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
