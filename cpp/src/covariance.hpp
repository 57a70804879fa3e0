// The covariance of a table's centred rows as a symmetric rank-k update through the GEMM kernel (PCA's exact route),
// and the column statistics it centres and scales by.
#pragma once

#include <cmath>
#include <cstddef>
#include <functional>
#include <vector>

#include "posembed/stored_table.hpp"

namespace posembed::detail {

// Each column's mean (its rows summed in order, in double) and the largest |x − mean| of the table.
struct ColumnStats {
  std::vector<double> mean;
  double largest_deviation = 0.0;

  // e such that the centred values times 2^-e are at most 1 in magnitude (largest_deviation not 0): scaled so, their
  // float32 products neither overflow (a table of 1e30s) nor vanish (one of 1e-30s), and the scale comes back
  // exactly in double.
  int scale_exponent() const { return std::ilogb(largest_deviation) + 1; }
};

ColumnStats column_stats(const StoredTable& x, std::size_t rows, std::size_t depth);

// The covariance's rows per block: float32 sums of at most 512 products each, then double; the block's packed values
// (about 768 KiB) stay in a core's cache while every panel passes over them.
std::size_t covariance_block_rows(std::size_t padded_depth);

// Cov = Xcᵀ·Xc / (n − 1) as a symmetric rank-k update, a block of rows at a time. The block's centred values are
// packed in panels of kPanelWidth columns (panel[r][c]), which the GEMM kernel reads both ways: a panel as vectors,
// another's columns as scalars. Only the panels on and above the diagonal are formed, each by one thread and
// block after block in order, summed in double: the same bits on any number of threads.
// The centred values are scaled by a power of two to at most 1 in magnitude (ColumnStats::scale_exponent).
// With probe_stride, the blocks go every probe_stride-th first (0, s, 2s, …, then 1, s + 1, …), and `probe` is shown
// the covariance of that first set, rows from all over the table, mid-pass; where it returns true the pass ends
// there, cov is left empty and covariance() returns false.
bool covariance(const StoredTable& x, std::size_t rows, std::size_t depth, const ColumnStats& stats, std::vector<double>& cov,
                std::size_t probe_stride = 0, const std::function<bool(const std::vector<double>&)>& probe = {});

}  // namespace posembed::detail
