#include "posembed/t5.hpp"

#include <cmath>
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

TEST_CASE("T5 bucket matrix and bias gather by key - query", "[t5]") {
  const T5BucketParams params{16, 64, true};
  std::vector<int32_t> matrix(5 * 9);
  REQUIRE(t5_bucket_matrix(params, 5, 9, matrix).ok());
  const int64_t heads = 3;
  std::vector<float> table(static_cast<std::size_t>(16 * heads));
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<float>(i) * 0.5f - 4.0f;
  std::vector<float> bias(static_cast<std::size_t>(heads * 5 * 9));
  REQUIRE(t5_bias(params, table, heads, 5, 9, bias).ok());
  for (int64_t i = 0; i < 5; ++i) {
    for (int64_t j = 0; j < 9; ++j) {
      const int32_t bucket = t5_bucket(params, j - i);
      CHECK(matrix[static_cast<std::size_t>(i * 9 + j)] == bucket);
      for (int64_t h = 0; h < heads; ++h) CHECK(bias[static_cast<std::size_t>((h * 5 + i) * 9 + j)] == table[static_cast<std::size_t>(bucket * heads + h)]);
    }
  }
}

TEST_CASE("T5 rejects bad parameters", "[t5]") {
  std::vector<int32_t> out(4);
  const std::vector<int32_t> relative(4);
  CHECK(t5_buckets({3, 128, true}, relative, out).message() == "numBuckets must be an integer in [4, 65536] when bidirectional, got 3");
  CHECK(t5_buckets({32, 8, true}, relative, out).message() == "maxDistance must be an integer in [9, 2147483647] (above the exact buckets), got 8");
  std::vector<float> table(10), bias(4);
  CHECK(t5_bias({32, 128, true}, table, 2, 1, 2, bias).message() == "table must hold numBuckets * numHeads = 64 elements, got 10");
}

}  // namespace
}  // namespace posembed
