#include "posembed/rope.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "vectors.hpp"

namespace posembed {
namespace {

RopeScaling scaling_from(const nlohmann::json& j) {
  RopeScaling s;
  s.type = j.value("type", "default");
  s.factor = j.value("factor", 1.0);
  s.original_max_positions = j.value("originalMaxPositions", int64_t{0});
  s.sequence_length = j.value("sequenceLength", int64_t{0});
  s.low_freq_factor = j.value("lowFreqFactor", 1.0);
  s.high_freq_factor = j.value("highFreqFactor", 4.0);
  s.beta_fast = j.value("betaFast", 32.0);
  s.beta_slow = j.value("betaSlow", 1.0);
  s.attention_factor = j.value("attentionFactor", 0.0);
  return s;
}

TEST_CASE("RoPE inverse frequencies match every golden vector", "[rope]") {
  const auto vectors = test::load_vectors("rope_inv_freq");  // outlives the loop (a temporary would not)
  for (const auto& c : vectors.at("cases")) {
    SECTION(c.at("name").get<std::string>()) {
      const auto& p = c.at("params");
      const RopeScaling scaling = scaling_from(p.at("scaling"));
      const auto head_dim = p.at("headDim").get<int64_t>();
      std::vector<double> inv_freq(static_cast<std::size_t>(head_dim / 2));
      REQUIRE(rope_inv_freq(head_dim, p.at("base").get<double>(), scaling, inv_freq).ok());
      const auto expected = test::doubles(c.at("expected").at("data"));
      const double tolerance = c.at("tolerance").at("rel").get<double>();
      for (std::size_t i = 0; i < inv_freq.size(); ++i) {
        INFO("pair " << i);
        CHECK(std::abs(inv_freq[i] - expected[i]) <= tolerance * std::abs(expected[i]));
      }
      CHECK(std::abs(rope_attention_factor(scaling) - c.at("input").at("attentionFactor").get<double>()) <= 1e-12);
    }
  }
}

// The scaled inverse frequencies as HF's modeling_rope_utils defines them, written out in double, one pair i
// at a time: the reference of the sweep below.
double reference_inv_freq(int64_t dim, double base, const RopeScaling& s, int64_t i) {
  const double pi = std::acos(-1.0);
  const auto plain = [&](double b) { return 1.0 / std::pow(b, static_cast<double>(2 * i) / static_cast<double>(dim)); };
  if (s.type == "default") return plain(base);
  if (s.type == "linear") return plain(base) / s.factor;
  if (s.type == "dynamic") {
    const double length = static_cast<double>(std::max(s.sequence_length, s.original_max_positions));
    const double grown = base * std::pow(s.factor * length / static_cast<double>(s.original_max_positions) - (s.factor - 1.0),
                                         static_cast<double>(dim) / static_cast<double>(dim - 2));
    return plain(grown);
  }
  if (s.type == "llama3") {
    const double f = plain(base);
    const double wavelength = 2.0 * pi / f;
    const auto context = static_cast<double>(s.original_max_positions);
    if (wavelength > context / s.low_freq_factor) return f / s.factor;
    if (wavelength < context / s.high_freq_factor) return f;
    const double smooth = (context / wavelength - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
    return (1.0 - smooth) * f / s.factor + smooth * f;
  }
  if (s.type == "yarn") {
    const auto correction = [&](double rotations) {
      return static_cast<double>(dim) * std::log(static_cast<double>(s.original_max_positions) / (rotations * 2.0 * pi)) / (2.0 * std::log(base));
    };
    const double low = std::max(s.truncate ? std::floor(correction(s.beta_fast)) : correction(s.beta_fast), 0.0);
    double high = std::min(s.truncate ? std::ceil(correction(s.beta_slow)) : correction(s.beta_slow), static_cast<double>(dim - 1));
    if (low == high) high += 0.001;
    const double interpolated = std::clamp((static_cast<double>(i) - low) / (high - low), 0.0, 1.0);
    const double f = plain(base);
    return f / s.factor * interpolated + f * (1.0 - interpolated);
  }
  if (s.type == "longrope") {
    const auto& divisors = s.sequence_length > s.original_max_positions ? s.long_factor : s.short_factor;
    return plain(base) / divisors[static_cast<std::size_t>(i)];
  }
  if (s.type == "proportional") return s.rotated_pairs != 0 && i >= s.rotated_pairs ? 0.0 : plain(base) / s.factor;
  return std::nan("");  // a rule swept without a reference here fails
}

TEST_CASE("RoPE inverse frequencies sweep against a double-precision reference, every scaling", "[rope]") {
  std::vector<RopeScaling> scalings;
  for (const double factor : {1.0, 1.5, 4.0, 8.0, 32.0}) {
    for (const int64_t original : {64, 2048, 8192}) {
      scalings.push_back({.type = "linear", .factor = factor});
      for (const int64_t length : {original / 2, original, original + 1, 3 * original, 100 * original}) {
        scalings.push_back({.type = "dynamic", .factor = factor, .original_max_positions = original, .sequence_length = length});
      }
      for (const auto& [low, high] : {std::pair{1.0, 4.0}, std::pair{2.0, 8.0}, std::pair{0.5, 1.5}}) {
        scalings.push_back({.type = "llama3", .factor = factor, .original_max_positions = original, .low_freq_factor = low, .high_freq_factor = high});
      }
      for (const auto& [fast, slow] : {std::pair{32.0, 1.0}, std::pair{16.0, 2.0}, std::pair{1.5, 1.0}}) {
        for (const bool truncate : {true, false}) {
          scalings.push_back({.type = "yarn", .factor = factor, .original_max_positions = original, .beta_fast = fast, .beta_slow = slow,
                              .truncate = truncate});
        }
      }
      for (const int64_t pairs : {0, 1, 2}) scalings.push_back({.type = "proportional", .factor = factor, .rotated_pairs = pairs});
    }
  }
  for (const int64_t length : {64, 4096, 4097, 131072}) {
    scalings.push_back({.type = "longrope", .factor = 32.0, .original_max_positions = 4096, .sequence_length = length});
  }
  scalings.push_back({});
  std::size_t compared = 0;
  for (const RopeScaling& scaling : scalings) {
    for (const int64_t dim : {4, 8, 18, 64, 96, 128, 256}) {
      for (const double base : {100.0, 10000.0, 500000.0, 1e9}) {
        std::vector<double> inv_freq(static_cast<std::size_t>(dim / 2));
        RopeScaling fitted = scaling;
        if (fitted.type == "longrope") {
          // Divisors that grow with the pair, as Phi-3's do; sequence_length picks the list.
          for (int64_t i = 0; i < dim / 2; ++i) {
            fitted.short_factor.push_back(1.0 + 0.05 * static_cast<double>(i));
            fitted.long_factor.push_back(1.0 + 2.0 * static_cast<double>(i));
          }
        }
        REQUIRE(rope_inv_freq(dim, base, fitted, inv_freq).ok());
        for (int64_t i = 0; i < dim / 2; ++i) {
          const double expected = reference_inv_freq(dim, base, fitted, i);
          INFO("scaling " << scaling.type << ", factor " << scaling.factor << ", original " << scaling.original_max_positions
                          << ", dim " << dim << ", base " << base << ", pair " << i);
          REQUIRE(std::abs(inv_freq[static_cast<std::size_t>(i)] - expected) <= 1e-12 * std::abs(expected));
          ++compared;
        }
      }
    }
  }
  CHECK(compared > 50000);
  // yarn's attention factor: 0.1 ln(factor) + 1 unless given; 1 for the other scalings.
  CHECK(rope_attention_factor({.type = "yarn", .factor = 8.0, .original_max_positions = 4}) == Approx(0.1 * std::log(8.0) + 1.0).epsilon(1e-15));
  CHECK(rope_attention_factor({.type = "yarn", .factor = 8.0, .original_max_positions = 4, .attention_factor = 0.7}) == 0.7);
  CHECK(rope_attention_factor({.type = "llama3", .factor = 8.0, .original_max_positions = 4}) == 1.0);
  // DeepSeek's mscale / mscale_all_dim: equal ones cancel; one alone leaves HF's plain factor.
  const auto mscale = [](double f, double m) { return 0.1 * m * std::log(f) + 1.0; };
  CHECK(rope_attention_factor({.type = "yarn", .factor = 40.0, .mscale = 1.0, .mscale_all_dim = 1.0}) == 1.0);
  CHECK(rope_attention_factor({.type = "yarn", .factor = 40.0, .mscale = 0.707, .mscale_all_dim = 1.0}) ==
        Approx(mscale(40.0, 0.707) / mscale(40.0, 1.0)).epsilon(1e-15));
  CHECK(rope_attention_factor({.type = "yarn", .factor = 40.0, .mscale = 0.707}) == Approx(mscale(40.0, 1.0)).epsilon(1e-15));
  // LongRoPE: sqrt(1 + ln(factor) / ln(original)) (Phi-3.5: 131072 / 4096 = 32).
  CHECK(rope_attention_factor({.type = "longrope", .factor = 32.0, .original_max_positions = 4096}) ==
        Approx(std::sqrt(1.0 + std::log(32.0) / std::log(4096.0))).epsilon(1e-15));
}

// cos and sin of position * w in long double, the reference of the caches below.
struct ExactAngle {
  long double cos, sin;
};
ExactAngle exact_angle(int64_t position, double frequency) {
  const long double angle = static_cast<long double>(position) * static_cast<long double>(frequency);
  return {std::cos(angle), std::sin(angle)};
}

TEST_CASE("ropeCache: exact within 2e-6 of the float64 maths up to 2^24, every layout, mRoPE and attention factor", "[rope]") {
  std::vector<double> long_divisors, short_divisors;
  for (int i = 0; i < 32; ++i) {
    short_divisors.push_back(1.0 + 0.03 * i);
    long_divisors.push_back(1.0 + 2.0 * i);
  }
  const std::vector<RopeScaling> scalings{
      {},
      {.type = "llama3", .factor = 8.0, .original_max_positions = 8192, .low_freq_factor = 1.0, .high_freq_factor = 4.0},
      {.type = "yarn", .factor = 40.0, .original_max_positions = 4096, .mscale = 0.707, .mscale_all_dim = 1.0},
      {.type = "yarn", .factor = 32.0, .original_max_positions = 4096, .truncate = false},
      {.type = "longrope", .factor = 32.0, .original_max_positions = 4096, .short_factor = short_divisors, .long_factor = long_divisors},
      {.type = "dynamic", .factor = 4.0, .original_max_positions = 2048},
  };
  const std::vector<std::vector<int32_t>> position_sets{{0, 1, 2, 3, 4, 5, 6, 7},
                                                         {4095, 4096, 4097},
                                                         {1 << 24, (1 << 24) - 1, 131071, 7, 0},
                                                         {16777000, 16777001, 16777002, 16777003}};
  for (const RopeScaling& scaling : scalings) {
    for (const RopeLayout layout : {RopeLayout::kHalf, RopeLayout::kInterleaved}) {
      for (const auto& positions : position_sets) {
        RopeCacheParams params{.rotary_dim = 64, .base = 10000.0, .layout = layout, .scaling = scaling};
        const std::size_t n = positions.size();
        std::vector<float> cos(n * 64), sin(n * 64);
        const Status status = rope_cache(params, positions, cos, sin);
        INFO(status.message());
        REQUIRE(status.ok());
        RopeScaling picked = scaling;
        picked.sequence_length = *std::max_element(positions.begin(), positions.end()) + 1;
        std::vector<double> inv_freq(32);
        REQUIRE(rope_inv_freq(64, 10000.0, picked, inv_freq).ok());
        const double attention = rope_attention_factor(picked);
        double worst = 0.0;
        for (std::size_t r = 0; r < n; ++r) {
          for (std::size_t i = 0; i < 32; ++i) {
            const ExactAngle e = exact_angle(positions[r], inv_freq[i]);
            const std::size_t a = layout == RopeLayout::kHalf ? i : 2 * i;
            const std::size_t b = layout == RopeLayout::kHalf ? i + 32 : 2 * i + 1;
            for (const std::size_t column : {a, b}) {
              worst = std::max(worst, static_cast<double>(std::abs(cos[r * 64 + column] - e.cos * attention)));
              worst = std::max(worst, static_cast<double>(std::abs(sin[r * 64 + column] - e.sin * attention)));
            }
          }
        }
        INFO("scaling " << scaling.type << ", positions from " << positions[0]);
        CHECK(worst <= 2e-6);
      }
    }
  }
}

TEST_CASE("ropeCache: mRoPE takes each pair's angle from its stream, sectioned and interleaved", "[rope]") {
  const int32_t count = 5;
  std::vector<int32_t> positions;
  for (int stream = 0; stream < 3; ++stream) {
    for (int32_t r = 0; r < count; ++r) positions.push_back(1000 * (stream + 1) + 7 * r);
  }
  for (const bool interleaved : {false, true}) {
    RopeCacheParams params{.rotary_dim = 128, .base = 1e6, .mrope = {.section = {24, 20, 20}, .interleaved = interleaved}};
    std::vector<float> cos(count * 128), sin(count * 128);
    REQUIRE(rope_cache(params, positions, cos, sin).ok());
    std::vector<double> inv_freq(64);
    REQUIRE(rope_inv_freq(128, 1e6, {}, inv_freq).ok());
    for (int64_t i = 0; i < 64; ++i) {
      // Sectioned: pairs 0-23 time, 24-43 height, 44-63 width. Interleaved: height at 1, 4, ..., 58; width at 2, 5, ..., 59.
      const int expected_stream = interleaved ? (i % 3 == 1 && i < 60 ? 1 : i % 3 == 2 && i < 60 ? 2 : 0) : (i < 24 ? 0 : i < 44 ? 1 : 2);
      REQUIRE(params.mrope.stream(i) == expected_stream);
      for (int32_t r = 0; r < count; ++r) {
        const ExactAngle e = exact_angle(positions[static_cast<std::size_t>(expected_stream * count + r)], inv_freq[static_cast<std::size_t>(i)]);
        INFO("pair " << i << ", row " << r << (interleaved ? ", interleaved" : ", sectioned"));
        CHECK(std::abs(cos[r * 128 + i] - e.cos) <= 2e-6);
        CHECK(std::abs(sin[r * 128 + i + 64] - e.sin) <= 2e-6);
      }
    }
  }
  RopeCacheParams bad{.rotary_dim = 128, .mrope = {.section = {16, 24, 20}}};
  std::vector<float> cos(count * 128), sin(count * 128);
  const Status status = rope_cache(bad, positions, cos, sin);
  CHECK(status.message() == "mropeSection must add up to rotaryDim / 2 = 64 pairs, got 60");
}

TEST_CASE("ropeCache: float32 follows HF's float32 order of operations; bfloat16 and float16 round that cache", "[rope]") {
  const RopeScaling llama3{.type = "llama3", .factor = 8.0, .original_max_positions = 8192, .low_freq_factor = 1.0, .high_freq_factor = 4.0};
  const std::vector<int32_t> positions{0, 1, 100, 8191, 131071, 1 << 24, (1 << 24) + 1};
  const std::size_t n = positions.size();
  std::vector<float> inv_freq(64);
  REQUIRE(rope_inv_freq_float32(128, 500000.0, llama3, inv_freq).ok());
  // HF's float32 buffer: base ** (arange(0, 128, 2).float() / 128), then llama3's blend, all in float.
  for (int i = 0; i < 64; ++i) {
    const float plain = 1.0f / std::pow(500000.0f, static_cast<float>(2 * i) / 128.0f);
    const float wavelength = static_cast<float>(2.0 * std::numbers::pi) / plain;
    float expected = plain;
    if (wavelength > 8192.0f) expected = plain / 8.0f;
    else if (wavelength >= 2048.0f) {
      const float smooth = (8192.0f / wavelength - 1.0f) / 3.0f;
      expected = (1.0f - smooth) * plain / 8.0f + smooth * plain;
    }
    CHECK(inv_freq[static_cast<std::size_t>(i)] == expected);
  }
  std::vector<float> f32_cos(n * 128), f32_sin(n * 128);
  REQUIRE(rope_cache({.rotary_dim = 128, .base = 500000.0, .scaling = llama3, .precision = RopePrecision::kFloat32}, positions, f32_cos, f32_sin).ok());
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t i = 0; i < 64; ++i) {
      const float angle = inv_freq[i] * static_cast<float>(positions[r]);  // float(2^24 + 1) is 2^24: float32 loses the position too
      CHECK(f32_cos[r * 128 + i] == static_cast<float>(std::cos(static_cast<double>(angle))));
      CHECK(f32_sin[r * 128 + i + 64] == static_cast<float>(std::sin(static_cast<double>(angle))));
    }
  }
  CHECK(std::equal(f32_cos.begin() + 5 * 128, f32_cos.begin() + 6 * 128, f32_cos.begin() + 6 * 128));
  for (const auto [precision, bits] : {std::pair{RopePrecision::kBfloat16, 8}, std::pair{RopePrecision::kFloat16, 11}}) {
    std::vector<float> cos(n * 128), sin(n * 128);
    REQUIRE(rope_cache({.rotary_dim = 128, .base = 500000.0, .scaling = llama3, .precision = precision}, positions, cos, sin).ok());
    for (std::size_t j = 0; j < cos.size(); ++j) {
      const float value = cos[j];
      const double half_step = std::abs(f32_cos[j]) < 0x1p-14 ? 0x1p-25 : std::ldexp(std::abs(static_cast<double>(f32_cos[j])), -bits);
      INFO("bits " << bits << ", element " << j << ": " << f32_cos[j] << " -> " << value);
      REQUIRE(std::abs(static_cast<double>(value) - f32_cos[j]) <= half_step);
      int exponent = 0;
      const double mantissa = std::frexp(static_cast<double>(value), &exponent);
      const double scaled = std::ldexp(mantissa, bits);  // a whole number when value has at most `bits` significant bits
      if (std::abs(value) >= 0x1p-14) REQUIRE(scaled == std::trunc(scaled));
    }
  }
}

std::vector<float> rotate(const RopeParams& params, const std::vector<float>& x, const std::vector<int32_t>& positions) {
  std::vector<float> out(x.size());
  const auto rows = static_cast<int64_t>(x.size() / (positions.size() * static_cast<std::size_t>(params.head_dim)));
  const Status status = apply_rope(params, x, rows, positions, out);
  INFO(status.message());
  REQUIRE(status.ok());
  return out;
}

TEST_CASE("applyRope matches every golden vector", "[rope]") {
  const auto vectors = test::load_vectors("rope_apply");  // outlives the loop (a temporary would not)
  for (const auto& c : vectors.at("cases")) {
    SECTION(c.at("name").get<std::string>()) {
      const auto& p = c.at("params");
      RopeParams params{.head_dim = p.at("headDim").get<int64_t>(), .rotary_dim = p.at("rotaryDim").get<int64_t>(), .base = p.at("base").get<double>(),
                        .layout = *parse_rope_layout(p.at("layout").get<std::string>()), .scaling = scaling_from(p.at("scaling"))};
      const auto x = test::floats(c.at("input").at("x").at("data"));
      const auto positions = c.at("input").at("positions").get<std::vector<int32_t>>();
      test::require_close(rotate(params, x, positions), test::doubles(c.at("expected").at("data")), c.at("tolerance").at("abs").get<double>());
    }
  }
}

TEST_CASE("applyRope sweep against a double-precision rotation, large positions, both layouts, partial", "[rope]") {
  std::mt19937 generator(11);
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  std::uniform_int_distribution<int32_t> position(0, 1 << 24);
  double worst = 0.0;
  for (auto layout : {RopeLayout::kHalf, RopeLayout::kInterleaved}) {
    for (int64_t rotary : {64, 48}) {
      const RopeParams params{.head_dim = 64, .rotary_dim = rotary, .base = 10000.0, .layout = layout};
      const int64_t rows = 3;
      std::vector<int32_t> positions(17);
      for (auto& p : positions) p = position(generator);
      std::vector<float> x(static_cast<std::size_t>(rows) * positions.size() * 64);
      for (auto& v : x) v = value(generator);
      const auto out = rotate(params, x, positions);
      const int64_t half = rotary / 2;
      for (std::size_t row = 0; row < static_cast<std::size_t>(rows) * positions.size(); ++row) {
        const double p = positions[row % positions.size()];
        const float* in = x.data() + row * 64;
        const float* got = out.data() + row * 64;
        for (int64_t i = 0; i < half; ++i) {
          const double angle = p / std::pow(10000.0, 2.0 * static_cast<double>(i) / static_cast<double>(rotary));
          const auto [a, b] = layout == RopeLayout::kHalf ? std::pair{i, i + half} : std::pair{2 * i, 2 * i + 1};
          const double first = in[a] * std::cos(angle) - in[b] * std::sin(angle);
          const double second = in[b] * std::cos(angle) + in[a] * std::sin(angle);
          worst = std::max({worst, std::abs(got[a] - first), std::abs(got[b] - second)});
        }
        for (int64_t j = rotary; j < 64; ++j) REQUIRE(got[j] == in[j]);
      }
    }
  }
  INFO("worst error " << worst);
  CHECK(worst <= 4e-6);  // |x| <= 2: two products of 1-ulp sin/cos, well inside the 5e-6 of the vectors
}

TEST_CASE("applyRope with YaRN stays within 2e-6 of double-precision maths at the longest positions", "[rope]") {
  // The frequency a float32 ramp gives is off by ~6e-8 relative, which the position multiplies: 5e-3 at 2^24.
  const RopeScaling yarn{.type = "yarn", .factor = 32.0, .original_max_positions = 4096};
  const RopeParams params{.head_dim = 128, .rotary_dim = 128, .base = 10000.0, .layout = RopeLayout::kHalf, .scaling = yarn};
  const double attention = rope_attention_factor(yarn);
  const std::vector<int32_t> positions{0, 4095, 32767, (1 << 24) - 1};
  double worst = 0.0;
  for (int64_t unit = 0; unit < 128; ++unit) {
    std::vector<float> x(positions.size() * 128, 0.0f);
    for (std::size_t s = 0; s < positions.size(); ++s) x[s * 128 + static_cast<std::size_t>(unit)] = 1.0f;
    const auto out = rotate(params, x, positions);
    const int64_t pair = unit % 64;
    const double angle_per_position = reference_inv_freq(128, 10000.0, yarn, pair);
    for (std::size_t s = 0; s < positions.size(); ++s) {
      const double angle = positions[s] * angle_per_position;
      // e_unit rotates into its pair: (cos, sin) from the first half, (-sin, cos) from the second.
      const double first = unit < 64 ? std::cos(angle) : -std::sin(angle);
      const double second = unit < 64 ? std::sin(angle) : std::cos(angle);
      worst = std::max({worst, std::abs(out[s * 128 + static_cast<std::size_t>(pair)] - attention * first),
                        std::abs(out[s * 128 + static_cast<std::size_t>(pair + 64)] - attention * second)});
    }
  }
  INFO("worst error " << worst);
  CHECK(worst <= 2e-6);
}

TEST_CASE("applyRope works in place", "[rope]") {
  const RopeParams params{.head_dim = 8, .rotary_dim = 6};
  std::vector<float> x(2 * 8);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) * 0.1f;
  const std::vector<int32_t> positions = {5, 9};
  const auto expected = rotate(params, x, positions);
  REQUIRE(apply_rope(params, x, 1, positions, x).ok());
  CHECK(x == expected);
}

