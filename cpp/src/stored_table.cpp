#include "posembed/stored_table.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "posembed/limits.hpp"
#include "bits.hpp"

namespace posembed {
namespace {

using detail::bits_as;

// Each widening below is exact and branch-free, so that the compiler turns its loop into SIMD: a value's exponent and
// mantissa are moved into float32's places and the difference of the biases multiplied in (exact: a power of two),
// which also makes the narrower type's subnormals normal float32s; the codes for infinity and NaN are then set apart.

template <class Stored>
Stored load_stored(const void* values, std::size_t i) {
  Stored value;
  std::memcpy(&value, static_cast<const unsigned char*>(values) + i * sizeof(Stored), sizeof(Stored));
  return value;
}

// IEEE half (bias 15) from its 15 magnitude bits and its sign.
float half_from_bits(uint32_t h) {
  const uint32_t magnitude = h & 0x7fffu;
  float value = bits_as<float>(magnitude << 13) * 0x1p112f;
  if (magnitude >= 0x7c00u) value = bits_as<float>(0x7f800000u | ((magnitude & 0x3ffu) << 13));  // inf, NaN
  return bits_as<float>(bits_as<uint32_t>(value) | ((h & 0x8000u) << 16));
}

// F8 E4M3 in its "fn" form (bias 7, no infinities, S.1111.111 is NaN).
float e4m3_from_bits(uint32_t b) {
  const uint32_t magnitude = b & 0x7fu;
  float value = bits_as<float>(magnitude << 20) * 0x1p120f;
  if (magnitude == 0x7fu) value = bits_as<float>(0x7fc00000u);
  return bits_as<float>(bits_as<uint32_t>(value) | ((b & 0x80u) << 24));
}

template <class Stored, class Widen>
void widen_each(const void* values, std::size_t count, float* out, Widen widen) {
  for (std::size_t i = 0; i < count; ++i) out[i] = widen(static_cast<uint32_t>(load_stored<Stored>(values, i)));
}

// The bits that are all set in a non-finite value's code, and only there: its exponent's (E4M3, without infinities:
// exponent and mantissa, its NaN).
uint32_t non_finite_mask(FileDType dtype) {
  switch (dtype) {
    case FileDType::kF32: return 0x7f800000u;
    case FileDType::kF16: return 0x7c00u;
    case FileDType::kBF16: return 0x7f80u;
    case FileDType::kF8E4M3: return 0x7fu;
    case FileDType::kF8E5M2: return 0x7cu;
    default: return 0;
  }
}

// Blocks are tested whole first (the least of the codes' unset mask bits, 0 where a code has them all set: a minimum
// vectorises, and runs at the speed of reading memory); only a block with a non-finite value is searched for the first.
template <class Stored>
int64_t first_non_finite_code(const StoredTable& table) {
  const auto mask = static_cast<Stored>(non_finite_mask(table.dtype));
  const std::size_t count = static_cast<std::size_t>(table.rows) * static_cast<std::size_t>(table.cols);
  const auto* codes = static_cast<const unsigned char*>(table.data);
  constexpr std::size_t kBlock = 4096;
  for (std::size_t start = 0; start < count; start += kBlock) {
    const std::size_t end = std::min(count, start + kBlock);
    Stored least = mask;
    for (std::size_t i = start; i < end; ++i) least = std::min<Stored>(least, static_cast<Stored>(~load_stored<Stored>(codes, i) & mask));
    if (least != 0) continue;
    for (std::size_t i = start; i < end; ++i) {
      if ((load_stored<Stored>(codes, i) & mask) == mask) return static_cast<int64_t>(i);
    }
  }
  return -1;
}

}  // namespace

bool is_table_dtype(FileDType dtype) {
  return dtype == FileDType::kF32 || dtype == FileDType::kF16 || dtype == FileDType::kBF16 || dtype == FileDType::kF8E4M3 ||
         dtype == FileDType::kF8E5M2;
}

Status check_stored_table(std::string_view name, const StoredTable& table) {
  const std::string prefix(name);
  if (!is_table_dtype(table.dtype)) {
    return Status::range_error(prefix + ".dtype must be one of F32, F16, BF16, F8_E4M3, F8_E5M2, got " + dtype_name(table.dtype));
  }
  POSEMBED_RETURN_IF_ERROR(check_integer(prefix + " rows", table.rows, 1, limits::kMaxVocabSize));
  POSEMBED_RETURN_IF_ERROR(check_integer(prefix + " columns", table.cols, 1, limits::kMaxDModel));
  if (table.data == nullptr) return Status::range_error(prefix + " has no storage");
  return {};
}

void widen_values(FileDType dtype, const void* values, std::size_t count, float* out) {
  switch (dtype) {
    case FileDType::kF32:
      if (count > 0) std::memcpy(out, values, count * sizeof(float));
      break;
    case FileDType::kF16:
      widen_each<uint16_t>(values, count, out, half_from_bits);
      break;
    case FileDType::kBF16:
      widen_each<uint16_t>(values, count, out, [](uint32_t b) { return bits_as<float>(b << 16); });
      break;
    case FileDType::kF8E5M2:  // the top byte of a half
      widen_each<uint8_t>(values, count, out, [](uint32_t b) { return half_from_bits(b << 8); });
      break;
    case FileDType::kF8E4M3:
      widen_each<uint8_t>(values, count, out, e4m3_from_bits);
      break;
    default:
      break;
  }
}

const float* table_rows(const StoredTable& table, std::size_t first, std::size_t count, std::vector<float>& scratch) {
  const auto cols = static_cast<std::size_t>(table.cols);
  if (const float* floats = table.floats()) return floats + first * cols;
  if (scratch.size() < count * cols) scratch.resize(count * cols);
  widen_values(table.dtype, static_cast<const unsigned char*>(table.data) + first * table.row_bytes(), count * cols, scratch.data());
  return scratch.data();
}

int64_t first_non_finite(const StoredTable& table) {
  switch (element_size(table.dtype)) {
    case 4: return first_non_finite_code<uint32_t>(table);
    case 2: return first_non_finite_code<uint16_t>(table);
    default: return first_non_finite_code<uint8_t>(table);
  }
}

}  // namespace posembed
