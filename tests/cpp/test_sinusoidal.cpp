#include "posembed/sinusoidal.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "vectors.hpp"

namespace posembed {
namespace {

SinusoidalParams params_from(const nlohmann::json& p) {
  SinusoidalParams params;
  params.length = p.at("length").get<int64_t>();
  params.d_model = p.at("dModel").get<int64_t>();
  params.base = p.value("base", 10000.0);
  params.layout = *parse_sinusoidal_layout(p.value("layout", "interleaved"));
  params.timescale = *parse_sinusoidal_timescale(p.value("timescale", "standard"));
  params.offset = p.value("offset", int64_t{0});
  return params;
}

std::vector<float> encode(const SinusoidalParams& params) {
  std::vector<float> out(static_cast<std::size_t>(params.length * params.d_model));
  const Status status = sinusoidal(params, out);
  INFO(status.message());
  REQUIRE(status.ok());
  return out;
}

// The definition, evaluated in double precision.
double reference(const SinusoidalParams& params, int64_t row, int64_t column) {
  const int64_t half = params.d_model / 2;
  const bool interleaved = params.layout == SinusoidalLayout::kInterleaved;
  const int64_t pair = interleaved ? column / 2 : column % half;
  const bool is_cosine = interleaved ? column % 2 == 1 : column >= half;
  const double exponent = params.timescale == SinusoidalTimescale::kT2T
                              ? static_cast<double>(pair) / static_cast<double>(std::max<int64_t>(half - 1, 1))
                              : 2.0 * static_cast<double>(pair) / static_cast<double>(params.d_model);
  const double angle = static_cast<double>(params.offset + row) * std::pow(params.base, -exponent);
  return is_cosine ? std::cos(angle) : std::sin(angle);
}

TEST_CASE("sinusoidal matches every golden vector", "[sinusoidal]") {
  const auto vectors = test::load_vectors("sinusoidal");
  for (const auto& c : vectors.at("cases")) {
    SECTION(c.at("name").get<std::string>()) {
      const SinusoidalParams params = params_from(c.at("params"));
      const auto shape = c.at("expected").at("shape");
      REQUIRE(shape[0].get<int64_t>() == params.length);
      REQUIRE(shape[1].get<int64_t>() == params.d_model);
      test::require_close(encode(params), test::doubles(c.at("expected").at("data")), c.at("tolerance").at("abs").get<double>());
    }
  }
}

TEST_CASE("sinusoidal stays within 2e-6 of float64 over a sweep of positions up to 2^24", "[sinusoidal]") {
  std::mt19937_64 generator(20261122);
  std::uniform_int_distribution<int64_t> offset(0, (int64_t{1} << 24) - 64);
  const int64_t d_models[] = {2, 4, 6, 8, 30, 64, 128, 768, 1024};
  const double bases[] = {10000.0, 500000.0, 100.0};
  double worst = 0.0;
  int64_t checked = 0;
  for (auto layout : {SinusoidalLayout::kInterleaved, SinusoidalLayout::kSplit}) {
    for (auto timescale : {SinusoidalTimescale::kStandard, SinusoidalTimescale::kT2T}) {
      for (int64_t d_model : d_models) {
        for (double base : bases) {
          SinusoidalParams params{.length = 37, .d_model = d_model, .base = base, .layout = layout,
                                  .timescale = timescale, .offset = offset(generator)};
          const auto out = encode(params);
          for (int64_t row = 0; row < params.length; ++row) {
            for (int64_t column = 0; column < d_model; ++column) {
              const double error = std::abs(out[row * d_model + column] - reference(params, row, column));
              worst = std::max(worst, error);
              ++checked;
            }
          }
        }
      }
    }
  }
  INFO("checked " << checked << " values, worst error " << worst);
  CHECK(checked > 100000);
  CHECK(worst <= 2e-6);
}

TEST_CASE("sinusoidal stays exact along a long table, across walked and fresh anchors", "[sinusoidal]") {
  // 40000 rows cross several blocks of walked anchors and two exact re-anchorings, ending at 2^24.
  for (auto layout : {SinusoidalLayout::kInterleaved, SinusoidalLayout::kSplit}) {
    const SinusoidalParams params{.length = 40000, .d_model = 32, .layout = layout, .offset = (int64_t{1} << 24) - 40000};
    const auto out = encode(params);
    double worst = 0.0;
    for (int64_t row = 0; row < params.length; ++row) {
      for (int64_t column = 0; column < params.d_model; ++column) {
        worst = std::max(worst, std::abs(out[row * params.d_model + column] - reference(params, row, column)));
      }
    }
    INFO("worst error " << worst);
    CHECK(worst <= 2e-6);
  }
}

TEST_CASE("sinusoidal rows are the same whatever block they fall in", "[sinusoidal]") {
  // A table starting at offset 5 must equal rows 5.. of a table starting at 0, though its anchors differ.
  const SinusoidalParams whole{.length = 100, .d_model = 64};
  SinusoidalParams tail = whole;
  tail.length = 95;
  tail.offset = 5;
  const auto a = encode(whole);
  const auto b = encode(tail);
  double worst = 0.0;
  for (std::size_t i = 0; i < b.size(); ++i) worst = std::max(worst, static_cast<double>(std::abs(a[i + 5 * 64] - b[i])));
  CHECK(worst <= 1e-6);
}

TEST_CASE("sinusoidal written through a block equals the whole table bit for bit", "[sinusoidal]") {
  // 17,000 rows: past 16,384, where the anchors are computed afresh; a length that is no multiple of a block.
  for (const auto layout : {SinusoidalLayout::kInterleaved, SinusoidalLayout::kSplit}) {
    const SinusoidalParams params{.length = 17000, .d_model = 16, .layout = layout, .offset = 123456};
    const auto whole = encode(params);
    for (const int64_t block_rows : {kSinusoidalBlockRows, 3 * kSinusoidalBlockRows, 20000 / kSinusoidalBlockRows * kSinusoidalBlockRows}) {
      std::vector<float> block(static_cast<std::size_t>(block_rows * 16)), copied(whole.size(), -9.0f);
      int64_t next = 0;
      REQUIRE(sinusoidal_blocks(params, block, [&](int64_t first, int64_t rows) {
        CHECK(first == next);  // in order, each row once
        std::copy_n(block.begin(), rows * 16, copied.begin() + first * 16);
        next = first + rows;
      }).ok());
      CHECK(next == params.length);
      CHECK(copied == whole);
    }
  }
  std::vector<float> odd(100 * 16);
  CHECK(sinusoidal_blocks({.length = 5, .d_model = 16}, odd, [](int64_t, int64_t) {}).message() == "block must hold a positive multiple of 64 rows of dModel values");
  CHECK(sinusoidal_blocks({.length = 5, .d_model = 15}, odd, [](int64_t, int64_t) {}).message() == "dModel must be an even integer in [2, 65536], got 15");
}

TEST_CASE("sinusoidal at arbitrary positions equals the consecutive rows", "[sinusoidal]") {
  for (auto layout : {SinusoidalLayout::kInterleaved, SinusoidalLayout::kSplit}) {
    const SinusoidalParams whole{.length = 300, .d_model = 48, .layout = layout, .offset = 1000000};
    const auto table = encode(whole);
    const std::vector<int32_t> positions = {1000299, 1000000, 1000150, 1000150, 1000007};
    std::vector<float> rows(positions.size() * 48);
    REQUIRE(sinusoidal_at_positions(whole, positions, rows).ok());
    double worst = 0.0;
    for (std::size_t r = 0; r < positions.size(); ++r) {
      for (std::size_t c = 0; c < 48; ++c) worst = std::max(worst, static_cast<double>(std::abs(rows[r * 48 + c] - table[(positions[r] - 1000000) * 48 + c])));
    }
    CHECK(worst <= 1e-6);
  }
  std::vector<float> out(4);
  const std::vector<int32_t> negative = {-3};
  CHECK(sinusoidal_at_positions({.length = 1, .d_model = 4}, negative, out).message() == "positions[0] must be an integer in [0, 2147483647], got -3");
}

TEST_CASE("sinusoidal rejects bad parameters with the parameter's name and range", "[sinusoidal]") {
  std::vector<float> out(1024);
  auto message_for = [&](SinusoidalParams params) {
    const Status status = sinusoidal(params, out);
    CHECK(status.kind() == ErrorKind::kRange);
    return status.message();
  };
  CHECK(message_for({.length = 4, .d_model = 7}) == "dModel must be an even integer in [2, 65536], got 7");
  CHECK(message_for({.length = 0, .d_model = 4}) == "length must be an integer in [1, 16777216], got 0");
  CHECK(message_for({.length = 4, .d_model = 4, .base = 0.5}) == "base must be a number in [1, 1000000000000], got 0.5");
  CHECK(message_for({.length = 4, .d_model = 4, .base = std::nan("")}) == "base must be a number in [1, 1000000000000], got NaN");
  CHECK(message_for({.length = 4, .d_model = 4, .offset = -1}).starts_with("offset must be an integer in [0, 2147483644] (the last position, offset + length - 1, at most 2147483647), got -1"));
  CHECK(message_for({.length = 4, .d_model = 4}) == "out must hold exactly 16 elements, got 1024");
}

}  // namespace
}  // namespace posembed
