#include "posembed/trainer.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "dense.hpp"
#include "posembed/alibi.hpp"
#include "posembed/limits.hpp"
#include "posembed/rope.hpp"
#include "posembed/sinusoidal.hpp"
#include "posembed/threads.hpp"

namespace posembed {

namespace {

constexpr std::array<std::string_view, kToyVocabularySize> kToyTokens = {
    "<pad>", "<end>", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "First", "Last", "Min", "Max", "Sum", "(", ")", ","};

constexpr double kLayerNormEpsilon = 1e-5;
constexpr double kInitStd = 0.02;
constexpr double kAdamBeta1 = 0.9;
constexpr double kAdamBeta2 = 0.999;
constexpr double kAdamEpsilon = 1e-8;
constexpr double kMaxGradientNorm = 1.0;
// The held-out stream's seed is the training seed with these bits flipped.
constexpr uint64_t kEvaluationStream = 0x6a09e667f3bcc908ULL;

bool is_digit(int32_t id) { return id >= toy::kDigitZero && id < toy::kDigitZero + 10; }

std::string describe_prompt(std::span<const int32_t> prompt) {
  std::string text;
  for (const int32_t id : prompt) text += id >= 0 && id < kToyVocabularySize ? std::string(kToyTokens[id]) : "?";
  return "'" + text + "'";
}

}  // namespace

std::string_view toy_token(int32_t id) { return id >= 0 && id < kToyVocabularySize ? kToyTokens[id] : std::string_view(); }

std::optional<ToyTask> parse_toy_task(std::string_view name) {
  if (name == "max") return ToyTask::kMax;
  if (name == "min") return ToyTask::kMin;
  if (name == "first") return ToyTask::kFirst;
  if (name == "mixed") return ToyTask::kMixed;
  if (name == "copy") return ToyTask::kCopy;
  return std::nullopt;
}

std::optional<TrainerPositional> parse_trainer_positional(std::string_view name) {
  if (name == "none") return TrainerPositional::kNone;
  if (name == "sinusoidal") return TrainerPositional::kSinusoidal;
  if (name == "learned") return TrainerPositional::kLearned;
  if (name == "rope") return TrainerPositional::kRope;
  if (name == "alibi") return TrainerPositional::kAlibi;
  return std::nullopt;
}

int64_t toy_example_length(ToyTask task, int64_t items) {
  const int64_t list = 2 * items + 1;  // ( d , d ... )
  return task == ToyTask::kCopy ? list + items : 1 + list + 1;
}

Status toy_example(ToyTask task, std::span<const int32_t> prompt, ToyExample& out) {
  std::size_t at = 0;
  int32_t operation = -1;
  if (task != ToyTask::kCopy) {
    if (prompt.empty()) return Status::range_error("an empty prompt: it must start with an operation");
    operation = prompt[0];
    const bool allowed = task == ToyTask::kMixed ? (operation == toy::kMax || operation == toy::kMin || operation == toy::kFirst)
                                                 : operation == (task == ToyTask::kMax ? toy::kMax : task == ToyTask::kMin ? toy::kMin : toy::kFirst);
    if (!allowed) {
      const char* wanted = task == ToyTask::kMixed ? "Max, Min or First" : task == ToyTask::kMax ? "Max" : task == ToyTask::kMin ? "Min" : "First";
      return Status::range_error(describe_prompt(prompt) + ": this task's prompts start with " + wanted);
    }
    at = 1;
  }
  std::vector<int32_t> items;
  bool well_formed = at < prompt.size() && prompt[at] == toy::kOpen;
  for (std::size_t i = at + 1; well_formed && i < prompt.size(); i += 2) {
    well_formed = is_digit(prompt[i]) && i + 1 < prompt.size() && (prompt[i + 1] == toy::kComma || prompt[i + 1] == toy::kClose);
    if (well_formed) items.push_back(prompt[i]);
    if (well_formed && prompt[i + 1] == toy::kClose) {
      well_formed = i + 2 == prompt.size();
      break;
    }
  }
  well_formed = well_formed && !items.empty() && prompt.back() == toy::kClose;
  if (!well_formed) {
    return Status::range_error(describe_prompt(prompt) + " is not " + (task == ToyTask::kCopy ? "'(' digits separated by ',' ')'" : "an operation, '(', digits separated by ',', ')'"));
  }
  POSEMBED_RETURN_IF_ERROR(check_integer("the number of items in " + describe_prompt(prompt), static_cast<int64_t>(items.size()), 1, limits::kTrainerMaxItems));
  out.tokens.assign(prompt.begin(), prompt.end());
  out.answer_start = prompt.size();
  if (task == ToyTask::kCopy) {
    out.tokens.insert(out.tokens.end(), items.begin(), items.end());
  } else if (operation == toy::kMax) {
    out.tokens.push_back(*std::max_element(items.begin(), items.end()));
  } else if (operation == toy::kMin) {
    out.tokens.push_back(*std::min_element(items.begin(), items.end()));
  } else {
    out.tokens.push_back(items.front());
  }
  return {};
}

ToyExample random_toy_example(ToyTask task, int64_t min_items, int64_t max_items, Random& random) {
  const auto items = min_items + static_cast<int64_t>(random.next_u64() % static_cast<uint64_t>(max_items - min_items + 1));
  std::vector<int32_t> prompt;
  if (task != ToyTask::kCopy) {
    constexpr std::array<int32_t, 3> kMixed = {toy::kMax, toy::kMin, toy::kFirst};
    prompt.push_back(task == ToyTask::kMax     ? toy::kMax
                     : task == ToyTask::kMin   ? toy::kMin
                     : task == ToyTask::kFirst ? toy::kFirst
                                               : kMixed[random.next_u64() % 3]);
  }
  prompt.push_back(toy::kOpen);
  for (int64_t i = 0; i < items; ++i) {
    if (i > 0) prompt.push_back(toy::kComma);
    prompt.push_back(toy::kDigitZero + static_cast<int32_t>(random.next_u64() % 10));
  }
  prompt.push_back(toy::kClose);
  ToyExample example;
  (void)toy_example(task, prompt, example);  // well formed by construction
  return example;
}

// A task's list lengths: minItems … maxItems numbers.
Status check_items(int64_t min_items, int64_t max_items) {
  POSEMBED_RETURN_IF_ERROR(check_integer("minItems", min_items, 1, limits::kTrainerMaxItems));
  return check_integer("maxItems", max_items, min_items, limits::kTrainerMaxItems, "at least minItems");
}

Status validate(const TrainerConfig& c) {
  POSEMBED_RETURN_IF_ERROR(check_integer("heads", c.heads, 1, limits::kTrainerMaxHeads));
  POSEMBED_RETURN_IF_ERROR(check_integer("dModel", c.d_model, limits::kTrainerMinDModel, limits::kTrainerMaxDModel));
  if (c.d_model % (2 * c.heads) != 0) {
    return out_of_range("dModel", "a multiple of 2 * heads = " + std::to_string(2 * c.heads) + " (an even head size)", static_cast<double>(c.d_model));
  }
  POSEMBED_RETURN_IF_ERROR(check_integer("layers", c.layers, 1, limits::kTrainerMaxLayers));
  POSEMBED_RETURN_IF_ERROR(check_integer("maxLength", c.max_length, limits::kTrainerMinLength, limits::kTrainerMaxLength));
  POSEMBED_RETURN_IF_ERROR(check_items(c.min_items, c.max_items));
  // A model reads every token of an example but the last.
  const int64_t longest = toy_example_length(c.task, c.max_items) - 1;
  if (longest > c.max_length) {
    return out_of_range("maxItems", "at most what maxLength = " + std::to_string(c.max_length) + " holds (examples of " + std::to_string(c.max_items) +
                                        " items take " + std::to_string(longest) + " positions)",
                        static_cast<double>(c.max_items));
  }
  POSEMBED_RETURN_IF_ERROR(check_integer("batchSize", c.batch_size, 1, limits::kTrainerMaxBatchSize));
  POSEMBED_RETURN_IF_ERROR(check_number("learningRate", c.learning_rate, 0.0, 1.0, LowBound::kExcluded));
  POSEMBED_RETURN_IF_ERROR(check_number("weightDecay", c.weight_decay, 0.0, 1.0));
  if (!(std::isfinite(c.embedding_scale) && c.embedding_scale > 0)) return out_of_range("scale", "a positive factor", c.embedding_scale);
  return {};
}

// ---------------------------------------------------------------------------------------------------------
// The model.

namespace {

// Offsets of one block's parameters in the flat vector.
struct BlockParameters {
  std::size_t ln1_weight, ln1_bias, qkv_weight, qkv_bias, proj_weight, proj_bias, ln2_weight, ln2_bias, fc_weight, fc_bias, out_weight, out_bias;
};

struct Offsets {
  std::size_t token = 0;
  std::size_t position = 0;  // learned only
  std::vector<BlockParameters> blocks;
  std::size_t final_weight = 0, final_bias = 0;
};

Offsets offsets_of(const std::vector<ParameterInfo>& layout, int64_t layers) {
  const auto at = [&](const std::string& name) {
    for (const auto& p : layout) {
      if (p.name == name) return p.offset;
    }
    return std::size_t{0};
  };
  Offsets o;
  o.token = at("wte.weight");
  o.position = at("wpe.weight");
  for (int64_t l = 0; l < layers; ++l) {
    const std::string h = "h." + std::to_string(l) + ".";
    o.blocks.push_back({at(h + "ln_1.weight"), at(h + "ln_1.bias"), at(h + "attn.c_attn.weight"), at(h + "attn.c_attn.bias"), at(h + "attn.c_proj.weight"),
                        at(h + "attn.c_proj.bias"), at(h + "ln_2.weight"), at(h + "ln_2.bias"), at(h + "mlp.c_fc.weight"), at(h + "mlp.c_fc.bias"),
                        at(h + "mlp.c_proj.weight"), at(h + "mlp.c_proj.bias")});
  }
  o.final_weight = at("ln_f.weight");
  o.final_bias = at("ln_f.bias");
  return o;
}

template <class T>
dense::Matrix<T> matrix(T* data, std::size_t stride) {
  return {data, stride};
}
template <class T>
dense::Matrix<const T> matrix(const T* data, std::size_t stride) {
  return {data, stride};
}

// out[rows, columns] = x[rows, inner] · w[inner, columns] + bias.
template <class T>
void linear(const T* x, const T* w, const T* bias, T* out, std::size_t rows, std::size_t inner, std::size_t columns) {
  for (std::size_t r = 0; r < rows; ++r) std::copy(bias, bias + columns, out + r * columns);
  dense::multiply_add(matrix(x, inner), matrix(w, columns), matrix(out, columns), rows, inner, columns);
}

// The gradients of linear(): dx (+)= dy · wᵀ, dw += xᵀ · dy, dbias += Σ dy. dx is added to when accumulate.
template <class T>
void linear_backward(const T* x, const T* w, const T* dy, T* dx, T* dw, T* dbias, std::size_t rows, std::size_t inner, std::size_t columns,
                     bool accumulate) {
  std::vector<T> transposed(std::max(inner * columns, inner * rows));
  dense::transpose(matrix(w, columns), matrix(transposed.data(), inner), inner, columns);
  if (!accumulate) std::fill(dx, dx + rows * inner, T(0));
  dense::multiply_add(matrix(dy, columns), matrix<const T>(transposed.data(), inner), matrix(dx, inner), rows, columns, inner);
  dense::transpose(matrix(x, inner), matrix(transposed.data(), rows), rows, inner);
  dense::multiply_add(matrix<const T>(transposed.data(), rows), matrix(dy, columns), matrix(dw, columns), inner, rows, columns);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < columns; ++c) dbias[c] += dy[r * columns + c];
  }
}

