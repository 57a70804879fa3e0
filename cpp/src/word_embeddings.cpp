#include "posembed/word_embeddings.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <map>
#include <numeric>

#include "posembed/limits.hpp"

namespace posembed {

namespace {

constexpr std::size_t kMaxWords = 100000;

// The grammar. Things (fruit, animals) have sentences of their own, so words of one kind share their contexts.
struct Kind {
  std::vector<std::string_view> words;
  std::vector<std::string_view> frames;  // '_' is where the word goes
};

const std::vector<Kind>& things() {
  static const std::vector<Kind> kinds = {
      {{"apple", "orange", "banana", "pear"},
       {"she eats a ripe _", "the _ is sweet", "he peels the _", "a fresh _ grows on the tree", "the _ is juicy"}},
      {{"dog", "cat", "horse", "cow"},
       {"the _ runs in the field", "a _ sleeps in the barn", "the farmer feeds the _", "the _ drinks water", "a hungry _ wants food"}},
  };
  return kinds;
}

// People have three attributes: rank (common or royal), gender (he or she) and age (grown or young), each with
// frames of its own that put its words next to the person. A sentence about a person speaks of one attribute, so a
// word's contexts mix those of its three values, and its vector comes out near a sum of three directions:
// king − man + woman lands near queen.
struct Person {
  std::string_view word;
  std::array<int, 3> values;  // rank, gender, age: 0 or 1
};
constexpr std::array<Person, 8> kPeople = {{{"king", {1, 0, 0}}, {"queen", {1, 1, 0}}, {"prince", {1, 0, 1}}, {"princess", {1, 1, 1}},
                                            {"man", {0, 0, 0}}, {"woman", {0, 1, 0}}, {"boy", {0, 0, 1}}, {"girl", {0, 1, 1}}}};
using Frames = std::array<std::string_view, 2>;
constexpr std::array<std::array<Frames, 2>, 3> kAttributeFrames = {{
    {{{"the common _ works in town", "a humble _ works today"}, {"the royal _ reigns over the land", "the crowned _ reigns today"}}},
    {{{"the _ said he would come", "the _ knew he was right"}, {"the _ said she would come", "the _ knew she was right"}}},
    {{{"the grown _ pays the bills", "an adult _ pays the bills"}, {"the young _ plays with toys", "a little _ plays with toys"}}},
}};

// Lower case, without the punctuation around a word.
std::string normalise(std::string_view word) {
  const auto is_punctuation = [](char ch) { return std::ispunct(static_cast<unsigned char>(ch)) != 0; };
  while (!word.empty() && is_punctuation(word.front())) word.remove_prefix(1);
  while (!word.empty() && is_punctuation(word.back())) word.remove_suffix(1);
  std::string out(word);
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

std::vector<std::string> split_words(std::string_view sentence) {
  std::vector<std::string> words;
  std::size_t at = 0;
  while (at < sentence.size()) {
    while (at < sentence.size() && std::isspace(static_cast<unsigned char>(sentence[at]))) ++at;
    std::size_t end = at;
    while (end < sentence.size() && !std::isspace(static_cast<unsigned char>(sentence[end]))) ++end;
    if (end > at) {
      std::string word = normalise(sentence.substr(at, end - at));
      if (!word.empty()) words.push_back(std::move(word));
    }
    at = end;
  }
  return words;
}

// 1 / (1 + e^-x), from the portable exp: the same bits everywhere.
double sigmoid(double x) { return 1.0 / (1.0 + portable_exp(-x)); }

}  // namespace

std::vector<std::string> generated_corpus(uint64_t seed, int64_t sentences) {
  Random random(seed);
  std::vector<std::string> corpus;
  const auto pick = [&](std::size_t count) { return static_cast<std::size_t>(random.next_u64() % count); };
  for (int64_t s = 0; s < sentences; ++s) {
    std::string_view word, frame;
    if (pick(2) == 0) {  // half of the sentences are about people, as many as about things
      const Person& person = kPeople[pick(kPeople.size())];
      const std::size_t attribute = pick(3);
      word = person.word;
      frame = kAttributeFrames[attribute][static_cast<std::size_t>(person.values[attribute])][pick(2)];
    } else {
      const Kind& kind = things()[pick(things().size())];
      word = kind.words[pick(kind.words.size())];
      frame = kind.frames[pick(kind.frames.size())];
    }
    std::string sentence(frame);
    sentence.replace(sentence.find('_'), 1, word);
    corpus.push_back(std::move(sentence));
  }
  return corpus;
}

Status validate(const WordEmbeddingConfig& c) {
  POSEMBED_RETURN_IF_ERROR(check_integer("dim", c.dim, limits::kWordsMinDim, limits::kWordsMaxDim));
  POSEMBED_RETURN_IF_ERROR(check_integer("window", c.window, 1, limits::kWordsMaxWindow));
  POSEMBED_RETURN_IF_ERROR(check_integer("negatives", c.negatives, 1, limits::kWordsMaxNegatives));
  POSEMBED_RETURN_IF_ERROR(check_integer("batchSize", c.batch_size, 1, limits::kWordsMaxBatchSize));
  return check_number("learningRate", c.learning_rate, 0.0, 1.0, LowBound::kExcluded);
}

Status WordEmbeddings::create(const WordEmbeddingConfig& config, std::span<const std::string> sentences, std::unique_ptr<WordEmbeddings>& out) {
  POSEMBED_RETURN_IF_ERROR(validate(config));
  std::unique_ptr<WordEmbeddings> w(new WordEmbeddings(config));
  std::map<std::string, int32_t, std::less<>> index;
  for (const auto& sentence : sentences) {
    std::vector<std::string> words = split_words(sentence);
    if (words.size() < 2) continue;  // no context to learn from
    std::vector<int32_t> ids;
    for (auto& word : words) {
      auto found = index.find(word);
      if (found == index.end()) {
        if (w->words_.size() == kMaxWords) return out_of_range("the number of distinct words in corpus", "at most 100000", static_cast<double>(kMaxWords + 1));
        found = index.emplace(word, static_cast<int32_t>(w->words_.size())).first;
        w->words_.push_back(std::move(word));
        w->counts_.push_back(0);
      }
      ++w->counts_[static_cast<std::size_t>(found->second)];
      ids.push_back(found->second);
    }
    for (std::size_t p = 0; p < ids.size(); ++p) w->centres_.emplace_back(w->sentences_.size(), p);
    w->sentences_.push_back(std::move(ids));
  }
  if (w->words_.size() < 2) {
    return Status::range_error("corpus must hold at least two distinct words in sentences of two words or more, got " + std::to_string(w->words_.size()));
  }
  double total = 0;
  for (const int64_t count : w->counts_) {
    const auto c = static_cast<double>(count);
    w->negative_cumulative_.push_back(total += std::sqrt(std::sqrt(c * c * c)));  // count^0.75
  }
  const auto dim = static_cast<std::size_t>(config.dim);
  w->input_.resize(w->words_.size() * dim);
  fill_uniform(w->random_, -0.5 / static_cast<double>(dim), 0.5 / static_cast<double>(dim), w->input_);
  w->output_.assign(w->words_.size() * dim, 0.0f);
  out = std::move(w);
  return {};
}

int32_t WordEmbeddings::draw_negative() {
  const double u = random_.uniform() * negative_cumulative_.back();
  const auto at = std::upper_bound(negative_cumulative_.begin(), negative_cumulative_.end(), u) - negative_cumulative_.begin();
  return static_cast<int32_t>(std::min<std::ptrdiff_t>(at, static_cast<std::ptrdiff_t>(negative_cumulative_.size()) - 1));
}

Status WordEmbeddings::step(int64_t n, double& mean_loss) {
  POSEMBED_RETURN_IF_ERROR(check_integer("n", n, 1, limits::kMaxTrainingSteps));
  const auto dim = static_cast<std::size_t>(config_.dim);
  std::vector<double> gradient(dim);
  double loss = 0;
  int64_t pairs = 0;
  for (int64_t s = 0; s < n; ++s) {
    for (int64_t b = 0; b < config_.batch_size; ++b) {
      const auto [sentence_index, position] = centres_[random_.next_u64() % centres_.size()];
      const auto& sentence = sentences_[sentence_index];
      float* centre = input_.data() + static_cast<std::size_t>(sentence[position]) * dim;
      const std::size_t window = static_cast<std::size_t>(config_.window);
      const std::size_t first = position >= window ? position - window : 0;
      const std::size_t last = std::min(sentence.size() - 1, position + window);
      for (std::size_t c = first; c <= last; ++c) {
        if (c == position) continue;
        std::fill(gradient.begin(), gradient.end(), 0.0);
        // One positive (the context word, label 1) and `negatives` random words (label 0).
        for (int64_t k = 0; k <= config_.negatives; ++k) {
          const int32_t target = k == 0 ? sentence[c] : draw_negative();
          if (k > 0 && target == sentence[c]) continue;
          float* out = output_.data() + static_cast<std::size_t>(target) * dim;
          double dot = 0;
          for (std::size_t i = 0; i < dim; ++i) dot += static_cast<double>(centre[i]) * out[i];
          const double label = k == 0 ? 1.0 : 0.0;
          const double p = sigmoid(dot);
          loss -= portable_log(label == 1.0 ? std::max(p, 1e-12) : std::max(1.0 - p, 1e-12));
          const double g = config_.learning_rate * (label - p);
          for (std::size_t i = 0; i < dim; ++i) {
            gradient[i] += g * out[i];
            out[i] = static_cast<float>(out[i] + g * centre[i]);
          }
        }
        for (std::size_t i = 0; i < dim; ++i) centre[i] = static_cast<float>(centre[i] + gradient[i]);
        ++pairs;
      }
    }
    ++steps_;
  }
  mean_loss = pairs > 0 ? loss / static_cast<double>(pairs) : 0.0;
  return {};
}

int32_t WordEmbeddings::index_of(std::string_view word) const {
  const std::string wanted = normalise(word);
  const auto found = std::find(words_.begin(), words_.end(), wanted);
  return found == words_.end() ? -1 : static_cast<int32_t>(found - words_.begin());
}

Status WordEmbeddings::nearest(std::string_view word, int64_t k, std::vector<int32_t>& ids, std::vector<float>& scores) const {
  const int32_t query = index_of(word);
  if (query < 0) return Status::range_error("word '" + std::string(word) + "' is not in the corpus's vocabulary");
  const auto words = static_cast<int64_t>(words_.size());
  if (!(k >= 1 && k <= words - 1)) return out_of_range("k", "an integer in [1, " + std::to_string(words - 1) + "] (the other words)", static_cast<double>(k));
  const auto dim = static_cast<std::size_t>(config_.dim);
  const auto norm = [&](std::size_t row) {
    double sum = 0;
    for (std::size_t i = 0; i < dim; ++i) sum += static_cast<double>(input_[row * dim + i]) * input_[row * dim + i];
    return std::sqrt(sum);
  };
  const auto q = static_cast<std::size_t>(query);
  const double query_norm = norm(q);
  std::vector<std::pair<double, int32_t>> ranked;
  for (std::size_t row = 0; row < words_.size(); ++row) {
    if (row == q) continue;
    double dot = 0;
    for (std::size_t i = 0; i < dim; ++i) dot += static_cast<double>(input_[row * dim + i]) * input_[q * dim + i];
    const double denominator = norm(row) * query_norm;
    ranked.emplace_back(denominator > 0 ? dot / denominator : 0.0, static_cast<int32_t>(row));
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  ids.clear();
  scores.clear();
  for (int64_t i = 0; i < k; ++i) {
    ids.push_back(ranked[static_cast<std::size_t>(i)].second);
    scores.push_back(static_cast<float>(ranked[static_cast<std::size_t>(i)].first));
  }
  return {};
}

}  // namespace posembed
