#include "posembed/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include "posembed/sinusoidal.hpp"
#include "posembed/threads.hpp"
#include "vectors.hpp"

namespace posembed {
namespace {

TEST_CASE("similarity and nearest rows match every golden vector", "[analysis]") {
  const auto vectors = test::load_vectors("similarity");  // outlives the loop (a temporary would not)
  for (const auto& c : vectors.at("cases")) {
    SECTION(c.at("name").get<std::string>()) {
      const auto& p = c.at("params");
      const auto metric = *parse_similarity_metric(p.at("metric").get<std::string>());
      const double tolerance = c.at("tolerance").at("abs").get<double>();
      if (p.contains("of")) {
        const int64_t length = p.at("length").get<int64_t>(), d = p.at("dModel").get<int64_t>();
        std::vector<float> table(static_cast<std::size_t>(length * d)), out(static_cast<std::size_t>(length * length));
        REQUIRE(sinusoidal({.length = length, .d_model = d}, table).ok());
        REQUIRE(similarity(table, length, table, length, d, metric, out).ok());
        test::require_close(out, test::doubles(c.at("expected").at("data")), tolerance);
      } else {
        const auto& input = c.at("input");
        const auto table = test::floats(input.at("table").at("data"));
        const auto query = test::floats(input.at("query"));
        const auto k = static_cast<std::size_t>(p.at("k").get<int64_t>());
        std::vector<int32_t> indices(k);
        std::vector<float> scores(k);
        REQUIRE(nearest_rows(table, input.at("table").at("shape")[0].get<int64_t>(), input.at("table").at("shape")[1].get<int64_t>(), query,
                             metric, indices, scores).ok());
        CHECK(indices == input.at("expectedIndices").get<std::vector<int32_t>>());
        test::require_close(scores, test::doubles(c.at("expected").at("data")), tolerance);
      }
    }
  }
}

TEST_CASE("similarity sweep against double precision, with ragged edges", "[analysis]") {
  std::mt19937 generator(5);
  std::normal_distribution<float> value(0.0f, 1.0f);
  for (auto [n, m, d] : {std::tuple{7, 13, 33}, std::tuple{64, 65, 128}, std::tuple{1, 1, 1}, std::tuple{5, 300, 17}}) {
    std::vector<float> a(static_cast<std::size_t>(n * d)), b(static_cast<std::size_t>(m * d));
    for (auto& v : a) v = value(generator);
    for (auto& v : b) v = value(generator);
    for (auto metric : {SimilarityMetric::kDot, SimilarityMetric::kCosine}) {
      std::vector<float> out(static_cast<std::size_t>(n * m));
      REQUIRE(similarity(a, n, b, m, d, metric, out).ok());
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < m; ++j) {
          double dot = 0, na = 0, nb = 0;
          for (int k = 0; k < d; ++k) {
            dot += static_cast<double>(a[i * d + k]) * b[j * d + k];
            na += static_cast<double>(a[i * d + k]) * a[i * d + k];
            nb += static_cast<double>(b[j * d + k]) * b[j * d + k];
          }
          const double expected = metric == SimilarityMetric::kDot ? dot : dot / std::sqrt(na * nb);
          const double scale = metric == SimilarityMetric::kDot ? std::sqrt(na * nb) : 1.0;
          REQUIRE(std::abs(out[static_cast<std::size_t>(i * m + j)] - expected) <= 1e-5 * std::max(scale, 1.0));
        }
      }
    }
  }
}

