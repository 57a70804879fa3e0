// A golden token_embedding case (../shared/vectors/token_embedding.json) read into the arguments of a
// lookup: shared by the token embedding and the combined layer's tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "posembed/token_embedding.hpp"
#include "vectors.hpp"

namespace posembed::test {

struct GoldenLookup {
  TokenEmbeddingShape shape;
  float scale;
  std::vector<float> table;
  std::vector<int32_t> ids;
};

inline GoldenLookup golden_lookup(const nlohmann::json& c) {
  const auto& table = c.at("input").at("table");
  GoldenLookup g;
  g.shape.vocab_size = table.at("shape")[0].get<int64_t>();
  g.shape.d_model = table.at("shape")[1].get<int64_t>();
  const auto& padding = c.at("params").at("paddingIdx");
  g.shape.padding_idx = padding.is_null() ? -1 : padding.get<int64_t>();
  const auto& scale = c.at("params").at("scale");
  g.scale = static_cast<float>(scale.is_number() ? scale.get<double>()
                                                 : embedding_scale_factor(*parse_embedding_scale(scale.get<std::string>()), 0.0, g.shape.d_model));
  g.table = test::floats(table.at("data"));
  g.ids = c.at("input").at("ids").get<std::vector<int32_t>>();
  return g;
}

}  // namespace posembed::test