TEST_CASE("rotating by a table in blocks of any size equals applyRope, in place or not", "[rope]") {
  for (const auto layout : {RopeLayout::kHalf, RopeLayout::kInterleaved}) {
    const RopeParams params{.head_dim = 10, .rotary_dim = 8, .layout = layout, .scaling = {.type = "linear", .factor = 2}};
    const int64_t rows = 3;
    const std::vector<int32_t> positions = {7, 8, 9, 10, 11};
    const auto seq = static_cast<int64_t>(positions.size());
    std::vector<float> x(static_cast<std::size_t>(rows * seq * 10));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<float>(i));
    std::vector<float> expected(x.size());
    REQUIRE(apply_rope(params, x, rows, positions, expected).ok());
    std::vector<float> table(static_cast<std::size_t>(seq * 8));
    REQUIRE(rope_table(params, positions, table).ok());
    for (const int64_t block : {1, 2, 4, 5, 7, 15}) {  // blocks that split rows and sequences anywhere
      std::vector<float> out(x.size()), in_place = x;
      for (int64_t first = 0; first < rows * seq; first += block) {
        const int64_t count = std::min(block, rows * seq - first);
        const std::size_t at = static_cast<std::size_t>(first * 10), n = static_cast<std::size_t>(count * 10);
        REQUIRE(rotate_by_table(params, table, seq, first, count, std::span(x).subspan(at, n), std::span(out).subspan(at, n)).ok());
        REQUIRE(rotate_by_table(params, table, seq, first, count, std::span(in_place).subspan(at, n), std::span(in_place).subspan(at, n)).ok());
      }
      CHECK(out == expected);
      CHECK(in_place == expected);
    }
    std::vector<float> short_table(8);
    CHECK(rotate_by_table(params, short_table, seq, 0, 1, std::span(x).first(10), std::span(x).first(10)).message() == "table must hold seq * rotaryDim elements");
    CHECK(rotate_by_table(params, table, seq, 0, 2, std::span(x).first(10), std::span(x).first(20)).message() == "x must hold count * headDim = 20 elements, got 10");
  }
}

