#include "posembed/learned_positions.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "vectors.hpp"

namespace posembed {
namespace {

TEST_CASE("interpolation matches every golden vector", "[learned_positions]") {
  const auto vectors = test::load_vectors("learned_interpolate");  // outlives the loop (a temporary would not)
  for (const auto& c : vectors.at("cases")) {
    SECTION(c.at("name").get<std::string>()) {
      const auto& table = c.at("input").at("table");
      const auto length = table.at("shape")[0].get<int64_t>();
      const auto d = table.at("shape")[1].get<int64_t>();
      const auto new_length = c.at("params").at("newLength").get<int64_t>();
      std::vector<float> out(static_cast<std::size_t>(new_length * d));
      REQUIRE(interpolate_positions(test::floats(table.at("data")), length, d, new_length, out).ok());
      test::require_close(out, test::doubles(c.at("expected").at("data")), c.at("tolerance").at("abs").get<double>());
    }
  }
}

TEST_CASE("interpolation keeps the end rows, is exact on lines, and handles length 1", "[learned_positions]") {
  const int64_t length = 5, d = 19;
  std::vector<float> table(static_cast<std::size_t>(length * d));
  for (int64_t i = 0; i < length; ++i) {
    for (int64_t j = 0; j < d; ++j) table[static_cast<std::size_t>(i * d + j)] = static_cast<float>(3 * i + j);
  }
  std::vector<float> out(static_cast<std::size_t>(13 * d));
  REQUIRE(interpolate_positions(table, length, d, 13, out).ok());
  for (int64_t i = 0; i < 13; ++i) {
    for (int64_t j = 0; j < d; ++j) CHECK(std::abs(out[static_cast<std::size_t>(i * d + j)] - (3.0 * i * 4.0 / 12.0 + j)) <= 1e-5);
  }
  std::vector<float> one(static_cast<std::size_t>(d));
  REQUIRE(interpolate_positions(table, length, d, 1, one).ok());
  CHECK(std::equal(one.begin(), one.end(), table.begin()));
  std::vector<float> stretched(static_cast<std::size_t>(4 * d));
  REQUIRE(interpolate_positions(std::span<const float>(table).first(static_cast<std::size_t>(d)), 1, d, 4, stretched).ok());
  for (int64_t i = 0; i < 4; ++i) CHECK(std::equal(table.begin(), table.begin() + d, stretched.begin() + i * d));
  CHECK(interpolate_positions(table, length, d, 0, out).message() == "newLength must be an integer in [1, 16777216], got 0");
}

TEST_CASE("interpolation of rows at the ends of the float range: exact ends, no overflow, within the two rows", "[learned_positions]") {
  const float top = std::numeric_limits<float>::max();
  const std::vector<float> table = {-3e38f, 3e38f, top, 3e38f, -3e38f, top};
  std::vector<float> out(7 * 3);
  REQUIRE(interpolate_positions(table, 2, 3, 7, out).ok());
  CHECK(out[0] == -3e38f);
  CHECK(out[1] == 3e38f);
  CHECK(out[18] == 3e38f);
  CHECK(out[19] == -3e38f);
  CHECK(out[9] == 0.0f);  // the middle row, halfway between opposite values
  CHECK(out[10] == 0.0f);
  for (std::size_t i = 0; i < 7; ++i) {
    CHECK(out[i * 3 + 2] == top);  // between top and top: top, never Infinity
    CHECK(std::abs(out[i * 3]) <= 3e38f);
  }
}

TEST_CASE("interpolation sweep against double precision: align-corners linear, shorter and longer", "[learned_positions]") {
  std::mt19937 random(11);
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  for (const int64_t length : {2, 3, 7, 50, 512}) {
    for (const int64_t new_length : {2, 5, 49, 50, 51, 1000, 2048}) {
      for (const int64_t d : {1, 5, 64}) {
        std::vector<float> table(static_cast<std::size_t>(length * d));
        for (float& v : table) v = value(random);
        std::vector<float> out(static_cast<std::size_t>(new_length * d));
        REQUIRE(interpolate_positions(table, length, d, new_length, out).ok());
        double worst = 0.0;
        for (int64_t i = 0; i < new_length; ++i) {
          const double at = static_cast<double>(i) * static_cast<double>(length - 1) / static_cast<double>(new_length - 1);
          const auto below = std::min(static_cast<int64_t>(at), length - 2);
          const double t = at - static_cast<double>(below);
          for (int64_t j = 0; j < d; ++j) {
            const double expected = (1.0 - t) * table[static_cast<std::size_t>(below * d + j)] + t * table[static_cast<std::size_t>((below + 1) * d + j)];
            worst = std::max(worst, std::abs(out[static_cast<std::size_t>(i * d + j)] - expected));
          }
        }
        INFO("length " << length << " -> " << new_length << ", d " << d);
        CHECK(worst <= 1e-6);
      }
    }
  }
}

}  // namespace
}  // namespace posembed
