// The encoders and analysis for JavaScript: in every module, and alone in the light one the elements draw with.
// cpp/bindings/ are the only files that know about JavaScript. Each binding converts JS numbers and strings into
// the core's params, calls the core on heap memory the JS package allocated, and hands back null on success or
// { name, message } for the package to throw (so no C++ frame is unwound by a JS exception).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "js_values.hpp"
#include "posembed/alibi.hpp"
#include "posembed/analysis.hpp"
#include "posembed/core_ops.hpp"
#include "posembed/learned_positions.hpp"
#include "posembed/limits.hpp"
#include "posembed/rope.hpp"
#include "posembed/sinusoidal.hpp"
#include "posembed/t5.hpp"
#include "posembed/threads.hpp"
#include "posembed/token_embedding.hpp"
#include "posembed/transformer_embedding.hpp"

namespace posembed {
namespace {

using namespace bindings;

// The sinusoidal parameters from JS, or the error that names the unknown layout or timescale.
std::variant<SinusoidalParams, Status> sinusoidal_params(double length, double d_model, double base, const std::string& layout,
                                                         const std::string& timescale, double offset) {
  const auto parsed_layout = parse_sinusoidal_layout(layout);
  const auto parsed_timescale = parse_sinusoidal_timescale(timescale);
  if (!parsed_layout) return Status::type_error("layout must be 'interleaved' or 'split', got '" + layout + "'");
  if (!parsed_timescale) return Status::type_error("timescale must be 'standard' or 't2t', got '" + timescale + "'");
  return SinusoidalParams{.length = to_int64(length), .d_model = to_int64(d_model), .base = base,
                          .layout = *parsed_layout, .timescale = *parsed_timescale, .offset = to_int64(offset)};
}

val js_sinusoidal(double length, double d_model, double base, const std::string& layout,
                  const std::string& timescale, double offset, uintptr_t out, double out_count) {
  const auto params = sinusoidal_params(length, d_model, base, layout, timescale, offset);
  if (const auto* error = std::get_if<Status>(&params)) return to_js(*error);
  return to_js(sinusoidal(std::get<SinusoidalParams>(params), heap_span<float>(out, out_count)));
}

// on_block(firstRow, rows): a JS function called while the block holds those rows.
val js_sinusoidal_blocks(double length, double d_model, double base, const std::string& layout, const std::string& timescale,
                         double offset, uintptr_t block, double block_rows, val on_block) {
  const auto params = sinusoidal_params(length, d_model, base, layout, timescale, offset);
  if (const auto* error = std::get_if<Status>(&params)) return to_js(*error);
  return to_js(sinusoidal_blocks(std::get<SinusoidalParams>(params), heap_span<float>(block, block_rows * d_model),
                                 [&](int64_t first, int64_t rows) { on_block(static_cast<double>(first), static_cast<double>(rows)); }));
}

val js_sinusoidal_at(double d_model, double base, const std::string& layout, const std::string& timescale, uintptr_t positions,
                     double count, uintptr_t out) {
  const auto params = sinusoidal_params(count, d_model, base, layout, timescale, 0);
  if (const auto* error = std::get_if<Status>(&params)) return to_js(*error);
  return to_js(sinusoidal_at_positions(std::get<SinusoidalParams>(params), heap_span<const int32_t>(positions, count),
                                       heap_span<float>(out, count * d_model)));
}

TokenEmbeddingShape embedding_shape(double vocab_size, double d_model, double padding_idx) {
  return {.vocab_size = to_int64(vocab_size), .d_model = to_int64(d_model), .padding_idx = to_int64(padding_idx)};
}

val js_init_embedding_table(uintptr_t table, double vocab_size, double d_model, double padding_idx,
                            const std::string& kind, double std, double gain, double seed) {
  const auto parsed_kind = parse_embedding_init(kind);
  if (!parsed_kind) return to_js(Status::type_error("init.type must be 'normal' or 'xavier-uniform', got '" + kind + "'"));
  const TokenEmbeddingShape shape = embedding_shape(vocab_size, d_model, padding_idx);
  const EmbeddingInit init{.kind = *parsed_kind, .std = std, .gain = gain, .seed = static_cast<uint64_t>(to_int64(seed))};
  return to_js(init_embedding_table(shape, init, heap_span<float>(table, vocab_size * d_model)));
}

val js_token_embedding_lookup(uintptr_t table, const std::string& dtype, double vocab_size, double d_model, double padding_idx, double scale,
                              uintptr_t ids, double id_count, uintptr_t out) {
  const TokenEmbeddingShape shape = embedding_shape(vocab_size, d_model, padding_idx);
  return to_js(token_embedding_lookup(shape, static_cast<float>(scale), heap_table(table, dtype, vocab_size, d_model), heap_span<const int32_t>(ids, id_count),
                                      heap_span<float>(out, id_count * d_model)));
}

// NaN when the name is unknown; the package checks names before calling.
double js_embedding_scale_factor(const std::string& kind, double d_model) {
  const auto parsed = parse_embedding_scale(kind);
  return parsed ? embedding_scale_factor(*parsed, 0.0, to_int64(d_model)) : std::nan("");
}

// The core's table of ops (core_ops.hpp) as the package's registry reads it.
val js_core_ops() {
  constexpr const char* kKinds[] = {"integer", "number", "boolean"};
  val ops = val::object();
  for (const CoreOp* op : core_ops()) {
    val options = val::array();
    for (const OpOption& option : op->options) {
      val entry = val::object();
      entry.set("name", std::string(option.name));
      entry.set("type", kKinds[static_cast<int>(option.kind)]);
      if (option.kind != OptionKind::kBoolean) {
        entry.set("min", option.min);
        entry.set("max", option.max);
      }
      if (!option.required()) entry.set("default", option.kind == OptionKind::kBoolean ? val(option.default_value != 0) : val(option.default_value));
      entry.set("doc", std::string(option.doc));
      entry.set("positional", option.positional);
      if (!option.attribute.empty()) entry.set("attribute", std::string(option.attribute));
      options.call<void>("push", entry);
    }
    val entry = val::object();
    entry.set("doc", std::string(op->doc));
    entry.set("result", op->int_result() ? "int32" : "float32");
    entry.set("options", options);
    ops.set(std::string(op->name), entry);
  }
  return ops;
}

// An op of the table by name, with its values (numbers in its options' order, booleans as 0 and 1).
std::variant<const CoreOp*, Status> core_op(const std::string& name, const val& values, std::vector<double>& read) {
  const CoreOp* op = core_op_named(name);
  if (!op) return Status::type_error("the core has no op named '" + name + "'");
  read = emscripten::vecFromJSArray<double>(values);
  return op;
}

// { shape, inputElements } of the op's result for these values, or the error that names the value out of range.
val js_core_op_shape(const std::string& name, const val& values) {
  std::vector<double> read;
  const auto op = core_op(name, values, read);
  if (const auto* error = std::get_if<Status>(&op)) return to_js(*error);
  OpShape shape;
  POSEMBED_RETURN_IF_ERROR_JS(core_op_shape(*std::get<const CoreOp*>(op), read, shape));
  val dims = val::array();
  for (int d = 0; d < shape.rank; ++d) dims.call<void>("push", static_cast<double>(shape.dims[static_cast<std::size_t>(d)]));
  val result = val::object();
  result.set("shape", dims);
  result.set("inputElements", static_cast<double>(shape.input_elements));
  return result;
}

val js_core_op_input(const std::string& name, const val& values, uintptr_t out, double out_count) {
  std::vector<double> read;
  const auto op = core_op(name, values, read);
  if (const auto* error = std::get_if<Status>(&op)) return to_js(*error);
  return to_js(core_op_input(*std::get<const CoreOp*>(op), read, heap_span<float>(out, out_count)));
}

// input: the op's input table on the heap (0 and 0 for an op that reads none); out: int32 or float32 values, as the
// op's result is.
val js_core_op_rows(const std::string& name, const val& values, uintptr_t input, double input_count, double first_row, uintptr_t out, double out_count) {
  std::vector<double> read;
  const auto op = core_op(name, values, read);
  if (const auto* error = std::get_if<Status>(&op)) return to_js(*error);
  const CoreOp& chosen = *std::get<const CoreOp*>(op);
  const auto table = heap_span<const float>(input, input_count);
  return to_js(chosen.int_result() ? core_op_rows(chosen, read, table, to_int64(first_row), heap_span<int32_t>(out, out_count))
                                   : core_op_rows(chosen, read, table, to_int64(first_row), heap_span<float>(out, out_count)));
}

// slopes: 0 for the paper's rule, else numHeads floats on the heap.
val js_alibi_bias_rows(double num_heads, double query_length, double key_length, bool causal, uintptr_t slopes, double first_row, double row_count,
                       uintptr_t out) {
  const AlibiBiasParams params{to_int64(num_heads), to_int64(query_length), to_int64(key_length), causal,
                               slopes ? heap_span<const float>(slopes, num_heads) : std::span<const float>()};
  return to_js(alibi_bias_rows(params, to_int64(first_row), heap_span<float>(out, row_count * key_length)));
}

T5BucketParams t5_params(double num_buckets, double max_distance, bool bidirectional) {
  return {to_int64(num_buckets), to_int64(max_distance), bidirectional};
}

val js_t5_buckets(double num_buckets, double max_distance, bool bidirectional, uintptr_t relative, double count, uintptr_t out) {
  return to_js(t5_buckets(t5_params(num_buckets, max_distance, bidirectional), heap_span<const int32_t>(relative, count),
                          heap_span<int32_t>(out, count)));
}

val js_t5_bias_rows(uintptr_t table, double table_count, double num_buckets, double num_heads, double query_length, double key_length,
                    uintptr_t relative_buckets, double relative_count, double first_row, double row_count, uintptr_t out) {
  return to_js(t5_bias_rows(heap_span<const float>(table, table_count), to_int64(num_buckets), to_int64(num_heads), to_int64(query_length),
                            to_int64(key_length), heap_span<const int32_t>(relative_buckets, relative_count), to_int64(first_row),
                            heap_span<float>(out, row_count * key_length)));
}

// The package has checked the scaling object's keys and types; absent keys take the core's defaults. Its keys are
// the parameters' names in the core's table; the core names a type no rule has.
RopeScaling rope_scaling(const val& js) {
  RopeScaling s{.type = js["type"].as<std::string>()};
  for (const RopeParameter& p : rope_parameters()) {
    const val value = js[std::string(p.name)];
    if (value.isUndefined()) continue;
    std::visit([&](auto field) {
      using Value = std::remove_cvref_t<decltype(s.*field)>;
      if constexpr (std::is_same_v<Value, std::vector<double>>) {
        s.*field = vecFromJSArray<double>(value);
      } else if constexpr (std::is_same_v<Value, int64_t>) {
        s.*field = to_int64(value.as<double>());
      } else {
        s.*field = value.as<Value>();
      }
    }, p.field);
  }
  return s;
}

// The scaling rules' parameters, for the package's build (core_tables.js): { parameters: { name: { hfKey, doc,
// type, default (none for a list), min, max, exclusiveMin, note } }, rules: { name: { parameters, required } } }
// (parameters: all it reads, in the table's order; required: the first of them, which it needs).
val js_rope_rules() {
  val parameters = val::object();
  for (const RopeParameter& p : rope_parameters()) {
    val entry = val::object();
    entry.set("hfKey", std::string(p.hf_key));
    entry.set("doc", std::string(p.doc));
    std::visit([&](auto field) {
      using Value = std::remove_cvref_t<decltype(std::declval<RopeScaling>().*field)>;
      if constexpr (std::is_same_v<Value, std::vector<double>>) {
        entry.set("type", "list");
      } else {
        entry.set("type", std::is_same_v<Value, int64_t> ? "integer" : std::is_same_v<Value, bool> ? "boolean" : "number");
        // What the core reads when a scaling object leaves the parameter out.
        if constexpr (std::is_same_v<Value, bool>) entry.set("default", RopeScaling{}.*field);
        else entry.set("default", static_cast<double>(RopeScaling{}.*field));
      }
    }, p.field);
    entry.set("min", p.low);
    entry.set("max", p.high);
    entry.set("exclusiveMin", p.low_bound == LowBound::kExcluded);
    entry.set("note", std::string(p.note));
    parameters.set(std::string(p.name), entry);
  }
  val rules = val::object();
  for (const RopeRuleParameters& rule : rope_rules()) {
    val names = val::array(), required = val::array();
    for (std::size_t i = 0; i < rule.parameters.size(); ++i) {
      names.call<void>("push", std::string(rule.parameters[i]));
      if (i < rule.required) required.call<void>("push", std::string(rule.parameters[i]));
    }
    val entry = val::object();
    entry.set("parameters", names);
    entry.set("required", required);
    rules.set(std::string(rule.name), entry);
  }
  val out = val::object();
  out.set("parameters", parameters);
  out.set("rules", rules);
  return out;
}

val js_rope_inv_freq(double rotary_dim, double base, const val& scaling, uintptr_t out) {
  return to_js(rope_inv_freq(to_int64(rotary_dim), base, rope_scaling(scaling), heap_span<double>(out, rotary_dim / 2)));
}

double js_rope_attention_factor(const val& scaling) {
  return rope_attention_factor(rope_scaling(scaling));
}

val js_apply_rope(double head_dim, double rotary_dim, double base, const std::string& layout, const val& scaling, uintptr_t x,
                  double rows, uintptr_t positions, double seq, uintptr_t out) {
  const auto parsed_layout = parse_rope_layout(layout);
  if (!parsed_layout) return to_js(Status::type_error("layout must be 'half' or 'interleaved', got '" + layout + "'"));
  const RopeParams params{to_int64(head_dim), to_int64(rotary_dim), base, *parsed_layout, rope_scaling(scaling)};
  const double elements = rows * seq * head_dim;
  return to_js(apply_rope(params, heap_span<const float>(x, elements), to_int64(rows), heap_span<const int32_t>(positions, seq),
                          heap_span<float>(out, elements)));
}


val js_interpolate_positions(uintptr_t table, double length, double d_model, double new_length, uintptr_t out) {
  return to_js(interpolate_positions(heap_span<const float>(table, length * d_model), to_int64(length), to_int64(d_model),
                                     to_int64(new_length), heap_span<float>(out, new_length * d_model)));
}


val js_similarity(uintptr_t a, double n, uintptr_t b, double m, double d, const std::string& metric, uintptr_t out) {
  const auto parsed = parse_similarity_metric(metric);
  if (!parsed) return to_js(Status::type_error("metric must be 'dot' or 'cosine', got '" + metric + "'"));
  return to_js(similarity(heap_span<const float>(a, n * d), to_int64(n), heap_span<const float>(b, m * d), to_int64(m), to_int64(d), *parsed,
                          heap_span<float>(out, n * m)));
}

val js_query_similarity(uintptr_t a, double n, uintptr_t b, double m, double d, const std::string& metric, uintptr_t out) {
  const auto parsed = parse_similarity_metric(metric);
  if (!parsed) return to_js(Status::type_error("metric must be 'dot' or 'cosine', got '" + metric + "'"));
  return to_js(query_similarity(heap_span<const float>(a, n * d), to_int64(n), heap_span<const float>(b, m * d), to_int64(m), to_int64(d), *parsed,
                                heap_span<float>(out, n * m)));
}

double js_first_non_finite(uintptr_t values, double count) {
  return static_cast<double>(first_non_finite(heap_span<const float>(values, count)));
}

val js_nearest_rows(uintptr_t table, const std::string& dtype, double rows, double d, uintptr_t query, const std::string& metric, double k,
                    uintptr_t indices, uintptr_t scores) {
  const auto parsed = parse_similarity_metric(metric);
  if (!parsed) return to_js(Status::type_error("metric must be 'dot' or 'cosine', got '" + metric + "'"));
  return to_js(nearest_rows(heap_table(table, dtype, rows, d), heap_span<const float>(query, d), *parsed, heap_span<int32_t>(indices, k),
                            heap_span<float>(scores, k)));
}

// positions: 0 for none. random_state: a uint64 on the heap, advanced by the dropout draws.
val js_combined_embedding_rows(uintptr_t table, double vocab_size, double d_model, double padding_idx, double scale, uintptr_t positions,
                               double max_length, uintptr_t ids, double count, double seq, double first_row, bool training, double dropout,
                               uintptr_t random_state, uintptr_t out) {
  const CombinedEmbeddingParams params{embedding_shape(vocab_size, d_model, padding_idx), static_cast<float>(scale), to_int64(max_length),
                                       static_cast<float>(dropout)};
  auto* state = reinterpret_cast<uint64_t*>(random_state);
  Random random(*state);
  const Status status = combined_embedding_rows(params, heap_span<const float>(table, vocab_size * d_model),
                                                positions ? heap_span<const float>(positions, max_length * d_model) : std::span<const float>(),
                                                heap_span<const int32_t>(ids, count), to_int64(seq), to_int64(first_row), training, random,
                                                heap_span<float>(out, count * d_model));
  *state = random.state();
  return to_js(status);
}

// positions: [streams, count] int32 (streams 3 with mRoPE); mrope_section: 3 numbers, all 0 for none.
val js_rope_cache(double rotary_dim, double base, const std::string& layout, const val& scaling, const val& mrope_section, bool mrope_interleaved,
                  const std::string& precision, double sequence_length, uintptr_t positions, double positions_count, uintptr_t cos, uintptr_t sin) {
  const auto parsed_layout = parse_rope_layout(layout);
  const auto parsed_precision = parse_rope_precision(precision);
  if (!parsed_layout) return to_js(Status::type_error("layout must be 'half' or 'interleaved', got '" + layout + "'"));
  if (!parsed_precision) return to_js(Status::type_error("precision must be one of 'exact', 'float32', 'bfloat16', 'float16', got '" + precision + "'"));
  RopeCacheParams params{.rotary_dim = to_int64(rotary_dim), .base = base, .layout = *parsed_layout, .scaling = rope_scaling(scaling),
                         .precision = *parsed_precision, .sequence_length = to_int64(sequence_length)};
  for (std::size_t i = 0; i < 3; ++i) params.mrope.section[i] = to_int64(mrope_section[i].as<double>());
  params.mrope.interleaved = mrope_interleaved;
  const double streams = params.mrope.active() ? 3 : 1;
  const double elements = positions_count / streams * rotary_dim;
  return to_js(rope_cache(params, heap_span<const int32_t>(positions, positions_count), heap_span<float>(cos, elements), heap_span<float>(sin, elements)));
}

// HF's float32 buffer of the frequencies, for the port checker's bounds.
val js_rope_inv_freq_float32(double rotary_dim, double base, const val& scaling, uintptr_t out) {
  return to_js(rope_inv_freq_float32(to_int64(rotary_dim), base, rope_scaling(scaling), heap_span<float>(out, rotary_dim / 2)));
}

val js_rope_table(double head_dim, double rotary_dim, double base, const val& scaling, uintptr_t positions, double seq, uintptr_t out) {
  const RopeParams params{to_int64(head_dim), to_int64(rotary_dim), base, RopeLayout::kHalf, rope_scaling(scaling)};
  return to_js(rope_table(params, heap_span<const int32_t>(positions, seq), heap_span<float>(out, seq * rotary_dim)));
}

val js_rope_rotate(double head_dim, double rotary_dim, const std::string& layout, uintptr_t table, double seq, double first, double count,
                   uintptr_t x, uintptr_t out) {
  const auto parsed_layout = parse_rope_layout(layout);
  if (!parsed_layout) return to_js(Status::type_error("layout must be 'half' or 'interleaved', got '" + layout + "'"));
  const RopeParams params{.head_dim = to_int64(head_dim), .rotary_dim = to_int64(rotary_dim), .layout = *parsed_layout};
  const double elements = count * head_dim;
  return to_js(rotate_by_table(params, heap_span<const float>(table, seq * rotary_dim), to_int64(seq), to_int64(first), to_int64(count),
                               heap_span<const float>(x, elements), heap_span<float>(out, elements)));
}

val js_limits() {
  val out = val::object();
  for (const auto& [name, value] : limits::kLimits) out.set(std::string(name), value);
  out.set("sinusoidalBlockRows", static_cast<double>(kSinusoidalBlockRows));
  return out;
}

}  // namespace
}  // namespace posembed