// LayerNorm over rows of width d: out = (x - mean) / sqrt(var + eps) * weight + bias; keeps mean and 1/std.
template <class T>
void layer_norm(const T* x, const T* weight, const T* bias, T* out, T* mean, T* inverse_std, std::size_t rows, std::size_t d) {
  parallel_for_each_row(static_cast<int64_t>(rows), static_cast<int64_t>(d), [&](std::size_t r) {
    const T* row = x + r * d;
    double sum = 0;
    for (std::size_t c = 0; c < d; ++c) sum += row[c];
    const double m = sum / static_cast<double>(d);
    double squares = 0;
    for (std::size_t c = 0; c < d; ++c) squares += (row[c] - m) * (row[c] - m);
    const double s = 1.0 / std::sqrt(squares / static_cast<double>(d) + kLayerNormEpsilon);
    mean[r] = static_cast<T>(m);
    inverse_std[r] = static_cast<T>(s);
    for (std::size_t c = 0; c < d; ++c) out[r * d + c] = static_cast<T>((row[c] - m) * s * weight[c] + bias[c]);
  });
}

// dx += LayerNorm's input gradient; dweight, dbias += theirs.
template <class T>
void layer_norm_backward(const T* x, const T* weight, const T* mean, const T* inverse_std, const T* dy, T* dx, T* dweight, T* dbias,
                         std::size_t rows, std::size_t d) {
  parallel_for_each_row(static_cast<int64_t>(rows), static_cast<int64_t>(d), [&](std::size_t r) {
    const T* row = x + r * d;
    const T* g = dy + r * d;
    const double m = mean[r], s = inverse_std[r];
    double mean_dxhat = 0, mean_dxhat_xhat = 0;
    for (std::size_t c = 0; c < d; ++c) {
      const double dxhat = static_cast<double>(g[c]) * weight[c];
      mean_dxhat += dxhat;
      mean_dxhat_xhat += dxhat * (row[c] - m) * s;
    }
    mean_dxhat /= static_cast<double>(d);
    mean_dxhat_xhat /= static_cast<double>(d);
    for (std::size_t c = 0; c < d; ++c) {
      const double xhat = (row[c] - m) * s;
      const double dxhat = static_cast<double>(g[c]) * weight[c];
      dx[r * d + c] += static_cast<T>(s * (dxhat - mean_dxhat - xhat * mean_dxhat_xhat));
    }
  });
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < d; ++c) {
      dweight[c] += static_cast<T>(dy[r * d + c] * ((x[r * d + c] - mean[r]) * inverse_std[r]));
      dbias[c] += dy[r * d + c];
    }
  }
}

