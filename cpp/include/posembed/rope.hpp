// Rotary position embedding (Su et al. 2021): pairs of a query/key vector are rotated by position * w_i.
// Layout 'half' pairs dimension i with i + rotaryDim/2 (GPT-NeoX, LLaMA: rotate_half); 'interleaved' pairs
// 2i with 2i + 1 (GPT-J). Dimensions past rotaryDim pass through (partial rotary). The frequencies follow
// HF transformers' rope utils (ROPE_INIT_FUNCTIONS): default, linear, dynamic NTK, llama3, YaRN, LongRoPE and
// proportional, each one entry of the table of rules in rope.cpp. rope_cache writes a model's cos/sin cache as HF
// lays it out, exactly or in HF's float32 order of operations, with mRoPE's sections.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "posembed/status.hpp"

namespace posembed {

// A rule is named as HF's rope_type names it (rope_rules() lists them); a rule is one entry of the table in rope.cpp,
// so the core's other files know none by name.
struct RopeScaling {
  std::string type = "default";
  double factor = 1.0;                 // linear, dynamic, llama3, yarn, proportional; longrope: max / original max
  int64_t original_max_positions = 0;  // dynamic (the model's max positions), llama3, yarn, longrope
  int64_t sequence_length = 0;         // dynamic, longrope: max(positions) + 1 of what is encoded
  double low_freq_factor = 1.0;        // llama3
  double high_freq_factor = 4.0;       // llama3
  double beta_fast = 32.0;             // yarn
  double beta_slow = 1.0;              // yarn
  double attention_factor = 0.0;       // yarn, longrope: 0 means the rule's own
  double mscale = 0.0;                 // yarn (DeepSeek): 0 means absent
  double mscale_all_dim = 0.0;         // yarn (DeepSeek): 0 means absent
  bool truncate = true;                // yarn: round the correction range to whole pairs
  std::vector<double> short_factor;    // longrope: rotary_dim / 2 divisors, up to the original length
  std::vector<double> long_factor;     // longrope: past it
  int64_t rotated_pairs = 0;           // proportional: pairs that turn (the rest have frequency 0); 0 means all
};

Status validate(const RopeScaling& scaling, int64_t rotary_dim);

// A scaling rule's parameter, stated once: its name in the API and its key in HF's rope_scaling (empty where HF has
// none), what it does, the RopeScaling field it sets (whose initial value is its default), and its range (a list's: each value's; none for a boolean). The rules name
// the parameters they read, the first `required` of them required (rope_rules); the
// core checks each against its range, and the bindings read and the package checks a scaling object by this table.
struct RopeParameter {
  using Field = std::variant<double RopeScaling::*, int64_t RopeScaling::*, bool RopeScaling::*, std::vector<double> RopeScaling::*>;
  std::string_view name;
  std::string_view hf_key;
  std::string_view doc;  // what it sets, in a few words (the package's declarations and the elements' attributes)
  Field field;
  double low = 0.0;
  double high = 0.0;
  LowBound low_bound = LowBound::kIncluded;
  std::string_view note = {};
};
std::span<const RopeParameter> rope_parameters();

struct RopeRuleParameters {
  std::string_view name;
  std::span<const std::string_view> parameters;
  std::size_t required = 0;
};
std::span<const RopeRuleParameters> rope_rules();

// inv_freq[i] for i < rotary_dim / 2, in double precision.
Status rope_inv_freq(int64_t rotary_dim, double base, const RopeScaling& scaling, std::span<double> inv_freq);

// The same in HF's order of operations with float32 intermediates (what a model's float32 buffer holds, to the
// ulp of torch's pow).
Status rope_inv_freq_float32(int64_t rotary_dim, double base, const RopeScaling& scaling, std::span<float> inv_freq);

// What cos and sin are multiplied by: YaRN's and LongRoPE's attention factor, 1 for the other rules; NaN for a
// type no rule has.
double rope_attention_factor(const RopeScaling& scaling);

enum class RopeLayout { kHalf, kInterleaved };
std::optional<RopeLayout> parse_rope_layout(std::string_view name);

struct RopeParams {
  int64_t head_dim = 0;
  int64_t rotary_dim = 0;  // even, <= head_dim
  double base = 10000.0;
  RopeLayout layout = RopeLayout::kHalf;
  RopeScaling scaling;
};

Status validate(const RopeParams& params);

// The sin and cos of every (position, pair), times the attention factor: table [positions, rotary_dim], each
// row the rotary_dim / 2 sines, then the cosines. What apply_rope rotates by; the WebGPU path uploads it.
Status rope_table(const RopeParams& params, std::span<const int32_t> positions, std::span<float> table);

// Rotates `count` consecutive vectors of a [rows, seq, head_dim] tensor from vector `first` on (x and out
// hold just those vectors; vector v is at the position of table row v % seq) by table [seq, rotary_dim] from
// rope_table. out may be x itself. How apply_rope rotates once it has its table; a caller streaming x
// through memory a block at a time builds the table once and rotates each block.
Status rotate_by_table(const RopeParams& params, std::span<const float> table, int64_t seq, int64_t first, int64_t count,
                       std::span<const float> x, std::span<float> out);

// x and out: [rows, seq, head_dim] (rows = product of the leading dims); positions: [seq], each in
// [0, 2^31 - 1]. out may be x itself.
Status apply_rope(const RopeParams& params, std::span<const float> x, int64_t rows, std::span<const int32_t> positions,
                  std::span<float> out);

// How a cache is computed: 'exact' (float64 angles, range-reduced, then rounded), HF's 'float32' order of operations
// (float32 frequencies, angle = float(w) * float(position) in float32, cos/sin of that angle), or that float32 cache
// rounded to bfloat16 or float16 as a model of that dtype casts it.
enum class RopePrecision { kExact, kFloat32, kBfloat16, kFloat16 };
std::optional<RopePrecision> parse_rope_precision(std::string_view name);

// mRoPE (Qwen2-VL, Qwen3-VL): each frequency pair takes its angle from one of three position streams (time, height,
// width). Sectioned: the first section[0] pairs from time, the next section[1] from height, the rest from width;
// interleaved: pair i from height when i % 3 == 1 and i < 3 * section[1], from width when i % 3 == 2 and
// i < 3 * section[2], else from time.
struct Mrope {
  std::array<int64_t, 3> section{};  // all 0: no mRoPE
  bool interleaved = false;
  bool active() const { return section[0] + section[1] + section[2] > 0; }
  // The stream pair i takes its position from.
  int stream(int64_t pair) const;
};

struct RopeCacheParams {
  int64_t rotary_dim = 0;
  double base = 10000.0;
  RopeLayout layout = RopeLayout::kHalf;
  RopeScaling scaling;  // dynamic and longrope pick their frequencies from max(positions) + 1, as HF does
  Mrope mrope;
  RopePrecision precision = RopePrecision::kExact;
  // Dynamic and LongRoPE: the sequence length their frequencies are chosen for; 0: max(positions) + 1. A caller
  // writing a cache a block of rows at a time gives the whole cache's.
  int64_t sequence_length = 0;
};

Status validate(const RopeCacheParams& params);

// cos and sin [count, rotary_dim] in HF's layout (half: cat(freqs, freqs); interleaved: each frequency twice in a
// row), times the attention factor. positions: [streams, count] (streams 3 with mRoPE, else 1), each >= 0.
Status rope_cache(const RopeCacheParams& params, std::span<const int32_t> positions, std::span<float> cos, std::span<float> sin);

}  // namespace posembed