EMSCRIPTEN_BINDINGS(posembed_encoders) {
  using namespace emscripten;
  function("sinusoidal", &posembed::js_sinusoidal);
  function("ropeRules", &posembed::js_rope_rules);
  function("sinusoidalAt", &posembed::js_sinusoidal_at);
  function("sinusoidalBlocks", &posembed::js_sinusoidal_blocks);
  function("initEmbeddingTable", &posembed::js_init_embedding_table);
  function("tokenEmbeddingLookup", &posembed::js_token_embedding_lookup);
  function("embeddingScaleFactor", &posembed::js_embedding_scale_factor);
  function("coreOps", &posembed::js_core_ops);
  function("coreOpShape", &posembed::js_core_op_shape);
  function("coreOpInput", &posembed::js_core_op_input);
  function("coreOpRows", &posembed::js_core_op_rows);
  function("alibiBiasRows", &posembed::js_alibi_bias_rows);
  function("t5Buckets", &posembed::js_t5_buckets);
  function("t5BiasRows", &posembed::js_t5_bias_rows);
  function("ropeInvFreq", &posembed::js_rope_inv_freq);
  function("ropeAttentionFactor", &posembed::js_rope_attention_factor);
  function("applyRope", &posembed::js_apply_rope);
  function("interpolatePositions", &posembed::js_interpolate_positions);
  function("similarity", &posembed::js_similarity);
  function("querySimilarity", &posembed::js_query_similarity);
  function("nearestRows", &posembed::js_nearest_rows);
  function("firstNonFinite", &posembed::js_first_non_finite);
  function("combinedEmbeddingRows", &posembed::js_combined_embedding_rows);
  function("ropeTable", &posembed::js_rope_table);
  function("ropeCache", &posembed::js_rope_cache);
  function("ropeInvFreqFloat32", &posembed::js_rope_inv_freq_float32);
  function("ropeRotate", &posembed::js_rope_rotate);
  function("limits", &posembed::js_limits);
  function("setThreads", &posembed::set_threads);
  function("threads", &posembed::threads);
}
