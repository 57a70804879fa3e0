#include "posembed/t5.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "vectors.hpp"

namespace posembed {
namespace {

T5BucketParams params_from(const nlohmann::json& p) {
  return {p.value("numBuckets", int64_t{32}), p.value("maxDistance", int64_t{128}), p.value("bidirectional", true)};
}

TEST_CASE("T5 buckets match every golden vector exactly", "[t5]") {
  const auto vectors = test::load_vectors("t5_bucket");  // outlives the loop (a temporary would not)
  for (const auto& c : vectors.at("cases")) {
    SECTION(c.at("name").get<std::string>()) {
      const auto relative = c.at("input").at("relativePosition").get<std::vector<int32_t>>();
      std::vector<int32_t> out(relative.size());
      REQUIRE(t5_buckets(params_from(c.at("params")), relative, out).ok());
      CHECK(out == c.at("expected").at("data").get<std::vector<int32_t>>());
    }
  }
}

TEST_CASE("T5 buckets are monotone in distance and stay in range", "[t5]") {
  for (const T5BucketParams params : {T5BucketParams{32, 128, true}, T5BucketParams{32, 128, false}, T5BucketParams{64, 1000, true}, T5BucketParams{8, 20, false}}) {
    int32_t previous_forward = -1;
    int32_t previous_backward = -1;
    for (int64_t distance = 0; distance < 5000; ++distance) {
      const int32_t backward = t5_bucket(params, -distance);
      REQUIRE(backward >= previous_backward);
      REQUIRE(backward < params.num_buckets);
      previous_backward = backward;
      if (params.bidirectional) {
        const int32_t forward = t5_bucket(params, distance);
        REQUIRE(forward >= previous_forward);
        REQUIRE(forward < params.num_buckets);
        previous_forward = forward;
      } else {
        REQUIRE(t5_bucket(params, distance) == 0);
      }
    }
  }
}

// HF's bucket computed in double: the bucket, and how far the value truncated to it lies from an integer
// (float32, as HF computes, may only land on the other side of an integer that close).
struct ReferenceBucket {
  int64_t bucket;
  double margin;
};

ReferenceBucket reference_bucket(const T5BucketParams& params, int64_t relative) {
  int64_t buckets = params.num_buckets;
  int64_t offset = 0;
  int64_t distance = relative < 0 ? -relative : 0;
  if (params.bidirectional) {
    buckets /= 2;
    offset = relative > 0 ? buckets : 0;
    distance = std::abs(relative);
  }
  const int64_t max_exact = buckets / 2;
  if (distance < max_exact) return {offset + distance, 1.0};
  const double scaled = std::log(static_cast<double>(distance) / static_cast<double>(max_exact)) /
                        std::log(static_cast<double>(params.max_distance) / static_cast<double>(max_exact)) * static_cast<double>(buckets - max_exact);
  const double margin = std::abs(scaled - std::round(scaled));
  return {offset + std::min(max_exact + static_cast<int64_t>(scaled), buckets - 1), margin};
}

TEST_CASE("T5 bucket sweep against a double-precision reference", "[t5]") {
  std::size_t compared = 0, at_boundary = 0;
  for (const int64_t num_buckets : {4, 5, 8, 32, 33, 64, 320}) {
    for (const int64_t max_distance : {30, 128, 1000, 1 << 20}) {
      for (const bool bidirectional : {true, false}) {
        const T5BucketParams params{num_buckets, max_distance, bidirectional};
        if (!validate(params).ok()) continue;
        for (int64_t relative = -5000; relative <= 5000; ++relative) {
          const ReferenceBucket expected = reference_bucket(params, relative);
          const int32_t got = t5_bucket(params, relative);
          ++compared;
          if (got == expected.bucket) continue;
          ++at_boundary;
          INFO("numBuckets " << num_buckets << ", maxDistance " << max_distance << ", bidirectional " << bidirectional << ", relative " << relative);
          CHECK(std::abs(got - expected.bucket) == 1);
          CHECK(expected.margin < 1e-5);
        }
      }
    }
  }
  CHECK(compared > 400000);
  CHECK(at_boundary < compared / 10000);
}

TEST_CASE("T5 bucket matrix and bias gather by key - query", "[t5]") {
  const T5BucketParams params{16, 64, true};
  // 5 queries a head: gathered value by value; 20: copied from a ramp of the head's biases.
  for (const int64_t queries : {5, 20}) {
    std::vector<int32_t> matrix(static_cast<std::size_t>(queries * 9));
    REQUIRE(t5_bucket_matrix(params, queries, 9, matrix).ok());
    const int64_t heads = 3;
    std::vector<float> table(static_cast<std::size_t>(16 * heads));
    for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<float>(i) * 0.5f - 4.0f;
    std::vector<float> bias(static_cast<std::size_t>(heads * queries * 9));
    REQUIRE(t5_bias(params, table, heads, queries, 9, bias).ok());
    for (int64_t i = 0; i < queries; ++i) {
      for (int64_t j = 0; j < 9; ++j) {
        const int32_t bucket = t5_bucket(params, j - i);
        CHECK(matrix[static_cast<std::size_t>(i * 9 + j)] == bucket);
        for (int64_t h = 0; h < heads; ++h) CHECK(bias[static_cast<std::size_t>((h * queries + i) * 9 + j)] == table[static_cast<std::size_t>(bucket * heads + h)]);
      }
    }
  }
}

TEST_CASE("T5 bias and bucket matrix written in runs of rows equal them written whole", "[t5]") {
  const T5BucketParams params{32, 128, true};
  const int64_t heads = 3, q = 50, k = 70;
  std::vector<float> table(static_cast<std::size_t>(32 * heads));
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = std::sin(static_cast<float>(i));
  std::vector<float> whole(static_cast<std::size_t>(heads * q * k));
  REQUIRE(t5_bias(params, table, heads, q, k, whole).ok());
  std::vector<int32_t> relative(static_cast<std::size_t>(q + k - 1));
  for (std::size_t r = 0; r < relative.size(); ++r) relative[r] = t5_bucket(params, static_cast<int64_t>(r) - (q - 1));
  for (const int64_t run : {1, 7, 50, 150}) {
    std::vector<float> rows(whole.size());
    for (int64_t first = 0; first < heads * q; first += run) {
      const int64_t count = std::min(run, heads * q - first);
      REQUIRE(t5_bias_rows(table, 32, heads, q, k, relative, first, std::span<float>(rows).subspan(static_cast<std::size_t>(first * k), static_cast<std::size_t>(count * k))).ok());
    }
    CHECK(rows == whole);
  }
  std::vector<int32_t> whole_matrix(static_cast<std::size_t>(q * k));
  REQUIRE(t5_bucket_matrix(params, q, k, whole_matrix).ok());
  for (const int64_t run : {1, 7, 50}) {
    std::vector<int32_t> rows(whole_matrix.size());
    for (int64_t first = 0; first < q; first += run) {
      const int64_t count = std::min(run, q - first);
      REQUIRE(t5_bucket_matrix_rows(q, k, relative, first, std::span<int32_t>(rows).subspan(static_cast<std::size_t>(first * k), static_cast<std::size_t>(count * k))).ok());
    }
    CHECK(rows == whole_matrix);
  }
  std::vector<int32_t> one_bucket_row(static_cast<std::size_t>(k));
  CHECK(t5_bucket_matrix_rows(q, k, relative, q, one_bucket_row).message() == "the rows must lie within queryLength = 50 rows of keyLength values");
  CHECK(t5_bucket_matrix_rows(q, k, relative, -1, one_bucket_row).message() == "the rows must lie within queryLength = 50 rows of keyLength values");
  CHECK(t5_bucket_matrix_rows(q, k, std::span<const int32_t>(relative).first(10), 0, one_bucket_row).message() ==
        "relative buckets must hold queryLength + keyLength - 1 = 119 elements, got 10");
  std::vector<float> one_row(static_cast<std::size_t>(k));
  relative[5] = 32;
  CHECK(t5_bias_rows(table, 32, heads, q, k, relative, 0, one_row).message() == "relative bucket 5 must be an integer in [0, numBuckets - 1] = [0, 31], got 32");
  relative[5] = 0;
  CHECK(t5_bias_rows(table, 32, heads, q, k, relative, heads * q, one_row).message() == "the rows must lie within numHeads * queryLength = 150 rows of keyLength values");
  CHECK(t5_bias_rows(table, 32, heads, q, k, std::span<const int32_t>(relative).first(10), 0, one_row).message() ==
        "relative buckets must hold queryLength + keyLength - 1 = 119 elements, got 10");
}

TEST_CASE("T5 rejects bad parameters", "[t5]") {
  std::vector<int32_t> out(4);
  const std::vector<int32_t> relative(4);
  CHECK(t5_buckets({3, 128, true}, relative, out).message() == "numBuckets must be an integer in [4, 65536] (bidirectional), got 3");
  CHECK(t5_buckets({32, 8, true}, relative, out).message() == "maxDistance must be an integer in [9, 2147483647] (above the exact buckets), got 8");
  std::vector<float> table(10), bias(4);
  CHECK(t5_bias({32, 128, true}, table, 2, 1, 2, bias).message() == "table must hold numBuckets * numHeads = 64 elements, got 10");
}

}  // namespace
}  // namespace posembed
