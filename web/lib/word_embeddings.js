// pe.wordEmbeddings: skip-gram word vectors learned by the C++ core (cpp/src/word_embeddings.cpp), over the
// corpus it generates from a small grammar or over the caller's sentences.
import { CORE_LIMITS } from './core_tables.js';
import { describe, integer, options } from './validate.js';
import { OP_SCHEMAS, readOptions } from './op_schemas.js';
import { CoreHandle } from './core_handle.js';
import { analogyRows } from './analysis.js';

export class WordEmbeddings {
  #handle;

  constructor(core, opts) {
    const { corpus, sentences: generated, ...o } = readOptions('wordEmbeddings', opts);
    let sentences;
    if (corpus === 'generated') {
      sentences = core.module.generatedCorpus(o.seed, generated ?? OP_SCHEMAS.wordEmbeddings.options.sentences.whenGenerated);
    } else if (Array.isArray(corpus)) {
      if (generated !== undefined) throw new TypeError("sentences is the size of the generated corpus; with corpus: string[], leave it out");
      if (corpus.length > 1e6) throw new RangeError(`corpus must hold at most 1000000 sentences, got ${corpus.length}`);
      corpus.forEach((s, i) => {
        if (typeof s !== 'string') throw new TypeError(`corpus[${i}] must be a string (a sentence), got ${describe(s)}`);
      });
      sentences = corpus;
    } else {
      throw new TypeError(`corpus must be 'generated' or an array of sentences (strings), got ${describe(corpus)}`);
    }
    this.config = Object.freeze(o);
    const c = this.config;
    this.sentences = Object.freeze([...sentences]);
    this.#handle = new CoreHandle(core, 'WordEmbeddings', (handle) => handle.configure(sentences, c.dim, c.window, c.negatives, c.batchSize, c.learningRate, c.seed));
    const { handle } = this.#handle.live('word embedding');
    this.vocabulary = Object.freeze(handle.vocabulary());
    this.counts = Object.freeze(handle.counts());
  }

  get steps() {
    return this.#handle.live('word embedding').handle.steps();
  }

  get disposed() {
    return this.#handle.disposed;
  }

  // n steps of batchSize centre words: { step, loss }, the mean loss per (word, context) pair.
  step(n = 1) {
    const { loss } = this.#handle.call('word embedding', 'step', integer('n', n, 1, CORE_LIMITS.maxTrainingSteps));
    return { step: this.steps, loss };
  }

  // [words, dim], a copy.
  get vectors() {
    const { handle, core } = this.#handle.live('word embedding');
    return { data: core.f32(handle.vectorsPointer(), this.vocabulary.length * this.config.dim).slice(), shape: [this.vocabulary.length, this.config.dim] };
  }

  // The k words nearest `word` by cosine similarity: [{ word, score }], best first.
  nearest(word, opts) {
    if (typeof word !== 'string') throw new TypeError(`word must be a string, got ${describe(word)}`);
    const o = options('nearest options', opts, ['k']);
    const k = integer('k', o.k ?? 5, 1, Math.max(1, this.vocabulary.length - 1));
    const { indices, scores } = this.#handle.call('word embedding', 'nearest', word, k);
    return indices.map((index, i) => ({ word: this.vocabulary[index], score: scores[i] }));
  }

  // The k words nearest a − b + c by cosine (a, b and c left out): [{ word, score }], best first. king − man + woman
  // is the classic: the generated corpus gives its people a rank, a gender and an age to find.
  analogy(a, b, c, opts) {
    const o = options('analogy options', opts, ['k']);
    const vocabulary = this.vocabulary;
    const ids = [['a', a], ['b', b], ['c', c]].map(([name, word]) => {
      if (typeof word !== 'string') throw new TypeError(`${name} must be a word (a string), got ${describe(word)}`);
      const id = vocabulary.indexOf(word.toLowerCase());
      if (id < 0) throw new RangeError(`${name}: '${word}' is not in the corpus's vocabulary`);
      return id;
    });
    const { handle, core } = this.#handle.live('word embedding');
    const table = { pointer: handle.vectorsPointer(), dtype: 'F32', rows: vocabulary.length, columns: this.config.dim };
    const found = analogyRows(core, table, { a: ids[0], b: ids[1], c: ids[2] }, o);
    return Array.from(found.indices, (index, i) => ({ word: vocabulary[index], score: found.scores[i] }));
  }

  dispose() {
    this.#handle.dispose();
  }
}
