// A small transformer trained on the tutorials' toy tasks (Max(1,6,2) → 6, Min, First, and copying a list),
// to watch its token table, its position table and its answers take shape.
//
// The model: token embedding (the padding row kept at zero, times the scale), the positional option
// (sinusoidal or learned rows added to the input; RoPE rotating queries and keys; ALiBi biasing the scores;
// none), pre-LayerNorm blocks of causal multi-head self-attention and a GELU MLP, a final LayerNorm, and the
// output layer tied to the token embedding. Cross-entropy on the answer tokens; AdamW, the gradient clipped to
// norm 1.
//
// Positions come from the package's own encoders (sinusoidal, rope_table, alibi_bias). Every sum runs in a
// fixed order, exp and log are computed from + - * / only, and no multiply-add is fused, so one seed gives
// the same losses bit for bit on every build. The model is written once over its number type: float to
// train, double for the gradient checks against finite differences.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "posembed/random.hpp"
#include "posembed/status.hpp"

namespace posembed {

// The tutorials' toy vocabulary: padding, end, the digits, the operations, the syntax.
inline constexpr int32_t kToyVocabularySize = 20;
namespace toy {
inline constexpr int32_t kPadding = 0, kEnd = 1, kDigitZero = 2, kFirst = 12, kLast = 13, kMin = 14, kMax = 15, kSum = 16,
                         kOpen = 17, kClose = 18, kComma = 19;
}
std::string_view toy_token(int32_t id);

enum class ToyTask { kMax, kMin, kFirst, kMixed, kCopy };
std::optional<ToyTask> parse_toy_task(std::string_view name);

// A prompt and its answer: Max(1,6,2) then 6; for copy, (1,6,2) then 1 6 2.
struct ToyExample {
  std::vector<int32_t> tokens;    // the prompt, then the answer
  std::size_t answer_start = 0;   // where the answer begins
};

// The example a prompt asks for, its answer found by the task's rule; an error naming what does not fit the
// task's format (an operation in [Max, Min, First] for 'mixed', then '(', digits separated by ',', ')').
Status toy_example(ToyTask task, std::span<const int32_t> prompt, ToyExample& out);
// A random example with items in [min_items, max_items] (digits 0-9).
ToyExample random_toy_example(ToyTask task, int64_t min_items, int64_t max_items, Random& random);
// Tokens a prompt and answer of `items` items take: what a model must read to answer it.
int64_t toy_example_length(ToyTask task, int64_t items);

enum class TrainerPositional { kNone, kSinusoidal, kLearned, kRope, kAlibi };
std::optional<TrainerPositional> parse_trainer_positional(std::string_view name);

struct TrainerConfig {
  ToyTask task = ToyTask::kMixed;
  TrainerPositional positional = TrainerPositional::kSinusoidal;
  int64_t d_model = 64;
  int64_t layers = 1;
  int64_t heads = 4;
  int64_t max_length = 16;   // positions a training example may take (the learned table's rows)
  int64_t min_items = 2;
  int64_t max_items = 5;
  int64_t batch_size = 32;
  double learning_rate = 3e-3;
  double weight_decay = 0.01;
  double embedding_scale = 8.0;  // what token rows are multiplied by (sqrt(d_model), or 1)
  uint64_t seed = 0;
};

// Ranges, in the package's words: dModel an even multiple of heads (head size even, for RoPE) in [4, 512],
// layers [1, 8], heads [1, 16], maxLength [4, 256], items [1, 20] with the longest example within maxLength,
// batchSize [1, 1024], learningRate (0, 1], weightDecay [0, 1].
Status validate(const TrainerConfig& config);

// Where one named parameter lies in the flat parameter vector.
struct ParameterInfo {
  std::string name;            // GPT-2's names: wte.weight, wpe.weight, h.0.attn.c_attn.weight, ..., ln_f.bias
  std::vector<int64_t> shape;  // linear weights are [in, out], as GPT-2 stores them
  std::size_t offset = 0;
  std::size_t size = 0;
  bool decays = false;         // AdamW's weight decay: on matrices and embeddings, not on LayerNorms and biases
};

// The longest input evaluation takes with positions other than learned ones.
inline constexpr int64_t kMaxToyInputLength = 1024;

template <class T>
class ToyTransformer {
 public:
  explicit ToyTransformer(const TrainerConfig& config);  // config must be valid

  const std::vector<ParameterInfo>& layout() const { return layout_; }
  std::span<T> parameters() { return parameters_; }
  std::span<const T> parameters() const { return parameters_; }
  const TrainerConfig& config() const { return config_; }

  // Seeded initialisation: normal weights (std 0.02; 1/sqrt(dModel) for the token table), zero biases and
  // padding row, LayerNorms at 1 and 0. The same values in float and double.
  void initialize(uint64_t seed);

  // The mean cross-entropy over the answer tokens of `examples`; with gradients (parameters' size) their
  // gradients too, overwritten. correct: the examples whose every answer token is the most probable one.
  Status loss(std::span<const ToyExample> examples, std::span<T> gradients, double& mean_loss, int64_t* correct = nullptr) const;

  // The probabilities of the token after `tokens` (kToyVocabularySize of them).
  Status next_token_probabilities(std::span<const int32_t> tokens, std::span<T> probabilities) const;

 private:
  struct Batch;
  struct Pass;  // one batch through the model, stage by stage (trainer.cpp)
  Status run(const Batch& batch, std::span<T> gradients, double* total_loss, int64_t* correct, std::span<T> probabilities) const;

  TrainerConfig config_;
  std::vector<ParameterInfo> layout_;
  std::vector<T> parameters_;
};

extern template class ToyTransformer<float>;
extern template class ToyTransformer<double>;

// The float model with AdamW and its example streams.
class Trainer {
 public:
  static Status create(const TrainerConfig& config, std::unique_ptr<Trainer>& out);

  ToyTransformer<float>& model() { return model_; }
  int64_t steps() const { return steps_; }

  // n AdamW steps, each on batch_size fresh examples; the mean of their losses.
  Status step(int64_t n, double& mean_loss);
  // Held-out examples from a stream seeded apart from training's (the same ones on every call).
  Status evaluate(int64_t count, int64_t min_items, int64_t max_items, double& accuracy, double& mean_loss) const;
  // Greedy answer to a prompt (one token; one per item for copy), and the probabilities of its first token.
  Status predict(std::span<const int32_t> prompt, std::vector<int32_t>& answer, std::span<float> first_probabilities) const;
  // The examples' mean loss and the gradients of every parameter (the model's layout).
  Status loss_and_gradients(std::span<const ToyExample> examples, double& mean_loss, std::span<float> gradients) const;

 private:
  explicit Trainer(const TrainerConfig& config);
  void adamw_update(std::span<const float> gradients);

  ToyTransformer<float> model_;
  std::vector<float> first_moment_;
  std::vector<float> second_moment_;
  Random examples_;
  int64_t steps_ = 0;
};

}  // namespace posembed
