// PCA's iterative routes, on a table's rows rather than its covariance: block Krylov iteration for a large trained
// table (its top variances clear of the rest), found by a probe part-way through the covariance's pass or tried
// first on a wide one; subspace iteration past the covariance's width.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "covariance.hpp"
#include "gemm.hpp"
#include "posembed/stored_table.hpp"

namespace posembed::detail {

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

// The probe: where the covariance of the first rows (`partial`) has its top `kept` variances well clear of the
// kKrylovWidth + 1-th, its top kKrylovWidth axes ([d, kKrylovWidth]) to start Krylov iteration from.
std::optional<std::vector<double>> krylov_start(const std::vector<double>& partial, std::size_t d, std::size_t kept);

// The top `kept` axes ([depth, kept]) by block Krylov iteration from `start` ([depth, kKrylovWidth]): a pass over the
// rows per block of directions, each new block the last one's product orthogonalised against all before it (twice),
// Rayleigh-Ritz over them all; nothing where kKrylovMaxBlocks blocks do not converge (or the space closes), and the
// caller forms the covariance after all.
std::optional<std::vector<double>> krylov_axes(const StoredTable& x, std::size_t rows, std::size_t depth, const ColumnStats& stats, std::size_t kept,
                                               const std::vector<double>& start);

// Subspace iteration on the covariance, applied as Xcᵀ (Xc V) so it is never formed; p − kept spare directions
// speed convergence, and Rayleigh-Ritz each step keeps the basis ordered by variance. Columns of the result
// ([depth, p]): the axes, largest variance first.
std::vector<double> iterate_subspace(const StoredTable& x, std::size_t rows, std::size_t depth, std::size_t kept, std::size_t p,
                                     const std::vector<double>& mean);

}  // namespace posembed::detail
