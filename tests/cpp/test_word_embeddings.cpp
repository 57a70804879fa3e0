#include <cmath>
#include "posembed/word_embeddings.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace posembed {
namespace {

std::vector<std::string> nearest_words(const WordEmbeddings& w, std::string_view word, int64_t k) {
  std::vector<int32_t> ids;
  std::vector<float> scores;
  REQUIRE(w.nearest(word, k, ids, scores).ok());
  REQUIRE(std::is_sorted(scores.rbegin(), scores.rend()));
  std::vector<std::string> words;
  for (const int32_t id : ids) words.push_back(w.vocabulary()[static_cast<std::size_t>(id)]);
  return words;
}

TEST_CASE("skip-gram on the generated corpus puts words used alike together", "[word_embeddings]") {
  const auto corpus = generated_corpus(0, 2000);
  std::unique_ptr<WordEmbeddings> w;
  REQUIRE(WordEmbeddings::create({}, corpus, w).ok());
  double first = 0, last = 0;
  REQUIRE(w->step(10, first).ok());
  REQUIRE(w->step(1500, last).ok());
  CHECK(last < first);
  const auto king = nearest_words(*w, "king", 5);
  const auto apple = nearest_words(*w, "Apple", 5);
  INFO("king: " << king[0] << " " << king[1] << " " << king[2] << "; apple: " << apple[0] << " " << apple[1] << " " << apple[2]);
  CHECK(std::find(king.begin(), king.end(), "queen") != king.end());
  CHECK(std::find(apple.begin(), apple.end(), "orange") != apple.end());
}

// The word whose vector is closest (cosine) to a − b + c, leaving out a, b and c.
std::string analogy(const WordEmbeddings& w, std::string_view a, std::string_view b, std::string_view c) {
  const auto& words = w.vocabulary();
  const auto vectors = w.vectors();
  const auto d = vectors.size() / words.size();
  const auto row = [&](std::string_view word) { return vectors.data() + (std::find(words.begin(), words.end(), word) - words.begin()) * d; };
  std::vector<double> target(d);
  for (std::size_t k = 0; k < d; ++k) target[k] = static_cast<double>(row(a)[k]) - row(b)[k] + row(c)[k];
  std::string best;
  double best_cosine = -2;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i] == a || words[i] == b || words[i] == c) continue;
    double dot = 0, norm = 0, target_norm = 0;
    for (std::size_t k = 0; k < d; ++k) {
      dot += target[k] * vectors[i * d + k];
      norm += static_cast<double>(vectors[i * d + k]) * vectors[i * d + k];
      target_norm += target[k] * target[k];
    }
    if (const double cosine = dot / std::sqrt(norm * target_norm); cosine > best_cosine) best_cosine = cosine, best = words[i];
  }
  return best;
}

TEST_CASE("the generated corpus has a rank, a gender and an age direction: king − man + woman is nearest queen", "[word_embeddings]") {
  for (const uint64_t seed : {0u, 1u, 2u}) {
    std::unique_ptr<WordEmbeddings> w;
    REQUIRE(WordEmbeddings::create({.seed = seed}, generated_corpus(seed, 4000), w).ok());  // the package's default corpus
    double loss = 0;
    REQUIRE(w->step(3000, loss).ok());
    INFO("seed " << seed);
    CHECK(analogy(*w, "king", "man", "woman") == "queen");
    CHECK(analogy(*w, "prince", "boy", "girl") == "princess");
    CHECK(analogy(*w, "king", "queen", "princess") == "prince");
    CHECK(analogy(*w, "woman", "man", "king") == "queen");
  }
}

TEST_CASE("word embeddings split, lower-case and strip words, and refuse what they cannot use", "[word_embeddings]") {
  std::unique_ptr<WordEmbeddings> w;
  const std::vector<std::string> sentences = {"The cat, sat.", "  the DOG sat  ", "alone"};
  REQUIRE(WordEmbeddings::create({.dim = 4}, sentences, w).ok());
  CHECK(w->vocabulary() == std::vector<std::string>{"the", "cat", "sat", "dog"});
  CHECK(w->counts() == std::vector<int64_t>{2, 1, 2, 1});
  CHECK(w->vectors().size() == 16);
  std::vector<int32_t> ids;
  std::vector<float> scores;
  CHECK(w->nearest("horse", 2, ids, scores).message() == "word 'horse' is not in the corpus's vocabulary");
  CHECK(w->nearest("cat", 4, ids, scores).message() == "k must be an integer in [1, 3] (the other words), got 4");
  CHECK(WordEmbeddings::create({}, std::vector<std::string>{"one", "two three"}, w).ok());
  CHECK(WordEmbeddings::create({}, std::vector<std::string>{"one", "two"}, w).message() ==
        "corpus must hold at least two distinct words in sentences of two words or more, got 0");
  CHECK(WordEmbeddings::create({.window = 0}, sentences, w).message() == "window must be an integer in [1, 10], got 0");
  CHECK(WordEmbeddings::create({.dim = 1}, sentences, w).message() == "dim must be an integer in [2, 256], got 1");
}

}  // namespace
}  // namespace posembed
