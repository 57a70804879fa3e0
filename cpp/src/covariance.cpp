#include "covariance.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "gemm.hpp"
#include "posembed/threads.hpp"

namespace posembed::detail {

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

std::size_t covariance_block_rows(std::size_t padded_depth) {
  return std::clamp<std::size_t>((std::size_t{768} << 10) / (sizeof(float) * padded_depth), 64, 512);
}

namespace {
// Rows of the covariance per kernel call: a panel's columns, kRowsPerKernel at a time (fewer where panels are narrower).
constexpr int64_t kCovarianceTileRows = std::min<int64_t>(kRowsPerKernel, kPanelWidth);
static_assert(kPanelWidth % kCovarianceTileRows == 0);
}  // namespace

bool covariance(const StoredTable& x, std::size_t rows, std::size_t depth, const ColumnStats& stats, std::vector<double>& cov,
                std::size_t probe_stride, const std::function<bool(const std::vector<double>&)>& probe) {
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

}  // namespace posembed::detail
