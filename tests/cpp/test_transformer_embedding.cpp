#include "posembed/transformer_embedding.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "posembed/sinusoidal.hpp"
#include "golden_embedding.hpp"
#include "vectors.hpp"

namespace posembed {
namespace {

TEST_CASE("the fused layer equals lookup * scale + positions (golden combined vectors)", "[transformer_embedding]") {
  const auto vectors = test::load_vectors("token_embedding");  // outlives the loop (a temporary would not)
  for (const auto& c : vectors.at("cases")) {
    if (c.at("params").value("positional", "none") != "sinusoidal") continue;
    SECTION(c.at("name").get<std::string>()) {
      const test::GoldenLookup g = test::golden_lookup(c);
      // One sequence of all the ids, from position 0.
      const auto seq = static_cast<int64_t>(g.ids.size());
      const CombinedEmbeddingParams params{.shape = g.shape, .scale = g.scale, .max_length = seq};
      std::vector<float> positions(g.ids.size() * static_cast<std::size_t>(g.shape.d_model));
      REQUIRE(sinusoidal({.length = seq, .d_model = g.shape.d_model}, positions).ok());
      std::vector<float> out(positions.size());
      Random random(0);
      REQUIRE(combined_embedding(params, g.table, positions, g.ids, seq, false, random, out).ok());
      test::require_close(out, test::doubles(c.at("expected").at("data")), c.at("tolerance").at("abs").get<double>());
    }
  }
}

TEST_CASE("dropout: only when training, inverted, reproducible from the seed", "[transformer_embedding]") {
  const CombinedEmbeddingParams params{.shape = {.vocab_size = 3, .d_model = 64}, .scale = 1.0f, .max_length = 100, .dropout = 0.25f};
  const std::vector<float> table(3 * 64, 2.0f);
  std::vector<int32_t> ids(2 * 100, 1);
  std::vector<float> a(ids.size() * 64), b(ids.size() * 64), eval(ids.size() * 64);
  Random first(9), second(9);
  REQUIRE(combined_embedding(params, table, {}, ids, 100, true, first, a).ok());
  REQUIRE(combined_embedding(params, table, {}, ids, 100, true, second, b).ok());
  REQUIRE(combined_embedding(params, table, {}, ids, 100, false, first, eval).ok());
  CHECK(a == b);
  std::size_t dropped = 0;
  for (float v : a) {
    REQUIRE((v == 0.0f || v == 2.0f / 0.75f));
    dropped += v == 0.0f;
  }
  CHECK(std::abs(static_cast<double>(dropped) / static_cast<double>(a.size()) - 0.25) < 0.02);
  for (float v : eval) REQUIRE(v == 2.0f);
}

TEST_CASE("the fused layer written in blocks of rows equals it written whole, dropout included", "[transformer_embedding]") {
  const CombinedEmbeddingParams params{.shape = {.vocab_size = 11, .d_model = 8, .padding_idx = 2}, .scale = 3.0f, .max_length = 7, .dropout = 0.3f};
  std::vector<float> table(11 * 8), positions(7 * 8);
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = std::sin(static_cast<float>(i));
  for (std::size_t i = 0; i < positions.size(); ++i) positions[i] = std::cos(static_cast<float>(i));
  std::vector<int32_t> ids(3 * 7);
  for (std::size_t j = 0; j < ids.size(); ++j) ids[j] = static_cast<int32_t>((j * 5) % 11);
  for (const bool training : {false, true}) {
    std::vector<float> whole(ids.size() * 8);
    Random once(4);
    REQUIRE(combined_embedding(params, table, positions, ids, 7, training, once, whole).ok());
    for (const std::size_t block : {1, 3, 5, 8, 21}) {  // blocks that split sequences anywhere
      std::vector<float> blocks(whole.size());
      Random streamed(4);
      for (std::size_t first = 0; first < ids.size(); first += block) {
        const std::size_t count = std::min(block, ids.size() - first);
        REQUIRE(combined_embedding_rows(params, table, positions, std::span(ids).subspan(first, count), 7, static_cast<int64_t>(first), training,
                                        streamed, std::span(blocks).subspan(first * 8, count * 8)).ok());
      }
      CHECK(blocks == whole);
      CHECK(streamed.state() == once.state());
    }
  }
  std::vector<int32_t> bad = {1, 12};
  std::vector<float> out(16);
  Random random(0);
  CHECK(combined_embedding_rows(params, table, positions, bad, 7, 40, false, random, out).message() == "ids[41] must be a token id in [0, vocabSize - 1] = [0, 10], got 12");
}

TEST_CASE("the fused layer checks ids, sequence length and dropout", "[transformer_embedding]") {
  const CombinedEmbeddingParams params{.shape = {.vocab_size = 3, .d_model = 2}, .max_length = 4};
  const std::vector<float> table(6);
  std::vector<float> out(10);
  Random random(0);
  const std::vector<int32_t> too_long(5, 0), bad_id = {0, 3};
  CHECK(combined_embedding(params, table, {}, too_long, 5, false, random, out).message() == "ids.shape[-1] (seq) must be an integer in [1, maxLength] = [1, 4], got 5");
  CHECK(combined_embedding(params, table, {}, bad_id, 2, false, random, {out.data(), 4}).message() == "ids[1] must be a token id in [0, vocabSize - 1] = [0, 2], got 3");
  CombinedEmbeddingParams bad_dropout = params;
  bad_dropout.dropout = 1.0f;
  CHECK(combined_embedding(bad_dropout, table, {}, {bad_id.data(), 1}, 1, true, random, {out.data(), 2}).message() == "dropout must be a number in [0, 1), got 1");
}

}  // namespace
}  // namespace posembed