// GELU, tanh form (GPT-2's): 0.5 u (1 + tanh(c (u + 0.044715 u^3))), c = sqrt(2/pi), with tanh z = 1 - 2 / (e^2z + 1).
constexpr double kGeluScale = 0.7978845608028654;
constexpr double kGeluCubic = 0.044715;

// e^x for float lanes (V a batch of floats, or float): x = k ln 2 + r with |r| <= ln 2 / 2 and a degree-7 Taylor
// polynomial (under half a float ulp), every step an exactly rounded operation, so that each lane's bits are
// the same on every build and lane width. x is clamped to [-87, 88], where e^x stays a normal float.
template <class V>
V exp_lanes(V x) {
  x = xsimd::min(xsimd::max(x, V(-87.0f)), V(88.0f));
  const V k = xsimd::nearbyint(x * V(1.44269504f));
  const V r = (x - k * V(0.693145752f)) - k * V(1.42860677e-6f);  // ln 2 in two parts; k * high is exact
  V series(1.0f / 5040.0f);
  for (const float c : {1.0f / 720.0f, 1.0f / 120.0f, 1.0f / 24.0f, 1.0f / 6.0f, 0.5f, 1.0f, 1.0f}) series = series * r + V(c);
  if constexpr (std::is_same_v<V, float>) {
    return std::ldexp(series, static_cast<int>(k));
  }
#ifdef POSEMBED_HAS_SIMD
  else {
    return xsimd::ldexp(series, xsimd::batch_cast<int32_t>(k));
  }
#endif
}

// activated = gelu(u) and t = the tanh in it (kept: the derivative needs it), over n values.
template <class T>
void gelu(const T* u, T* activated, T* t, std::size_t n) {
  const auto one = [&]<class V>(std::size_t i) {
    const V x = simd::load<V>(u + i);
    const V inner = V(static_cast<T>(kGeluScale)) * (x + V(static_cast<T>(kGeluCubic)) * x * x * x);
    V tanh;
    if constexpr (std::is_same_v<T, float>) {
      tanh = V(1.0f) - V(2.0f) / (exp_lanes(inner + inner) + V(1.0f));
    } else {
      tanh = 1.0 - 2.0 / (portable_exp(2.0 * inner) + 1.0);  // the double model, for the gradient checks
    }
    simd::store(t + i, tanh);
    simd::store(activated + i, V(static_cast<T>(0.5)) * x * (V(static_cast<T>(1)) + tanh));
  };
  std::size_t i = 0;
#ifdef POSEMBED_HAS_SIMD
  if constexpr (std::is_same_v<T, float>) {
    for (; i + simd::kFloatLanes <= n; i += simd::kFloatLanes) one.template operator()<simd::FloatBatch>(i);
  }
#endif
  for (; i < n; ++i) one.template operator()<T>(i);
}

// gelu'(u) from u and its tanh t.
template <class T>
T gelu_derivative(T u, T t) {
  const T c = static_cast<T>(kGeluScale), a = static_cast<T>(kGeluCubic);
  return static_cast<T>(0.5) * (1 + t) + static_cast<T>(0.5) * u * (1 - t * t) * c * (1 + 3 * a * u * u);
}

// Rotates the head vectors of q or k (RoPE, half layout) by table [length, head_dim] from rope_table: each row
// the sines, then the cosines; `inverse` turns the other way (the transpose, for gradients). Written here
// rather than calling rotate_by_table because it runs in double too, and must not fuse multiply-adds.
template <class T>
void rotate_heads(T* qkv, std::size_t stride, std::size_t column0, std::span<const float> table, std::size_t length, std::size_t heads,
                  std::size_t head_dim, std::size_t rows, bool inverse) {
  const std::size_t half = head_dim / 2;
  for (std::size_t r = 0; r < rows; ++r) {
    const float* angles = table.data() + (r % length) * head_dim;
    for (std::size_t h = 0; h < heads; ++h) {
      T* v = qkv + r * stride + column0 + h * head_dim;
      for (std::size_t i = 0; i < half; ++i) {
        const T s = inverse ? -static_cast<T>(angles[i]) : static_cast<T>(angles[i]);
        const T c = static_cast<T>(angles[half + i]);
        const T x1 = v[i], x2 = v[half + i];
        v[i] = x1 * c - x2 * s;
        v[half + i] = x2 * c + x1 * s;
      }
    }
  }
}

}  // namespace

