#include "posembed/trainer.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "posembed/threads.hpp"

namespace posembed {
namespace {

std::vector<int32_t> tokens_of(std::initializer_list<std::string_view> texts) {
  std::vector<int32_t> ids;
  for (const auto text : texts) {
    for (int32_t id = 0; id < kToyVocabularySize; ++id) {
      if (toy_token(id) == text) ids.push_back(id);
    }
  }
  return ids;
}

TEST_CASE("toy prompts get the answers of their task's rule", "[trainer]") {
  ToyExample e;
  REQUIRE(toy_example(ToyTask::kMixed, tokens_of({"Max", "(", "1", ",", "6", ",", "2", ")"}), e).ok());
  CHECK(e.tokens.size() == 9);
  CHECK(e.answer_start == 8);
  CHECK(toy_token(e.tokens.back()) == "6");
  REQUIRE(toy_example(ToyTask::kMixed, tokens_of({"Min", "(", "1", ",", "6", ",", "2", ")"}), e).ok());
  CHECK(toy_token(e.tokens.back()) == "1");
  REQUIRE(toy_example(ToyTask::kFirst, tokens_of({"First", "(", "3", ",", "1", ",", "2", ")"}), e).ok());
  CHECK(toy_token(e.tokens.back()) == "3");
  REQUIRE(toy_example(ToyTask::kCopy, tokens_of({"(", "4", ",", "0", ")"}), e).ok());
  CHECK(e.tokens == tokens_of({"(", "4", ",", "0", ")", "4", "0"}));
  CHECK(e.answer_start == 5);

  const auto message = [&](ToyTask task, std::initializer_list<std::string_view> prompt) { return toy_example(task, tokens_of(prompt), e).message(); };
  CHECK(message(ToyTask::kMax, {"Min", "(", "1", ")"}) == "'Min(1)': this task's prompts start with Max");
  CHECK(message(ToyTask::kMixed, {"Sum", "(", "1", ")"}) == "'Sum(1)': this task's prompts start with Max, Min or First");
  CHECK(message(ToyTask::kMixed, {"Max", "(", "1", ",", ")"}) == "'Max(1,)' is not an operation, '(', digits separated by ',', ')'");
  CHECK(message(ToyTask::kMixed, {"Max", "(", "1", ")", ")"}) == "'Max(1))' is not an operation, '(', digits separated by ',', ')'");
  CHECK(message(ToyTask::kCopy, {"(", ")"}) == "'()' is not '(' digits separated by ',' ')'");
  CHECK(toy_example(ToyTask::kMixed, {}, e).kind() == ErrorKind::kRange);
}

TEST_CASE("random examples have their task's form and lengths", "[trainer]") {
  Random random(3);
  for (const ToyTask task : {ToyTask::kMax, ToyTask::kMin, ToyTask::kFirst, ToyTask::kMixed, ToyTask::kCopy}) {
    for (int i = 0; i < 200; ++i) {
      const ToyExample e = random_toy_example(task, 2, 5, random);
      ToyExample again;
      REQUIRE(toy_example(task, std::span(e.tokens).first(e.answer_start), again).ok());
      CHECK(again.tokens == e.tokens);
      const int64_t items = task == ToyTask::kCopy ? static_cast<int64_t>(e.tokens.size() - e.answer_start) : (static_cast<int64_t>(e.answer_start) - 2) / 2;
      CHECK(items >= 2);
      CHECK(items <= 5);
      CHECK(static_cast<int64_t>(e.tokens.size()) == toy_example_length(task, items));
    }
  }
}

TEST_CASE("trainer options outside their ranges are refused by name", "[trainer]") {
  const auto message = [](TrainerConfig c) { return validate(c).message(); };
  CHECK(validate(TrainerConfig{}).ok());
  CHECK(message({.d_model = 66}) == "dModel must be a multiple of 2 * heads = 8 (an even head size), got 66");
  CHECK(message({.layers = 0}) == "layers must be an integer in [1, 8], got 0");
  CHECK(message({.heads = 17}) == "heads must be an integer in [1, 16], got 17");
  CHECK(validate({.max_items = 7}).ok());
  CHECK(message({.max_items = 8}) == "maxItems must be at most what maxLength = 16 holds (examples of 8 items take 18 positions), got 8");
  CHECK(validate({.task = ToyTask::kCopy, .max_items = 5}).ok());
  CHECK(message({.task = ToyTask::kCopy, .max_items = 6}) == "maxItems must be at most what maxLength = 16 holds (examples of 6 items take 18 positions), got 6");
  CHECK(message({.min_items = 3, .max_items = 2}) == "maxItems must be an integer in [3, 20] (at least minItems), got 2");
  CHECK(message({.learning_rate = 0}) == "learningRate must be a number in (0, 1], got 0");
  CHECK(message({.weight_decay = std::nan("")}).starts_with("weightDecay must be a number in [0, 1]"));
  CHECK(message({.batch_size = 0}) == "batchSize must be an integer in [1, 1024], got 0");
}

// Every parameter's gradient against central differences of the double-precision model, along random directions
// within each parameter tensor: for a direction v with a Gaussian value in every entry, (L(p + hv) - L(p - hv)) / 2h
// must equal the analytic gradient's dot product with v. An error in any entry moves that product for almost every
// direction, and a direction costs two forward passes where an entry at a time costs two an entry.
void check_gradients(const TrainerConfig& config, std::span<const ToyExample> examples) {
  ToyTransformer<double> model(config);
  // Nudge every parameter off its initial value, so LayerNorm weights and biases are not all 1 and 0.
  std::mt19937_64 generator(config.seed + 11);
  std::normal_distribution<double> noise(0.0, 0.05);
  for (double& p : model.parameters()) p += noise(generator);
  std::vector<double> analytic(model.parameters().size());
  double loss = 0;
  REQUIRE(model.loss(examples, analytic, loss).ok());
  CHECK(std::isfinite(loss));
  // The loss with the entries offset .. offset + direction.size() - 1 moved by step * direction, then put back.
  const auto loss_along = [&](std::size_t offset, std::span<const double> direction, double step) {
    const std::span<double> entries = std::span<double>(model.parameters()).subspan(offset, direction.size());
    const std::vector<double> kept(entries.begin(), entries.end());
    for (std::size_t k = 0; k < entries.size(); ++k) entries[k] += step * direction[k];
    double moved = 0;
    REQUIRE(model.loss(examples, {}, moved).ok());
    std::copy(kept.begin(), kept.end(), entries.begin());
    return moved;
  };
  constexpr double kStep = 1e-5;
  constexpr int kDirections = 4;
  std::normal_distribution<double> gaussian(0.0, 1.0);
  for (const auto& info : model.layout()) {
    double difference_squares = 0, analytic_squares = 0, numeric_squares = 0;
    for (int d = 0; d < kDirections; ++d) {
      std::vector<double> direction(info.size);
      for (double& v : direction) v = gaussian(generator);
      double slope = 0;
      for (std::size_t k = 0; k < info.size; ++k) slope += analytic[info.offset + k] * direction[k];
      const double numeric = (loss_along(info.offset, direction, kStep) - loss_along(info.offset, direction, -kStep)) / (2 * kStep);
      difference_squares += (slope - numeric) * (slope - numeric);
      analytic_squares += slope * slope;
      numeric_squares += numeric * numeric;
    }
    const double relative = std::sqrt(difference_squares) / std::max(std::sqrt(std::max(analytic_squares, numeric_squares)), 1e-12);
    INFO(info.name << ": |analytic| " << std::sqrt(analytic_squares) << ", |numeric| " << std::sqrt(numeric_squares));
    CHECK(relative <= 1e-3);
    CHECK(std::sqrt(numeric_squares) > 0);
    if (info.name == "wte.weight") {
      INFO("the padding row of wte.weight, set off zero");
      // No loss depends on it (the model reads it as zero): its gradient is zero, and moving it moves nothing.
      const std::size_t padding = info.offset + toy::kPadding * static_cast<std::size_t>(config.d_model);
      const std::vector<double> direction(static_cast<std::size_t>(config.d_model), 1.0);
      for (std::size_t k = 0; k < direction.size(); ++k) CHECK(analytic[padding + k] == 0.0);
      CHECK(loss_along(padding, direction, 0.1) == loss_along(padding, direction, -0.1));
    }
  }
}

TEST_CASE("every parameter's gradient matches central differences, for every positional option", "[trainer]") {
  std::mt19937_64 generator(2026);
  for (const auto positional : {TrainerPositional::kNone, TrainerPositional::kSinusoidal, TrainerPositional::kLearned, TrainerPositional::kRope,
                                TrainerPositional::kAlibi}) {
    for (int trial = 0; trial < 2; ++trial) {
      // A random small configuration.
      const int64_t heads = 1 + static_cast<int64_t>(generator() % 2);
      TrainerConfig config{.task = trial == 0 ? ToyTask::kMixed : ToyTask::kCopy,
                           .positional = positional,
                           .d_model = 2 * heads * (2 + static_cast<int64_t>(generator() % 2)),
                           .layers = 1 + static_cast<int64_t>(generator() % 2),
                           .heads = heads,
                           .max_length = 12,
                           .min_items = 1,
                           .max_items = 3,
                           .embedding_scale = trial == 0 ? 1.0 : 2.5,
                           .seed = generator()};
      REQUIRE(validate(config).ok());
      Random random(config.seed);
      std::vector<ToyExample> examples;
      for (int i = 0; i < 3; ++i) examples.push_back(random_toy_example(config.task, 1, 3, random));
      INFO("positional " << static_cast<int>(positional) << ", dModel " << config.d_model << ", heads " << heads << ", layers " << config.layers);
      check_gradients(config, examples);
    }
  }
}

TEST_CASE("the float model's loss and gradients agree with the double one's", "[trainer]") {
  const TrainerConfig config{.positional = TrainerPositional::kRope, .d_model = 16, .heads = 2, .seed = 5};
  ToyTransformer<float> single(config);
  ToyTransformer<double> twice(config);
  Random random(1);
  std::vector<ToyExample> examples;
  for (int i = 0; i < 8; ++i) examples.push_back(random_toy_example(config.task, 2, 5, random));
  std::vector<float> g32(single.parameters().size());
  std::vector<double> g64(twice.parameters().size());
  double l32 = 0, l64 = 0;
  REQUIRE(single.loss(examples, g32, l32).ok());
  REQUIRE(twice.loss(examples, g64, l64).ok());
  CHECK(std::abs(l32 - l64) < 1e-5);
  double worst = 0, largest = 0;
  for (std::size_t i = 0; i < g64.size(); ++i) worst = std::max(worst, std::abs(g32[i] - g64[i])), largest = std::max(largest, std::abs(g64[i]));
  CHECK(worst < 1e-4 * largest);
}

// An FNV-1a hash of float bits.
uint64_t hash_losses(const std::vector<float>& values) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (const float v : values) {
    uint32_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    for (int byte = 0; byte < 4; ++byte) {
      hash ^= (bits >> (8 * byte)) & 0xff;
      hash *= 0x100000001b3ULL;
    }
  }
  return hash;
}

std::vector<float> losses_of(TrainerConfig config, int steps) {
  std::unique_ptr<Trainer> trainer;
  REQUIRE(Trainer::create(config, trainer).ok());
  std::vector<float> losses;
  for (int i = 0; i < steps; ++i) {
    double loss = 0;
    REQUIRE(trainer->step(1, loss).ok());
    losses.push_back(static_cast<float>(loss));
  }
  return losses;
}

TEST_CASE("one seed gives the same losses bit for bit, on one thread or four, on every build", "[trainer]") {
  const TrainerConfig config{.positional = TrainerPositional::kRope, .d_model = 32, .heads = 4, .batch_size = 16, .seed = 7};
  const int kept = threads();
  set_threads(1);
  const auto one = losses_of(config, 12);
  set_threads(4);
  const auto four = losses_of(config, 12);
  set_threads(kept);
  CHECK(one == four);
  CHECK(losses_of(config, 12) == one);
  // The native, wasm SIMD, wasm scalar and threaded suites all check this one number.
  CHECK(hash_losses(one) == 0xec25705668fe2c49ULL);
}

TEST_CASE("training lowers the loss and answers Max", "[trainer]") {
  std::unique_ptr<Trainer> trainer;
  REQUIRE(Trainer::create({.task = ToyTask::kMax, .d_model = 32, .seed = 1}, trainer).ok());
  double before = 0, accuracy_before = 0, after = 0, accuracy = 0, loss = 0;
  REQUIRE(trainer->evaluate(256, 2, 5, accuracy_before, before).ok());
  REQUIRE(trainer->step(300, loss).ok());
  REQUIRE(trainer->evaluate(256, 2, 5, accuracy, after).ok());
  CHECK(trainer->steps() == 300);
  CHECK(after < 0.5 * before);
  CHECK(accuracy > accuracy_before + 0.3);
  std::vector<int32_t> answer;
  std::vector<float> probabilities(kToyVocabularySize);
  REQUIRE(trainer->predict(tokens_of({"Max", "(", "1", ",", "6", ",", "2", ")"}), answer, probabilities).ok());
  CHECK(answer.size() == 1);
  double sum = 0;
  for (const float p : probabilities) sum += p;
  CHECK(std::abs(sum - 1) < 1e-5);
}

TEST_CASE("learned positions say they cannot reach past their table; the others go on", "[trainer]") {
  for (const auto positional : {TrainerPositional::kNone, TrainerPositional::kSinusoidal, TrainerPositional::kLearned, TrainerPositional::kRope,
                                TrainerPositional::kAlibi}) {
    std::unique_ptr<Trainer> trainer;
    REQUIRE(Trainer::create({.positional = positional, .d_model = 16, .heads = 2}, trainer).ok());
    double accuracy = 0, loss = 0;
    const Status status = trainer->evaluate(64, 6, 10, accuracy, loss);
    if (positional == TrainerPositional::kLearned) {
      CHECK(status.message() == "learned positions cover 16 positions (maxLength); these examples need 22: a learned table has no rows past its length");
    } else {
      CHECK(status.ok());
      CHECK(std::isfinite(loss));
    }
  }
}

}  // namespace
}  // namespace posembed
