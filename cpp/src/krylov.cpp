#include "krylov.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "eigensolvers.hpp"
#include "posembed/simd.hpp"
#include "posembed/threads.hpp"

namespace posembed::detail {
namespace {

// Done when every kept Ritz pair's residual ‖C·y − θ·y‖ is under this fraction of the top variance: the axes then
// agree with a float64 eigensolver's as the covariance route's do (tested).
constexpr double kKrylovTolerance = 1e-6;

// out ([d, P]) = a ([d, d], row-major) · v ([d, P]), the rows of a shared by the threads; a row's P sums stay in
// registers while it passes.
template <std::size_t P>
void multiply_dense(const std::vector<double>& a, std::size_t d, const std::vector<double>& v, std::vector<double>& out) {
  using V = simd::WidestDouble;
  constexpr std::size_t kLanes = sizeof(V) / sizeof(double);
  static_assert(P % kLanes == 0);
  out.resize(d * P);
  parallel_rows(static_cast<int64_t>(d), 16, [&](int64_t first, int64_t count) {
    for (auto i = static_cast<std::size_t>(first); i < static_cast<std::size_t>(first + count); ++i) {
      V sums[P / kLanes];
      for (V& sum : sums) sum = V(0.0);
      for (std::size_t k = 0; k < d; ++k) {
        const V a_ik(a[i * d + k]);
        for (std::size_t j = 0; j < P / kLanes; ++j) sums[j] = sums[j] + a_ik * simd::load<V>(v.data() + k * P + j * kLanes);
      }
      for (std::size_t j = 0; j < P / kLanes; ++j) simd::store(out.data() + i * P + j * kLanes, sums[j]);
    }
  });
}

// C·v for the kKrylovWidth columns of v ([d, kKrylovWidth]), a pass over the rows as Xcᵀ·(Xc·v) / (n − 1): the
// GEMM kernel forms y = x·(s·v) − μ·(s·v) for a block of rows, then xᵀ·(s·y), the mean's part taken out once at the
// end; s (a power of two) keeps float32 products in range, as in the covariance. Each block's share is summed on its
// own and the shares added in order: the same bits on any number of threads.
std::vector<double> covariance_times(const StoredTable& x, std::size_t rows, std::size_t depth, const ColumnStats& stats, float scale,
                                     const std::vector<double>& v) {
  constexpr std::size_t W = kKrylovWidth;
  std::vector<float> panel(depth * W);  // s·v, depth-major: the kernel's packed panel
  for (std::size_t i = 0; i < depth * W; ++i) panel[i] = static_cast<float>(v[i] * scale);
  float centre[W];  // μ·(s·v)
  for (std::size_t j = 0; j < W; ++j) {
    double sum = 0.0;
    for (std::size_t k = 0; k < depth; ++k) sum += stats.mean[k] * panel[k * W + j];
    centre[j] = static_cast<float>(sum);
  }
  const std::size_t block_rows = covariance_block_rows(depth);
  const std::size_t blocks = (rows + block_rows - 1) / block_rows;
  // Each block's xᵀ·(s·y) ([depth, W]) and Σ s·y ([W]).
  std::vector<float> shares(blocks * (depth + 1) * W);
  parallel_rows(static_cast<int64_t>(blocks), 1, [&](int64_t first, int64_t count) {
    std::vector<float> y(block_rows * W), scratch;
    for (auto block = static_cast<std::size_t>(first); block < static_cast<std::size_t>(first + count); ++block) {
      const std::size_t begin = block * block_rows, height = std::min(block_rows, rows - begin);
      const float* rows_of_block = table_rows(x, begin, height, scratch);
      multiply_rows(rows_of_block, 0, static_cast<int64_t>(height), depth, panel.data(), y.data(), W, 0);
      float* share = shares.data() + block * (depth + 1) * W;
      float* total = share + depth * W;
      std::fill(total, total + W, 0.0f);
      for (std::size_t r = 0; r < height; ++r) {
        for (std::size_t j = 0; j < W; ++j) {
          y[r * W + j] = (y[r * W + j] - centre[j]) * scale;
          total[j] += y[r * W + j];
        }
      }
      // xᵀ·(s·y): the block's columns kRowsPerKernel at a time, read down the rows.
      for (std::size_t c = 0; c < depth; c += kRowsPerKernel) {
        switch (std::min<std::size_t>(kRowsPerKernel, depth - c)) {
          case 4: multiply_panel<4>(rows_of_block + c, 1, depth, height, y.data(), share + c * W, W, W); break;
          case 3: multiply_panel<3>(rows_of_block + c, 1, depth, height, y.data(), share + c * W, W, W); break;
          case 2: multiply_panel<2>(rows_of_block + c, 1, depth, height, y.data(), share + c * W, W, W); break;
          default: multiply_panel<1>(rows_of_block + c, 1, depth, height, y.data(), share + c * W, W, W); break;
        }
      }
    }
  });
  std::vector<double> product(depth * W, 0.0), totals(W, 0.0);
  for (std::size_t block = 0; block < blocks; ++block) {
    const float* share = shares.data() + block * (depth + 1) * W;
    for (std::size_t i = 0; i < depth * W; ++i) product[i] += share[i];
    for (std::size_t j = 0; j < W; ++j) totals[j] += share[depth * W + j];
  }
  const double unscale = 1.0 / (static_cast<double>(scale) * scale * static_cast<double>(rows - 1));
  for (std::size_t k = 0; k < depth; ++k) {
    for (std::size_t j = 0; j < W; ++j) product[k * W + j] = (product[k * W + j] - stats.mean[k] * totals[j]) * unscale;
  }
  return product;
}

}  // namespace

std::optional<std::vector<double>> krylov_start(const std::vector<double>& partial, std::size_t d, std::size_t kept) {
  const std::size_t p = kProbeWidth;
  std::vector<double> basis = seeded_basis(d, p), product;
  for (int step = 0; step < kProbeSteps; ++step) {
    multiply_dense<kProbeWidth>(partial, d, basis, product);
    basis.swap(product);
    orthonormalise(basis, d, p);
  }
  // Rayleigh-Ritz in the subspace: its variances, largest first, and the axes they belong to.
  multiply_dense<kProbeWidth>(partial, d, basis, product);
  std::vector<double> small(p * p, 0.0), rotation;
  for (std::size_t k = 0; k < d; ++k) for (std::size_t i = 0; i < p; ++i) for (std::size_t j = 0; j < p; ++j) small[i * p + j] += basis[k * p + i] * product[k * p + j];
  const std::vector<std::size_t> order = largest_first(small, rotation, p);
  const double last_kept = small[order[kept - 1] * p + order[kept - 1]];
  const double beyond = small[order[kKrylovWidth] * p + order[kKrylovWidth]];
  if (!(last_kept > 0.0) || !(beyond <= kKrylovGap * last_kept)) return std::nullopt;
  std::vector<double> start(d * kKrylovWidth, 0.0);
  for (std::size_t k = 0; k < d; ++k) {
    for (std::size_t j = 0; j < kKrylovWidth - kKrylovSeeds; ++j) {
      for (std::size_t i = 0; i < p; ++i) start[k * kKrylovWidth + j] += basis[k * p + i] * rotation[i * p + order[j]];
    }
    for (std::size_t j = kKrylovWidth - kKrylovSeeds; j < kKrylovWidth; ++j) start[k * kKrylovWidth + j] = std::sin(3.0 + 11.0 * static_cast<double>(k) + 17.0 * static_cast<double>(j));
  }
  return start;
}

std::optional<std::vector<double>> krylov_axes(const StoredTable& x, std::size_t rows, std::size_t depth, const ColumnStats& stats, std::size_t kept,
                                               const std::vector<double>& start) {
  constexpr std::size_t W = kKrylovWidth;
  const double scale = std::ldexp(1.0, -stats.scale_exponent());
  if (!std::isnormal(static_cast<float>(scale))) return std::nullopt;
  const std::size_t capacity = W * std::min(kKrylovMaxBlocks, depth / W);
  // The basis and its products, column j of each at [k * capacity + j].
  std::vector<double> basis(depth * capacity, 0.0), products(depth * capacity, 0.0);
  std::vector<double> block = start;  // [depth, W]
  for (std::size_t used = 0; used < capacity;) {
    // The new block, orthogonal to the basis (twice: classical Gram-Schmidt loses what one pass leaves), then to itself.
    for (std::size_t j = 0; j < W; ++j) {
      double before = 0.0;
      for (std::size_t k = 0; k < depth; ++k) before += block[k * W + j] * block[k * W + j];
      for (int pass = 0; pass < 2; ++pass) {
        for (std::size_t b = 0; b < used + j; ++b) {
          const double* column = b < used ? basis.data() + b : block.data() + (b - used);
          const std::size_t stride = b < used ? capacity : W;
          double along = 0.0;
          for (std::size_t k = 0; k < depth; ++k) along += column[k * stride] * block[k * W + j];
          for (std::size_t k = 0; k < depth; ++k) block[k * W + j] -= along * column[k * stride];
        }
      }
      double norm = 0.0;
      for (std::size_t k = 0; k < depth; ++k) norm += block[k * W + j] * block[k * W + j];
      if (!(norm > 1e-20 * before)) return std::nullopt;  // the Krylov space closed: let the covariance decide
      norm = std::sqrt(norm);
      for (std::size_t k = 0; k < depth; ++k) block[k * W + j] /= norm;
    }
    const std::vector<double> product = covariance_times(x, rows, depth, stats, static_cast<float>(scale), block);
    for (std::size_t k = 0; k < depth; ++k) {
      for (std::size_t j = 0; j < W; ++j) {
        basis[k * capacity + used + j] = block[k * W + j];
        products[k * capacity + used + j] = product[k * W + j];
      }
    }
    used += W;
    // Rayleigh-Ritz: T = basisᵀ·C·basis, its eigenpairs largest first.
    std::vector<double> small(used * used, 0.0), rotation;
    for (std::size_t k = 0; k < depth; ++k) {
      for (std::size_t i = 0; i < used; ++i) for (std::size_t j = 0; j < used; ++j) small[i * used + j] += basis[k * capacity + i] * products[k * capacity + j];
    }
    const std::vector<std::size_t> order = largest_first(small, rotation, used);
    const double top = small[order[0] * used + order[0]];
    if (!(top > 0.0) || !std::isfinite(top)) return std::nullopt;
    std::vector<double> axes(depth * kept);
    double worst = 0.0;
    for (std::size_t j = 0; j < kept; ++j) {
      const double theta = small[order[j] * used + order[j]];
      double residual = 0.0;
      for (std::size_t k = 0; k < depth; ++k) {
        double y = 0.0, cy = 0.0;
        for (std::size_t i = 0; i < used; ++i) {
          y += basis[k * capacity + i] * rotation[i * used + order[j]];
          cy += products[k * capacity + i] * rotation[i * used + order[j]];
        }
        axes[k * kept + j] = y;
        residual += (cy - theta * y) * (cy - theta * y);
      }
      worst = std::max(worst, std::sqrt(residual));
    }
    if (worst <= kKrylovTolerance * top) return axes;
    for (std::size_t k = 0; k < depth; ++k) for (std::size_t j = 0; j < W; ++j) block[k * W + j] = product[k * W + j];
  }
  return std::nullopt;
}

std::vector<double> iterate_subspace(const StoredTable& x, std::size_t rows, std::size_t depth, std::size_t kept, std::size_t p,
                                     const std::vector<double>& mean) {
  std::vector<double> basis = seeded_basis(depth, p), projected(rows * p), next(depth * p), small(p * p), rotation;
  std::vector<float> scratch;
  // projected = Xc · basis: [rows, p].
  auto project = [&] {
    std::fill(projected.begin(), projected.end(), 0.0);
    for (std::size_t r = 0; r < rows; ++r) {
      const float* row = table_rows(x, r, 1, scratch);
      for (std::size_t k = 0; k < depth; ++k) {
        const double centred = row[k] - mean[k];
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
    const std::vector<std::size_t> order = largest_first(small, rotation, p);
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
      const float* row = table_rows(x, r, 1, scratch);
      for (std::size_t k = 0; k < depth; ++k) {
        const double centred = row[k] - mean[k];
        for (std::size_t j = 0; j < p; ++j) next[k * p + j] += centred * projected[r * p + j];
      }
    }
    basis.swap(next);
    orthonormalise(basis, depth, p);
  }

  return basis;
}

}  // namespace posembed::detail