TEST_CASE("similarity of rows against the matrix they belong to (the same memory) is computed half and mirrored, to the same bits", "[analysis]") {
  // Blocks that start on and off the kernel's panels and span several chunks of rows.
  std::mt19937 generator(11);
  std::normal_distribution<float> value(0.0f, 1.0f);
  for (auto [rows, d, first, count] : {std::tuple{10, 4, 0, 3}, std::tuple{200, 33, 0, 200}, std::tuple{200, 33, 37, 130}, std::tuple{150, 8, 64, 86}, std::tuple{9, 1, 8, 1}}) {
    std::vector<float> x(static_cast<std::size_t>(rows * d));
    for (auto& v : x) v = value(generator);
    const std::vector<float> copy = x;
    const auto block = std::span<const float>(x).subspan(static_cast<std::size_t>(first * d), static_cast<std::size_t>(count * d));
    for (const SimilarityMetric metric : {SimilarityMetric::kDot, SimilarityMetric::kCosine}) {
      std::vector<float> shared(static_cast<std::size_t>(count * rows)), separate(shared.size());
      REQUIRE(similarity(block, count, x, rows, d, metric, shared).ok());
      REQUIRE(similarity(block, count, copy, rows, d, metric, separate).ok());
      CHECK(shared == separate);
      for (int i = 0; i < count; ++i) {
        for (int j = 0; j < count; ++j) REQUIRE(shared[static_cast<std::size_t>(i * rows + first + j)] == shared[static_cast<std::size_t>(j * rows + first + i)]);
      }
    }
  }
}

TEST_CASE("nearest breaks ties by the lower index", "[analysis]") {
  const std::vector<float> table = {1, 0, 0, 1, 1, 0, 2, 0};  // rows 0, 2 and 3 point the same way
  const std::vector<float> query = {3, 0};
  std::vector<int32_t> indices(3);
  std::vector<float> scores(3);
  REQUIRE(nearest_rows(table, 4, 2, query, SimilarityMetric::kCosine, indices, scores).ok());
  CHECK(indices == std::vector<int32_t>{0, 2, 3});
  REQUIRE(nearest_rows(table, 4, 2, query, SimilarityMetric::kDot, indices, scores).ok());
  CHECK(indices == std::vector<int32_t>{3, 0, 2});
}

TEST_CASE("cosine is exact for rows of any finite size: no overflow past 1e19, no underflow below 1e-19", "[analysis]") {
  // Rows: huge, tiny, subnormal, zero, ordinary. Every nonzero row points along (1, 2, -2) or (1, 0, 0).
  const std::vector<float> rows = {1e38f, 2e38f, -2e38f, 1e-30f, 2e-30f, -2e-30f, 1e-40f, 0, 0, 0, 0, 0, 1, 2, -2};
  std::vector<float> out(25);
  REQUIRE(similarity(rows, 5, rows, 5, 3, SimilarityMetric::kCosine, out).ok());
  for (std::size_t i = 0; i < 5; ++i) {
    for (std::size_t j = 0; j < 5; ++j) {
      const bool zero = i == 3 || j == 3;
      const double expected = zero ? 0.0 : i == j ? 1.0 : (i == 2 || j == 2) ? 1.0 / 3.0 : 1.0;
      CHECK(std::abs(out[i * 5 + j] - expected) <= 1e-6);
    }
  }
  std::vector<int32_t> indices(5);
  std::vector<float> scores(5);
  const std::vector<float> huge_query = {3e38f, 0, 0};
  REQUIRE(nearest_rows(rows, 5, 3, huge_query, SimilarityMetric::kCosine, indices, scores).ok());
  CHECK(indices == std::vector<int32_t>{2, 0, 1, 4, 3});  // (1, 0, 0) first, then the three along (1, 2, -2) by index
  CHECK(std::abs(scores[0] - 1.0f) <= 1e-6f);
  for (std::size_t r = 1; r < 4; ++r) CHECK(std::abs(scores[r] - 1.0f / 3.0f) <= 1e-6f);
  CHECK(scores[4] == 0.0f);
}