template <class T>
struct ToyTransformer<T>::Batch {
  std::size_t size = 0, length = 0;
  std::vector<int32_t> tokens;        // [size, length], padded
  std::vector<std::size_t> rows;      // rows (example * length + position) whose next token is scored
  std::vector<int32_t> targets;       // that token, or -1 where only probabilities are asked
  std::vector<std::size_t> example;   // the example of each scored row
};

template <class T>
ToyTransformer<T>::ToyTransformer(const TrainerConfig& config) : config_(config) {
  const int64_t d = config.d_model;
  std::size_t offset = 0;
  const auto add = [&](std::string name, std::vector<int64_t> shape, bool decays) {
    std::size_t size = 1;
    for (const int64_t s : shape) size *= static_cast<std::size_t>(s);
    layout_.push_back({std::move(name), std::move(shape), offset, size, decays});
    offset += size;
  };
  add("wte.weight", {kToyVocabularySize, d}, true);
  if (config.positional == TrainerPositional::kLearned) add("wpe.weight", {config.max_length, d}, true);
  for (int64_t l = 0; l < config.layers; ++l) {
    const std::string h = "h." + std::to_string(l) + ".";
    add(h + "ln_1.weight", {d}, false);
    add(h + "ln_1.bias", {d}, false);
    add(h + "attn.c_attn.weight", {d, 3 * d}, true);
    add(h + "attn.c_attn.bias", {3 * d}, false);
    add(h + "attn.c_proj.weight", {d, d}, true);
    add(h + "attn.c_proj.bias", {d}, false);
    add(h + "ln_2.weight", {d}, false);
    add(h + "ln_2.bias", {d}, false);
    add(h + "mlp.c_fc.weight", {d, 4 * d}, true);
    add(h + "mlp.c_fc.bias", {4 * d}, false);
    add(h + "mlp.c_proj.weight", {4 * d, d}, true);
    add(h + "mlp.c_proj.bias", {d}, false);
  }
  add("ln_f.weight", {d}, false);
  add("ln_f.bias", {d}, false);
  parameters_.assign(offset, T(0));
  initialize(config.seed);
}

template <class T>
void ToyTransformer<T>::initialize(uint64_t seed) {
  Random random(seed);
  const double projection_std = kInitStd / std::sqrt(2.0 * static_cast<double>(config_.layers));
  std::vector<float> values;
  for (const auto& p : layout_) {
    T* data = parameters_.data() + p.offset;
    const bool is_bias = p.name.ends_with(".bias");
    const bool is_norm = p.name.find("ln_") != std::string::npos;
    if (is_norm) {
      std::fill(data, data + p.size, is_bias ? T(0) : T(1));
    } else if (is_bias) {
      std::fill(data, data + p.size, T(0));
    } else {
      const double std = p.name == "wte.weight" ? 1.0 / std::sqrt(static_cast<double>(config_.d_model))
                         : p.name.ends_with("c_proj.weight") ? projection_std
                                                              : kInitStd;
      values.resize(p.size);
      fill_normal(random, 0.0, std, values);
      std::copy(values.begin(), values.end(), data);
    }
  }
  std::fill_n(parameters_.data() + layout_[0].offset + toy::kPadding * config_.d_model, config_.d_model, T(0));
}

template <class T>
Status ToyTransformer<T>::loss(std::span<const ToyExample> examples, std::span<T> gradients, double& mean_loss, int64_t* correct) const {
  POSEMBED_RETURN_IF_ERROR(check_integer("the number of examples", static_cast<int64_t>(examples.size()), 1, limits::kMaxEvaluationExamples));
  if (!gradients.empty() && gradients.size() != parameters_.size()) return output_size_error(parameters_.size(), gradients.size());
  Batch batch;
  batch.size = examples.size();
  for (const auto& e : examples) batch.length = std::max(batch.length, e.tokens.size() - 1);
  batch.tokens.assign(batch.size * batch.length, toy::kPadding);
  for (std::size_t b = 0; b < batch.size; ++b) {
    const auto& e = examples[b];
    std::copy(e.tokens.begin(), e.tokens.end() - 1, batch.tokens.begin() + static_cast<std::ptrdiff_t>(b * batch.length));
    for (std::size_t i = e.answer_start; i < e.tokens.size(); ++i) {
      batch.rows.push_back(b * batch.length + i - 1);
      batch.targets.push_back(e.tokens[i]);
      batch.example.push_back(b);
    }
  }
  double total = 0;
  POSEMBED_RETURN_IF_ERROR(run(batch, gradients, &total, correct, {}));
  mean_loss = total / static_cast<double>(batch.rows.size());
  return {};
}

template <class T>
Status ToyTransformer<T>::next_token_probabilities(std::span<const int32_t> tokens, std::span<T> probabilities) const {
  if (probabilities.size() != kToyVocabularySize) return output_size_error(kToyVocabularySize, probabilities.size());
  if (tokens.empty()) return out_of_range("the number of tokens", "at least 1", 0);
  for (const int32_t id : tokens) {
    if (id < 0 || id >= kToyVocabularySize) return out_of_range("a token id", "an integer in [0, 19]", id);
  }
  Batch batch;
  batch.size = 1;
  batch.length = tokens.size();
  batch.tokens.assign(tokens.begin(), tokens.end());
  batch.rows = {tokens.size() - 1};
  batch.targets = {-1};
  batch.example = {0};
  return run(batch, {}, nullptr, nullptr, probabilities);
}

