#include "posembed/sincos2d.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "posembed/sinusoidal.hpp"

#include "vectors.hpp"

namespace posembed {
namespace {

std::vector<float> encode(const Sincos2dParams& p) {
  std::vector<float> out(static_cast<std::size_t>(((p.cls_token ? 1 : 0) + p.grid_h * p.grid_w) * p.d_model));
  REQUIRE(sincos2d(p, out).ok());
  return out;
}

TEST_CASE("sincos2d matches every golden vector", "[sincos2d]") {
  const auto vectors = test::load_vectors("sincos2d");  // outlives the loop (a temporary would not)
  for (const auto& c : vectors.at("cases")) {
    SECTION(c.at("name").get<std::string>()) {
      const auto& p = c.at("params");
      const Sincos2dParams params{p.at("gridH").get<int64_t>(), p.at("gridW").get<int64_t>(), p.at("dModel").get<int64_t>(),
                                  p.at("base").get<double>(), p.at("clsToken").get<bool>()};
      test::require_close(encode(params), test::doubles(c.at("expected").at("data")), c.at("tolerance").at("abs").get<double>());
    }
  }
}

TEST_CASE("sincos2d sweep against double precision: column channels first, then row channels; the cls row is zeros", "[sincos2d]") {
  for (const Sincos2dParams p : {Sincos2dParams{3, 7, 24, 10000.0, false}, Sincos2dParams{7, 3, 24, 10000.0, true}, Sincos2dParams{1, 1, 4, 10000.0, true},
                                 Sincos2dParams{14, 14, 768, 10000.0, true}, Sincos2dParams{16, 9, 1024, 100.0, false}, Sincos2dParams{40, 64, 36, 1e6, false}}) {
    const auto out = encode(p);
    const int64_t quarter = p.d_model / 4;
    const int64_t first = p.cls_token ? 1 : 0;
    INFO("grid " << p.grid_h << " x " << p.grid_w << ", dModel " << p.d_model << ", base " << p.base << ", cls " << p.cls_token);
    for (int64_t j = 0; j < first * p.d_model; ++j) REQUIRE(out[static_cast<std::size_t>(j)] == 0.0f);
    double worst = 0.0;
    for (int64_t r = 0; r < p.grid_h; ++r) {
      for (int64_t c = 0; c < p.grid_w; ++c) {
        const float* row = out.data() + (first + r * p.grid_w + c) * p.d_model;
        for (int64_t i = 0; i < quarter; ++i) {
          const double w = std::pow(p.base, -static_cast<double>(i) / static_cast<double>(quarter));
          const double expected[4] = {std::sin(static_cast<double>(c) * w), std::cos(static_cast<double>(c) * w),
                                      std::sin(static_cast<double>(r) * w), std::cos(static_cast<double>(r) * w)};
          for (int64_t k = 0; k < 4; ++k) worst = std::max(worst, std::abs(row[k * quarter + i] - expected[k]));
        }
      }
    }
    CHECK(worst <= 2e-6);
  }
}

TEST_CASE("sincos2d written in runs of rows from its 1-D table equals it written whole", "[sincos2d]") {
  for (const Sincos2dParams p : {Sincos2dParams{5, 7, 16, 10000.0, true}, Sincos2dParams{7, 5, 8, 100.0, false}}) {
    const auto whole = encode(p);
    const int64_t positions = std::max(p.grid_h, p.grid_w);
    std::vector<float> table(static_cast<std::size_t>(positions * p.d_model / 2));
    REQUIRE(sinusoidal({.length = positions, .d_model = p.d_model / 2, .base = p.base, .layout = SinusoidalLayout::kSplit}, table).ok());
    const int64_t rows = (p.cls_token ? 1 : 0) + p.grid_h * p.grid_w;
    for (const int64_t run : {int64_t{1}, int64_t{4}, int64_t{11}, rows}) {
      std::vector<float> written(whole.size());
      for (int64_t first = 0; first < rows; first += run) {
        const int64_t count = std::min(run, rows - first);
        REQUIRE(sincos2d_rows(p, table, first, std::span<float>(written).subspan(static_cast<std::size_t>(first * p.d_model), static_cast<std::size_t>(count * p.d_model))).ok());
      }
      CHECK(written == whole);
    }
    std::vector<float> one_row(static_cast<std::size_t>(p.d_model));
    CHECK(sincos2d_rows(p, table, rows, one_row).message() == "the rows must lie within clsToken + gridH * gridW = " + std::to_string(rows) + " rows of dModel values");
    CHECK(sincos2d_rows(p, std::span<const float>(table).first(3), 0, one_row).message() ==
          "table must hold max(gridH, gridW) * dModel / 2 = " + std::to_string(table.size()) + " elements, got 3");
  }
}

TEST_CASE("sincos2d rejects bad parameters", "[sincos2d]") {
  std::vector<float> out(8);
  CHECK(sincos2d({2, 2, 6, 10000.0, false}, out).message() == "dModel must be a multiple of 4 in [4, 65536], got 6");
  CHECK(sincos2d({0, 2, 8, 10000.0, false}, out).message() == "gridH must be an integer in [1, 65536], got 0");
}

}  // namespace
}  // namespace posembed
