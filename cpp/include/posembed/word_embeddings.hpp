// Word embeddings learned from context: skip-gram with negative sampling (Mikolov et al. 2013). Each word's
// vector is pulled towards the output vectors of the words around it and pushed from those of random words
// (drawn by frequency^0.75), so words used alike end up near each other. Over sentences the caller gives, or
// over a corpus generated from a small grammar (royalty, people, fruit, animals) where that is known.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "posembed/random.hpp"
#include "posembed/status.hpp"

namespace posembed {

// `sentences` sentences from the grammar, seeded: "the queen wears a crown", "he peels the orange", ...
std::vector<std::string> generated_corpus(uint64_t seed, int64_t sentences);

struct WordEmbeddingConfig {
  int64_t dim = 16;             // [2, 256]
  int64_t window = 2;           // words each side: [1, 10]
  int64_t negatives = 5;        // random words per pair: [1, 20]
  int64_t batch_size = 64;      // centre words per step: [1, 4096]
  double learning_rate = 0.05;  // plain SGD: (0, 1]
  uint64_t seed = 0;
};

Status validate(const WordEmbeddingConfig& config);

class WordEmbeddings {
 public:
  // Words are split at white space, lower-cased, and stripped of surrounding punctuation; the corpus needs at
  // least two distinct words and at most 100000, in sentences of at least two words.
  static Status create(const WordEmbeddingConfig& config, std::span<const std::string> sentences, std::unique_ptr<WordEmbeddings>& out);

  const std::vector<std::string>& vocabulary() const { return words_; }
  const std::vector<int64_t>& counts() const { return counts_; }
  // [words, dim]: the input vectors, the ones that are the embedding.
  std::span<const float> vectors() const { return input_; }
  int64_t dim() const { return config_.dim; }
  int64_t steps() const { return steps_; }

  // n steps of batch_size centre words each; the mean loss per (centre, context) pair.
  Status step(int64_t n, double& mean_loss);
  // The k words most like `word` by cosine similarity (itself left out), best first.
  Status nearest(std::string_view word, int64_t k, std::vector<int32_t>& ids, std::vector<float>& scores) const;
  // The word's index, or -1.
  int32_t index_of(std::string_view word) const;

 private:
  WordEmbeddings(const WordEmbeddingConfig& config) : config_(config), random_(config.seed) {}
  int32_t draw_negative();

  WordEmbeddingConfig config_;
  std::vector<std::string> words_;
  std::vector<int64_t> counts_;
  std::vector<std::vector<int32_t>> sentences_;
  std::vector<std::pair<std::size_t, std::size_t>> centres_;  // (sentence, position) of every word
  std::vector<double> negative_cumulative_;
  std::vector<float> input_, output_;
  Random random_;
  int64_t steps_ = 0;
};

}  // namespace posembed