TEST_CASE("PCA recovers planted axes in order of variance, with the sign rule", "[analysis]") {
  // Data = sum of three orthonormal directions with standard deviations 5, 2, 0.5, plus a mean offset.
  const int64_t n = 400, d = 12;
  std::mt19937 generator(17);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<std::vector<double>> axes(3, std::vector<double>(d));
  for (auto& axis : axes) for (auto& v : axis) v = normal(generator);
  for (std::size_t i = 0; i < 3; ++i) {  // Gram-Schmidt
    for (std::size_t j = 0; j < i; ++j) {
      double p = 0;
      for (int64_t k = 0; k < d; ++k) p += axes[i][k] * axes[j][k];
      for (int64_t k = 0; k < d; ++k) axes[i][k] -= p * axes[j][k];
    }
    double norm = 0;
    for (double v : axes[i]) norm += v * v;
    for (double& v : axes[i]) v /= std::sqrt(norm);
  }
  std::vector<float> x(static_cast<std::size_t>(n * d));
  for (int64_t r = 0; r < n; ++r) {
    const double c[3] = {5 * normal(generator), 2 * normal(generator), 0.5 * normal(generator)};
    for (int64_t k = 0; k < d; ++k) x[static_cast<std::size_t>(r * d + k)] = static_cast<float>(3.0 + c[0] * axes[0][k] + c[1] * axes[1][k] + c[2] * axes[2][k]);
  }
  std::vector<float> out(static_cast<std::size_t>(n * 3)), found(static_cast<std::size_t>(3 * d));
  REQUIRE(pca(x, n, d, 3, out, found).ok());
  for (std::size_t j = 0; j < 3; ++j) {
    double alignment = 0, largest = 0;
    for (int64_t k = 0; k < d; ++k) {
      alignment += found[j * d + k] * axes[j][k];
      if (std::abs(found[j * d + k]) > std::abs(largest)) largest = found[j * d + k];
    }
    INFO("component " << j);
    CHECK(std::abs(alignment) > 0.999);
    CHECK(largest > 0);
  }
  double variance[3] = {0, 0, 0};
  for (int64_t r = 0; r < n; ++r) for (int j = 0; j < 3; ++j) variance[j] += out[static_cast<std::size_t>(r * 3 + j)] * out[static_cast<std::size_t>(r * 3 + j)];
  CHECK(variance[0] > variance[1]);
  CHECK(variance[1] > variance[2]);
}

TEST_CASE("PCA is free of the data's scale: x * s projects to s times x's projections, s from 1e-40 to 1e37", "[analysis]") {
  std::mt19937 generator(11);
  std::normal_distribution<double> normal;
  const int64_t n = 40, d = 6;
  std::vector<double> base(static_cast<std::size_t>(n * d));
  for (std::size_t i = 0; i < base.size(); ++i) base[i] = normal(generator) * static_cast<double>(1 + i % d);  // distinct variances
  const auto projections = [&](double scale) {
    std::vector<float> x(base.size()), out(static_cast<std::size_t>(n * 2));
    for (std::size_t i = 0; i < base.size(); ++i) x[i] = static_cast<float>(base[i] * scale);
    REQUIRE(pca(x, n, d, 2, out, {}).ok());
    return out;
  };
  const auto unit = projections(1.0);
  for (const double scale : {1e-40, 1e-30, 1e-19, 1e19, 1e30, 1e37}) {
    INFO("scale " << scale);
    const auto scaled = projections(scale);
    // Subnormal inputs (1e-40) keep about 5 digits of theirs.
    const double tolerance = scale < 1e-37 ? 1e-3 : 1e-5;
    for (std::size_t i = 0; i < unit.size(); ++i) CHECK(std::abs(scaled[i] / scale - unit[i]) <= tolerance * (1.0 + std::abs(unit[i])));
  }
}

TEST_CASE("PCA of rank-deficient data and bad arguments", "[analysis]") {
  const std::vector<float> x = {1, 2, 3, 4, 2, 4, 6, 8, 3, 6, 9, 12};  // three rows on one line
  std::vector<float> out(6);
  REQUIRE(pca(x, 3, 4, 2, out).ok());
  CHECK(std::abs(out[0] + out[4]) < 1e-5);  // first and last rows symmetric about the mean
  CHECK(std::abs(out[1]) < 1e-5);           // no variance off the line
  CHECK(pca(x, 3, 4, 4, out).message() == "components must be an integer in [1, min(rows, dModel)] = [1, 3], got 4");
}

}  // namespace
}  // namespace posembed

