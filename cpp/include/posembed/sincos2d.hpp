// 2-D sin-cos position embedding for image patches (ViT/MAE): the first dModel/2 channels are the 1-D
// encoding (split layout: sines, then cosines) of the patch's column, the rest that of its row. Patches are
// row-major over (row, column); clsToken prepends a row of zeros.
#pragma once

#include <cstdint>
#include <span>

#include "posembed/core_ops.hpp"
#include "posembed/status.hpp"

namespace posembed {

struct Sincos2dParams {
  int64_t grid_h = 0;
  int64_t grid_w = 0;
  int64_t d_model = 0;  // divisible by 4
  double base = 10000.0;
  bool cls_token = false;
};

Status validate(const Sincos2dParams& params);

// out: [(clsToken ? 1 : 0) + gridH * gridW, dModel].
Status sincos2d(const Sincos2dParams& params, std::span<float> out);

// A run of sincos2d's rows (the cls row first, when clsToken), from first_row on, as many as out holds, given
// table: the 1-D encoding it assembles them from, positions 0 .. max(gridH, gridW) - 1 in dModel / 2 columns
// (sinusoidal, split layout, the same base): a large grid can be written a block of rows at a time, the table
// computed once.
Status sincos2d_rows(const Sincos2dParams& params, std::span<const float> table, int64_t first_row, std::span<float> out);

// The same as the core's op sincos2d (core_ops.hpp), which the package calls: its input is the 1-D table.
extern const CoreOp kSincos2dOp;

}  // namespace posembed
