#include "posembed/random.hpp"

#include <cmath>

namespace posembed {

// SplitMix64 (Steele, Lea, Flood 2014): passes BigCrush, one 64-bit state, trivially seeded.
uint64_t Random::next_u64() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

double Random::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

double Random::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_normal_;
  }
  double u = 0.0, v = 0.0, s = 0.0;
  do {
    u = 2.0 * uniform() - 1.0;
    v = 2.0 * uniform() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double factor = std::sqrt(-2.0 * portable_log(s) / s);  // sqrt is correctly rounded everywhere
  spare_normal_ = v * factor;
  has_spare_ = true;
  return u * factor;
}

double portable_log(double x) {
  // x = m * 2^e with m in [sqrt(1/2), sqrt(2)); log m = 2 atanh(t), t = (m - 1) / (m + 1), |t| < 0.1716.
  int exponent = 0;
  double m = std::frexp(x, &exponent);  // exact
  if (m < 0.70710678118654752440) {
    m *= 2.0;
    exponent -= 1;
  }
  const double t = (m - 1.0) / (m + 1.0);
  const double t2 = t * t;
  // atanh(t)/t = sum t^(2k) / (2k + 1); 12 terms leave < 1e-19 relative at |t| = 0.1716.
  double series = 1.0 / 25.0;
  for (int k = 11; k >= 0; --k) series = series * t2 + 1.0 / (2.0 * k + 1.0);
  constexpr double kLn2High = 0x1.62e42fefa3800p-1;  // ln 2 with the low bits cleared, so e * high is exact
  constexpr double kLn2Low = 0x1.ef35793c76730p-45;
  const double e = exponent;
  return (e * kLn2High + 2.0 * t * series) + e * kLn2Low;
}

double portable_exp(double x) {
  if (x != x) return x;
  if (x > 709.78) return HUGE_VAL;
  if (x < -745.2) return 0.0;
  // x = k ln 2 + r with |r| <= ln 2 / 2 (Cody and Waite's two-part ln 2 keeps r exact), e^x = 2^k e^r.
  constexpr double kLn2High = 0x1.62e42fefa3800p-1;
  constexpr double kLn2Low = 0x1.ef35793c76730p-45;
  const double k = std::nearbyint(x * 1.4426950408889634074);  // exact: rounding to an integer
  const double r = (x - k * kLn2High) - k * kLn2Low;
  // Taylor series to r^16 / 16!: < 1e-19 relative at |r| = 0.347.
  double series = 1.0;
  for (int n = 16; n >= 1; --n) series = 1.0 + series * r / n;
  return std::ldexp(series, static_cast<int>(k));  // exact (or the correctly rounded subnormal)
}

void fill_normal(Random& random, double mean, double std, std::span<float> out) {
  for (float& value : out) value = static_cast<float>(mean + std * random.normal());
}

void fill_uniform(Random& random, double low, double high, std::span<float> out) {
  for (float& value : out) value = static_cast<float>(low + (high - low) * random.uniform());
}

}  // namespace posembed