// One pass of a batch through the model, stage by stage: the positions from the package's encoders, the input
// embeddings, each block, the scored rows' output; then, for gradients, the same stages backward. Each forward stage
// keeps what its backward stage needs.
template <class T>
struct ToyTransformer<T>::Pass {
  // What one block keeps from forward for backward.
  struct Saved {
    std::vector<T> input, ln1, ln1_mean, ln1_std, qkv, probs, attended, middle, ln2, ln2_mean, ln2_std, fc, activated, tanh;
  };

  const TrainerConfig& c;
  const Batch& batch;
  const std::size_t B, L, N, D, H, Dh, V, F, M, layers;
  const Offsets o;
  const T* P;
  const T scale;
  const T inverse_sqrt_head;
  std::vector<float> position_table;  // sinusoidal [L, D]; rope [L, Dh]; alibi [H, L, L]
  std::vector<T> table;               // the token table as the model reads it
  std::vector<Saved> saved;
  std::vector<T> x;                   // the residual stream [N, D]; in backward, its gradient
  std::vector<T> last, final_out, final_mean, final_std, logits;  // the scored rows [M, ...]; logits become probabilities

  Pass(const ToyTransformer& model, const Batch& b)
      : c(model.config_), batch(b), B(b.size), L(b.length), N(B * L), D(static_cast<std::size_t>(c.d_model)), H(static_cast<std::size_t>(c.heads)),
        Dh(D / H), V(kToyVocabularySize), F(4 * D), M(b.rows.size()), layers(static_cast<std::size_t>(c.layers)), o(offsets_of(model.layout_, c.layers)),
        P(model.parameters_.data()), scale(static_cast<T>(c.embedding_scale)), inverse_sqrt_head(static_cast<T>(1.0 / std::sqrt(static_cast<double>(Dh)))),
        saved(layers) {}

  bool is(TrainerPositional kind) const { return c.positional == kind; }

  Status check_length() const {
    if (is(TrainerPositional::kLearned) && static_cast<int64_t>(L) > c.max_length) {
      return Status::range_error("learned positions cover " + std::to_string(c.max_length) + " positions (maxLength); these examples need " +
                                 std::to_string(L) + ": a learned table has no rows past its length");
    }
    if (static_cast<int64_t>(L) > kMaxToyInputLength) {
      return out_of_range("the input length", "an integer in [1, " + std::to_string(kMaxToyInputLength) + "]", static_cast<double>(L));
    }
    return {};
  }

  // Positions from the package's encoders.
  Status encode_positions() {
    if (is(TrainerPositional::kSinusoidal)) {
      position_table.resize(L * D);
      return sinusoidal({.length = static_cast<int64_t>(L), .d_model = c.d_model}, position_table);
    }
    if (is(TrainerPositional::kRope)) {
      std::vector<int32_t> positions(L);
      for (std::size_t l = 0; l < L; ++l) positions[l] = static_cast<int32_t>(l);
      position_table.resize(L * Dh);
      RopeParams rope;
      rope.head_dim = rope.rotary_dim = static_cast<int64_t>(Dh);
      return rope_table(rope, positions, position_table);
    }
    if (is(TrainerPositional::kAlibi)) {
      position_table.resize(H * L * L);
      return alibi_bias({.num_heads = c.heads, .query_length = static_cast<int64_t>(L), .key_length = static_cast<int64_t>(L), .causal = true, .slopes = {}},
                        position_table);
    }
    return {};
  }

  // x0 = wte[token] · scale (+ the position's row). The padding row is a constant zero, not a parameter, whatever is
  // stored there; so no loss depends on it and its gradient is 0, the output's (tied) as well as the input's.
  void embed() {
    table.assign(P + o.token, P + o.token + V * D);
    std::fill_n(table.data() + toy::kPadding * D, D, T(0));
    x.resize(N * D);
    for (std::size_t n = 0; n < N; ++n) {
      const T* row = table.data() + static_cast<std::size_t>(batch.tokens[n]) * D;
      const std::size_t l = n % L;
      for (std::size_t k = 0; k < D; ++k) {
        T value = row[k] * scale;
        if (is(TrainerPositional::kSinusoidal)) value += static_cast<T>(position_table[l * D + k]);
        if (is(TrainerPositional::kLearned)) value += P[o.position + l * D + k];
        x[n * D + k] = value;
      }
    }
  }

  // RoPE turns the queries and keys (inverse: their gradients back).
  void rotate_queries_and_keys(std::vector<T>& qkv, bool inverse) const {
    if (!is(TrainerPositional::kRope)) return;
    rotate_heads(qkv.data(), 3 * D, 0, std::span<const float>(position_table), L, H, Dh, N, inverse);
    rotate_heads(qkv.data(), 3 * D, D, std::span<const float>(position_table), L, H, Dh, N, inverse);
  }

  // Causal attention of every (example, head): softmax(q·kᵀ/√Dh (+ ALiBi's bias)) · v.
  void attend(Saved& s) const {
    s.probs.assign(B * H * L * L, T(0));
    s.attended.assign(N * D, T(0));
    parallel_rows(static_cast<int64_t>(B * H), 1, [&](int64_t first, int64_t count) {
      std::vector<T> keys(Dh * L);
      std::vector<double> e(L);
      for (auto pair = static_cast<std::size_t>(first); pair < static_cast<std::size_t>(first + count); ++pair) {
        const std::size_t b = pair / H, h = pair % H;
        const T* q = s.qkv.data() + b * L * 3 * D + h * Dh;
        T* scores = s.probs.data() + pair * L * L;
        dense::transpose(matrix(q + D, 3 * D), matrix(keys.data(), L), L, Dh);
        dense::multiply_add(matrix(q, 3 * D), matrix<const T>(keys.data(), L), matrix(scores, L), L, Dh, L, false);
        for (std::size_t i = 0; i < L; ++i) {
          T* row = scores + i * L;
          double largest = -HUGE_VAL;
          for (std::size_t j = 0; j <= i; ++j) {
            row[j] *= inverse_sqrt_head;
            if (is(TrainerPositional::kAlibi)) row[j] += static_cast<T>(position_table[(h * L + i) * L + j]);
            largest = std::max(largest, static_cast<double>(row[j]));
          }
          double sum = 0;
          for (std::size_t j = 0; j <= i; ++j) sum += e[j] = portable_exp(row[j] - largest);
          for (std::size_t j = 0; j < L; ++j) row[j] = j <= i ? static_cast<T>(e[j] / sum) : T(0);
        }
        dense::multiply_add(matrix<const T>(scores, L), matrix<const T>(q + 2 * D, 3 * D), matrix(s.attended.data() + b * L * D + h * Dh, D), L, L, Dh, false);
      }
    });
  }

