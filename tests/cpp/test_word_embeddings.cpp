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
