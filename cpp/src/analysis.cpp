#include "posembed/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "posembed/limits.hpp"
#include "posembed/simd.hpp"
#include "posembed/threads.hpp"

namespace posembed {
namespace {

// The product a · bᵀ as a packed GEMM: b is copied once into panels of kPanelWidth rows, stored depth-major
// (panel[k][c] = b[row c of the panel][k]), so the micro-kernel reads kRowsPerKernel rows of a as scalars
// and one panel as vectors, with kRowsPerKernel * 2 vector accumulators and no horizontal sums. Row r of a holds
// its k-th value at a[r * a_row_stride + k * a_depth_stride]: rows of a row-major a (depth, 1), or the columns of
// a panel ((1, kPanelWidth)), as the covariance reads them.
constexpr std::size_t kPanelWidth = 2 * simd::kFloatLanes;
constexpr int64_t kRowsPerKernel = 4;
constexpr int64_t kRowsPerChunk = 64;  // rows of a kept in cache while every panel passes over them

template <int64_t Rows>
void multiply_panel(const float* a, std::size_t a_row_stride, std::size_t a_depth_stride, std::size_t depth, const float* panel, float* out,
                    std::size_t out_stride, std::size_t width) {
  using V = simd::Widest;
  constexpr std::size_t W = simd::kFloatLanes;
  V sums[Rows][2];
  for (auto& row : sums) row[0] = row[1] = V(0.0f);
  // Pointers that step, rather than indices multiplied at each step: in the wasm engine's code, where an address
  // cannot be scaled, that is four instructions fewer per step of eight vector multiply-adds (measured: the
  // covariance 10% faster).
  for (const float* end = panel + depth * kPanelWidth; panel != end; panel += kPanelWidth, a += a_depth_stride) {
    const V low = simd::load<V>(panel);
    const V high = simd::load<V>(panel + W);
    for (int64_t r = 0; r < Rows; ++r) {
      const V a_rk(a[static_cast<std::size_t>(r) * a_row_stride]);
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

// Rows [first, end) of a against packed panel p of b, kRowsPerKernel rows at a time, into out ([n, cols]).
void multiply_rows(const float* a, int64_t first, int64_t end, std::size_t depth, const float* panel, float* out, std::size_t cols,
                                     std::size_t p) {
  const std::size_t width = std::min(kPanelWidth, cols - p * kPanelWidth);
  for (int64_t i = first; i < end; i += kRowsPerKernel) {
    const float* rows = a + static_cast<std::size_t>(i) * depth;
    float* target = out + static_cast<std::size_t>(i) * cols + p * kPanelWidth;
    switch (std::min(kRowsPerKernel, end - i)) {
      case 4: multiply_panel<4>(rows, depth, 1, depth, panel, target, cols, width); break;
      case 3: multiply_panel<3>(rows, depth, 1, depth, panel, target, cols, width); break;
      case 2: multiply_panel<2>(rows, depth, 1, depth, panel, target, cols, width); break;
      default: multiply_panel<1>(rows, depth, 1, depth, panel, target, cols, width); break;
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


// p orthonormal directions in d dimensions, the same every time: where an iteration starts.
std::vector<double> seeded_basis(std::size_t d, std::size_t p) {
  std::vector<double> basis(d * p);
  for (std::size_t k = 0; k < d; ++k) for (std::size_t j = 0; j < p; ++j) basis[k * p + j] = std::sin(1.0 + 7.0 * static_cast<double>(k) + 13.0 * static_cast<double>(j));
  orthonormalise(basis, d, p);
  return basis;
}

// Rayleigh-Ritz's small eigenproblem: small (p × p, symmetrised first: a product of rounded values is not quite) is
// diagonalised, its diagonal left holding the eigenvalues and rotation's columns the eigenvectors; the eigenvalues'
// indices are returned largest first.
std::vector<std::size_t> largest_first(std::vector<double>& small, std::vector<double>& rotation, std::size_t p) {
  for (std::size_t i = 0; i < p; ++i) for (std::size_t j = 0; j < i; ++j) small[i * p + j] = small[j * p + i] = 0.5 * (small[i * p + j] + small[j * p + i]);
  jacobi_eigen(small, rotation, p);
  std::vector<std::size_t> order(p);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return small[a * p + a] > small[b * p + b]; });
  return order;
}

// PCA's exact route for tables up to this many columns: the covariance formed (d × d doubles: 512 MB at the limit)
// and decomposed. Wider tables iterate on the rows instead.
constexpr std::size_t kCovarianceMaxDepth = 8192;
// Up to this many columns, a large table's probe (the covariance of an eighth of its rows) tells a trained table from
// a flat one. Wider, the probe's n/8 · d²/2 multiply-adds cost more than the Krylov passes it would save: a large
// table is tried by Krylov iteration from seeded directions first, and the covariance formed only where that fails.
constexpr std::size_t kProbeMaxDepth = 2048;

// Each column's mean (its rows summed in order, in double) and the largest |x − mean| of the table.
struct ColumnStats {
  std::vector<double> mean;
  double largest_deviation = 0.0;

  // e such that the centred values times 2^-e are at most 1 in magnitude (largest_deviation not 0): scaled so, their
  // float32 products neither overflow (a table of 1e30s) nor vanish (one of 1e-30s), and the scale comes back
  // exactly in double.
  int scale_exponent() const { return std::ilogb(largest_deviation) + 1; }
};

ColumnStats column_stats(const StoredTable& x, std::size_t rows, std::size_t depth) {
  // kStatsParts runs of rows, each summed (and its extremes found) on its own, split over the threads, then added in
  // order: the same bits on any number of threads.
  constexpr std::size_t kStatsParts = 4;
  std::vector<double> sums(kStatsParts * depth, 0.0);
  std::vector<float> lows(kStatsParts * depth), highs(kStatsParts * depth);
  for (std::size_t part = 0; part < kStatsParts; ++part) {
    std::vector<float> scratch;
    const float* first_row = table_rows(x, 0, 1, scratch);
    std::copy(first_row, first_row + depth, lows.begin() + static_cast<std::ptrdiff_t>(part * depth));
  }
  highs = lows;
  parallel_rows(kStatsParts, 1, [&](int64_t first_part, int64_t part_count) {
    std::vector<float> scratch;
    for (auto part = static_cast<std::size_t>(first_part); part < static_cast<std::size_t>(first_part + part_count); ++part) {
      double* sum = sums.data() + part * depth;
      float* low = lows.data() + part * depth;
      float* high = highs.data() + part * depth;
      for (std::size_t r = rows * part / kStatsParts; r < rows * (part + 1) / kStatsParts; ++r) {
        const float* row = table_rows(x, r, 1, scratch);
        for (std::size_t k = 0; k < depth; ++k) {
          sum[k] += row[k];
          low[k] = std::min(low[k], row[k]);
          high[k] = std::max(high[k], row[k]);
        }
      }
    }
  });
  ColumnStats stats{std::vector<double>(depth, 0.0)};
  for (std::size_t k = 0; k < depth; ++k) {
    float low = lows[k], high = highs[k];
    for (std::size_t part = 0; part < kStatsParts; ++part) {
      stats.mean[k] += sums[part * depth + k];
      low = std::min(low, lows[part * depth + k]);
      high = std::max(high, highs[part * depth + k]);
    }
    stats.mean[k] /= static_cast<double>(rows);
    stats.largest_deviation = std::max({stats.largest_deviation, high - stats.mean[k], stats.mean[k] - low});
  }
  return stats;
}

// The covariance's rows per block: float32 sums of at most 512 products each, then double; the block's packed values
// (about 768 KiB) stay in a core's cache while every panel passes over them.
std::size_t covariance_block_rows(std::size_t padded_depth) {
  return std::clamp<std::size_t>((std::size_t{768} << 10) / (sizeof(float) * padded_depth), 64, 512);
}
// Rows of the covariance per kernel call: a panel's columns, kRowsPerKernel at a time (fewer where panels are narrower).
constexpr int64_t kCovarianceTileRows = std::min<int64_t>(kRowsPerKernel, kPanelWidth);
static_assert(kPanelWidth % kCovarianceTileRows == 0);

// Cov = Xcᵀ·Xc / (n − 1) as a symmetric rank-k update, a block of rows at a time. The block's centred values are
// packed in panels of kPanelWidth columns (panel[r][c]), which the GEMM kernel reads both ways: a panel as vectors,
// another's columns as scalars. Only the panels on and above the diagonal are formed, each by one thread and
// block after block in order, summed in double: the same bits on any number of threads.
// The centred values are scaled by a power of two to at most 1 in magnitude (ColumnStats::scale_exponent).
// With probe_stride, the blocks go every probe_stride-th first (0, s, 2s, …, then 1, s + 1, …), and `probe` is shown
// the covariance of that first set, rows from all over the table, mid-pass; where it returns true the pass ends
// there, cov is left empty and covariance() returns false.
bool covariance(const StoredTable& x, std::size_t rows, std::size_t depth, const ColumnStats& stats, std::vector<double>& cov,
                std::size_t probe_stride = 0, const std::function<bool(const std::vector<double>&)>& probe = {}) {
  cov.assign(depth * depth, 0.0);
  if (stats.largest_deviation == 0.0) return true;
  const int exponent = stats.scale_exponent();
  const double scale = std::ldexp(1.0, -exponent);
  constexpr std::size_t W = kPanelWidth;
  const std::size_t panels = (depth + W - 1) / W;
  const std::size_t block_rows = covariance_block_rows(panels * W);
  // Two blocks' packed values: the threads multiply one while the block after it is packed into the other.
  std::vector<float> packed(2 * panels * block_rows * W);
  auto packed_block = [&](std::size_t block) { return packed.data() + (block % 2) * panels * block_rows * W; };
  // Panel p's sums: rows 0 … (p + 1)·W − 1 of its W columns, from sums[W² · p(p + 1)/2] on.
  std::vector<double> sums(W * W * panels * (panels + 1) / 2, 0.0);
  auto panel_sums = [&](std::size_t p) { return sums.data() + W * W * p * (p + 1) / 2; };
  const std::size_t blocks = (rows + block_rows - 1) / block_rows;
  // The order the blocks go in, and the first of them the probe sees.
  const std::size_t stride = std::max<std::size_t>(probe_stride, 1);
  std::vector<std::size_t> order;
  for (std::size_t first = 0; first < stride; ++first) for (std::size_t block = first; block < blocks; block += stride) order.push_back(block);
  const std::size_t probed = probe_stride > 0 ? (blocks + stride - 1) / stride : 0;
  // Rows r of the block at `position` in the order, into the buffer of that position.
  auto pack_row = [&](std::size_t position, std::size_t r, std::vector<float>& scratch) {
    const float* source = table_rows(x, order[position] * block_rows + r, 1, scratch);
    for (std::size_t p = 0; p < panels; ++p) {
      float* target = packed_block(position) + (p * block_rows + r) * W;
      const float* values = source + p * W;
      const double* means = stats.mean.data() + p * W;
      if (p * W + W <= depth) {
        for (std::size_t c = 0; c < W; ++c) target[c] = static_cast<float>((values[c] - means[c]) * scale);
      } else {  // the last panel, zeros past the table's columns
        for (std::size_t c = 0; c < W; ++c) target[c] = p * W + c < depth ? static_cast<float>((values[c] - means[c]) * scale) : 0.0f;
      }
    }
  };
  auto rows_at = [&](std::size_t position) { return std::min(block_rows, rows - order[position] * block_rows); };
  auto multiply = [&](std::size_t position, std::size_t p) {
    float tile[kCovarianceTileRows * W];
    double* target = panel_sums(p);
    const float* values = packed_block(position);
    for (std::size_t i = 0; i < (p + 1) * W; i += kCovarianceTileRows) {
      const float* columns = values + (i / W) * block_rows * W + i % W;
      multiply_panel<kCovarianceTileRows>(columns, 1, W, rows_at(position), values + p * block_rows * W, tile, W, W);
      for (std::size_t t = 0; t < kCovarianceTileRows * W; ++t) target[i * W + t] += tile[t];
    }
  };
  // Work items of one call: the panel pairs of the block at `position` − 1 (panel p costs p + 1 tiles: p and
  // panels − 1 − p together cost the same for every p), then runs of kPackRows rows of the block at `position`,
  // taken by whichever thread is free first.
  constexpr std::size_t kPackRows = 16;
  const std::size_t pairs = (panels + 1) / 2;
  // The covariance of the `count` rows summed so far.
  auto fill = [&](std::vector<double>& target, std::size_t count) {
    target.resize(depth * depth);
    for (std::size_t j = 0; j < depth; ++j) {
      const double* column = panel_sums(j / W) + j % W;
      for (std::size_t i = 0; i <= j; ++i) target[i * depth + j] = target[j * depth + i] = std::ldexp(column[i * W], 2 * exponent) / static_cast<double>(count - 1);
    }
  };
  std::size_t summed_rows = 0;
  for (std::size_t position = 0; position <= blocks; ++position) {
    const std::size_t multiplied = position > 0 ? pairs : 0;
    const std::size_t packed_runs = position < blocks ? (rows_at(position) + kPackRows - 1) / kPackRows : 0;
    parallel_rows(static_cast<int64_t>(multiplied + packed_runs), 1, [&](int64_t first_item, int64_t item_count) {
      std::vector<float> scratch;
      for (auto item = static_cast<std::size_t>(first_item); item < static_cast<std::size_t>(first_item + item_count); ++item) {
        if (item < multiplied) {
          multiply(position - 1, item);
          if (panels - 1 - item != item) multiply(position - 1, panels - 1 - item);
        } else {
          const std::size_t first_row = (item - multiplied) * kPackRows;
          for (std::size_t r = first_row; r < std::min(rows_at(position), first_row + kPackRows); ++r) pack_row(position, r, scratch);
        }
      }
    });
    if (position > 0) summed_rows += rows_at(position - 1);
    if (position > 0 && position == probed && position < blocks) {  // the probe's blocks summed, more to come
      std::vector<double> partial;
      fill(partial, summed_rows);
      if (probe(partial)) {
        cov.clear();
        return false;
      }
    }
  }
  fill(cov, rows);
  return true;
}

// A symmetric tridiagonal matrix: diagonal[i], and off[i] between i and i + 1.
struct Tridiagonal {
  std::vector<double> diagonal, off;
};

// A sweep's rows go to kSweepParts shares in turn, kSweepRows at a time: each share's rows are the same step after
// step, so they stay in the cache of the core that takes it, and every share keeps work while the matrix shrinks.
constexpr std::size_t kSweepParts = 2;
constexpr std::size_t kSweepRows = 8;

// Householder reduction of the symmetric a (d × d, row-major, its lower triangle read; overwritten) to tridiagonal T = Qᵀ·a·Q with
// Q = H_0 · H_1 ⋯; reflector k (H_k = I − 2·v·vᵀ, v a unit vector over indices k + 1 …) is row k of `reflectors`.
// Step k is H·a22·H = a22 − 2·v·qᵀ − 2·q·vᵀ with p = a22·v and q = p − (vᵀp)·v. Only the lower triangle is read and
// written (a is symmetric): each row's part left of the diagonal serves p twice, as a row and as a column. One sweep
// over the trailing rows applies step k's update and forms step k + 1's product from the values just written (its
// reflector comes first, from column k + 1 updated on its own): one pass over the matrix per step, its rows shared
// by the threads.
Tridiagonal tridiagonalise(std::vector<double>& a, std::size_t d, std::vector<double>& reflectors) {
  Tridiagonal t{std::vector<double>(d), std::vector<double>(d > 0 ? d - 1 : 0, 0.0)};
  reflectors.assign(d * d, 0.0);
  // Column k's reflector into v (over k + 1 …) and alpha into t.off[k]; false where the column is already reduced.
  auto reflect = [&](std::size_t k, std::vector<double>& v) {
    double norm = 0.0;
    for (std::size_t i = k + 1; i < d; ++i) norm += a[i * d + k] * a[i * d + k];
    norm = std::sqrt(norm);
    // The reflector sends column k's part below the diagonal to alpha·e_(k+1); alpha's sign avoids cancellation.
    const double alpha = a[(k + 1) * d + k] > 0 ? -norm : norm;
    double length = 0.0;
    for (std::size_t i = k + 1; i < d; ++i) {
      v[i] = a[i * d + k] - (i == k + 1 ? alpha : 0.0);
      length += v[i] * v[i];
    }
    t.off[k] = alpha;
    if (length == 0.0) return false;
    length = std::sqrt(length);
    for (std::size_t i = k + 1; i < d; ++i) v[i] /= length;
    return true;
  };
  // Row i's share of p = a22·v (a22 from index `from` on): its part left of the diagonal times v into p, and the
  // row times v into p[i]. With `pending` (the previous step's q, then its v, d doubles apart), row i's values from
  // `from` on first take that step's update before they are read.
  auto sweep_row = [&](std::size_t i, std::size_t from, const double* v, double* p, const double* pending) {
    double* row = a.data() + i * d + from;
    const double* pending_q = pending ? pending + from : nullptr;
    // (Offsets taken here, not in the loop: d is captured by reference, and the engine's code would read it again
    // after every store.)
    const double* pending_v = pending ? pending + d + from : nullptr;
    const double* v_row = v + from;
    double* p_row = p + from;
    const std::size_t at_i = i - from;
    const double v_i = v[i];
    const double twice_v_i = pending ? 2.0 * pending_v[at_i] : 0.0, twice_q_i = pending ? 2.0 * pending_q[at_i] : 0.0;
    const double along = simd::sum_each<double>(at_i, [&]<class V>(std::size_t j) {
      V a_ij = simd::load<V>(row + j);
      if (pending) {
        a_ij = a_ij - (V(twice_v_i) * simd::load<V>(pending_q + j) + V(twice_q_i) * simd::load<V>(pending_v + j));
        simd::store(row + j, a_ij);
      }
      simd::store(p_row + j, simd::load<V>(p_row + j) + a_ij * V(v_i));
      return a_ij * simd::load<V>(v_row + j);
    });
    if (pending) row[at_i] -= twice_v_i * pending_q[at_i] + twice_q_i * pending_v[at_i];
    p[i] += row[at_i] * v_i + along;
  };
  std::vector<double> v(d), p(d), next_v(d);
  // p is summed share by share, each in a buffer of its own, the shares split over the threads and then added in
  // order: the same bits on any number of threads.
  std::vector<double> shares(kSweepParts * d);
  // Step k's q, then its v: the update the next sweep applies.
  std::vector<double> pending(2 * d);
  auto product = [&](std::size_t from, const double* with, const double* update) {
    parallel_rows(kSweepParts, 1, [&](int64_t first_part, int64_t part_count) {
      for (auto part = static_cast<std::size_t>(first_part); part < static_cast<std::size_t>(first_part + part_count); ++part) {
        double* share = shares.data() + part * d;
        std::fill(share + from, share + d, 0.0);
        for (std::size_t i = from; i < d; ++i) {
          if ((i / kSweepRows) % kSweepParts == part) sweep_row(i, from, with, share, update);
        }
      }
    });
    for (std::size_t i = from; i < d; ++i) {
      p[i] = shares[i];
      for (std::size_t part = 1; part < kSweepParts; ++part) p[i] += shares[part * d + i];
    }
  };
  bool reflected = d > 2 && reflect(0, v);
  if (reflected) product(1, v.data(), nullptr);
  for (std::size_t k = 0; k + 2 < d; ++k) {
    const bool last = k + 3 >= d;  // no column k + 1 to reduce after this one
    if (!reflected) {  // column k was already reduced: step k changes nothing
      if (!last && (reflected = reflect(k + 1, v))) product(k + 2, v.data(), nullptr);
      continue;
    }
    for (std::size_t i = k + 1; i < d; ++i) reflectors[k * d + i] = v[i];
    const double vp = simd::dot(v.data() + k + 1, p.data() + k + 1, d - (k + 1));
    double* q = pending.data();
    for (std::size_t i = k + 1; i < d; ++i) {
      q[i] = p[i] - vp * v[i];
      q[d + i] = v[i];
    }
    // Column k + 1 takes step k's update on its own (rows k + 1 …), then gives step k + 1's reflector.
    for (std::size_t i = k + 1; i < d; ++i) a[i * d + k + 1] -= 2.0 * v[i] * q[k + 1] + 2.0 * q[i] * v[k + 1];
    reflected = !last && reflect(k + 1, next_v);
    if (reflected) {
      product(k + 2, next_v.data(), pending.data());
      v.swap(next_v);
    } else {
      for (std::size_t i = k + 2; i < d; ++i) {
        double* row = a.data() + i * d;
        for (std::size_t j = k + 2; j <= i; ++j) row[j] -= 2.0 * v[i] * q[j] + 2.0 * q[i] * v[j];
      }
    }
  }
  for (std::size_t i = 0; i < d; ++i) t.diagonal[i] = a[i * d + i];
  if (d >= 2) t.off[d - 2] = a[(d - 1) * d + (d - 2)];
  return t;
}

// How many eigenvalues of t are below x (the signs of the Sturm sequence's pivots).
std::size_t eigenvalues_below(const Tridiagonal& t, double x) {
  std::size_t count = 0;
  double pivot = 1.0;
  for (std::size_t i = 0; i < t.diagonal.size(); ++i) {
    const double coupling = i == 0 ? 0.0 : t.off[i - 1] * t.off[i - 1];
    pivot = t.diagonal[i] - x - (i == 0 ? 0.0 : coupling / pivot);
    if (pivot == 0.0) pivot = -std::numeric_limits<double>::min();
    if (pivot < 0.0) ++count;
  }
  return count;
}

// The eigenvalue of t with `below` eigenvalues under it, by bisection to the last bits.
double tridiagonal_eigenvalue(const Tridiagonal& t, std::size_t below) {
  double low = 0.0, high = 0.0;  // Gershgorin's bounds
  for (std::size_t i = 0; i < t.diagonal.size(); ++i) {
    const double radius = (i > 0 ? std::abs(t.off[i - 1]) : 0.0) + (i < t.off.size() ? std::abs(t.off[i]) : 0.0);
    low = i == 0 ? t.diagonal[i] - radius : std::min(low, t.diagonal[i] - radius);
    high = i == 0 ? t.diagonal[i] + radius : std::max(high, t.diagonal[i] + radius);
  }
  for (int step = 0; step < 200; ++step) {
    const double middle = 0.5 * (low + high);
    if (middle <= low || middle >= high) break;
    (eigenvalues_below(t, middle) > below ? high : low) = middle;
  }
  return 0.5 * (low + high);
}

// An eigenvector of t for the eigenvalue lambda, by inverse iteration (a tridiagonal solve with partial pivoting),
// kept orthogonal to the vectors found before it (those of a cluster of equal eigenvalues included).
std::vector<double> tridiagonal_eigenvector(const Tridiagonal& t, double lambda, const std::vector<std::vector<double>>& earlier) {
  const std::size_t d = t.diagonal.size();
  double scale = 0.0;
  for (std::size_t i = 0; i < d; ++i) scale = std::max(scale, std::abs(t.diagonal[i]) + (i < t.off.size() ? 2.0 * std::abs(t.off[i]) : 0.0));
  const double tiny = std::max(scale, std::numeric_limits<double>::min()) * std::numeric_limits<double>::epsilon();
  std::vector<double> z(d), u0(d), u1(d), u2(d);
  for (std::size_t i = 0; i < d; ++i) z[i] = std::sin(1.0 + 3.0 * static_cast<double>(i));
  auto orthonormalise_against_earlier = [&] {
    for (const auto& e : earlier) {
      double along = 0.0;
      for (std::size_t i = 0; i < d; ++i) along += e[i] * z[i];
      for (std::size_t i = 0; i < d; ++i) z[i] -= along * e[i];
    }
    double norm = 0.0;
    for (double value : z) norm += value * value;
    norm = std::sqrt(norm);
    for (double& value : z) value = norm > 0 ? value / norm : 0.0;
  };
  orthonormalise_against_earlier();
  for (int iteration = 0; iteration < 4; ++iteration) {
    // (t − λ·I)·z_new = z: eliminate below the diagonal, swapping rows where the sub-diagonal entry is larger.
    double diag = t.diagonal[0] - lambda;
    double super = d > 1 ? t.off[0] : 0.0;
    for (std::size_t i = 0; i + 1 < d; ++i) {
      const double sub = t.off[i];
      const double next_diag = t.diagonal[i + 1] - lambda;
      const double next_super = i + 2 < d ? t.off[i + 1] : 0.0;
      if (std::abs(diag) >= std::abs(sub)) {
        if (diag == 0.0) diag = tiny;
        const double factor = sub / diag;
        u0[i] = diag, u1[i] = super, u2[i] = 0.0;
        z[i + 1] -= factor * z[i];
        diag = next_diag - factor * super;
        super = next_super;
      } else {
        const double factor = diag / sub;
        u0[i] = sub, u1[i] = next_diag, u2[i] = next_super;
        const double held = z[i];
        z[i] = z[i + 1];
        z[i + 1] = held - factor * z[i];
        diag = super - factor * next_diag;
        super = -factor * next_super;
      }
    }
    u0[d - 1] = diag == 0.0 ? tiny : diag;
    for (std::size_t i = d; i-- > 0;) {
      double value = z[i];
      if (i + 1 < d) value -= u1[i] * z[i + 1];
      if (i + 2 < d) value -= u2[i] * z[i + 2];
      z[i] = value / (u0[i] == 0.0 ? tiny : u0[i]);
    }
    orthonormalise_against_earlier();
  }
  return z;
}

// The eigenvectors of the largest `count` eigenvalues of the symmetric cov (d × d; overwritten), largest first,
// as the columns of basis ([d, count]).
void top_eigenvectors(std::vector<double>& cov, std::size_t d, std::size_t count, std::vector<double>& basis) {
  std::vector<double> reflectors;
  const Tridiagonal t = tridiagonalise(cov, d, reflectors);
  std::vector<std::vector<double>> found;
  basis.assign(d * count, 0.0);
  for (std::size_t j = 0; j < count; ++j) {
    found.push_back(tridiagonal_eigenvector(t, tridiagonal_eigenvalue(t, d - 1 - j), found));
    // Back to the covariance's coordinates: Q·y = H_0·(H_1·(⋯ y)).
    std::vector<double> z = found.back();
    for (std::size_t k = d >= 2 ? d - 2 : 0; k-- > 0;) {
      double along = 0.0;
      for (std::size_t i = k + 1; i < d; ++i) along += reflectors[k * d + i] * z[i];
      for (std::size_t i = k + 1; i < d; ++i) z[i] -= 2.0 * along * reflectors[k * d + i];
    }
    for (std::size_t k = 0; k < d; ++k) basis[k * count + j] = z[k];
  }
}

// The axes of a table whose top variances stand clear of the rest (a trained one) come in a few block Krylov passes
// over its rows, where the covariance costs n·d²/2 multiply-adds whatever the spectrum. Part-way through the
// covariance's pass, every kProbeStride-th block of rows tells which kind of table this is: where, after
// kProbeSteps subspace steps on their covariance, the variance past the first kKrylovWidth is at most kKrylovGap
// times the last kept one, the work goes on as Krylov iteration from those rows' top axes (with kKrylovSeeds of
// the directions seeded instead, so that every direction of the table, seen by the probe or not, has a part in the
// iteration and a strong one it missed grows out of it); where that does not converge within kKrylovMaxBlocks
// passes, the covariance's pass goes on from where it stopped.
constexpr std::size_t kKrylovWidth = kPanelWidth;
constexpr std::size_t kKrylovMaxBlocks = 8;
constexpr std::size_t kKrylovMinRows = 16384;
constexpr std::size_t kProbeStride = 8;
constexpr std::size_t kProbeWidth = kKrylovWidth + kKrylovWidth / 2;
constexpr int kProbeSteps = 3;
constexpr double kKrylovGap = 0.5;
constexpr std::size_t kKrylovSeeds = 2;
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

// The probe: where the covariance of the first rows (`partial`) has its top `kept` variances well clear of the
// kKrylovWidth + 1-th, its top kKrylovWidth axes ([d, kKrylovWidth]) to start Krylov iteration from.
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

// The top `kept` axes ([depth, kept]) by block Krylov iteration from `start` ([depth, kKrylovWidth]): a pass over the
// rows per block of directions, each new block the last one's product orthogonalised against all before it (twice),
// Rayleigh-Ritz over them all; nothing where kKrylovMaxBlocks blocks do not converge (or the space closes), and the
// caller forms the covariance after all.
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

// Subspace iteration on the covariance, applied as Xcᵀ (Xc V) so it is never formed; p − kept spare directions
// speed convergence, and Rayleigh-Ritz each step keeps the basis ordered by variance. Columns of the result
// ([depth, p]): the axes, largest variance first.
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
