// A [rows, cols] table kept on the heap as its checkpoint stores it: float32, float16, bfloat16 or float8 (E4M3 or
// E5M2), little-endian. The ops that read a token table (lookup, nearest rows, PCA) widen its rows to float32 a few
// at a time where they use them, so a BF16 vocabulary takes half the memory of a float32 one and is never widened
// whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "posembed/weight_files.hpp"

namespace posembed {

struct StoredTable {
  const void* data = nullptr;
  FileDType dtype = FileDType::kF32;
  int64_t rows = 0;
  int64_t cols = 0;

  std::size_t row_bytes() const { return static_cast<std::size_t>(cols) * element_size(dtype); }
  // The table's values where they lie, when they are float32 already; else null.
  const float* floats() const { return dtype == FileDType::kF32 ? static_cast<const float*>(data) : nullptr; }
};

// The dtypes a table is kept in: F32, F16, BF16, F8_E4M3, F8_E5M2.
bool is_table_dtype(FileDType dtype);
// A table's shape and dtype; its name in errors ("table").
Status check_stored_table(std::string_view name, const StoredTable& table);

// count stored values of dtype (a table dtype) as float32, exactly (every one of them is a float32 value).
void widen_values(FileDType dtype, const void* values, std::size_t count, float* out);

// Rows [first, first + count) of the table as float32: where they lie (F32), else widened into scratch (grown as
// needed; what it held before is overwritten).
const float* table_rows(const StoredTable& table, std::size_t first, std::size_t count, std::vector<float>& scratch);

// The index of the first NaN or ±Infinity among the table's values, or -1: a pass over its bits.
int64_t first_non_finite(const StoredTable& table);

}  // namespace posembed
