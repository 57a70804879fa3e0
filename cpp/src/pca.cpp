// PCA: each column's mean and scale, the axes by the route the table's shape and spectrum call for (covariance and an
// exact eigensolver, block Krylov iteration, or subspace iteration), and the rows projected on them.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "covariance.hpp"
#include "eigensolvers.hpp"
#include "gemm.hpp"
#include "krylov.hpp"
#include "posembed/analysis.hpp"
#include "posembed/simd.hpp"
#include "posembed/threads.hpp"

namespace posembed {
namespace {

using namespace detail;

// PCA's exact route for tables up to this many columns: the covariance formed (d × d doubles: 512 MB at the limit)
// and decomposed. Wider tables iterate on the rows instead.
constexpr std::size_t kCovarianceMaxDepth = 8192;
// Up to this many columns, a large table's probe (the covariance of an eighth of its rows) tells a trained table from
// a flat one. Wider, the probe's n/8 · d²/2 multiply-adds cost more than the Krylov passes it would save: a large
// table is tried by Krylov iteration from seeded directions first, and the covariance formed only where that fails.
constexpr std::size_t kProbeMaxDepth = 2048;

// A row's coordinates along Count axes (rows of `axes`, depth apart) into out: Σ_k (row[k] − mean[k])·axis[k] in
// double, each centred value formed once for all the axes, each axis summed in two chains of vectors in turn (an
// add then waits on the one two steps back, not on the last: with one chain, the adds' latency set the pace).
template <std::size_t Count>
void project_row(const float* row, const double* mean, const double* axes, std::size_t depth, float* out) {
  using V = simd::WidestDouble;
  constexpr std::size_t kLanes = sizeof(V) / sizeof(double);
  V sums[Count][2];
  for (auto& chains : sums) chains[0] = chains[1] = V(0.0);
  std::size_t k = 0;
  for (; k + 2 * kLanes <= depth; k += 2 * kLanes) {
    for (std::size_t chain = 0; chain < 2; ++chain) {
      const std::size_t at = k + chain * kLanes;
      const V centred = simd::load_widened<V>(row + at) - simd::load<V>(mean + at);
      for (std::size_t j = 0; j < Count; ++j) sums[j][chain] = sums[j][chain] + centred * simd::load<V>(axes + j * depth + at);
    }
  }
  for (std::size_t j = 0; j < Count; ++j) {
    double total = simd::reduce_add(sums[j][0] + sums[j][1]);
    for (std::size_t tail = k; tail < depth; ++tail) total += (static_cast<double>(row[tail]) - mean[tail]) * axes[j * depth + tail];
    out[j] = static_cast<float>(total);
  }
}

}  // namespace

Status pca(std::span<const float> x, int64_t n, int64_t d, int64_t components, std::span<float> out, std::span<float> axes) {
  POSEMBED_RETURN_IF_ERROR(check_matrix("x", x, n, d));
  return pca(StoredTable{x.data(), FileDType::kF32, n, d}, components, out, axes, "x");
}

Status pca(const StoredTable& x, int64_t components, std::span<float> out, std::span<float> axes, std::string_view name) {
  POSEMBED_RETURN_IF_ERROR(check_stored_table(name, x));
  const int64_t n = x.rows, d = x.cols;
  if (n < 2) return out_of_range(std::string(name) + ".shape[0]", "an integer >= 2 (PCA needs at least two rows)", static_cast<double>(n));
  if (components < 1 || components > std::min(n, d)) {
    return out_of_range("components", "an integer in [1, min(rows, dModel)] = [1, " + std::to_string(std::min(n, d)) + "]", static_cast<double>(components));
  }
  const auto rows = static_cast<std::size_t>(n);
  const auto depth = static_cast<std::size_t>(d);
  const auto kept = static_cast<std::size_t>(components);
  if (out.size() != rows * kept) return output_size_error(rows * kept, out.size());
  if (!axes.empty() && axes.size() != kept * depth) return output_size_error(kept * depth, axes.size());

  const ColumnStats stats = column_stats(x, rows, depth);
  // A NaN or ±Infinity makes its column's sum non-finite (sums of finite floats cannot overflow a double), so the check
  // costs nothing; only then is x searched for the first one.
  if (!std::isfinite(std::accumulate(stats.mean.begin(), stats.mean.end(), 0.0))) {
    const int64_t bad = first_non_finite(x);
    float value = 0.0f;
    widen_values(x.dtype, static_cast<const unsigned char*>(x.data) + static_cast<std::size_t>(bad) * element_size(x.dtype), 1, &value);
    return out_of_range(std::string(name) + ".data[" + std::to_string(bad) + "]", "finite", value);
  }
  const std::vector<double>& mean = stats.mean;

  // Up to kCovarianceMaxDepth columns: the covariance decomposed exactly, whatever the spectrum, or for a large table
  // with clear top axes, block Krylov iteration on its rows (see kKrylovWidth). Wider: subspace iteration on the
  // covariance, applied as Xcᵀ (Xc V) so it is never formed.
  std::size_t p = kept;
  std::vector<double> basis;
  if (depth <= kCovarianceMaxDepth) {
    // (Not in builds without SIMD, whose two-wide panels make blocks too narrow to gain by.)
    const bool large = kKrylovWidth >= 8 && rows >= kKrylovMinRows && kept < kKrylovWidth && depth >= 4 * kKrylovWidth;
    std::optional<std::vector<double>> found;
    if (large && depth > kProbeMaxDepth) found = krylov_axes(x, rows, depth, stats, kept, seeded_basis(depth, kKrylovWidth));
    if (!found) {
      std::vector<double> cov;
      const bool probed = large && depth <= kProbeMaxDepth;
      const bool formed = covariance(x, rows, depth, stats, cov, probed ? kProbeStride : 0, [&](const std::vector<double>& partial) {
        if (const auto start = krylov_start(partial, depth, kept)) found = krylov_axes(x, rows, depth, stats, kept, *start);
        return found.has_value();
      });
      if (formed) top_eigenvectors(cov, depth, kept, basis);
    }
    if (found) basis = std::move(*found);
  } else {
    p = std::min(depth, kept + 4);
    basis = iterate_subspace(x, rows, depth, kept, p, mean);
  }
  // The axes as rows of doubles ([kept, depth]), each signed so that its largest-magnitude loading is positive.
  std::vector<double> axis_rows(kept * depth);
  for (std::size_t j = 0; j < kept; ++j) {
    std::size_t largest = 0;
    for (std::size_t k = 1; k < depth; ++k) if (std::abs(basis[k * p + j]) > std::abs(basis[largest * p + j])) largest = k;
    const double sign = basis[largest * p + j] < 0 ? -1.0 : 1.0;
    for (std::size_t k = 0; k < depth; ++k) axis_rows[j * depth + k] = sign * basis[k * p + j];
    if (!axes.empty()) for (std::size_t k = 0; k < depth; ++k) axes[j * depth + k] = static_cast<float>(axis_rows[j * depth + k]);
  }
  parallel_rows(n, min_rows_per_part(d), [&](int64_t first, int64_t count) {
    std::vector<float> scratch;
    for (auto r = static_cast<std::size_t>(first); r < static_cast<std::size_t>(first + count); ++r) {
      const float* row = table_rows(x, r, 1, scratch);
      for (std::size_t j = 0; j < kept; j += 2) {
        if (j + 1 < kept) {
          project_row<2>(row, mean.data(), axis_rows.data() + j * depth, depth, out.data() + r * kept + j);
        } else {
          project_row<1>(row, mean.data(), axis_rows.data() + j * depth, depth, out.data() + r * kept + j);
        }
      }
    }
  });
  return {};
}

}  // namespace posembed
