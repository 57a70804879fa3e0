#include "posembed/rope.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>
#include <new>
#include <numbers>

#include "angle_reduction.hpp"
#include "posembed/sinusoidal.hpp"
#include "sinusoidal_rows.hpp"
#include "posembed/limits.hpp"
#include "posembed/simd.hpp"
#include "posembed/threads.hpp"

namespace posembed {
namespace {

double default_inv_freq(double base, int64_t pair, int64_t dim) {
  return 1.0 / std::pow(base, static_cast<double>(2 * pair) / static_cast<double>(dim));
}

// YaRN's correction dimension: the pair index whose wavelength fits num_rotations times into the original context.
double yarn_correction_dim(double num_rotations, int64_t dim, double base, int64_t max_positions) {
  return static_cast<double>(dim) * std::log(static_cast<double>(max_positions) / (num_rotations * 2.0 * std::numbers::pi)) /
         (2.0 * std::log(base));
}

// Sums x - x over the values it is shown, in the loop that reads them anyway: 0 while every one is finite,
// NaN once one is NaN or ±Infinity.
struct FiniteCheck {
  simd::Widest batches = simd::Widest(0.0f);
  float tail = 0.0f;

  template <class V>
  void add(const V& value) {
    if constexpr (std::is_same_v<V, simd::Widest>) {
      batches += value - value;
    } else {
      tail += value - value;
    }
  }

