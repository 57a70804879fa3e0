#include "posembed/alibi.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "vectors.hpp"

namespace posembed {
namespace {

// The paper's rule in double precision, written from the definition.
std::vector<double> reference_slopes(int64_t heads) {
  int64_t power = 1;
  while (power * 2 <= heads) power *= 2;
  std::vector<double> slopes;
  for (int64_t k = 1; k <= power; ++k) slopes.push_back(std::pow(std::pow(2.0, -8.0 / static_cast<double>(power)), static_cast<double>(k)));
  for (int64_t k = 0; static_cast<int64_t>(slopes.size()) < heads; ++k) {
    slopes.push_back(std::pow(std::pow(2.0, -8.0 / static_cast<double>(2 * power)), static_cast<double>(2 * k + 1)));
  }
  return slopes;
}

TEST_CASE("ALiBi slopes match every golden vector", "[alibi]") {
  const auto vectors = test::load_vectors("alibi_slopes");  // outlives the loop (a temporary would not)
  for (const auto& c : vectors.at("cases")) {
    SECTION(c.at("name").get<std::string>()) {
      const auto heads = c.at("params").at("numHeads").get<int64_t>();
      std::vector<float> out(static_cast<std::size_t>(heads));
      REQUIRE(alibi_slopes(heads, out).ok());
      const auto expected = test::doubles(c.at("expected").at("data"));
      for (std::size_t h = 0; h < out.size(); ++h) CHECK(std::abs(out[h] - expected[h]) <= c.at("tolerance").at("rel").get<double>() * expected[h]);
    }
  }
}

TEST_CASE("ALiBi slopes follow the paper's rule for every head count up to 256", "[alibi]") {
  for (int64_t heads = 1; heads <= 256; ++heads) {
    std::vector<float> out(static_cast<std::size_t>(heads));
    REQUIRE(alibi_slopes(heads, out).ok());
    const auto expected = reference_slopes(heads);
    for (std::size_t h = 0; h < out.size(); ++h) REQUIRE(std::abs(out[h] - expected[h]) <= 1e-7 * expected[h]);
  }
}

TEST_CASE("ALiBi bias matches every golden vector", "[alibi]") {
  const auto vectors = test::load_vectors("alibi_bias");  // outlives the loop (a temporary would not)
  for (const auto& c : vectors.at("cases")) {
    SECTION(c.at("name").get<std::string>()) {
      const auto& p = c.at("params");
      const AlibiBiasParams params{p.at("numHeads").get<int64_t>(), p.at("queryLength").get<int64_t>(), p.at("keyLength").get<int64_t>(),
                                   p.at("causal").get<bool>()};
      std::vector<float> out(static_cast<std::size_t>(params.num_heads * params.query_length * params.key_length));
      REQUIRE(alibi_bias(params, out).ok());
      test::require_close(out, test::doubles(c.at("expected").at("data")), c.at("tolerance").at("abs").get<double>());
    }
  }
}

TEST_CASE("ALiBi bias sweep: kv-cache alignment, causal mask, relative error", "[alibi]") {
  // Heads of 16 rows or more are copied from a ramp, fewer computed row by row: both, causal or not.
  for (const AlibiBiasParams params : {AlibiBiasParams{5, 7, 300, true}, AlibiBiasParams{12, 33, 33, false}, AlibiBiasParams{3, 1, 1000, true},
                                       AlibiBiasParams{4, 40, 100, true}, AlibiBiasParams{2, 16, 5000, false}}) {
    std::vector<float> out(static_cast<std::size_t>(params.num_heads * params.query_length * params.key_length));
    REQUIRE(alibi_bias(params, out).ok());
    const auto slopes = reference_slopes(params.num_heads);
    std::vector<float> float_slopes(static_cast<std::size_t>(params.num_heads));
    REQUIRE(alibi_slopes(params.num_heads, float_slopes).ok());
    const int64_t first = params.key_length - params.query_length;
    for (int64_t h = 0; h < params.num_heads; ++h) {
      for (int64_t i = 0; i < params.query_length; ++i) {
        for (int64_t j = 0; j < params.key_length; ++j) {
          const float got = out[static_cast<std::size_t>((h * params.query_length + i) * params.key_length + j)];
          if (params.causal && j > first + i) {
            REQUIRE(got == -std::numeric_limits<float>::infinity());
          } else {
            const auto distance = std::abs(first + i - j);
            const double expected = -slopes[static_cast<std::size_t>(h)] * static_cast<double>(distance);
            REQUIRE(std::abs(got - expected) <= 1.2e-7 * std::abs(expected));
            // One float product, whichever way the row was written.
            REQUIRE(got == -float_slopes[static_cast<std::size_t>(h)] * static_cast<float>(distance));
          }
        }
      }
    }
  }
}

TEST_CASE("ALiBi bias written in blocks of rows equals it written whole", "[alibi]") {
  for (const bool causal : {false, true}) {
    // Heads of 6 rows (computed) and of 20 (copied from a ramp); blocks that split heads anywhere.
    for (const auto [heads, queries, keys] : {std::array<int64_t, 3>{5, 6, 9}, std::array<int64_t, 3>{3, 20, 24}}) {
      const AlibiBiasParams params{.num_heads = heads, .query_length = queries, .key_length = keys, .causal = causal};
      const auto rows = static_cast<std::size_t>(heads * queries);
      const auto k = static_cast<std::size_t>(keys);
      std::vector<float> whole(rows * k);
      REQUIRE(alibi_bias(params, whole).ok());
      for (const std::size_t block : {std::size_t{1}, std::size_t{4}, std::size_t{7}, rows}) {
        std::vector<float> blocks(whole.size());
        for (std::size_t first = 0; first < rows; first += block) {
          const std::size_t count = std::min(block, rows - first);
          REQUIRE(alibi_bias_rows(params, static_cast<int64_t>(first), std::span(blocks).subspan(first * k, count * k)).ok());
        }
        CHECK(blocks == whole);
      }
    }
    const AlibiBiasParams params{.num_heads = 5, .query_length = 6, .key_length = 9, .causal = causal};
    std::vector<float> two_rows(2 * 9);
    CHECK(alibi_bias_rows(params, 29, two_rows).message() == "the rows must lie within numHeads * queryLength = 30 rows of keyLength values");
    CHECK(alibi_bias_rows(params, -1, two_rows).message() == "the rows must lie within numHeads * queryLength = 30 rows of keyLength values");
  }
}

TEST_CASE("ALiBi rejects bad parameters", "[alibi]") {
  std::vector<float> out(16);
  CHECK(alibi_slopes(0, out).message() == "numHeads must be an integer in [1, 4096], got 0");
  CHECK(alibi_bias({2, 5, 4, false}, out).message() == "queryLength must be an integer in [1, keyLength] = [1, 4], got 5");
  CHECK(alibi_bias({2, 2, 0, false}, out).message() == "keyLength must be an integer in [1, 16777216], got 0");
}

}  // namespace
}  // namespace posembed

