// Token embedding: a [vocabSize, dModel] table on the wasm heap, owned by this object until dispose().
import { describe, integer, number, options } from './validate.js';
import { floatMatrix, tokenIds } from './tensor.js';

const KNOWN = ['vocabSize', 'dModel', 'paddingIdx', 'scale', 'weights', 'init'];
const KNOWN_INIT = ['type', 'std', 'gain', 'seed'];

// 'none' | 'sqrt' | a finite number → the factor rows are multiplied by.
function scaleFactor(core, scale, dModel) {
  if (typeof scale === 'number') return number('scale', scale, -1e6, 1e6);
  if (scale === 'none' || scale === 'sqrt') return core.module.embeddingScaleFactor(scale, dModel);
  throw new (typeof scale === 'string' ? RangeError : TypeError)(`scale must be 'none', 'sqrt' or a number in [-1000000, 1000000], got ${describe(scale)}`);
}

export class TokenEmbedding {
  #core;
  #table = 0;

  constructor(core, opts) {
    const o = options('tokenEmbedding options', opts, KNOWN);
    const { maxVocabSize, maxDModel } = core.limits;
    this.vocabSize = integer('vocabSize', o.vocabSize, 1, maxVocabSize);
    this.dModel = integer('dModel', o.dModel, 1, maxDModel);
    this.paddingIdx = o.paddingIdx === undefined || o.paddingIdx === null ? null : integer('paddingIdx', o.paddingIdx, 0, this.vocabSize - 1);
    this.scale = scaleFactor(core, o.scale ?? 'none', this.dModel);
    const weights = o.weights === undefined ? null : floatMatrix('weights', o.weights, this.vocabSize, this.dModel);
    if (weights && o.init !== undefined) throw new TypeError('tokenEmbedding: give either weights or init, not both');
    const init = weights ? null : options('init', o.init, KNOWN_INIT);
    const initType = init ? init.type ?? 'normal' : null;
    if (init && initType !== 'normal' && initType !== 'xavier-uniform') {
      throw new RangeError(`init.type must be one of 'normal', 'xavier-uniform', got ${describe(initType)}`);
    }
    const std = init ? number('init.std', init.std ?? 0.02, 0, 1e6) : 0;
    const gain = init ? number('init.gain', init.gain ?? 1, 0, 1e6) : 0;
    const seed = init ? integer('init.seed', init.seed ?? 0, 0, Number.MAX_SAFE_INTEGER) : 0;

    const elements = this.vocabSize * this.dModel;
    this.#table = core.alloc(elements * 4, `a ${this.vocabSize} x ${this.dModel} embedding table`);
    this.#core = core;
    try {
      if (weights) {
        core.f32(this.#table, elements).set(weights);
      } else {
        core.check(core.module.initEmbeddingTable(this.#table, this.vocabSize, this.dModel, this.paddingIdx ?? -1, initType, std, gain, seed));
      }
    } catch (error) {
      this.dispose();
      throw error;
    }
  }

  #live() {
    if (this.#table === 0) throw new Error('this tokenEmbedding has been disposed');
    return this.#core;
  }

  // ids → [...ids.shape, dModel]: each id's row, times scale; zeros for paddingIdx.
  lookup(ids, opts) {
    const core = this.#live();
    const o = options('lookup options', opts, ['out']);
    const { data, shape } = tokenIds(ids, this.vocabSize);
    const rows = core.produce({ elements: data.length * this.dModel, what: 'the looked-up rows', out: o.out, inputs: [{ data, what: 'the ids' }] },
      (outPointer, idsPointer) => core.module.tokenEmbeddingLookup(this.#table, this.vocabSize, this.dModel, this.paddingIdx ?? -1,
        this.scale, idsPointer, data.length, outPointer));
    return { data: rows, shape: [...shape, this.dModel] };
  }

  // A copy of the table, [vocabSize, dModel].
  get weights() {
    const core = this.#live();
    return { data: core.f32(this.#table, this.vocabSize * this.dModel).slice(), shape: [this.vocabSize, this.dModel] };
  }

  get disposed() {
    return this.#table === 0;
  }

  // Frees the table; harmless to call twice.
  dispose() {
    if (this.#table === 0) return;
    this.#core.free(this.#table);
    this.#table = 0;
  }
}