  bool all_finite() const { return simd::reduce_add(batches) + tail == 0.0f; }
};

// x's vectors of d values, from first_vector on: the error for vector v (counted from first_vector) holding
// NaN or ±Infinity.
Status nonfinite_error(std::size_t v, int64_t first_vector, std::size_t d) {
  const std::size_t row = static_cast<std::size_t>(first_vector) + v;
  return Status::range_error("x must be finite: x.data[" + std::to_string(row * d) + ".." + std::to_string((row + 1) * d - 1) + "] (vector " +
                             std::to_string(row) + " of [..., seq, headDim]) holds NaN or ±Infinity");
}

}  // namespace

std::optional<RopeScalingKind> parse_rope_scaling(std::string_view name) {
  if (name == "default") return RopeScalingKind::kDefault;
  if (name == "linear") return RopeScalingKind::kLinear;
  if (name == "dynamic") return RopeScalingKind::kDynamic;
  if (name == "llama3") return RopeScalingKind::kLlama3;
  if (name == "yarn") return RopeScalingKind::kYarn;
  return std::nullopt;
}

std::optional<RopeLayout> parse_rope_layout(std::string_view name) {
  if (name == "half") return RopeLayout::kHalf;
  if (name == "interleaved") return RopeLayout::kInterleaved;
  return std::nullopt;
}

Status validate(const RopeScaling& s) {
  if (s.kind == RopeScalingKind::kDefault) return {};
  if (!(s.factor >= 1.0 && s.factor <= 1e6)) return out_of_range("scaling.factor", "a number in [1, 1000000]", s.factor);
  if (s.kind == RopeScalingKind::kLinear) return {};
  if (s.original_max_positions < 1 || s.original_max_positions > limits::kMaxPosition) {
    return out_of_range("scaling.originalMaxPositions", "an integer in [1, 2147483647]", static_cast<double>(s.original_max_positions));
  }
  if (s.kind == RopeScalingKind::kDynamic && (s.sequence_length < 1 || s.sequence_length > limits::kMaxPosition)) {
    return out_of_range("scaling.sequenceLength", "an integer in [1, 2147483647]", static_cast<double>(s.sequence_length));
  }
  if (s.kind == RopeScalingKind::kLlama3 && !(s.low_freq_factor > 0.0 && s.high_freq_factor > s.low_freq_factor && s.high_freq_factor <= 1e6)) {
    return Status::range_error("scaling.lowFreqFactor and scaling.highFreqFactor must satisfy 0 < lowFreqFactor < highFreqFactor <= 1000000, got " +
                               std::to_string(s.low_freq_factor) + " and " + std::to_string(s.high_freq_factor));
  }
  if (s.kind == RopeScalingKind::kYarn) {
    if (!(s.beta_slow > 0.0 && s.beta_fast > s.beta_slow && s.beta_fast <= 1e6)) {
      return Status::range_error("scaling.betaSlow and scaling.betaFast must satisfy 0 < betaSlow < betaFast <= 1000000, got " +
                                 std::to_string(s.beta_slow) + " and " + std::to_string(s.beta_fast));
    }
    if (!(s.attention_factor >= 0.0 && s.attention_factor <= 1e6)) return out_of_range("scaling.attentionFactor", "a number in [0, 1000000] (0: 0.1 ln(factor) + 1)", s.attention_factor);
  }
  return {};
}

double rope_attention_factor(const RopeScaling& s) {
  if (s.kind != RopeScalingKind::kYarn) return 1.0;
  if (s.attention_factor > 0.0) return s.attention_factor;
  return s.factor > 1.0 ? 0.1 * std::log(s.factor) + 1.0 : 1.0;
}

Status rope_inv_freq(int64_t rotary_dim, double base, const RopeScaling& s, std::span<double> inv_freq) {
  if (rotary_dim < 2 || rotary_dim > limits::kMaxDModel || rotary_dim % 2 != 0) {
    return out_of_range("rotaryDim", "an even integer in [2, 65536]", static_cast<double>(rotary_dim));
  }
  if (!(base > 1.0 && base <= limits::kMaxBase)) return out_of_range("base", "a number in (1, 1e12]", base);
  POSEMBED_RETURN_IF_ERROR(validate(s));
  const int64_t half = rotary_dim / 2;
  if (inv_freq.size() != static_cast<std::size_t>(half)) return output_size_error(static_cast<std::size_t>(half), inv_freq.size());

  double effective_base = base;
  if (s.kind == RopeScalingKind::kDynamic && s.sequence_length > s.original_max_positions) {
    // NTK-aware: grow the base so the longest wavelength stretches over the longer sequence.
    const double ratio = s.factor * static_cast<double>(s.sequence_length) / static_cast<double>(s.original_max_positions) - (s.factor - 1.0);
    effective_base = base * std::pow(ratio, static_cast<double>(rotary_dim) / static_cast<double>(rotary_dim - 2));
  }
  for (int64_t i = 0; i < half; ++i) inv_freq[static_cast<std::size_t>(i)] = default_inv_freq(effective_base, i, rotary_dim);

  if (s.kind == RopeScalingKind::kLinear) {
    for (double& f : inv_freq) f /= s.factor;
  } else if (s.kind == RopeScalingKind::kLlama3) {
    const auto context = static_cast<double>(s.original_max_positions);
    const double low_freq_wavelength = context / s.low_freq_factor;
    const double high_freq_wavelength = context / s.high_freq_factor;
    for (double& f : inv_freq) {
      const double wavelength = 2.0 * std::numbers::pi / f;
      if (wavelength > low_freq_wavelength) {
        f /= s.factor;  // long wavelengths: interpolate
      } else if (wavelength >= high_freq_wavelength) {
        const double smooth = (context / wavelength - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
        f = (1.0 - smooth) * f / s.factor + smooth * f;
      }  // short wavelengths: unchanged
    }
  } else if (s.kind == RopeScalingKind::kYarn) {
    double low = std::floor(yarn_correction_dim(s.beta_fast, rotary_dim, base, s.original_max_positions));
    double high = std::ceil(yarn_correction_dim(s.beta_slow, rotary_dim, base, s.original_max_positions));
    low = std::max(low, 0.0);
    high = std::min(high, static_cast<double>(rotary_dim - 1));
    if (low == high) high += 0.001;
    for (std::size_t i = 0; i < inv_freq.size(); ++i) {
      // The ramp in double: HF's float32 ramp carries a relative rounding of ~6e-8 into the frequency, which the
      // position multiplies (5e-3 of error in the angle at 2^24).
      const double ramp = std::clamp((static_cast<double>(i) - low) / (high - low), 0.0, 1.0);
      const double extrapolation = 1.0 - ramp;
      inv_freq[i] = inv_freq[i] / s.factor * (1.0 - extrapolation) + inv_freq[i] * extrapolation;
    }
  }
  return {};
}

Status validate(const RopeParams& p) {
  if (p.head_dim < 2 || p.head_dim > limits::kMaxDModel) return out_of_range("headDim", "an integer in [2, 65536]", static_cast<double>(p.head_dim));
  if (p.rotary_dim < 2 || p.rotary_dim > p.head_dim || p.rotary_dim % 2 != 0) {
    return out_of_range("rotaryDim", "an even integer in [2, headDim] = [2, " + std::to_string(p.head_dim) + "]", static_cast<double>(p.rotary_dim));
  }
  return validate(p.scaling);
}

Status rope_table(const RopeParams& params, std::span<const int32_t> positions, std::span<float> table) {
  POSEMBED_RETURN_IF_ERROR(validate(params));
  const auto seq = positions.size();
  const auto half = static_cast<std::size_t>(params.rotary_dim / 2);
  if (seq < 1) return Status::range_error("positions must hold at least one position");
  if (table.size() != 2 * seq * half) return output_size_error(2 * seq * half, table.size());
  for (std::size_t s = 0; s < seq; ++s) {
    if (positions[s] < 0) return out_of_range("positions[" + std::to_string(s) + "]", "an integer in [0, 2147483647]", positions[s]);
  }
  std::unique_ptr<double[]> inv_freq(new (std::nothrow) double[half]);
  if (!inv_freq) return Status::range_error("applyRope: out of memory for its frequencies");
  POSEMBED_RETURN_IF_ERROR(rope_inv_freq(params.rotary_dim, params.base, params.scaling, {inv_freq.get(), half}));
  // Rows [sin | cos] per position: the sinusoidal writer's split layout with these frequencies.
  const bool consecutive = std::adjacent_find(positions.begin(), positions.end(), [](int32_t a, int32_t b) { return b != a + 1; }) == positions.end();
  const SinusoidalParams rows{.length = static_cast<int64_t>(seq), .d_model = params.rotary_dim, .layout = SinusoidalLayout::kSplit, .offset = positions[0]};
  if (consecutive) {
    POSEMBED_RETURN_IF_ERROR(detail::write_sinusoidal_rows(rows, inv_freq.get(), table.data()));
  } else {
    POSEMBED_RETURN_IF_ERROR(detail::write_sinusoidal_rows_at(rows, inv_freq.get(), positions, table.data()));
  }
  const auto factor = static_cast<float>(rope_attention_factor(params.scaling));
  if (factor != 1.0f) {
    simd::for_each_float(table.size(), [&]<class V>(std::size_t i) { simd::store(table.data() + i, simd::load<V>(table.data() + i) * V(factor)); });
  }
  return {};
}

Status rotate_by_table(const RopeParams& params, std::span<const float> table, int64_t seq, int64_t first, int64_t count,
                       std::span<const float> x, std::span<float> out) {
  POSEMBED_RETURN_IF_ERROR(validate(params));
  const auto d = static_cast<std::size_t>(params.head_dim);
  const auto half = static_cast<std::size_t>(params.rotary_dim / 2);
  if (seq < 1 || table.size() != static_cast<std::size_t>(seq) * 2 * half) {
    return Status::range_error("table must hold seq * rotaryDim elements");
  }
  if (first < 0 || count < 0) return Status::range_error("first and count must be >= 0");
  const std::size_t elements = static_cast<std::size_t>(count) * d;
  if (x.size() != elements) return Status::range_error("x must hold count * headDim = " + std::to_string(elements) + " elements, got " + std::to_string(x.size()));
  if (out.size() != elements) return output_size_error(elements, out.size());

  // NaN or ±Infinity in x is refused, by the vector that holds it (the first such, whichever thread met it),
  // checked in the loop that rotates it.
  std::atomic<std::size_t> first_refused{static_cast<std::size_t>(count)};
  const std::size_t pass_through = d - 2 * half;
  parallel_for_each_row(count, params.head_dim, [&](std::size_t v) {
    const float* in = x.data() + v * d;
    float* result = out.data() + v * d;
    FiniteCheck check;
    const std::size_t position = (static_cast<std::size_t>(first) + v) % static_cast<std::size_t>(seq);
    const float* sn = table.data() + position * 2 * half;
    const float* c = sn + half;
    if (params.layout == RopeLayout::kHalf) {
      simd::for_each_float(half, [&]<class V>(std::size_t i) {
        const V x1 = simd::load<V>(in + i);
        const V x2 = simd::load<V>(in + half + i);
        check.add(x1);
        check.add(x2);
        const V cosine = simd::load<V>(c + i);
        const V sine = simd::load<V>(sn + i);
        simd::store(result + i, x1 * cosine - x2 * sine);
        simd::store(result + half + i, x2 * cosine + x1 * sine);
      });
    } else {
      // Pairs (2i, 2i + 1) turn as x * (cos, cos) + (x with each pair swapped) * (-sin, +sin): the table's
      // per-pair values are spread over both columns in registers, W pairs (two batches) at a time.
      simd::for_each_batch<1>(
          half,
          [&]<class V>(std::size_t p) {
            const V cosines = simd::load<V>(c + p);
            const V sines = simd::load<V>(sn + p);
            const V signs = simd::alternating_signs<V>();
            const V low = simd::load<V>(in + 2 * p);
            const V high = simd::load<V>(in + 2 * p + V::size);
            check.add(low);
            check.add(high);
            simd::store(result + 2 * p, low * simd::twice_low(cosines) + simd::swap_pairs(low) * (simd::twice_low(sines) * signs));
            simd::store(result + 2 * p + V::size, high * simd::twice_high(cosines) + simd::swap_pairs(high) * (simd::twice_high(sines) * signs));
          },
          [&](std::size_t p) {
            const float x1 = in[2 * p];
            const float x2 = in[2 * p + 1];
            check.add(x1);
            check.add(x2);
            result[2 * p] = x1 * c[p] - x2 * sn[p];
            result[2 * p + 1] = x2 * c[p] + x1 * sn[p];
          });
    }
    if (pass_through > 0) {
      simd::for_each_float(pass_through, [&]<class V>(std::size_t i) { check.add(simd::load<V>(in + 2 * half + i)); });
      if (result != in) std::memcpy(result + 2 * half, in + 2 * half, pass_through * sizeof(float));
    }
    if (!check.all_finite()) {
      std::size_t seen = first_refused.load();
      while (v < seen && !first_refused.compare_exchange_weak(seen, v)) {
      }
    }
  });
  if (const std::size_t v = first_refused.load(); v < static_cast<std::size_t>(count)) return nonfinite_error(v, first, d);
  return {};
}

Status apply_rope(const RopeParams& params, std::span<const float> x, int64_t rows, std::span<const int32_t> positions,
                  std::span<float> out) {
  POSEMBED_RETURN_IF_ERROR(validate(params));
  const auto seq = positions.size();
  const auto d = static_cast<std::size_t>(params.head_dim);
  const auto rotary_dim = static_cast<std::size_t>(params.rotary_dim);
  const std::size_t elements = static_cast<std::size_t>(rows) * seq * d;
  if (rows < 1 || seq < 1 || x.size() != elements) {
    return Status::range_error("x must hold rows * seq * headDim = " + std::to_string(elements) + " elements, got " + std::to_string(x.size()));
  }
  if (out.size() != elements) return output_size_error(elements, out.size());
  // Rotated in place, x is checked whole first: a refused call leaves it as it was.
  if (x.data() == out.data()) {
    for (std::size_t v = 0; v < x.size() / d; ++v) {
      FiniteCheck check;
      simd::for_each_float(d, [&]<class V>(std::size_t i) { check.add(simd::load<V>(x.data() + v * d + i)); });
      if (!check.all_finite()) return nonfinite_error(v, 0, d);
    }
  }
  std::unique_ptr<float[]> table(new (std::nothrow) float[seq * rotary_dim]);
  if (!table) return Status::range_error("applyRope: out of memory for its cos/sin table");
  POSEMBED_RETURN_IF_ERROR(rope_table(params, positions, {table.get(), seq * rotary_dim}));
  return rotate_by_table(params, {table.get(), seq * rotary_dim}, static_cast<int64_t>(seq), 0, rows * static_cast<int64_t>(seq), x, out);
}

}  // namespace posembed
