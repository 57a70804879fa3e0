// pe.trainer: the tutorials' toy transformer, trained in the page by the C++ core (cpp/src/trainer.cpp). The
// core owns the parameters on the wasm heap; every tensor handed out here is a copy.
import { CORE_LIMITS } from './core_tables.js';
import { describe, integer, options } from './validate.js';
import { OP_SCHEMAS, readOptions } from './op_schemas.js';
import { CoreHandle } from './core_handle.js';
import { TOY_VOCABULARY, toyIds, toyTokens } from './toy_vocabulary.js';
import { writeSafetensors } from './weight_writers.js';

// The task's text → ids, with the prompt's name in errors.
function promptIds(text, name) {
  if (typeof text !== 'string') throw new TypeError(`${name} must be a string such as 'Max(1,6,2)', got ${describe(text)}`);
  try {
    return toyIds(toyTokens(text));
  } catch (error) {
    throw new RangeError(`${name}: ${error.message}`);
  }
}

export class Trainer {
  #handle;
  #layout;

  constructor(core, opts) {
    const o = readOptions('trainer', opts);
    const { max } = OP_SCHEMAS.trainer.options.maxItems;
    this.config = Object.freeze({ ...o, maxItems: integer('maxItems', o.maxItems ?? Math.max(5, o.minItems), o.minItems, max) });
    const c = this.config;
    this.#handle = new CoreHandle(core, 'Trainer', (handle) => handle.configure(c.task, c.positional, c.dModel, c.layers, c.heads, c.maxLength,
      c.minItems, c.maxItems, c.batchSize, c.learningRate, c.weightDecay, c.scale, c.seed));
    this.#layout = this.#handle.live('trainer').handle.layout();
    this.vocabulary = TOY_VOCABULARY;
  }

  // AdamW steps taken so far.
  get steps() {
    return this.#handle.live('trainer').handle.steps();
  }

  get disposed() {
    return this.#handle.disposed;
  }

  // Toy text → ids ('Max(1,6,2)' → Int32Array [15, 17, 3, 19, 8, 19, 4, 18]).
  encode(text) {
    return promptIds(text, 'text');
  }

  decode(ids) {
    if (!(Array.isArray(ids) || ids instanceof Int32Array)) throw new TypeError(`ids must be an Int32Array or an array of ids, got ${describe(ids)}`);
    return Array.from(ids, (id, i) => TOY_VOCABULARY[integer(`ids[${i}]`, id, 0, TOY_VOCABULARY.length - 1)]).join('');
  }

  // n AdamW steps on freshly generated batches: { step, loss } with the mean loss of those steps.
  step(n = 1) {
    const { loss } = this.#handle.call('trainer', 'step', integer('n', n, 1, CORE_LIMITS.maxTrainingSteps));
    return { step: this.steps, loss };
  }

  // Accuracy (every answer token right) and mean loss on `count` held-out examples, the same ones on every call.
  evaluate(opts) {
    const o = options('evaluate options', opts, ['count', 'minItems', 'maxItems']);
    const { maxEvaluationExamples, trainerMaxItems } = CORE_LIMITS;
    const count = integer('count', o.count ?? 512, 1, maxEvaluationExamples);
    const minItems = integer('minItems', o.minItems ?? this.config.minItems, 1, trainerMaxItems);
    const maxItems = integer('maxItems', o.maxItems ?? Math.max(this.config.maxItems, minItems), minItems, trainerMaxItems);
    const { accuracy, loss } = this.#handle.call('trainer', 'evaluate', count, minItems, maxItems);
    return { accuracy, loss };
  }

  // The model's answer to a prompt, greedy, and the probabilities of its first token over the vocabulary.
  predict(prompt) {
    const result = this.#handle.call('trainer', 'predict', promptIds(prompt, 'prompt'));
    return { answer: this.decode(result.answer), probabilities: Float32Array.from(result.probabilities) };
  }

  // { name: { data, shape } }, copies, in GPT-2's names (linear weights [in, out]).
  parameters() {
    const { handle, core } = this.#handle.live('trainer');
    const all = core.f32(handle.parametersPointer(), handle.parameterCount());
    return Object.fromEntries(this.#layout.map(({ name, shape, offset, size }) => [name, { data: all.slice(offset, offset + size), shape: [...shape] }]));
  }

  // Replaces the named parameters (any subset) with tensors of their shapes; the padding row stays zero.
  setParameters(tensors) {
    if (tensors === null || typeof tensors !== 'object' || Array.isArray(tensors)) throw new TypeError(`parameters must be an object of { name: tensor }, got ${describe(tensors)}`);
    const byName = new Map(this.#layout.map((entry) => [entry.name, entry]));
    const checked = Object.entries(tensors).map(([name, tensor]) => {
      const entry = byName.get(name);
      if (!entry) throw new RangeError(`'${name}' is not a parameter of this model; its parameters are ${[...byName.keys()].join(', ')}`);
      const data = tensor?.data;
      if (!(data instanceof Float32Array)) throw new TypeError(`${name}.data must be a Float32Array, got ${describe(data)}`);
      if (!Array.isArray(tensor.shape) || tensor.shape.join() !== entry.shape.join()) {
        throw new RangeError(`${name}.shape must be [${entry.shape.join(', ')}], got ${describe(tensor.shape)}${Array.isArray(tensor.shape) ? ` [${tensor.shape.join(', ')}]` : ''}`);
      }
      if (data.length !== entry.size) throw new RangeError(`${name}.data must hold ${entry.size} values, got ${data.length}`);
      const bad = data.findIndex((v) => !Number.isFinite(v));
      if (bad >= 0) throw new RangeError(`${name}.data[${bad}] must be finite, got ${data[bad]}`);
      return [entry, data];
    });
    const { handle, core } = this.#handle.live('trainer');
    const all = core.f32(handle.parametersPointer(), handle.parameterCount());
    for (const [entry, data] of checked) all.set(data, entry.offset);
    handle.zeroPaddingRow();
  }

  // The mean loss of one batch of prompts (their answers found by the task's rule) and every gradient.
  lossAndGradients(prompts) {
    const most = CORE_LIMITS.maxEvaluationExamples;
    if (!Array.isArray(prompts) || prompts.length === 0 || prompts.length > most) {
      throw new TypeError(`examples must be an array of 1 to ${most} prompts such as 'Max(1,6,2)', got ${describe(prompts)}`);
    }
    const ids = prompts.map((prompt, i) => promptIds(prompt, `examples[${i}]`));
    const { core, handle } = this.#handle.live('trainer');
    const count = handle.parameterCount();
    return core.withHeap([[count * 4, 'the gradients']], (pointer) => {
      const { loss } = this.#handle.call('trainer', 'lossAndGradients', ids, pointer);
      const all = core.f32(pointer, count);
      const gradients = Object.fromEntries(this.#layout.map(({ name, shape, offset, size }) => [name, { data: all.slice(offset, offset + size), shape: [...shape] }]));
      return { loss, gradients };
    });
  }

  // The parameters as a .safetensors file; the configuration, the vocabulary and the step are its metadata.
  save() {
    return writeSafetensors(this.parameters(), {
      format: 'posembed-trainer',
      config: JSON.stringify(this.config),
      vocabulary: JSON.stringify(TOY_VOCABULARY),
      step: String(this.steps),
    });
  }

  dispose() {
    this.#handle.dispose();
  }
}
