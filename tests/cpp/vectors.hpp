// Reading the golden vectors of ../shared/vectors at test time, and comparing results against them.
#pragma once

#include <cmath>
#include <fstream>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

namespace posembed::test {

inline nlohmann::json load_vectors(const std::string& op) {
  const std::string path = std::string(POSEMBED_VECTORS_DIR) + "/" + op + ".json";
  std::ifstream file(path);
  INFO("golden vectors: " << path);
  REQUIRE(file.good());
  nlohmann::json vectors = nlohmann::json::parse(file);
  REQUIRE(vectors.at("cases").size() > 0);
  return vectors;
}

// JSON null stands for -Infinity (masked attention biases).
inline std::vector<float> floats(const nlohmann::json& values) {
  std::vector<float> out;
  out.reserve(values.size());
  for (const auto& value : values) {
    out.push_back(value.is_null() ? -std::numeric_limits<float>::infinity() : value.get<float>());
  }
  return out;
}

inline std::vector<double> doubles(const nlohmann::json& values) {
  std::vector<double> out;
  out.reserve(values.size());
  for (const auto& value : values) {
    out.push_back(value.is_null() ? -std::numeric_limits<double>::infinity() : value.get<double>());
  }
  return out;
}

// Every element within tolerance; on failure, names the worst element.
inline void require_close(std::span<const float> got, std::span<const double> expected, double tolerance) {
  REQUIRE(got.size() == expected.size());
  double worst = 0.0;
  std::size_t worst_index = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isinf(expected[i]) && got[i] == expected[i]) continue;
    const double error = std::abs(static_cast<double>(got[i]) - expected[i]);
    if (!(error <= worst) || std::isnan(error)) {
      worst = std::isnan(error) ? std::numeric_limits<double>::infinity() : error;
      worst_index = i;
    }
  }
  INFO("worst element " << worst_index << ": got " << got[worst_index] << ", expected " << expected[worst_index]);
  CHECK(worst <= tolerance);
}

}  // namespace posembed::test
