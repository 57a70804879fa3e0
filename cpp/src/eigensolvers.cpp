#include "eigensolvers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "posembed/simd.hpp"
#include "posembed/threads.hpp"

namespace posembed::detail {
namespace {

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

}  // namespace

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

std::vector<double> seeded_basis(std::size_t d, std::size_t p) {
  std::vector<double> basis(d * p);
  for (std::size_t k = 0; k < d; ++k) for (std::size_t j = 0; j < p; ++j) basis[k * p + j] = std::sin(1.0 + 7.0 * static_cast<double>(k) + 13.0 * static_cast<double>(j));
  orthonormalise(basis, d, p);
  return basis;
}

std::vector<std::size_t> largest_first(std::vector<double>& small, std::vector<double>& rotation, std::size_t p) {
  for (std::size_t i = 0; i < p; ++i) for (std::size_t j = 0; j < i; ++j) small[i * p + j] = small[j * p + i] = 0.5 * (small[i * p + j] + small[j * p + i]);
  jacobi_eigen(small, rotation, p);
  std::vector<std::size_t> order(p);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return small[a * p + a] > small[b * p + b]; });
  return order;
}

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

}  // namespace posembed::detail
