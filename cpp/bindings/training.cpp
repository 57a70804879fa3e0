// The trainer, word vectors and their corpus for the JS package (the full modules only).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "js_values.hpp"
#include "posembed/token_embedding.hpp"
#include "posembed/trainer.hpp"
#include "posembed/word_embeddings.hpp"

namespace posembed {
namespace {

using namespace bindings;

// The trainer for the JS package's Trainer, which owns it (delete() when disposed). configure() first.
class JsTrainer {
 public:
  val configure(const std::string& task, const std::string& positional, double d_model, double layers, double heads, double max_length,
                double min_items, double max_items, double batch_size, double learning_rate, double weight_decay, const std::string& scale,
                double seed) {
    const auto parsed_task = parse_toy_task(task);
    const auto parsed_positional = parse_trainer_positional(positional);
    const auto parsed_scale = parse_embedding_scale(scale);
    if (!parsed_task) return to_js(Status::range_error("task must be one of 'max', 'min', 'first', 'mixed', 'copy', got '" + task + "'"));
    if (!parsed_positional) {
      return to_js(Status::range_error("positional must be one of 'none', 'sinusoidal', 'learned', 'rope', 'alibi', got '" + positional + "'"));
    }
    if (!parsed_scale || *parsed_scale == EmbeddingScaleKind::kConstant) return to_js(Status::range_error("scale must be one of 'sqrt', 'none', got '" + scale + "'"));
    const TrainerConfig config{.task = *parsed_task, .positional = *parsed_positional, .d_model = to_int64(d_model), .layers = to_int64(layers),
                               .heads = to_int64(heads), .max_length = to_int64(max_length), .min_items = to_int64(min_items),
                               .max_items = to_int64(max_items), .batch_size = to_int64(batch_size), .learning_rate = learning_rate,
                               .weight_decay = weight_decay, .embedding_scale = embedding_scale_factor(*parsed_scale, 0.0, to_int64(d_model)),
                               .seed = static_cast<uint64_t>(to_int64(seed))};
    return to_js(Trainer::create(config, trainer_));
  }

  // [{ name, shape, offset, size }] of the flat parameter vector at parametersPointer().
  val layout() const {
    val out = val::array();
    for (const auto& p : trainer_->model().layout()) {
      val entry = val::object();
      entry.set("name", p.name);
      val shape = val::array();
      for (const int64_t s : p.shape) shape.call<void>("push", static_cast<double>(s));
      entry.set("shape", shape);
      entry.set("offset", static_cast<double>(p.offset));
      entry.set("size", static_cast<double>(p.size));
      out.call<void>("push", entry);
    }
    return out;
  }
  uintptr_t parameters_pointer() const { return reinterpret_cast<uintptr_t>(trainer_->model().parameters().data()); }
  double parameter_count() const { return static_cast<double>(trainer_->model().parameters().size()); }
  double steps() const { return static_cast<double>(trainer_->steps()); }
  // After the package wrote parameters: the padding row back at zero.
  void zero_padding_row() {
    const auto d = static_cast<std::size_t>(trainer_->model().config().d_model);
    std::fill_n(trainer_->model().parameters().data() + static_cast<std::size_t>(toy::kPadding) * d, d, 0.0f);
  }

  val step(double n) {
    double loss = 0;
    const Status status = trainer_->step(to_int64(n), loss);
    val out = val::object();
    out.set("loss", loss);
    return result_or_error(status, out);
  }

  val evaluate(double count, double min_items, double max_items) const {
    double accuracy = 0, loss = 0;
    const Status status = trainer_->evaluate(to_int64(count), to_int64(min_items), to_int64(max_items), accuracy, loss);
    val out = val::object();
    out.set("accuracy", accuracy);
    out.set("loss", loss);
    return result_or_error(status, out);
  }

  // prompt: an Int32Array of ids. { answer: ids[], probabilities: number[20] }.
  val predict(val prompt) const {
    const auto ids = emscripten::convertJSArrayToNumberVector<int32_t>(prompt);
    std::vector<int32_t> answer;
    std::vector<float> probabilities(kToyVocabularySize);
    const Status status = trainer_->predict(ids, answer, probabilities);
    val out = val::object();
    out.set("answer", val::array(answer));
    out.set("probabilities", val::array(probabilities));
    return result_or_error(status, out);
  }

