#include "posembed/stored_table.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "posembed/analysis.hpp"
#include "posembed/token_embedding.hpp"

#include <catch2/catch.hpp>

namespace posembed {
namespace {

// The value of a binary float code with the given field widths and bias, from its fields (an independent reading:
// ldexp on the fields, subnormals and specials by the format's rules); fn: no infinities, all-ones NaN (E4M3).
double decode_fields(uint32_t code, int exponent_bits, int mantissa_bits, int bias, bool fn) {
  const bool negative = (code >> (exponent_bits + mantissa_bits)) & 1u;
  const uint32_t exponent = (code >> mantissa_bits) & ((1u << exponent_bits) - 1);
  const uint32_t mantissa = code & ((1u << mantissa_bits) - 1);
  const uint32_t top = (1u << exponent_bits) - 1;
  double magnitude;
  if (fn && exponent == top && mantissa == (1u << mantissa_bits) - 1) return std::numeric_limits<double>::quiet_NaN();
  if (!fn && exponent == top) magnitude = mantissa ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (exponent == 0) magnitude = std::ldexp(static_cast<double>(mantissa), 1 - bias - mantissa_bits);
  else magnitude = std::ldexp(1.0 + std::ldexp(static_cast<double>(mantissa), -mantissa_bits), static_cast<int>(exponent) - bias);
  return negative ? -magnitude : magnitude;
}

struct Format {
  FileDType dtype;
  int exponent_bits, mantissa_bits, bias;
  bool fn;
};
constexpr Format kFormats[] = {
    {FileDType::kF16, 5, 10, 15, false}, {FileDType::kBF16, 8, 7, 127, false}, {FileDType::kF8E4M3, 4, 3, 7, true}, {FileDType::kF8E5M2, 5, 2, 15, false}};

// codes as stored, little-endian, element_size(dtype) bytes each.
std::vector<uint8_t> stored(FileDType dtype, const std::vector<uint32_t>& codes) {
  const std::size_t size = element_size(dtype);
  std::vector<uint8_t> bytes(codes.size() * size);
  for (std::size_t i = 0; i < codes.size(); ++i) for (std::size_t b = 0; b < size; ++b) bytes[i * size + b] = static_cast<uint8_t>(codes[i] >> (8 * b));
  return bytes;
}

TEST_CASE("stored tables: every code of F16, BF16, F8 E4M3 and E5M2 widens to its value exactly", "[stored_table]") {
  for (const Format& format : kFormats) {
    const int bits = 1 + format.exponent_bits + format.mantissa_bits;
    INFO(dtype_name(format.dtype));
    std::vector<uint32_t> codes(std::size_t{1} << bits);
    for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<uint32_t>(i);
    const std::vector<uint8_t> bytes = stored(format.dtype, codes);
    // Widened at every offset into a run, so that the vector loop and its tail both meet every code.
    for (const std::size_t skip : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
      std::vector<float> out(codes.size() - skip);
      widen_values(format.dtype, bytes.data() + skip * element_size(format.dtype), out.size(), out.data());
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < out.size(); ++i) {
        const double expected = decode_fields(codes[i + skip], format.exponent_bits, format.mantissa_bits, format.bias, format.fn);
        const bool same = std::isnan(expected) ? std::isnan(out[i]) : (static_cast<double>(out[i]) == expected && std::signbit(out[i]) == std::signbit(expected));
        if (!same && wrong++ < 5) FAIL_CHECK("code " << codes[i + skip] << ": " << out[i] << ", expected " << expected);
      }
      CHECK(wrong == 0);
    }
  }
}

// A [rows, cols] table of random values rounded to dtype: its stored codes and the same values as float32.
struct Table {
  std::vector<uint8_t> bytes;
  std::vector<float> floats;
};
Table random_table(FileDType dtype, std::size_t rows, std::size_t cols, unsigned seed, double spread = 1.0) {
  std::mt19937 random(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const Format* format = nullptr;
  for (const Format& f : kFormats) if (f.dtype == dtype) format = &f;
  std::vector<uint32_t> codes(rows * cols);
  Table table;
  table.floats.resize(rows * cols);
  for (std::size_t i = 0; i < codes.size(); ++i) {
    // A value drawn, then rounded down to a code of the format: the positive codes' values increase with the code, so
    // the largest code not above |value| is found by bisection.
    const float value = static_cast<float>(normal(random) * spread * (1.0 + static_cast<double>(i % cols) / static_cast<double>(cols)));
    const auto decode = [&](uint32_t code) { return decode_fields(code, format->exponent_bits, format->mantissa_bits, format->bias, format->fn); };
    uint32_t low = 0, high = (1u << (format->exponent_bits + format->mantissa_bits)) - 1;  // decode(low) <= |value|
    while (!std::isfinite(decode(high)) || decode(high) > std::abs(value)) {
      const uint32_t middle = low + (high - low + 1) / 2;
      if (std::isfinite(decode(middle)) && decode(middle) <= std::abs(value)) low = middle;
      else high = middle - 1;
      if (low == high) break;
    }
    const uint32_t best = high | (value < 0 ? 1u << (format->exponent_bits + format->mantissa_bits) : 0u);
    codes[i] = best;
    table.floats[i] = static_cast<float>(decode_fields(best, format->exponent_bits, format->mantissa_bits, format->bias, format->fn));
  }
  table.bytes = stored(dtype, codes);
  return table;
}

TEST_CASE("stored tables: lookup, nearest rows and PCA of a table kept in its dtype equal those of its float32 copy, to the bit", "[stored_table]") {
  for (const FileDType dtype : {FileDType::kBF16, FileDType::kF16, FileDType::kF8E4M3, FileDType::kF8E5M2}) {
    INFO(dtype_name(dtype));
    const std::size_t rows = 300, cols = 40;
    const Table table = random_table(dtype, rows, cols, 11);
    const StoredTable kept{table.bytes.data(), dtype, static_cast<int64_t>(rows), static_cast<int64_t>(cols)};
    const StoredTable widened{table.floats.data(), FileDType::kF32, static_cast<int64_t>(rows), static_cast<int64_t>(cols)};

    const TokenEmbeddingShape shape{.vocab_size = static_cast<int64_t>(rows), .d_model = static_cast<int64_t>(cols), .padding_idx = 7};
    const std::vector<int32_t> ids = {0, 7, 299, 5, 5, 123};
    for (const float scale : {1.0f, 0.125f}) {
      std::vector<float> from_kept(ids.size() * cols), from_floats(ids.size() * cols);
      REQUIRE(token_embedding_lookup(shape, scale, kept, ids, from_kept).ok());
      REQUIRE(token_embedding_lookup(shape, scale, table.floats, ids, from_floats).ok());
      CHECK(std::memcmp(from_kept.data(), from_floats.data(), from_kept.size() * sizeof(float)) == 0);
      for (std::size_t k = 0; k < cols; ++k) CHECK(from_kept[1 * cols + k] == 0.0f);  // the padding row
    }

    const std::vector<float> query(table.floats.begin() + 42 * cols, table.floats.begin() + 43 * cols);
    for (const SimilarityMetric metric : {SimilarityMetric::kCosine, SimilarityMetric::kDot}) {
      std::vector<int32_t> indices_kept(5), indices_floats(5);
      std::vector<float> scores_kept(5), scores_floats(5);
      REQUIRE(nearest_rows(kept, query, metric, indices_kept, scores_kept).ok());
      REQUIRE(nearest_rows(widened, query, metric, indices_floats, scores_floats).ok());
      CHECK(indices_kept == indices_floats);
      CHECK(scores_kept == scores_floats);
      if (metric == SimilarityMetric::kCosine) CHECK(indices_kept[0] == 42);
    }

    std::vector<float> projected_kept(rows * 3), projected_floats(rows * 3);
    REQUIRE(pca(kept, 3, projected_kept).ok());
    REQUIRE(pca(table.floats, static_cast<int64_t>(rows), static_cast<int64_t>(cols), 3, projected_floats).ok());
    CHECK(projected_kept == projected_floats);
  }
}

TEST_CASE("stored tables: PCA of a BF16 table wide and long enough for the block Krylov route equals that of its float32 copy", "[stored_table]") {
  // A table with two strong axes: the probe sees them, and the rows are read a block at a time by covariance_times.
  const std::size_t rows = 20000, cols = 64;
  Table table = random_table(FileDType::kBF16, rows, cols, 5, 0.05);
  std::vector<uint32_t> codes(rows * cols);
  for (std::size_t i = 0; i < rows * cols; ++i) {
    const std::size_t r = i / cols, k = i % cols;
    const float strong = (k == 3 ? 4.0f : 0.0f) * std::sin(static_cast<float>(r)) + (k == 9 ? 2.0f : 0.0f) * std::cos(static_cast<float>(r) * 0.37f);
    uint32_t bits;
    const float value = table.floats[i] + strong;
    std::memcpy(&bits, &value, sizeof bits);
    codes[i] = bits >> 16;  // truncated to BF16: still a BF16 value
    const uint32_t widened = codes[i] << 16;
    std::memcpy(&table.floats[i], &widened, sizeof widened);
  }
  table.bytes = stored(FileDType::kBF16, codes);
  const StoredTable kept{table.bytes.data(), FileDType::kBF16, static_cast<int64_t>(rows), static_cast<int64_t>(cols)};
  std::vector<float> projected_kept(rows * 2), projected_floats(rows * 2), axes(2 * cols);
  REQUIRE(pca(kept, 2, projected_kept, axes).ok());
  REQUIRE(pca(table.floats, static_cast<int64_t>(rows), static_cast<int64_t>(cols), 2, projected_floats).ok());
  CHECK(projected_kept == projected_floats);
  CHECK(std::abs(axes[3]) > 0.99f);
  CHECK(std::abs(axes[cols + 9]) > 0.99f);
}

TEST_CASE("stored tables: the first NaN or infinity is found in every dtype, and PCA refuses it by index", "[stored_table]") {
  const std::vector<std::pair<FileDType, uint32_t>> bad_codes = {
      {FileDType::kF32, 0x7fc00000u}, {FileDType::kF32, 0xff800000u}, {FileDType::kF16, 0x7c00u}, {FileDType::kF16, 0xfe00u},
      {FileDType::kBF16, 0x7f80u}, {FileDType::kBF16, 0xffc1u}, {FileDType::kF8E4M3, 0x7fu}, {FileDType::kF8E4M3, 0xffu},
      {FileDType::kF8E5M2, 0x7cu}, {FileDType::kF8E5M2, 0xfeu}};
  for (const auto& [dtype, code] : bad_codes) {
    for (const std::size_t at : {std::size_t{0}, std::size_t{4095}, std::size_t{4096}, std::size_t{9999}}) {
      INFO(dtype_name(dtype) << " code " << code << " at " << at);
      std::vector<uint32_t> codes(10000, 0);
      codes[at] = code;
      if (at != 9999) codes[9999] = code;  // a later one is not the first
      const std::vector<uint8_t> bytes = stored(dtype, codes);
      const StoredTable table{bytes.data(), dtype, 1000, 10};
      CHECK(first_non_finite(table) == static_cast<int64_t>(at));
      std::vector<float> out(2000);
      const Status status = pca(table, 2, out);
      CHECK(status.message().find("table.data[" + std::to_string(at) + "]") != std::string::npos);
    }
  }
  // E4M3's largest values are numbers: no code but S.1111.111 is refused.
  const std::vector<uint8_t> largest = stored(FileDType::kF8E4M3, std::vector<uint32_t>(20, 0x7eu));
  CHECK(first_non_finite(StoredTable{largest.data(), FileDType::kF8E4M3, 2, 10}) == -1);
}

TEST_CASE("stored tables: a dtype that is not a table's, or a bad shape, is refused by name", "[stored_table]") {
  const std::vector<float> values(20, 1.0f);
  std::vector<float> out(20);
  const std::vector<int32_t> ids = {1};
  const TokenEmbeddingShape shape{.vocab_size = 2, .d_model = 10};
  CHECK(token_embedding_lookup(shape, 1.0f, StoredTable{values.data(), FileDType::kI32, 2, 10}, ids, std::span(out).first(10)).message().find("table.dtype must be one of F32, F16, BF16, F8_E4M3, F8_E5M2, got I32") != std::string::npos);
  CHECK(token_embedding_lookup(shape, 1.0f, StoredTable{values.data(), FileDType::kF32, 4, 5}, ids, std::span(out).first(10)).message().find("table must be [vocabSize, dModel] = [2, 10], got [4, 5]") != std::string::npos);
  CHECK(pca(StoredTable{values.data(), FileDType::kF64, 2, 5}, 1, out).message().find("got F64") != std::string::npos);
  std::vector<int32_t> index(1);
  std::vector<float> score(1);
  CHECK(nearest_rows(StoredTable{values.data(), FileDType::kBF16, 0, 10}, std::span(values).first(10), SimilarityMetric::kDot, index, score).message().find("table rows") != std::string::npos);
}

}  // namespace
}  // namespace posembed