namespace posembed {
namespace {

TEST_CASE("alibiBias with a model's own slopes (MPT's for 12 heads), and their checks", "[alibi]") {
  std::vector<float> slopes;
  for (int h = 0; h < 12; ++h) slopes.push_back(std::ldexp(1.0f, -(h + 1)) * 0.75f);
  const AlibiBiasParams params{.num_heads = 12, .query_length = 3, .key_length = 7, .causal = false, .slopes = slopes};
  std::vector<float> out(12 * 3 * 7);
  REQUIRE(alibi_bias(params, out).ok());
  for (int h = 0; h < 12; ++h) {
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 7; ++j) CHECK(out[static_cast<std::size_t>((h * 3 + i) * 7 + j)] == -slopes[static_cast<std::size_t>(h)] * static_cast<float>(std::abs(4 + i - j)));
    }
  }
  const std::vector<float> too_few(11, 0.5f);
  CHECK(alibi_bias({.num_heads = 12, .query_length = 3, .key_length = 7, .slopes = too_few}, out).message() == "slopes must hold numHeads = 12 values, got 11");
  slopes[3] = -1.0f;
  CHECK(alibi_bias({.num_heads = 12, .query_length = 3, .key_length = 7, .slopes = slopes}, out).message() == "slopes[3] must be a number in [0, 1000000], got -1");
}

}  // namespace
}  // namespace posembed