  // A pre-norm block: middle = x + attention(ln1(x)) · proj; x = middle + gelu(ln2(middle) · fc) · out.
  void block_forward(std::size_t layer) {
    const BlockParameters& p = o.blocks[layer];
    Saved& s = saved[layer];
    s.input = x;
    s.ln1.resize(N * D), s.ln1_mean.resize(N), s.ln1_std.resize(N);
    layer_norm(x.data(), P + p.ln1_weight, P + p.ln1_bias, s.ln1.data(), s.ln1_mean.data(), s.ln1_std.data(), N, D);
    s.qkv.resize(N * 3 * D);
    linear(s.ln1.data(), P + p.qkv_weight, P + p.qkv_bias, s.qkv.data(), N, D, 3 * D);
    rotate_queries_and_keys(s.qkv, false);
    attend(s);
    s.middle.resize(N * D);
    linear(s.attended.data(), P + p.proj_weight, P + p.proj_bias, s.middle.data(), N, D, D);
    for (std::size_t i = 0; i < N * D; ++i) s.middle[i] += x[i];
    s.ln2.resize(N * D), s.ln2_mean.resize(N), s.ln2_std.resize(N);
    layer_norm(s.middle.data(), P + p.ln2_weight, P + p.ln2_bias, s.ln2.data(), s.ln2_mean.data(), s.ln2_std.data(), N, D);
    s.fc.resize(N * F), s.activated.resize(N * F), s.tanh.resize(N * F);
    linear(s.ln2.data(), P + p.fc_weight, P + p.fc_bias, s.fc.data(), N, D, F);
    parallel_for_each_row(static_cast<int64_t>(N), static_cast<int64_t>(F), [&](std::size_t n) {
      gelu(s.fc.data() + n * F, s.activated.data() + n * F, s.tanh.data() + n * F, F);
    });
    linear(s.activated.data(), P + p.out_weight, P + p.out_bias, x.data(), N, F, D);
    for (std::size_t i = 0; i < N * D; ++i) x[i] += s.middle[i];
  }

  // The scored rows only: final LayerNorm, logits against the (tied) token table, softmax into `logits`; the summed
  // loss over rows with a target, and the examples whose every target is the most probable token.
  void score(double& loss_sum, int64_t& correct) {
    last.resize(M * D), final_out.resize(M * D), final_mean.resize(M), final_std.resize(M);
    logits.assign(M * V, T(0));
    std::vector<T> table_t(D * V);
    for (std::size_t m = 0; m < M; ++m) std::copy_n(x.data() + batch.rows[m] * D, D, last.data() + m * D);
    layer_norm(last.data(), P + o.final_weight, P + o.final_bias, final_out.data(), final_mean.data(), final_std.data(), M, D);
    dense::transpose(matrix<const T>(table.data(), D), matrix(table_t.data(), V), V, D);
    dense::multiply_add(matrix<const T>(final_out.data(), D), matrix<const T>(table_t.data(), V), matrix(logits.data(), V), M, D, V);
    std::vector<bool> example_correct(batch.size, true);
    loss_sum = 0;
    for (std::size_t m = 0; m < M; ++m) {
      T* row = logits.data() + m * V;
      double largest = -HUGE_VAL;
      for (std::size_t v = 0; v < V; ++v) largest = std::max(largest, static_cast<double>(row[v]));
      std::array<double, kToyVocabularySize> e{};
      double sum = 0;
      for (std::size_t v = 0; v < V; ++v) sum += e[v] = portable_exp(row[v] - largest);
      const int32_t target = batch.targets[m];
      if (target >= 0) {
        loss_sum += (portable_log(sum) + largest) - static_cast<double>(row[target]);
        const auto best = static_cast<int32_t>(std::max_element(row, row + V) - row);
        if (best != target) example_correct[batch.example[m]] = false;
      }
      for (std::size_t v = 0; v < V; ++v) row[v] = static_cast<T>(e[v] / sum);
    }
    correct = std::count(example_correct.begin(), example_correct.end(), true);
  }

  // The mean loss's gradient back through the softmax, the tied output and the final LayerNorm, into G and into x
  // (now the gradient of the last block's output).
  void score_backward(T* G) {
    const T per_row = static_cast<T>(1.0 / static_cast<double>(M));
    for (std::size_t m = 0; m < M; ++m) {
      for (std::size_t v = 0; v < V; ++v) logits[m * V + v] *= per_row;
      logits[m * V + static_cast<std::size_t>(batch.targets[m])] -= per_row;
    }
    // Tied output: logits = final_out · wteᵀ.
    std::vector<T> d_final(M * D, T(0)), transposed(std::max(V * M, D * M));
    dense::multiply_add(matrix<const T>(logits.data(), V), matrix<const T>(table.data(), D), matrix(d_final.data(), D), M, V, D);
    dense::transpose(matrix<const T>(logits.data(), V), matrix(transposed.data(), M), M, V);
    dense::multiply_add(matrix<const T>(transposed.data(), M), matrix<const T>(final_out.data(), D), matrix(G + o.token, D), V, M, D);
    std::fill_n(G + o.token + toy::kPadding * D, D, T(0));
    std::vector<T> d_last(M * D, T(0));
    layer_norm_backward(last.data(), P + o.final_weight, final_mean.data(), final_std.data(), d_final.data(), d_last.data(), G + o.final_weight,
                        G + o.final_bias, M, D);
    x.assign(N * D, T(0));
    for (std::size_t m = 0; m < M; ++m) {
      for (std::size_t k = 0; k < D; ++k) x[batch.rows[m] * D + k] += d_last[m * D + k];
    }
  }

