#include "posembed/sincos2d.hpp"

#include <cmath>
#include <vector>

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

TEST_CASE("sincos2d on a non-square grid: column channels first, then row channels", "[sincos2d]") {
  const Sincos2dParams p{3, 7, 24, 10000.0, false};
  const auto out = encode(p);
  double worst = 0.0;
  for (int64_t r = 0; r < 3; ++r) {
    for (int64_t c = 0; c < 7; ++c) {
      const float* row = out.data() + (r * 7 + c) * 24;
      for (int64_t i = 0; i < 6; ++i) {
        const double w = std::pow(10000.0, -static_cast<double>(i) / 6.0);
        const double expected[4] = {std::sin(c * w), std::cos(c * w), std::sin(r * w), std::cos(r * w)};
        const float got[4] = {row[i], row[6 + i], row[12 + i], row[18 + i]};
        for (int k = 0; k < 4; ++k) worst = std::max(worst, std::abs(got[k] - expected[k]));
      }
    }
  }
  CHECK(worst <= 2e-6);
}

TEST_CASE("sincos2d rejects bad parameters", "[sincos2d]") {
  std::vector<float> out(8);
  CHECK(sincos2d({2, 2, 6, 10000.0, false}, out).message() == "dModel must be a multiple of 4 in [4, 65536], got 6");
  CHECK(sincos2d({0, 2, 8, 10000.0, false}, out).message() == "gridH must be an integer in [1, 65536], got 0");
}

}  // namespace
}  // namespace posembed
