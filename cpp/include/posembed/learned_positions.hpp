// Learned absolute positions (BERT, GPT-2): a [maxLength, dModel] table, looked up by position (the token
// embedding's gather serves) and stretched to a longer length by align-corners linear interpolation.
#pragma once

#include <cstdint>
#include <span>

#include "posembed/status.hpp"

namespace posembed {

// out[i] = table at x = i * (length - 1) / (newLength - 1), linearly between its two neighbouring rows.
// table: [length, d_model], out: [new_length, d_model].
Status interpolate_positions(std::span<const float> table, int64_t length, int64_t d_model, int64_t new_length, std::span<float> out);

}  // namespace posembed