  // d_attended back through attention's softmax into d_qkv (queries, keys and values of every head).
  void attend_backward(const Saved& s, const std::vector<T>& d_attended, std::vector<T>& d_qkv) const {
    std::fill(d_qkv.begin(), d_qkv.end(), T(0));
    parallel_rows(static_cast<int64_t>(B * H), 1, [&](int64_t first, int64_t count) {
      std::vector<T> values_t(Dh * L), d_probs(L * L), flipped(L * L);
      for (auto pair = static_cast<std::size_t>(first); pair < static_cast<std::size_t>(first + count); ++pair) {
        const std::size_t b = pair / H, h = pair % H;
        const T* q = s.qkv.data() + b * L * 3 * D + h * Dh;
        T* dq = d_qkv.data() + b * L * 3 * D + h * Dh;
        const T* probs = s.probs.data() + pair * L * L;
        const T* d_out = d_attended.data() + b * L * D + h * Dh;
        // d_probs = d_out · vᵀ; dv = probsᵀ · d_out.
        dense::transpose(matrix(q + 2 * D, 3 * D), matrix(values_t.data(), L), L, Dh);
        std::fill(d_probs.begin(), d_probs.end(), T(0));
        dense::multiply_add(matrix(d_out, D), matrix<const T>(values_t.data(), L), matrix(d_probs.data(), L), L, Dh, L, false);
        dense::transpose(matrix(probs, L), matrix(flipped.data(), L), L, L);
        dense::multiply_add(matrix<const T>(flipped.data(), L), matrix(d_out, D), matrix(dq + 2 * D, 3 * D), L, L, Dh, false);
        // Through the softmax and the 1/sqrt(head size): d_scores, kept in d_probs.
        for (std::size_t i = 0; i < L; ++i) {
          double dot = 0;
          for (std::size_t j = 0; j <= i; ++j) dot += static_cast<double>(d_probs[i * L + j]) * probs[i * L + j];
          for (std::size_t j = 0; j < L; ++j) {
            d_probs[i * L + j] = j <= i ? static_cast<T>(probs[i * L + j] * (d_probs[i * L + j] - dot)) * inverse_sqrt_head : T(0);
          }
        }
        // dq = d_scores · k; dk = d_scoresᵀ · q.
        dense::multiply_add(matrix<const T>(d_probs.data(), L), matrix(q + D, 3 * D), matrix(dq, 3 * D), L, L, Dh, false);
        dense::transpose(matrix<const T>(d_probs.data(), L), matrix(flipped.data(), L), L, L);
        dense::multiply_add(matrix<const T>(flipped.data(), L), matrix(q, 3 * D), matrix(dq + D, 3 * D), L, L, Dh, false);
      }
    });
  }

  // A block backward: x holds the gradient of its output and leaves holding that of its input. The scratch vectors
  // are the caller's, reused by every block.
  struct Scratch {
    std::vector<T> d_activated, d_ln, d_attended, d_qkv;
  };
  void block_backward(std::size_t layer, T* G, Scratch& t) {
    const BlockParameters& p = o.blocks[layer];
    const Saved& s = saved[layer];
    // MLP: x = middle + gelu(ln2 · fc) · out. x is the gradient of the block's output, and of middle.
    linear_backward(s.activated.data(), P + p.out_weight, x.data(), t.d_activated.data(), G + p.out_weight, G + p.out_bias, N, F, D, false);
    for (std::size_t k = 0; k < N * F; ++k) t.d_activated[k] *= gelu_derivative(s.fc[k], s.tanh[k]);
    linear_backward(s.ln2.data(), P + p.fc_weight, t.d_activated.data(), t.d_ln.data(), G + p.fc_weight, G + p.fc_bias, N, D, F, false);
    layer_norm_backward(s.middle.data(), P + p.ln2_weight, s.ln2_mean.data(), s.ln2_std.data(), t.d_ln.data(), x.data(), G + p.ln2_weight,
                        G + p.ln2_bias, N, D);
    // Attention: middle = input + attended · proj.
    linear_backward(s.attended.data(), P + p.proj_weight, x.data(), t.d_attended.data(), G + p.proj_weight, G + p.proj_bias, N, D, D, false);
    attend_backward(s, t.d_attended, t.d_qkv);
    rotate_queries_and_keys(t.d_qkv, true);
    linear_backward(s.ln1.data(), P + p.qkv_weight, t.d_qkv.data(), t.d_ln.data(), G + p.qkv_weight, G + p.qkv_bias, N, D, 3 * D, false);
    layer_norm_backward(s.input.data(), P + p.ln1_weight, s.ln1_mean.data(), s.ln1_std.data(), t.d_ln.data(), x.data(), G + p.ln1_weight,
                        G + p.ln1_bias, N, D);
  }

  // Into the embeddings: x0 = wte[token] · scale (+ wpe[position]).
  void embed_backward(T* G) const {
    for (std::size_t n = 0; n < N; ++n) {
      const auto token = static_cast<std::size_t>(batch.tokens[n]);
      if (token == toy::kPadding) continue;
      for (std::size_t k = 0; k < D; ++k) G[o.token + token * D + k] += x[n * D + k] * scale;
      if (is(TrainerPositional::kLearned)) {
        for (std::size_t k = 0; k < D; ++k) G[o.position + (n % L) * D + k] += x[n * D + k];
      }
    }
  }
};

template <class T>
Status ToyTransformer<T>::run(const Batch& batch, std::span<T> gradients, double* total_loss, int64_t* correct, std::span<T> probabilities) const {
  Pass pass(*this, batch);
  POSEMBED_RETURN_IF_ERROR(pass.check_length());
  POSEMBED_RETURN_IF_ERROR(pass.encode_positions());
  pass.embed();
  for (std::size_t layer = 0; layer < pass.layers; ++layer) pass.block_forward(layer);
  double loss_sum = 0;
  int64_t correct_examples = 0;
  pass.score(loss_sum, correct_examples);
  if (!probabilities.empty()) std::copy_n(pass.logits.data(), pass.V, probabilities.data());
  if (total_loss) *total_loss = loss_sum;
  if (correct) *correct = correct_examples;
  if (gradients.empty()) return {};

  T* G = gradients.data();
  std::fill(gradients.begin(), gradients.end(), T(0));
  pass.score_backward(G);
  const std::size_t N = pass.N, D = pass.D;
  typename Pass::Scratch scratch{std::vector<T>(N * pass.F), std::vector<T>(N * D), std::vector<T>(N * D), std::vector<T>(N * 3 * D)};
  for (std::size_t layer = pass.layers; layer-- > 0;) pass.block_backward(layer, G, scratch);
  pass.embed_backward(G);
  return {};
}