TEST_CASE("RoPE refuses x holding NaN or infinity, by the first vector that does, on any number of threads", "[rope]") {
  const RopeParams params{.head_dim = 8, .rotary_dim = 6, .layout = GENERATE(RopeLayout::kHalf, RopeLayout::kInterleaved)};
  const int64_t seq = 300;
  std::vector<int32_t> positions(seq);
  for (int64_t s = 0; s < seq; ++s) positions[static_cast<std::size_t>(s)] = static_cast<int32_t>(s);
  std::vector<float> x(static_cast<std::size_t>(2 * seq * 8), 0.5f), out(x.size());
  x[(400 * 8) + 7] = std::numeric_limits<float>::infinity();  // a passed-through column of vector 400
  x[(500 * 8) + 1] = std::numeric_limits<float>::quiet_NaN();
  const std::string message = "x must be finite: x.data[3200..3207] (vector 400 of [..., seq, headDim]) holds NaN or ±Infinity";
  CHECK(apply_rope(params, x, 2, positions, out).message() == message);
  const auto kept = x;
  CHECK(apply_rope(params, x, 2, positions, x).message() == message);
  CHECK(std::equal(x.begin(), x.end(), kept.begin(), [](float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }));  // in place: untouched
  // A block of vectors names them in the whole x.
  std::vector<float> table(static_cast<std::size_t>(seq * 6));
  REQUIRE(rope_table(params, positions, table).ok());
  CHECK(rotate_by_table(params, table, seq, 350, 100, std::span<const float>(x).subspan(350 * 8, 100 * 8), std::span<float>(out).subspan(0, 100 * 8)).message() ==
        message);
}

