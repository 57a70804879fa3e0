// Shared by the sinusoidal and RoPE kernels: position * frequency reduced to [-pi, pi] in double precision,
// then rounded to float. The float sin/cos that follow are accurate to an ulp, where float(p * w) would be
// off by up to 2^-24 * p * w radians (0.06 near position 10^6).
#pragma once

namespace posembed::detail {

// 2*pi as hi + mid + lo, hi and mid with 24 significant bits: k * hi and k * mid are exact for k < 2^29,
// which covers every angle p * w with p < 2^31 and w <= 1 (Cody and Waite's reduction).
inline constexpr double kTwoPiHigh = 0x1.921fb4p+2;
inline constexpr double kTwoPiMid = 0x1.4442dp-22;
inline constexpr double kTwoPiLow = 0x1.8469898cc5170p-46;
inline constexpr double kInverseTwoPi = 0x1.45f306dc9c883p-3;

// Adding and subtracting 1.5 * 2^52 rounds a double below 2^51 to the nearest integer: one add and one
// subtract, where std::nearbyint is a library call on wasm.
inline constexpr double kRoundingShift = 0x1.8p52;

inline double reduced_angle_double(double position, double frequency) {
  const double angle = position * frequency;
  const double turns = (angle * kInverseTwoPi + kRoundingShift) - kRoundingShift;
  return ((angle - turns * kTwoPiHigh) - turns * kTwoPiMid) - turns * kTwoPiLow;
}

inline float reduced_angle(double position, double frequency) {
  return static_cast<float>(reduced_angle_double(position, frequency));
}

}  // namespace posembed::detail
