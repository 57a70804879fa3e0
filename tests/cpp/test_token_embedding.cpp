#include "posembed/token_embedding.hpp"

#include <cmath>
#include <vector>

#include "posembed/sinusoidal.hpp"
#include "golden_embedding.hpp"
#include "vectors.hpp"

namespace posembed {
namespace {

std::vector<float> lookup(const test::GoldenLookup& g) {
  std::vector<float> out(g.ids.size() * static_cast<std::size_t>(g.shape.d_model));
  const Status status = token_embedding_lookup(g.shape, g.scale, g.table, g.ids, out);
  INFO(status.message());
  REQUIRE(status.ok());
  return out;
}

TEST_CASE("token embedding matches every golden vector", "[token_embedding]") {
  const auto vectors = test::load_vectors("token_embedding");
  for (const auto& c : vectors.at("cases")) {
    SECTION(c.at("name").get<std::string>()) {
      const test::GoldenLookup g = test::golden_lookup(c);
      std::vector<float> out = lookup(g);
      if (c.at("params").value("positional", "none") == "sinusoidal") {
        // The combined layer: scaled token rows plus interleaved sinusoidal PE from position 0.
        std::vector<float> position(out.size());
        REQUIRE(sinusoidal({.length = static_cast<int64_t>(g.ids.size()), .d_model = g.shape.d_model}, position).ok());
        for (std::size_t i = 0; i < out.size(); ++i) out[i] += position[i];
      }
      const auto& expected = c.at("expected");
      REQUIRE(expected.at("shape")[0].get<std::size_t>() == g.ids.size());
      test::require_close(out, test::doubles(expected.at("data")), c.at("tolerance").at("abs").get<double>());
    }
  }
}

TEST_CASE("lookup copies rows, scales them and zeroes the padding row", "[token_embedding]") {
  const TokenEmbeddingShape shape{.vocab_size = 5, .d_model = 13, .padding_idx = 2};
  std::vector<float> table(5 * 13);
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<float>(i) * 0.25f - 3.0f;
  const std::vector<int32_t> ids = {4, 2, 0, 4};
  std::vector<float> out(ids.size() * 13);
  REQUIRE(token_embedding_lookup(shape, 3.0f, table, ids, out).ok());
  for (std::size_t j = 0; j < ids.size(); ++j) {
    for (std::size_t i = 0; i < 13; ++i) {
      const float expected = ids[j] == 2 ? 0.0f : table[static_cast<std::size_t>(ids[j]) * 13 + i] * 3.0f;
      CHECK(out[j * 13 + i] == expected);
    }
  }
}

TEST_CASE("seeded init is reproducible, has the asked spread and zeroes the padding row", "[token_embedding]") {
  const TokenEmbeddingShape shape{.vocab_size = 1000, .d_model = 64, .padding_idx = 7};
  std::vector<float> a(1000 * 64), b(1000 * 64), c(1000 * 64);
  REQUIRE(init_embedding_table(shape, {.std = 0.02, .seed = 1}, a).ok());
  REQUIRE(init_embedding_table(shape, {.std = 0.02, .seed = 1}, b).ok());
  REQUIRE(init_embedding_table(shape, {.std = 0.02, .seed = 2}, c).ok());
  CHECK(a == b);
  CHECK(a != c);
  double sum = 0.0, squares = 0.0;
  for (float v : a) {
    sum += v;
    squares += static_cast<double>(v) * v;
  }
  const double n = static_cast<double>(a.size() - 64);
  CHECK(std::abs(sum / n) < 0.001);
  CHECK(std::abs(std::sqrt(squares / n) - 0.02) < 0.0005);
  for (std::size_t i = 0; i < 64; ++i) CHECK(a[7 * 64 + i] == 0.0f);

  REQUIRE(init_embedding_table(shape, {.kind = EmbeddingInitKind::kXavierUniform, .seed = 3}, c).ok());
  const double bound = std::sqrt(6.0 / (1000 + 64));
  float largest = 0.0f;
  for (float v : c) largest = std::max(largest, std::abs(v));
  CHECK(largest <= bound);
  CHECK(largest > 0.99 * bound);
}

TEST_CASE("lookup rejects out-of-range ids and writes nothing", "[token_embedding]") {
  const TokenEmbeddingShape shape{.vocab_size = 20, .d_model = 4};
  std::vector<float> table(80, 1.0f);
  std::vector<float> out(12, -7.0f);
  for (int32_t bad : {-1, 20, 2147483647}) {
    const std::vector<int32_t> ids = {1, bad, 3};
    const Status status = token_embedding_lookup(shape, 1.0f, table, ids, out);
    CHECK(status.kind() == ErrorKind::kRange);
    CHECK(status.message() == "ids[1] must be a token id in [0, vocabSize - 1] = [0, 19], got " + std::to_string(bad));
  }
  for (float v : out) CHECK(v == -7.0f);
}

TEST_CASE("token embedding shapes are validated", "[token_embedding]") {
  CHECK(validate(TokenEmbeddingShape{.vocab_size = 0, .d_model = 4}).message() == "vocabSize must be an integer in [1, 16777216], got 0");
  CHECK(validate(TokenEmbeddingShape{.vocab_size = 4, .d_model = 65537}).message() == "dModel must be an integer in [1, 65536], got 65537");
  CHECK(validate(TokenEmbeddingShape{.vocab_size = 4, .d_model = 4, .padding_idx = 4}).message() ==
        "paddingIdx must be an integer in [0, vocabSize - 1] = [0, 3], got 4");
  std::vector<float> table(16);
  CHECK(init_embedding_table({.vocab_size = 4, .d_model = 4}, {.std = -1.0}, table).message() == "init.std must be a number in [0, 1000000], got -1");
}

}  // namespace
}  // namespace posembed