TEST_CASE("RoPE rejects bad parameters", "[rope]") {
  std::vector<double> inv_freq(4);
  CHECK(rope_inv_freq(7, 10000.0, {}, inv_freq).message() == "rotaryDim must be an even integer in [2, 65536], got 7");
  CHECK(rope_inv_freq(8, 10000.0, {.type = "linear", .factor = 0.5}, inv_freq).message() == "scaling.factor must be a number in [1, 1000000], got 0.5");
  CHECK(rope_inv_freq(8, 10000.0, {.type = "yarn", .factor = 2}, inv_freq).message() ==
        "scaling.originalMaxPositions must be an integer in [1, 2147483647], got 0");
  // A type no rule has is named with the rules there are (the table's names), and has no attention factor.
  std::string names;
  for (const RopeRuleParameters& rule : rope_rules()) names += (names.empty() ? "'" : ", '") + std::string(rule.name) + "'";
  CHECK(names.starts_with("'default', 'linear', 'dynamic', 'llama3', 'yarn', 'longrope', 'proportional'"));
  CHECK(rope_inv_freq(8, 10000.0, {.type = "ntk-by-parts"}, inv_freq).message() == "scaling.type must be one of " + names + ", got 'ntk-by-parts'");
  CHECK(std::isnan(rope_attention_factor({.type = "ntk-by-parts"})));
  std::vector<float> x(8), out(8);
  const std::vector<int32_t> positions = {-1};
  CHECK(apply_rope({.head_dim = 8, .rotary_dim = 10}, x, 1, positions, out).message() == "rotaryDim must be an even integer in [2, headDim] = [2, 8], got 10");
  CHECK(apply_rope({.head_dim = 8, .rotary_dim = 8}, x, 1, positions, out).message() == "positions[0] must be an integer in [0, 2147483647], got -1");
  const std::vector<int32_t> position = {0};
  for (const double base : {1.0, 0.0, -2.0, 2e12, std::nan("")}) {
    CHECK(apply_rope({.head_dim = 8, .rotary_dim = 8, .base = base}, x, 1, position, out).message().starts_with("base must be a number in (1, 1000000000000], got "));
  }
}

}  // namespace
}  // namespace posembed
