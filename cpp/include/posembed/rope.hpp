// Rotary position embedding (Su et al. 2021): pairs of a query/key vector are rotated by position * w_i.
// Layout 'half' pairs dimension i with i + rotaryDim/2 (GPT-NeoX, LLaMA: rotate_half); 'interleaved' pairs
// 2i with 2i + 1 (GPT-J). Dimensions past rotaryDim pass through (partial rotary). The frequencies follow
// HF transformers' rope utils: default, linear, dynamic NTK, llama3 and YaRN scaling.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "posembed/status.hpp"

namespace posembed {

enum class RopeScalingKind { kDefault, kLinear, kDynamic, kLlama3, kYarn };
std::optional<RopeScalingKind> parse_rope_scaling(std::string_view name);

struct RopeScaling {
  RopeScalingKind kind = RopeScalingKind::kDefault;
  double factor = 1.0;                 // linear, dynamic, llama3, yarn
  int64_t original_max_positions = 0;  // dynamic, llama3, yarn
  int64_t sequence_length = 0;         // dynamic: the length being encoded
  double low_freq_factor = 1.0;        // llama3
  double high_freq_factor = 4.0;       // llama3
  double beta_fast = 32.0;             // yarn
  double beta_slow = 1.0;              // yarn
  double attention_factor = 0.0;       // yarn: 0 means 0.1 ln(factor) + 1
};

Status validate(const RopeScaling& scaling);

// inv_freq[i] for i < rotary_dim / 2, in double precision.
Status rope_inv_freq(int64_t rotary_dim, double base, const RopeScaling& scaling, std::span<double> inv_freq);

// What cos and sin are multiplied by: 1, except YaRN's attention factor.
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

}  // namespace posembed