template class ToyTransformer<float>;
template class ToyTransformer<double>;

// ---------------------------------------------------------------------------------------------------------
// Training.

Trainer::Trainer(const TrainerConfig& config)
    : model_(config), first_moment_(model_.parameters().size()), second_moment_(model_.parameters().size()), examples_(config.seed) {}

Status Trainer::create(const TrainerConfig& config, std::unique_ptr<Trainer>& out) {
  POSEMBED_RETURN_IF_ERROR(validate(config));
  out.reset(new Trainer(config));
  return {};
}

Status Trainer::step(int64_t n, double& mean_loss) {
  POSEMBED_RETURN_IF_ERROR(check_integer("n", n, 1, limits::kMaxTrainingSteps));
  const TrainerConfig& c = model_.config();
  std::vector<float> gradients(model_.parameters().size());
  std::vector<ToyExample> batch(static_cast<std::size_t>(c.batch_size));
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (auto& example : batch) example = random_toy_example(c.task, c.min_items, c.max_items, examples_);
    double loss = 0;
    POSEMBED_RETURN_IF_ERROR(model_.loss(batch, gradients, loss));
    adamw_update(gradients);
    sum += loss;
  }
  mean_loss = sum / static_cast<double>(n);
  return {};
}

void Trainer::adamw_update(std::span<const float> gradients) {
  const TrainerConfig& c = model_.config();
  ++steps_;
  double beta1_power = 1, beta2_power = 1;  // by multiplication: pow() may round differently between builds
  for (int64_t t = 0; t < steps_; ++t) beta1_power *= kAdamBeta1, beta2_power *= kAdamBeta2;
  const double correction1 = 1 - beta1_power, correction2 = 1 - beta2_power;
  // The gradient scaled down to norm kMaxGradientNorm where it is longer: one bad batch cannot throw the
  // model off what it learned (without it, RoPE runs lose their accuracy again now and then).
  double squares = 0;
  for (const float g : gradients) squares += static_cast<double>(g) * g;
  const double norm = std::sqrt(squares);
  const double clip = norm > kMaxGradientNorm ? kMaxGradientNorm / norm : 1.0;
  std::span<float> parameters = model_.parameters();
  for (const auto& p : model_.layout()) {
    const double decay = p.decays ? c.weight_decay : 0.0;
    for (std::size_t i = p.offset; i < p.offset + p.size; ++i) {
      const double g = gradients[i] * clip;
      const double m = kAdamBeta1 * first_moment_[i] + (1 - kAdamBeta1) * g;
      const double v = kAdamBeta2 * second_moment_[i] + (1 - kAdamBeta2) * g * g;
      first_moment_[i] = static_cast<float>(m);
      second_moment_[i] = static_cast<float>(v);
      const double update = (m / correction1) / (std::sqrt(v / correction2) + kAdamEpsilon) + decay * parameters[i];
      parameters[i] = static_cast<float>(parameters[i] - c.learning_rate * update);
    }
  }
}

Status Trainer::evaluate(int64_t count, int64_t min_items, int64_t max_items, double& accuracy, double& mean_loss) const {
  POSEMBED_RETURN_IF_ERROR(check_integer("count", count, 1, limits::kMaxEvaluationExamples));
  POSEMBED_RETURN_IF_ERROR(check_items(min_items, max_items));
  const TrainerConfig& c = model_.config();
  Random stream(c.seed ^ kEvaluationStream);
  constexpr int64_t kChunk = 256;
  double loss_sum = 0;
  int64_t right = 0, answer_tokens = 0;
  std::vector<ToyExample> chunk;
  for (int64_t first = 0; first < count; first += kChunk) {
    chunk.resize(static_cast<std::size_t>(std::min(kChunk, count - first)));
    int64_t tokens = 0;
    for (auto& example : chunk) {
      example = random_toy_example(c.task, min_items, max_items, stream);
      tokens += static_cast<int64_t>(example.tokens.size() - example.answer_start);
    }
    double loss = 0;
    int64_t correct = 0;
    POSEMBED_RETURN_IF_ERROR(model_.loss(chunk, {}, loss, &correct));
    loss_sum += loss * static_cast<double>(tokens);
    answer_tokens += tokens;
    right += correct;
  }
  accuracy = static_cast<double>(right) / static_cast<double>(count);
  mean_loss = loss_sum / static_cast<double>(answer_tokens);
  return {};
}

Status Trainer::predict(std::span<const int32_t> prompt, std::vector<int32_t>& answer, std::span<float> first_probabilities) const {
  if (first_probabilities.size() != kToyVocabularySize) return output_size_error(kToyVocabularySize, first_probabilities.size());
  ToyExample example;
  POSEMBED_RETURN_IF_ERROR(toy_example(model_.config().task, prompt, example));  // checks the prompt's form
  std::vector<int32_t> tokens(prompt.begin(), prompt.end());
  std::vector<float> probabilities(kToyVocabularySize);
  answer.clear();
  for (std::size_t i = example.answer_start; i < example.tokens.size(); ++i) {
    POSEMBED_RETURN_IF_ERROR(model_.next_token_probabilities(tokens, probabilities));
    if (answer.empty()) std::copy(probabilities.begin(), probabilities.end(), first_probabilities.begin());
    const auto best = static_cast<int32_t>(std::max_element(probabilities.begin(), probabilities.end()) - probabilities.begin());
    answer.push_back(best);
    tokens.push_back(best);
  }
  return {};
}

Status Trainer::loss_and_gradients(std::span<const ToyExample> examples, double& mean_loss, std::span<float> gradients) const {
  return model_.loss(examples, gradients, mean_loss);
}

}  // namespace posembed
