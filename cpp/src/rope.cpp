#include "posembed/rope.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <numbers>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "angle_reduction.hpp"
#include "posembed/sinusoidal.hpp"
#include "sinusoidal_rows.hpp"
#include "posembed/limits.hpp"
#include "posembed/simd.hpp"
#include "posembed/threads.hpp"

namespace posembed {
namespace {

// 1 / base^(2i / dim): in double for the exact maths, in float for HF's float32 buffer (torch computes
// base ** (arange(0, dim, 2).float() / dim) in float32).
template <class Real>
Real plain_inv_freq(Real base, int64_t pair, int64_t dim) {
  return Real(1) / std::pow(base, static_cast<Real>(2 * pair) / static_cast<Real>(dim));
}

// YaRN's correction dimension: the pair index whose wavelength fits num_rotations times into the original context.
double yarn_correction_dim(double num_rotations, int64_t dim, double base, int64_t max_positions) {
  return static_cast<double>(dim) * std::log(static_cast<double>(max_positions) / (num_rotations * 2.0 * std::numbers::pi)) /
         (2.0 * std::log(base));
}

// YaRN's get_mscale: 0.1 * mscale * ln(scale) + 1 past a scale of 1.
double yarn_mscale(double scale, double mscale) { return scale <= 1.0 ? 1.0 : 0.1 * mscale * std::log(scale) + 1.0; }

// The table's bounds as doubles, the type its rows hold them in.
constexpr double kScalingBound = limits::kMaxScalingValue;
constexpr double kPositionBound = static_cast<double>(limits::kMaxPosition);

constexpr std::array kParameters{
    RopeParameter{"factor", "factor", "how many times longer the context is made", &RopeScaling::factor, 1.0, kScalingBound},
    RopeParameter{"originalMaxPositions", "original_max_position_embeddings", "the length the model was trained at", &RopeScaling::original_max_positions, 1.0, kPositionBound},
    RopeParameter{"sequenceLength", "", "the length being encoded", &RopeScaling::sequence_length, 0.0, kPositionBound, LowBound::kIncluded, "0: the positions' own, within the trained length without them"},
    RopeParameter{"lowFreqFactor", "low_freq_factor", "pairs whose wavelength exceeds the trained length over it turn factor times slower", &RopeScaling::low_freq_factor, 0.0, kScalingBound, LowBound::kExcluded},
    RopeParameter{"highFreqFactor", "high_freq_factor", "pairs whose wavelength is under the trained length over it keep their rate", &RopeScaling::high_freq_factor, 0.0, kScalingBound, LowBound::kExcluded},
    // HF accepts any positive betas (Kimi K2 sets both to 1): equal ones meet at one pair, which the ramp's 0.001 widens.
    RopeParameter{"betaFast", "beta_fast", "pairs turning more often than this over the trained length keep their rate", &RopeScaling::beta_fast, 0.0, kScalingBound, LowBound::kExcluded},
    RopeParameter{"betaSlow", "beta_slow", "pairs turning less often than this over the trained length are interpolated", &RopeScaling::beta_slow, 0.0, kScalingBound, LowBound::kExcluded},
    RopeParameter{"attentionFactor", "attention_factor", "what cos and sin are multiplied by", &RopeScaling::attention_factor, 0.0, kScalingBound, LowBound::kIncluded, "0: the rule's own"},
    RopeParameter{"mscale", "mscale", "DeepSeek's magnitude scale of the queries and keys", &RopeScaling::mscale, 0.0, kScalingBound, LowBound::kIncluded, "0: absent"},
    RopeParameter{"mscaleAllDim", "mscale_all_dim", "DeepSeek's magnitude scale it is divided by", &RopeScaling::mscale_all_dim, 0.0, kScalingBound, LowBound::kIncluded, "0: absent"},
    RopeParameter{"truncate", "truncate", "round the interpolation ramp's ends to whole pairs", &RopeScaling::truncate},
    RopeParameter{"shortFactor", "short_factor", "each pair's divisor within the trained length", &RopeScaling::short_factor, 1.0, kScalingBound},
    RopeParameter{"longFactor", "long_factor", "each pair's divisor past it", &RopeScaling::long_factor, 1.0, kScalingBound},
    RopeParameter{"rotatedPairs", "", "the pairs that turn, from the fastest (the others stay still)", &RopeScaling::rotated_pairs, 0.0, static_cast<double>(limits::kMaxDModel / 2), LowBound::kIncluded, "0: all"},
};

constexpr const RopeParameter* parameter_named(std::string_view name) {
  for (const RopeParameter& p : kParameters) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

// A parameter's value in s checked against its range, named as the API spells it (scaling.factor).
Status check_parameter(const RopeParameter& p, const RopeScaling& s) {
  const std::string name = "scaling." + std::string(p.name);
  return std::visit([&](auto field) -> Status {
    using Value = std::remove_cvref_t<decltype(s.*field)>;
    if constexpr (std::is_same_v<Value, double>) {
      return check_number(name, s.*field, p.low, p.high, p.low_bound, p.note);
    } else if constexpr (std::is_same_v<Value, int64_t>) {
      return check_integer(name, s.*field, static_cast<int64_t>(p.low), static_cast<int64_t>(p.high), p.note);
    } else if constexpr (std::is_same_v<Value, std::vector<double>>) {
      const auto& values = s.*field;
      for (std::size_t i = 0; i < values.size(); ++i) {
        const Status status = check_number(name, values[i], p.low, p.high, p.low_bound, p.note);
        if (!status.ok()) return check_number(name + "[" + std::to_string(i) + "]", values[i], p.low, p.high, p.low_bound, p.note);
      }
      return {};
    } else {
      return {};
    }
  }, p.field);
}

// Every parameter the rule reads, checked against its range; then the rule's own checks, which join parameters.
template <class Rule>
Status checked(const RopeScaling& s, int64_t dim) {
  for (const std::string_view name : Rule::parameters) POSEMBED_RETURN_IF_ERROR(check_parameter(*parameter_named(name), s));
  return Rule::joint_checks(s, dim);
}

Status no_joint_checks(const RopeScaling&, int64_t) { return {}; }
double unit_attention(const RopeScaling&) { return 1.0; }

// One rule of HF's ROPE_INIT_FUNCTIONS: its checks, its frequencies (written once over the float type: double
// for the exact maths, float for HF's float32 order of operations) and its attention factor.
struct DefaultRule {
  static constexpr std::string_view name = "default";
  static constexpr std::array<std::string_view, 0> parameters{};
  static constexpr std::size_t required = 0;
  static Status joint_checks(const RopeScaling& s, int64_t dim) { return no_joint_checks(s, dim); }
  template <class Real>
  static void inv_freq(const RopeScaling&, int64_t dim, double base, Real* out) {
    for (int64_t i = 0; i < dim / 2; ++i) out[i] = plain_inv_freq(static_cast<Real>(base), i, dim);
  }
  static double attention(const RopeScaling& s) { return unit_attention(s); }
};

struct LinearRule {
  static constexpr std::string_view name = "linear";
  static constexpr std::array<std::string_view, 1> parameters{"factor"};
  static constexpr std::size_t required = 1;
  static Status joint_checks(const RopeScaling& s, int64_t dim) { return no_joint_checks(s, dim); }
  template <class Real>
  static void inv_freq(const RopeScaling& s, int64_t dim, double base, Real* out) {
    for (int64_t i = 0; i < dim / 2; ++i) out[i] = plain_inv_freq(static_cast<Real>(base), i, dim) / static_cast<Real>(s.factor);
  }
  static double attention(const RopeScaling& s) { return unit_attention(s); }
};

// Dynamic NTK: past the model's length the base grows so the longest wavelength stretches over the sequence.
struct DynamicRule {
  static constexpr std::string_view name = "dynamic";
  static constexpr std::array<std::string_view, 3> parameters{"factor", "originalMaxPositions", "sequenceLength"};
  static constexpr std::size_t required = 2;
  // The frequencies are those of a sequence of sequence_length (rope_cache fills it in from the positions; 0, within
  // the trained length, leaves the base as it is).
  static Status joint_checks(const RopeScaling& s, int64_t dim) { return no_joint_checks(s, dim); }
  template <class Real>
  static void inv_freq(const RopeScaling& s, int64_t dim, double base, Real* out) {
    double grown = base;  // in double, as HF's Python float
    if (s.sequence_length > s.original_max_positions) {
      const double ratio = s.factor * static_cast<double>(s.sequence_length) / static_cast<double>(s.original_max_positions) - (s.factor - 1.0);
      grown = base * std::pow(ratio, static_cast<double>(dim) / static_cast<double>(dim - 2));
    }
    for (int64_t i = 0; i < dim / 2; ++i) out[i] = plain_inv_freq(static_cast<Real>(grown), i, dim);
  }
  static double attention(const RopeScaling& s) { return unit_attention(s); }
};

// Llama 3.1: long wavelengths interpolated by factor, short ones kept, a smooth blend between.
struct Llama3Rule {
  static constexpr std::string_view name = "llama3";
  static constexpr std::array<std::string_view, 4> parameters{"factor", "originalMaxPositions", "lowFreqFactor", "highFreqFactor"};
  static constexpr std::size_t required = 2;
  static Status joint_checks(const RopeScaling& s, int64_t) {
    if (s.low_freq_factor > s.high_freq_factor) {
      return out_of_range("scaling.lowFreqFactor", "at most scaling.highFreqFactor = " + js_number(s.high_freq_factor), s.low_freq_factor);
    }
    return {};
  }
  template <class Real>
  static void inv_freq(const RopeScaling& s, int64_t dim, double base, Real* out) {
    const auto context = static_cast<Real>(s.original_max_positions);
    const Real low_freq_wavelength = context / static_cast<Real>(s.low_freq_factor);
    const Real high_freq_wavelength = context / static_cast<Real>(s.high_freq_factor);
    const auto factor = static_cast<Real>(s.factor);
    for (int64_t i = 0; i < dim / 2; ++i) {
      const Real f = plain_inv_freq(static_cast<Real>(base), i, dim);
      const Real wavelength = static_cast<Real>(2.0 * std::numbers::pi) / f;
      if (wavelength > low_freq_wavelength) {
        out[i] = f / factor;  // long wavelengths: interpolate
      } else if (wavelength >= high_freq_wavelength && s.high_freq_factor > s.low_freq_factor) {
        // (Equal factors, as Llama 4's, leave no band between: nothing to blend.)
        const Real smooth = (context / wavelength - static_cast<Real>(s.low_freq_factor)) / static_cast<Real>(s.high_freq_factor - s.low_freq_factor);
        out[i] = (Real(1) - smooth) * f / factor + smooth * f;
      } else {
        out[i] = f;  // short wavelengths: unchanged
      }
    }
  }
  static double attention(const RopeScaling& s) { return unit_attention(s); }
};

// YaRN: a ramp over the pairs from extrapolation (fast pairs kept) to interpolation (slow pairs / factor), and an
// attention factor (DeepSeek's mscale / mscale_all_dim where both are given).
struct YarnRule {
  static constexpr std::string_view name = "yarn";
  static constexpr std::array<std::string_view, 8> parameters{"factor", "originalMaxPositions", "attentionFactor", "betaFast", "betaSlow", "mscale",
                                                              "mscaleAllDim", "truncate"};
  static constexpr std::size_t required = 2;
  static Status joint_checks(const RopeScaling& s, int64_t dim) { return no_joint_checks(s, dim); }
  template <class Real>
  static void inv_freq(const RopeScaling& s, int64_t dim, double base, Real* out) {
    double low = yarn_correction_dim(s.beta_fast, dim, base, s.original_max_positions);
    double high = yarn_correction_dim(s.beta_slow, dim, base, s.original_max_positions);
    if (s.truncate) {
      low = std::floor(low);
      high = std::ceil(high);
    }
    low = std::max(low, 0.0);
    high = std::min(high, static_cast<double>(dim - 1));
    if (low == high) high += 0.001;
    const auto factor = static_cast<Real>(s.factor);
    for (int64_t i = 0; i < dim / 2; ++i) {
      // For the exact maths the ramp is in double: HF's float32 ramp carries a relative rounding of ~6e-8 into the
      // frequency, which the position multiplies (5e-3 of error in the angle at 2^24).
      const Real ramp = std::clamp((static_cast<Real>(i) - static_cast<Real>(low)) / static_cast<Real>(high - low), Real(0), Real(1));
      const Real extrapolation = Real(1) - ramp;
      const Real turns = std::pow(static_cast<Real>(base), static_cast<Real>(2 * i) / static_cast<Real>(dim));
      out[i] = Real(1) / (factor * turns) * (Real(1) - extrapolation) + Real(1) / turns * extrapolation;
    }
  }
  static double attention(const RopeScaling& s) {
    if (s.attention_factor > 0.0) return s.attention_factor;
    if (s.mscale > 0.0 && s.mscale_all_dim > 0.0) return yarn_mscale(s.factor, s.mscale) / yarn_mscale(s.factor, s.mscale_all_dim);
    return yarn_mscale(s.factor, 1.0);
  }
};

// LongRoPE (Phi-3): a divisor per pair, the short list up to the original length and the long one past it.
struct LongropeRule {
  static constexpr std::string_view name = "longrope";
  static constexpr std::array<std::string_view, 6> parameters{"factor", "originalMaxPositions", "shortFactor", "longFactor", "attentionFactor", "sequenceLength"};
  static constexpr std::size_t required = 4;
  static Status joint_checks(const RopeScaling& s, int64_t dim) {
    for (const auto& [list, field] : {std::pair{&s.short_factor, "scaling.shortFactor"}, std::pair{&s.long_factor, "scaling.longFactor"}}) {
      if (list->size() != static_cast<std::size_t>(dim / 2)) {
        return Status::range_error(std::string(field) + " must hold rotaryDim / 2 = " + std::to_string(dim / 2) + " numbers, got " + std::to_string(list->size()));
      }
    }
    return {};
  }
  template <class Real>
  static void inv_freq(const RopeScaling& s, int64_t dim, double base, Real* out) {
    const auto& divisors = s.sequence_length > s.original_max_positions ? s.long_factor : s.short_factor;
    for (int64_t i = 0; i < dim / 2; ++i) {
      out[i] = Real(1) / (static_cast<Real>(divisors[static_cast<std::size_t>(i)]) * std::pow(static_cast<Real>(base), static_cast<Real>(2 * i) / static_cast<Real>(dim)));
    }
  }
  static double attention(const RopeScaling& s) {
    if (s.attention_factor > 0.0) return s.attention_factor;
    return s.factor <= 1.0 ? 1.0 : std::sqrt(1.0 + std::log(s.factor) / std::log(static_cast<double>(s.original_max_positions)));
  }
};

// Proportional (p-RoPE): the first rotated_pairs pairs turn with exponents over the whole head, the rest do not.
struct ProportionalRule {
  static constexpr std::string_view name = "proportional";
  static constexpr std::array<std::string_view, 2> parameters{"factor", "rotatedPairs"};
  static constexpr std::size_t required = 0;
  static Status joint_checks(const RopeScaling& s, int64_t dim) {
    if (s.rotated_pairs > dim / 2) {
      return out_of_range("scaling.rotatedPairs", "an integer in [0, rotaryDim / 2] = [0, " + std::to_string(dim / 2) + "] (0: all)",
                          static_cast<double>(s.rotated_pairs));
    }
    return {};
  }
  template <class Real>
  static void inv_freq(const RopeScaling& s, int64_t dim, double base, Real* out) {
    const int64_t turning = s.rotated_pairs == 0 ? dim / 2 : s.rotated_pairs;
    for (int64_t i = 0; i < dim / 2; ++i) out[i] = i < turning ? plain_inv_freq(static_cast<Real>(base), i, dim) / static_cast<Real>(s.factor) : Real(0);
  }
  static double attention(const RopeScaling& s) { return unit_attention(s); }
};

// The table of rules: a rule is its struct above and its row here.
struct RopeRule {
  std::string_view name;
  std::span<const std::string_view> parameters;  // by name (kParameters), the first `required` required
  std::size_t required;
  Status (*validate)(const RopeScaling&, int64_t dim);
  void (*inv_freq_double)(const RopeScaling&, int64_t dim, double base, double* out);
  void (*inv_freq_float)(const RopeScaling&, int64_t dim, double base, float* out);
  double (*attention)(const RopeScaling&);

  constexpr bool reads(std::string_view parameter) const {
    return std::find(parameters.begin(), parameters.end(), parameter) != parameters.end();
  }
};

// Whether every parameter a rule names is a row of kParameters.
template <class Rule>
constexpr bool names_known_parameters() {
  for (const std::string_view name : Rule::parameters) {
    if (parameter_named(name) == nullptr) return false;
  }
  return true;
}

template <class Rule>
constexpr RopeRule rule_entry() {
  static_assert(names_known_parameters<Rule>(), "a rule reads a parameter that kParameters has no row for");
  return {Rule::name, Rule::parameters, Rule::required, &checked<Rule>, &Rule::template inv_freq<double>, &Rule::template inv_freq<float>,
          &Rule::attention};
}

constexpr std::array kRopeRules{rule_entry<DefaultRule>(), rule_entry<LinearRule>(), rule_entry<DynamicRule>(), rule_entry<Llama3Rule>(),
                                rule_entry<YarnRule>(), rule_entry<LongropeRule>(), rule_entry<ProportionalRule>()};

// A type names one rule: no two rows share a name.
constexpr bool rule_names_unique() {
  for (std::size_t i = 0; i < kRopeRules.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (kRopeRules[i].name == kRopeRules[j].name) return false;
    }
  }
  return true;
}
static_assert(rule_names_unique(), "two rules of kRopeRules share a name");

// The rule a scaling type names; null for a type no rule has.
const RopeRule* rule_named(std::string_view type) {
  for (const RopeRule& rule : kRopeRules) {
    if (rule.name == type) return &rule;
  }
  return nullptr;
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

Status frequency_arguments(int64_t rotary_dim, double base, const RopeScaling& s, std::size_t out_size) {
  POSEMBED_RETURN_IF_ERROR(check_even_integer("rotaryDim", rotary_dim, 2, limits::kMaxDModel));
  POSEMBED_RETURN_IF_ERROR(check_number("base", base, 1.0, limits::kMaxBase, LowBound::kExcluded));
  POSEMBED_RETURN_IF_ERROR(validate(s, rotary_dim));
  const auto half = static_cast<std::size_t>(rotary_dim / 2);
  if (out_size != half) return output_size_error(half, out_size);
  return {};
}

}  // namespace

std::span<const RopeParameter> rope_parameters() { return kParameters; }

std::span<const RopeRuleParameters> rope_rules() {
  static const auto rules = [] {
    std::array<RopeRuleParameters, kRopeRules.size()> out;
    for (std::size_t i = 0; i < kRopeRules.size(); ++i) out[i] = {kRopeRules[i].name, kRopeRules[i].parameters, kRopeRules[i].required};
    return out;
  }();
  return rules;
}

std::optional<RopeLayout> parse_rope_layout(std::string_view name) {
  if (name == "half") return RopeLayout::kHalf;
  if (name == "interleaved") return RopeLayout::kInterleaved;
  return std::nullopt;
}

Status validate(const RopeScaling& s, int64_t rotary_dim) {
  const RopeRule* rule = rule_named(s.type);
  if (rule == nullptr) {
    std::string names;
    for (const RopeRule& known : kRopeRules) names.append(names.empty() ? "'" : ", '").append(known.name).append("'");
    return Status::type_error("scaling.type must be one of " + names + ", got '" + s.type + "'");
  }
  return rule->validate(s, rotary_dim);
}

double rope_attention_factor(const RopeScaling& s) {
  const RopeRule* rule = rule_named(s.type);
  return rule == nullptr ? std::numeric_limits<double>::quiet_NaN() : rule->attention(s);
}

Status rope_inv_freq(int64_t rotary_dim, double base, const RopeScaling& s, std::span<double> inv_freq) {
  POSEMBED_RETURN_IF_ERROR(frequency_arguments(rotary_dim, base, s, inv_freq.size()));
  rule_named(s.type)->inv_freq_double(s, rotary_dim, base, inv_freq.data());
  return {};
}

Status rope_inv_freq_float32(int64_t rotary_dim, double base, const RopeScaling& s, std::span<float> inv_freq) {
  POSEMBED_RETURN_IF_ERROR(frequency_arguments(rotary_dim, base, s, inv_freq.size()));
  rule_named(s.type)->inv_freq_float(s, rotary_dim, base, inv_freq.data());
  return {};
}

Status validate(const RopeParams& p) {
  POSEMBED_RETURN_IF_ERROR(check_integer("headDim", p.head_dim, 2, limits::kMaxDModel));
  if (p.rotary_dim < 2 || p.rotary_dim > p.head_dim || p.rotary_dim % 2 != 0) {
    return out_of_range("rotaryDim", "an even integer in [2, headDim] = [2, " + std::to_string(p.head_dim) + "]", static_cast<double>(p.rotary_dim));
  }
  POSEMBED_RETURN_IF_ERROR(check_number("base", p.base, 1.0, limits::kMaxBase, LowBound::kExcluded));
  return validate(p.scaling, p.rotary_dim);
}

Status rope_table(const RopeParams& params, std::span<const int32_t> positions, std::span<float> table) {
  POSEMBED_RETURN_IF_ERROR(validate(params));
  const auto seq = positions.size();
  const auto half = static_cast<std::size_t>(params.rotary_dim / 2);
  if (seq < 1) return Status::range_error("positions must hold at least one position");
  if (table.size() != 2 * seq * half) return output_size_error(2 * seq * half, table.size());
  for (std::size_t s = 0; s < seq; ++s) {
    if (positions[s] < 0) return check_integer("positions[" + std::to_string(s) + "]", positions[s], 0, limits::kMaxPosition);
  }
  std::unique_ptr<double[]> inv_freq(new (std::nothrow) double[half]);
  if (!inv_freq) return Status::range_error("applyRope: out of memory for its frequencies");
  POSEMBED_RETURN_IF_ERROR(rope_inv_freq(params.rotary_dim, params.base, params.scaling, {inv_freq.get(), half}));
  // Rows [sin | cos] per position: the sinusoidal writer's split layout with these frequencies.
  const bool consecutive = std::adjacent_find(positions.begin(), positions.end(), [](int32_t a, int32_t b) { return b != a + 1; }) == positions.end();
  if (consecutive) {
    const detail::SinusoidalRows rows{.first = positions[0], .count = static_cast<int64_t>(seq), .width = params.rotary_dim, .layout = SinusoidalLayout::kSplit};
    POSEMBED_RETURN_IF_ERROR(detail::write_sinusoidal_rows(rows, inv_freq.get(), table.data()));
  } else {
    POSEMBED_RETURN_IF_ERROR(detail::write_sinusoidal_rows_at(params.rotary_dim, SinusoidalLayout::kSplit, inv_freq.get(), positions, table.data()));
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

std::optional<RopePrecision> parse_rope_precision(std::string_view name) {
  if (name == "exact") return RopePrecision::kExact;
  if (name == "float32") return RopePrecision::kFloat32;
  if (name == "bfloat16") return RopePrecision::kBfloat16;
  if (name == "float16") return RopePrecision::kFloat16;
  return std::nullopt;
}

int Mrope::stream(int64_t pair) const {
  if (!active()) return 0;
  if (interleaved) {
    if (pair % 3 == 1 && pair < 3 * section[1]) return 1;
    if (pair % 3 == 2 && pair < 3 * section[2]) return 2;
    return 0;
  }
  if (pair < section[0]) return 0;
  return pair < section[0] + section[1] ? 1 : 2;
}

Status validate(const RopeCacheParams& p) {
  POSEMBED_RETURN_IF_ERROR(check_even_integer("rotaryDim", p.rotary_dim, 2, limits::kMaxDModel));
  POSEMBED_RETURN_IF_ERROR(check_number("base", p.base, 1.0, limits::kMaxBase, LowBound::kExcluded));
  if (p.mrope.active()) {
    for (std::size_t i = 0; i < 3; ++i) {
      if (p.mrope.section[i] < 0) return out_of_range("mropeSection[" + std::to_string(i) + "]", "an integer >= 0", static_cast<double>(p.mrope.section[i]));
    }
    const int64_t pairs = p.mrope.section[0] + p.mrope.section[1] + p.mrope.section[2];
    if (pairs != p.rotary_dim / 2) {
      return Status::range_error("mropeSection must add up to rotaryDim / 2 = " + std::to_string(p.rotary_dim / 2) + " pairs, got " + std::to_string(pairs));
    }
  }
  return validate(p.scaling, p.rotary_dim);
}

namespace {

// A float32 value as a model of that dtype holds it: rounded to the nearest bfloat16 (8 significant bits) or
// float16 (11 bits, subnormal below 2^-14), ties to even, as torch's .to(dtype) rounds.
float round_to_bfloat16(float value) {
  if (std::isnan(value)) return value;
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  bits &= 0xffff0000u;
  std::memcpy(&value, &bits, sizeof bits);
  return value;
}

float round_to_float16(float value) {
  if (!std::isfinite(value) || value == 0.0f) return value;
  int exponent = 0;
  std::frexp(static_cast<double>(value), &exponent);
  const double step = std::ldexp(1.0, std::max(exponent, -13) - 11);  // the float16 spacing at value
  const double rounded = std::nearbyint(static_cast<double>(value) / step) * step;
  return std::abs(rounded) > 65504.0 ? std::copysign(std::numeric_limits<float>::infinity(), value) : static_cast<float>(rounded);
}

float in_dtype(float value, RopePrecision precision) {
  if (precision == RopePrecision::kBfloat16) return round_to_bfloat16(value);
  if (precision == RopePrecision::kFloat16) return round_to_float16(value);
  return value;
}

// Where pair i's two columns are in HF's layout: half (cat(freqs, freqs)) or interleaved (each frequency twice).
std::pair<std::size_t, std::size_t> cache_columns(RopeLayout layout, std::size_t half, std::size_t pair) {
  return layout == RopeLayout::kHalf ? std::pair{pair, pair + half} : std::pair{2 * pair, 2 * pair + 1};
}

constexpr std::size_t kCacheBlockRows = 1024;  // rows of the exact path's sin|cos scratch: it stays in cache

// One row's sines (or cosines) of the pairs, times factor, written into a cache row in HF's layout: the half
// layout holds them twice in a row (cat(freqs, freqs)), the interleaved one each value twice in a row.
void spread_row(const float* values, float factor, RopeLayout layout, std::size_t half, float* row) {
  if (layout == RopeLayout::kHalf) {
    simd::for_each_float(half, [&]<class V>(std::size_t i) {
      const V v = simd::load<V>(values + i) * V(factor);
      simd::store(row + i, v);
      simd::store(row + half + i, v);
    });
    return;
  }
  simd::for_each_batch<1>(
      half,
      [&]<class V>(std::size_t p) {
        const V v = simd::load<V>(values + p) * V(factor);
        simd::store(row + 2 * p, simd::twice_low(v));
        simd::store(row + 2 * p + V::size, simd::twice_high(v));
      },
      [&](std::size_t p) { row[2 * p] = row[2 * p + 1] = values[p] * factor; });
}

// The exact cache: per position stream, the pairs it drives, written by the sinusoidal writer (exact anchors and
// rotations, range-reduced in double) a block of rows at a time, then spread into HF's layout.
Status exact_cache(const RopeCacheParams& p, const double* inv_freq, double attention, std::span<const int32_t> positions, std::size_t count,
                   std::span<float> cos, std::span<float> sin) {
  const auto half = static_cast<std::size_t>(p.rotary_dim / 2);
  const auto width = static_cast<std::size_t>(p.rotary_dim);
  const auto factor = static_cast<float>(attention);
  std::vector<std::size_t> pairs;
  std::vector<double> frequencies;
  std::unique_ptr<float[]> rows(new (std::nothrow) float[kCacheBlockRows * 2 * half]);
  if (!rows) return Status::range_error("ropeCache: out of memory for its workspace");
  for (int stream = 0; stream < (p.mrope.active() ? 3 : 1); ++stream) {
    pairs.clear();
    frequencies.clear();
    for (std::size_t i = 0; i < half; ++i) {
      if (p.mrope.stream(static_cast<int64_t>(i)) != stream) continue;
      pairs.push_back(i);
      frequencies.push_back(inv_freq[i]);
    }
    if (pairs.empty()) continue;
    const std::size_t k = pairs.size();
    const auto stream_positions = positions.subspan(static_cast<std::size_t>(stream) * count, count);
    for (std::size_t first = 0; first < count; first += kCacheBlockRows) {
      const std::size_t n = std::min(kCacheBlockRows, count - first);
      const auto block = stream_positions.subspan(first, n);
      const bool consecutive = std::adjacent_find(block.begin(), block.end(), [](int32_t a, int32_t b) { return b != a + 1; }) == block.end();
      const detail::SinusoidalRows block_rows{.first = block[0], .count = static_cast<int64_t>(n), .width = static_cast<int64_t>(2 * k), .layout = SinusoidalLayout::kSplit};
      POSEMBED_RETURN_IF_ERROR(consecutive ? detail::write_sinusoidal_rows(block_rows, frequencies.data(), rows.get())
                                           : detail::write_sinusoidal_rows_at(block_rows.width, block_rows.layout, frequencies.data(), block, rows.get()));
      parallel_for_each_row(static_cast<int64_t>(n), static_cast<int64_t>(2 * width), [&](std::size_t r) {
        const float* row = rows.get() + r * 2 * k;
        float* cos_row = cos.data() + (first + r) * width;
        float* sin_row = sin.data() + (first + r) * width;
        if (k == half) {  // every pair from this stream: whole rows at a time
          spread_row(row, factor, p.layout, half, sin_row);
          spread_row(row + k, factor, p.layout, half, cos_row);
          return;
        }
        for (std::size_t j = 0; j < k; ++j) {
          const auto [a, b] = cache_columns(p.layout, half, pairs[j]);
          cos_row[a] = cos_row[b] = row[k + j] * factor;
          sin_row[a] = sin_row[b] = row[j] * factor;
        }
      });
    }
  }
  return {};
}

// HF's float32 order: angle = float(w) * float(position) rounded to float, its cos and sin (to the ulp: computed
// in double and rounded), times float(attention), then cast to the model's dtype.
void float32_cache(const RopeCacheParams& p, const float* inv_freq, double attention, std::span<const int32_t> positions, std::size_t count,
                   std::span<float> cos, std::span<float> sin) {
  const auto half = static_cast<std::size_t>(p.rotary_dim / 2);
  const auto width = static_cast<std::size_t>(p.rotary_dim);
  const auto factor = static_cast<float>(attention);
  parallel_for_each_row(static_cast<int64_t>(count), p.rotary_dim * 8, [&](std::size_t r) {
    for (std::size_t i = 0; i < half; ++i) {
      const auto stream = static_cast<std::size_t>(p.mrope.stream(static_cast<int64_t>(i)));
      const float angle = inv_freq[i] * static_cast<float>(positions[stream * count + r]);
      const float c = in_dtype(static_cast<float>(std::cos(static_cast<double>(angle))) * factor, p.precision);
      const float s = in_dtype(static_cast<float>(std::sin(static_cast<double>(angle))) * factor, p.precision);
      const auto [a, b] = cache_columns(p.layout, half, i);
      cos[r * width + a] = cos[r * width + b] = c;
      sin[r * width + a] = sin[r * width + b] = s;
    }
  });
}

}  // namespace

Status rope_cache(const RopeCacheParams& given, std::span<const int32_t> positions, std::span<float> cos, std::span<float> sin) {
  const std::size_t streams = given.mrope.active() ? 3 : 1;
  if (positions.empty() || positions.size() % streams != 0) {
    return Status::range_error("positions must hold " + std::string(streams == 3 ? "3 streams (time, height, width) of " : "") +
                               "at least one position, got " + std::to_string(positions.size()) + " values");
  }
  int32_t largest = 0;
  for (std::size_t i = 0; i < positions.size(); ++i) {
    if (positions[i] < 0) return check_integer("positions[" + std::to_string(i) + "]", positions[i], 0, limits::kMaxPosition);
    largest = std::max(largest, positions[i]);
  }
  // The rules that read a sequence length (dynamic NTK, LongRoPE) choose their frequencies from the longest sequence
  // the positions make, as HF's dynamic_rope_update does for a fresh model.
  RopeCacheParams params = given;
  POSEMBED_RETURN_IF_ERROR(check_integer("sequenceLength", params.sequence_length, 0, limits::kMaxPosition + 1, "0: max(positions) + 1"));
  const RopeRule* rule = rule_named(params.scaling.type);
  if (rule != nullptr && rule->reads("sequenceLength")) {
    params.scaling.sequence_length = params.sequence_length > 0 ? params.sequence_length : static_cast<int64_t>(largest) + 1;
  }
  POSEMBED_RETURN_IF_ERROR(validate(params));
  const std::size_t count = positions.size() / streams;
  const std::size_t elements = count * static_cast<std::size_t>(params.rotary_dim);
  if (cos.size() != elements) return output_size_error(elements, cos.size());
  if (sin.size() != elements) return output_size_error(elements, sin.size());
  const auto half = static_cast<std::size_t>(params.rotary_dim / 2);
  const double attention = rope_attention_factor(params.scaling);
  if (params.precision == RopePrecision::kExact) {
    std::vector<double> inv_freq(half);
    POSEMBED_RETURN_IF_ERROR(rope_inv_freq(params.rotary_dim, params.base, params.scaling, inv_freq));
    return exact_cache(params, inv_freq.data(), attention, positions, count, cos, sin);
  }
  std::vector<float> inv_freq(half);
  POSEMBED_RETURN_IF_ERROR(rope_inv_freq_float32(params.rotary_dim, params.base, params.scaling, inv_freq));
  float32_cache(params, inv_freq.data(), attention, positions, count, cos, sin);
  return {};
}

}  // namespace posembed