  // prompts: an array of Int32Arrays; gradients: a heap buffer of parameterCount() floats.
  val loss_and_gradients(val prompts, uintptr_t gradients) const {
    const auto count = prompts["length"].as<std::size_t>();
    std::vector<ToyExample> examples(count);
    for (std::size_t i = 0; i < count; ++i) {
      const auto ids = emscripten::convertJSArrayToNumberVector<int32_t>(prompts[i]);
      const Status status = toy_example(trainer_->model().config().task, ids, examples[i]);
      if (!status.ok()) return to_js(Status::range_error("examples[" + std::to_string(i) + "]: " + status.message()));
    }
    double loss = 0;
    const Status status = trainer_->loss_and_gradients(examples, loss, heap_span<float>(gradients, parameter_count()));
    val out = val::object();
    out.set("loss", loss);
    return result_or_error(status, out);
  }

 private:
  std::unique_ptr<Trainer> trainer_;
};

// Word embeddings for the JS package's WordEmbeddings. configure() first; sentences: an array of strings.
class JsWordEmbeddings {
 public:
  val configure(val sentences, double dim, double window, double negatives, double batch_size, double learning_rate, double seed) {
    const WordEmbeddingConfig config{.dim = to_int64(dim), .window = to_int64(window), .negatives = to_int64(negatives),
                                     .batch_size = to_int64(batch_size), .learning_rate = learning_rate, .seed = static_cast<uint64_t>(to_int64(seed))};
    const auto text = emscripten::vecFromJSArray<std::string>(sentences);
    return to_js(WordEmbeddings::create(config, text, words_));
  }
  val vocabulary() const { return val::array(words_->vocabulary()); }
  val counts() const {
    std::vector<double> counts(words_->counts().begin(), words_->counts().end());
    return val::array(counts);
  }
  uintptr_t vectors_pointer() const { return reinterpret_cast<uintptr_t>(words_->vectors().data()); }
  double steps() const { return static_cast<double>(words_->steps()); }
  val step(double n) {
    double loss = 0;
    const Status status = words_->step(to_int64(n), loss);
    val out = val::object();
    out.set("loss", loss);
    return result_or_error(status, out);
  }
  val nearest(const std::string& word, double k) const {
    std::vector<int32_t> ids;
    std::vector<float> scores;
    const Status status = words_->nearest(word, to_int64(k), ids, scores);
    val out = val::object();
    out.set("indices", val::array(ids));
    out.set("scores", val::array(scores));
    return result_or_error(status, out);
  }

 private:
  std::unique_ptr<WordEmbeddings> words_;
};

val js_generated_corpus(double seed, double sentences) { return val::array(generated_corpus(static_cast<uint64_t>(to_int64(seed)), to_int64(sentences))); }

val js_toy_vocabulary() {
  val out = val::array();
  for (int32_t id = 0; id < kToyVocabularySize; ++id) out.call<void>("push", std::string(toy_token(id)));
  return out;
}

}  // namespace
}  // namespace posembed

EMSCRIPTEN_BINDINGS(posembed_training) {
  using namespace emscripten;
  function("generatedCorpus", &posembed::js_generated_corpus);
  function("toyVocabulary", &posembed::js_toy_vocabulary);
  class_<posembed::JsTrainer>("Trainer")
      .constructor<>()
      .function("configure", &posembed::JsTrainer::configure)
      .function("layout", &posembed::JsTrainer::layout)
      .function("parametersPointer", &posembed::JsTrainer::parameters_pointer)
      .function("parameterCount", &posembed::JsTrainer::parameter_count)
      .function("steps", &posembed::JsTrainer::steps)
      .function("zeroPaddingRow", &posembed::JsTrainer::zero_padding_row)
      .function("step", &posembed::JsTrainer::step)
      .function("evaluate", &posembed::JsTrainer::evaluate)
      .function("predict", &posembed::JsTrainer::predict)
      .function("lossAndGradients", &posembed::JsTrainer::loss_and_gradients);
  class_<posembed::JsWordEmbeddings>("WordEmbeddings")
      .constructor<>()
      .function("configure", &posembed::JsWordEmbeddings::configure)
      .function("vocabulary", &posembed::JsWordEmbeddings::vocabulary)
      .function("counts", &posembed::JsWordEmbeddings::counts)
      .function("vectorsPointer", &posembed::JsWordEmbeddings::vectors_pointer)
      .function("steps", &posembed::JsWordEmbeddings::steps)
      .function("step", &posembed::JsWordEmbeddings::step)
      .function("nearest", &posembed::JsWordEmbeddings::nearest);
}