namespace posembed {
namespace {

// The covariance of x ([n, d]) in double.
std::vector<double> covariance64(const std::vector<float>& x, int64_t n, int64_t d) {
  const auto depth = static_cast<std::size_t>(d);
  std::vector<double> mean(depth, 0.0), c(depth * depth, 0.0);
  for (int64_t r = 0; r < n; ++r) for (std::size_t k = 0; k < depth; ++k) mean[k] += x[static_cast<std::size_t>(r) * depth + k] / static_cast<double>(n);
  for (int64_t r = 0; r < n; ++r) {
    for (std::size_t i = 0; i < depth; ++i) {
      for (std::size_t j = 0; j < depth; ++j) {
        c[i * depth + j] += (x[static_cast<std::size_t>(r) * depth + i] - mean[i]) * (x[static_cast<std::size_t>(r) * depth + j] - mean[j]) / static_cast<double>(n - 1);
      }
    }
  }
  return c;
}

// For `axis` (made a unit vector) and the covariance c: its Rayleigh quotient and ‖c·axis − quotient·axis‖.
std::pair<double, double> rayleigh_residual(const std::vector<double>& c, std::vector<double> axis) {
  const std::size_t depth = axis.size();
  double length = 0;
  for (double v : axis) length += v * v;
  for (double& v : axis) v /= std::sqrt(length);
  std::vector<double> image(depth, 0.0);
  for (std::size_t i = 0; i < depth; ++i) for (std::size_t k = 0; k < depth; ++k) image[i] += c[i * depth + k] * axis[k];
  double rayleigh = 0, residual = 0;
  for (std::size_t i = 0; i < depth; ++i) rayleigh += axis[i] * image[i];
  for (std::size_t i = 0; i < depth; ++i) residual += (image[i] - rayleigh * axis[i]) * (image[i] - rayleigh * axis[i]);
  return {rayleigh, std::sqrt(residual)};
}

// The covariance of x ([n, d]) in double, and its eigenvectors by cyclic Jacobi (a reference independent of pca's
// route: columns of `vectors`, eigenvalues on the returned diagonal), largest first.
std::vector<std::pair<double, std::vector<double>>> reference_axes(const std::vector<float>& x, int64_t n, int64_t d) {
  const auto depth = static_cast<std::size_t>(d);
  std::vector<double> c = covariance64(x, n, d), v(depth * depth, 0.0);
  for (std::size_t i = 0; i < depth; ++i) v[i * depth + i] = 1.0;
  for (int sweep = 0; sweep < 60; ++sweep) {
    for (std::size_t p = 0; p < depth; ++p) {
      for (std::size_t q = p + 1; q < depth; ++q) {
        if (std::abs(c[p * depth + q]) < 1e-300) continue;
        const double theta = 0.5 * std::atan2(2 * c[p * depth + q], c[q * depth + q] - c[p * depth + p]);
        const double cs = std::cos(theta), sn = std::sin(theta);
        for (std::size_t k = 0; k < depth; ++k) {
          const double a = c[k * depth + p], b = c[k * depth + q];
          c[k * depth + p] = cs * a - sn * b;
          c[k * depth + q] = sn * a + cs * b;
        }
        for (std::size_t k = 0; k < depth; ++k) {
          const double a = c[p * depth + k], b = c[q * depth + k];
          c[p * depth + k] = cs * a - sn * b;
          c[q * depth + k] = sn * a + cs * b;
        }
        for (std::size_t k = 0; k < depth; ++k) {
          const double a = v[k * depth + p], b = v[k * depth + q];
          v[k * depth + p] = cs * a - sn * b;
          v[k * depth + q] = sn * a + cs * b;
        }
      }
    }
  }
  std::vector<std::pair<double, std::vector<double>>> axes;
  for (std::size_t j = 0; j < depth; ++j) {
    std::vector<double> column(depth);
    for (std::size_t k = 0; k < depth; ++k) column[k] = v[k * depth + j];
    axes.emplace_back(c[j * depth + j], column);
  }
  std::sort(axes.begin(), axes.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  return axes;
}

// An untrained table: [n, d] i.i.d. normal values of the given spread, from a seed.
std::vector<float> normal_table(int64_t n, int64_t d, double spread, unsigned seed) {
  std::mt19937 generator(seed);
  std::normal_distribution<double> normal(0.0, spread);
  std::vector<float> x(static_cast<std::size_t>(n * d));
  for (float& value : x) value = static_cast<float>(normal(generator));
  return x;
}

// A trained-like table: [n, d], an offset plus `strengths.size()` random directions with those standard deviations,
// plus independent noise.
std::vector<float> structured_table(int64_t n, int64_t d, const std::vector<double>& strengths, double noise, unsigned seed) {
  std::mt19937 generator(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  const auto depth = static_cast<std::size_t>(d);
  std::vector<std::vector<double>> directions(strengths.size(), std::vector<double>(depth));
  for (auto& direction : directions) {
    double length = 0;
    for (double& v : direction) {
      v = normal(generator);
      length += v * v;
    }
    for (double& v : direction) v /= std::sqrt(length);
  }
  std::vector<float> x(static_cast<std::size_t>(n) * depth);
  std::vector<double> row(depth);
  for (int64_t r = 0; r < n; ++r) {
    for (std::size_t k = 0; k < depth; ++k) row[k] = 3.0 + noise * normal(generator);
    for (std::size_t a = 0; a < strengths.size(); ++a) {
      const double weight = strengths[a] * normal(generator);
      for (std::size_t k = 0; k < depth; ++k) row[k] += weight * directions[a][k];
    }
    for (std::size_t k = 0; k < depth; ++k) x[static_cast<std::size_t>(r) * depth + k] = static_cast<float>(row[k]);
  }
  return x;
}
const std::vector<double> kTrainedStrengths = {10, 8, 4, 3.5, 3, 2.5, 2, 1.8, 1.5, 1.2, 1, 0.8};

TEST_CASE("PCA of a large table whose top axes stand clear (a trained one) iterates on its rows and finds them as a float64 eigensolver does", "[analysis]") {
  // Enough rows and columns for the probe (16,384; four of its blocks of directions), and the variance past its first
  // block far under the last kept one: the Krylov route.
  const int64_t n = 20000, d = 64;
  const std::vector<float> x = structured_table(n, d, kTrainedStrengths, 0.1, 53);
  const auto reference = reference_axes(x, n, d);
  const std::vector<double> c = covariance64(x, n, d);
  for (const int64_t components : {1, 2, 3}) {
    INFO(components << " components");
    std::vector<float> out(static_cast<std::size_t>(n * components)), found(static_cast<std::size_t>(components * d));
    REQUIRE(pca(x, n, d, components, out, found).ok());
    for (std::size_t j = 0; j < static_cast<std::size_t>(components); ++j) {
      double alignment = 0, variance = 0;
      for (std::size_t k = 0; k < static_cast<std::size_t>(d); ++k) alignment += found[j * d + k] * reference[j].second[k];
      for (int64_t r = 0; r < n; ++r) variance += static_cast<double>(out[r * components + j]) * out[r * components + j] / static_cast<double>(n - 1);
      const auto [rayleigh, residual] = rayleigh_residual(c, std::vector<double>(found.begin() + static_cast<std::ptrdiff_t>(j * d), found.begin() + static_cast<std::ptrdiff_t>((j + 1) * d)));
      INFO("component " << j << ": variance " << variance << ", float64 " << reference[j].first << ", residual " << residual);
      CHECK(std::abs(alignment) > 1 - 1e-6);
      CHECK(residual < 1e-6 * reference[0].first);
      CHECK(std::abs(variance - reference[j].first) < 1e-6 * reference[j].first);
    }
  }
}

// C·axis for the covariance C of x ([n, d]) in double, as Xcᵀ(Xc·axis) / (n − 1): a wide table's covariance is
// never formed.
std::pair<double, double> rows_rayleigh_residual(const std::vector<float>& x, int64_t n, int64_t d, std::vector<double> axis) {
  const auto depth = static_cast<std::size_t>(d);
  double length = 0;
  for (double v : axis) length += v * v;
  for (double& v : axis) v /= std::sqrt(length);
  std::vector<double> mean(depth, 0.0), image(depth, 0.0);
  for (int64_t r = 0; r < n; ++r) for (std::size_t k = 0; k < depth; ++k) mean[k] += x[static_cast<std::size_t>(r) * depth + k] / static_cast<double>(n);
  for (int64_t r = 0; r < n; ++r) {
    const float* row = x.data() + static_cast<std::size_t>(r) * depth;
    double along = 0;
    for (std::size_t k = 0; k < depth; ++k) along += (row[k] - mean[k]) * axis[k];
    for (std::size_t k = 0; k < depth; ++k) image[k] += (row[k] - mean[k]) * along / static_cast<double>(n - 1);
  }
  double rayleigh = 0, residual = 0;
  for (std::size_t k = 0; k < depth; ++k) rayleigh += axis[k] * image[k];
  for (std::size_t k = 0; k < depth; ++k) residual += (image[k] - rayleigh * axis[k]) * (image[k] - rayleigh * axis[k]);
  return {rayleigh, std::sqrt(residual)};
}

TEST_CASE("PCA of a large table wider than the probe's limit (2,048 columns) finds its top axes by Krylov iteration, as eigenvectors to 1e-6", "[analysis]") {
  const int64_t n = 16384, d = 2112;
  const std::vector<float> x = structured_table(n, d, kTrainedStrengths, 0.1, 61);
  std::vector<float> out(static_cast<std::size_t>(n * 2)), found(static_cast<std::size_t>(2 * d));
  REQUIRE(pca(x, n, d, 2, out, found).ok());
  double top = 0;
  for (std::size_t j = 0; j < 2; ++j) {
    const auto [rayleigh, residual] = rows_rayleigh_residual(x, n, d, std::vector<double>(found.begin() + static_cast<std::ptrdiff_t>(j * d), found.begin() + static_cast<std::ptrdiff_t>((j + 1) * d)));
    if (j == 0) top = rayleigh;
    double variance = 0;
    for (int64_t r = 0; r < n; ++r) variance += static_cast<double>(out[r * 2 + j]) * out[r * 2 + j] / static_cast<double>(n - 1);
    INFO("component " << j << ": variance " << variance << ", Rayleigh quotient " << rayleigh << ", residual " << residual);
    CHECK(residual < 1e-6 * top);
    CHECK(std::abs(variance - rayleigh) < 1e-5 * rayleigh);
    // The planted strengths 10 and 8 (over a noise of 0.1 per column): the top two variances.
    CHECK(std::abs(rayleigh - (j == 0 ? 100.0 : 64.0)) < (j == 0 ? 100.0 : 64.0) * 0.1);
  }
}

TEST_CASE("PCA finds the strongest axis of a large table where only rows the probe does not see carry it", "[analysis]") {
  // A trained-like table, and 40 rows of its second block of rows (the probe sees every eighth block from the first)
  // far out along column 50: the largest variance, in a direction the probe's rows do not have.
  const int64_t n = 20000, d = 64;
  std::vector<float> x = structured_table(n, d, kTrainedStrengths, 0.1, 59);
  for (int64_t r = 600; r < 640; ++r) x[static_cast<std::size_t>(r * d + 50)] += 300.0f;
  const auto reference = reference_axes(x, n, d);
  const std::vector<double> c = covariance64(x, n, d);
  std::vector<float> out(static_cast<std::size_t>(n * 2)), found(static_cast<std::size_t>(2 * d));
  REQUIRE(pca(x, n, d, 2, out, found).ok());
  for (std::size_t j = 0; j < 2; ++j) {
    double alignment = 0;
    for (std::size_t k = 0; k < static_cast<std::size_t>(d); ++k) alignment += found[j * d + k] * reference[j].second[k];
    const auto [rayleigh, residual] = rayleigh_residual(c, std::vector<double>(found.begin() + static_cast<std::ptrdiff_t>(j * d), found.begin() + static_cast<std::ptrdiff_t>((j + 1) * d)));
    INFO("component " << j << ": variance " << rayleigh << ", float64 " << reference[j].first << ", residual " << residual);
    CHECK(std::abs(alignment) > 1 - 1e-6);
    CHECK(residual < 1e-6 * reference[0].first);
  }
  CHECK(std::abs(found[50]) > 0.9);  // the first axis is mostly column 50
}

TEST_CASE("PCA on a flat spectrum (an untrained table) finds the exact top axes, as a float64 eigensolver does", "[analysis]") {
  // i.i.d. normal: the top variances differ by about 1%, where iterating on the rows converged too slowly to use.
  const int64_t n = 3000, d = 48;
  const std::vector<float> x = normal_table(n, d, 0.02, 29);
  const auto reference = reference_axes(x, n, d);
  INFO("top variances " << reference[0].first << ", " << reference[1].first << ", " << reference[2].first);
  std::vector<float> out(static_cast<std::size_t>(n * 2)), found(static_cast<std::size_t>(2 * d));
  REQUIRE(pca(x, n, d, 2, out, found).ok());
  for (std::size_t j = 0; j < 2; ++j) {
    double alignment = 0;
    for (std::size_t k = 0; k < static_cast<std::size_t>(d); ++k) alignment += found[j * d + k] * reference[j].second[k];
    INFO("component " << j);
    CHECK(std::abs(alignment) > 1 - 1e-6);
  }
}

TEST_CASE("PCA with two equal top variances returns two orthogonal axes of their plane", "[analysis]") {
  // Points evenly round a circle in the plane of columns 0 and 1 (variance 1/2 along every direction of it), with
  // small independent values elsewhere: a small table (the covariance's route) and a large one (the Krylov route).
  for (const auto& [n, d, spread] : {std::tuple{int64_t{720}, int64_t{10}, 0.01}, std::tuple{int64_t{20000}, int64_t{64}, 0.05}}) {
    INFO(n << " x " << d);
    std::mt19937 generator(3);
    std::normal_distribution<double> normal(0.0, spread);
    std::vector<float> x(static_cast<std::size_t>(n * d));
    for (int64_t r = 0; r < n; ++r) {
      const double angle = 2 * M_PI * static_cast<double>(r) / static_cast<double>(n);
      for (int64_t k = 0; k < d; ++k) x[static_cast<std::size_t>(r * d + k)] = static_cast<float>(k == 0 ? std::cos(angle) : k == 1 ? std::sin(angle) : normal(generator));
    }
    std::vector<float> out(static_cast<std::size_t>(n * 2)), found(static_cast<std::size_t>(2 * d));
    REQUIRE(pca(x, n, d, 2, out, found).ok());
    double cross = 0;
    for (int64_t k = 0; k < d; ++k) cross += found[k] * found[d + k];
    CHECK(std::abs(cross) < 1e-6);
    // Each is an eigenvector of the float64 covariance (a small residual) whose eigenvalue is one of the top two.
    const auto reference = reference_axes(x, n, d);
    const std::vector<double> c = covariance64(x, n, d);
    for (std::size_t j = 0; j < 2; ++j) {
      const auto [rayleigh, residual] = rayleigh_residual(c, std::vector<double>(found.begin() + static_cast<std::ptrdiff_t>(j * d), found.begin() + static_cast<std::ptrdiff_t>((j + 1) * d)));
      INFO("component " << j << ": Rayleigh quotient " << rayleigh << ", top variances " << reference[0].first << ", " << reference[1].first << ", " << reference[2].first);
      CHECK(residual < 1e-6 * reference[0].first);
      CHECK(rayleigh > reference[1].first * (1 - 1e-9));
    }
  }
}

}  // namespace
}  // namespace posembed

namespace posembed {
namespace {

TEST_CASE("query_similarity scores a few queries against a table as similarity does, to float rounding", "[analysis]") {
  // A width that leaves a part-filled panel and lanes, both metrics, and rows of 1e-20 and 1e20 for cosine.
  const int64_t n = 3, m = 1003, d = 37;
  std::mt19937 generator(8);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> a(static_cast<std::size_t>(n * d)), b(static_cast<std::size_t>(m * d));
  for (float& v : a) v = normal(generator);
  for (float& v : b) v = normal(generator);
  for (int64_t k = 0; k < d; ++k) b[static_cast<std::size_t>(5 * d + k)] *= 1e-20f, b[static_cast<std::size_t>(6 * d + k)] *= 1e20f;
  for (const auto metric : {SimilarityMetric::kDot, SimilarityMetric::kCosine}) {
    std::vector<float> packed(static_cast<std::size_t>(n * m)), queries(static_cast<std::size_t>(n * m));
    REQUIRE(similarity(a, n, b, m, d, metric, packed).ok());
    REQUIRE(query_similarity(a, n, b, m, d, metric, queries).ok());
    for (std::size_t i = 0; i < packed.size(); ++i) {
      INFO("element " << i);
      const float scale = metric == SimilarityMetric::kCosine ? 1.0f : 10.0f;
      if (metric == SimilarityMetric::kDot && (i % m == 5 || i % m == 6)) continue;  // dot of 1e±20 rows: float's own range
      CHECK(std::abs(queries[i] - packed[i]) <= 1e-5f * scale);
    }
  }
}

}  // namespace
}  // namespace posembed

namespace posembed {
namespace {

TEST_CASE("first_non_finite names the first NaN or infinity, in SIMD lanes, tails and later blocks; PCA refuses one so", "[analysis]") {
  std::vector<float> values(10007, 0.5f);
  CHECK(first_non_finite(values) == -1);
  CHECK(first_non_finite(std::span<const float>()) == -1);
  CHECK(first_non_finite(std::span<const float>(values.data(), 3)) == -1);
  for (const float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()}) {
    for (const std::size_t at : {std::size_t{0}, std::size_t{5}, std::size_t{4095}, std::size_t{4096}, std::size_t{10006}}) {
      std::vector<float> copy = values;
      copy[at] = bad;
      if (at + 100 < copy.size()) copy[at + 100] = bad;  // a later one is not the first
      CHECK(first_non_finite(copy) == static_cast<int64_t>(at));
    }
  }
  std::vector<float> x(40 * 3, 1.5f), out(40 * 2);
  x[61] = -std::numeric_limits<float>::infinity();
  x[100] = std::numeric_limits<float>::quiet_NaN();
  CHECK(pca(x, 40, 3, 2, out).message() == "x.data[61] must be finite, got -Infinity");
  values[9000] = std::numeric_limits<float>::max();  // large but finite
  values[9001] = std::numeric_limits<float>::denorm_min();
  CHECK(first_non_finite(values) == -1);
}

TEST_CASE("PCA gives the same bits on any number of threads", "[analysis]") {
  // Wide enough for several panels and blocks of rows, so that the threads share the covariance's panels; and a
  // large trained-like table, whose top axes come from Krylov iteration on its rows.
  for (const auto& [n, d, x] : {std::tuple{int64_t{1500}, int64_t{70}, normal_table(1500, 70, 1.0, 41)},
                                std::tuple{int64_t{20000}, int64_t{64}, structured_table(20000, 64, kTrainedStrengths, 0.1, 53)}}) {
    INFO(n << " x " << d);
    const int before = threads();
    std::vector<std::vector<float>> results;
    for (const int count : {1, 2, 3}) {
      set_threads(count);
      std::vector<float> out(static_cast<std::size_t>(n * 3)), axes(static_cast<std::size_t>(3 * d));
      REQUIRE(pca(x, n, d, 3, out, axes).ok());
      out.insert(out.end(), axes.begin(), axes.end());
      results.push_back(out);
    }
    set_threads(before);
    CHECK(results[1] == results[0]);
    CHECK(results[2] == results[0]);
  }
}

}  // namespace
}  // namespace posembed
