// The input layer of a Transformer: token rows × scale + positions, fused in one pass, with dropout when
// training. Owns a token table, a position table (learned or sinusoidal) and its dropout generator.
import { boolean, options } from './validate.js';
import { readOptions } from './op_schemas.js';
import { tokenIds } from './tensor.js';
import { HeapBlock, HeapTable } from './table.js';
import { TokenEmbedding } from './token_embedding.js';
import { LearnedPositions } from './learned_positions.js';

export class TransformerEmbedding {
  #core;
  #randomState = null;  // the dropout generator's state, a uint64 on the heap

  constructor(core, opts) {
    const { dModel, seed, ...o } = readOptions('transformerEmbedding', opts);
    this.maxLength = o.maxLength;
    this.positional = o.positional;
    this.dropout = o.dropout;
    if (this.positional === 'sinusoidal' && dModel % 2 !== 0) throw new RangeError(`dModel must be an even integer for sinusoidal positions, got ${dModel}`);
    if (o.positionWeights !== undefined && this.positional !== 'learned') throw new TypeError("positionWeights go with positional: 'learned'");
    this.#core = core;
    const owned = [];
    try {
      this.tokens = new TokenEmbedding(core, { vocabSize: o.vocabSize, dModel, paddingIdx: o.paddingIdx, scale: o.scale,
        ...(o.weights ? { weights: o.weights } : { init: { seed } }) });
      owned.push(this.tokens);
      if (this.positional === 'learned') {
        this.positions = new LearnedPositions(core, { maxLength: this.maxLength, dModel, ...(o.positionWeights ? { weights: o.positionWeights } : { init: { seed: seed + 1 } }) });
      } else if (this.positional === 'sinusoidal') {
        this.positions = new HeapTable(core, { name: 'sinusoidal position table', rows: this.maxLength, columns: dModel,
          fill: (pointer) => core.module.sinusoidal(this.maxLength, dModel, 10000, 'interleaved', 'standard', 0, pointer, this.maxLength * dModel) });
      } else {
        this.positions = null;
      }
      if (this.positions) owned.push(this.positions);
      this.#randomState = new HeapBlock(this, core, 8, 'the dropout generator');
      core.view(BigUint64Array, this.#randomState.pointer, 1)[0] = BigInt(seed + 2);
    } catch (error) {
      for (const table of owned) table.dispose();
      throw error;
    }
    this.dModel = dModel;
    this.vocabSize = this.tokens.vocabSize;
  }

  // ids [..., seq] → [..., seq, dModel]. Dropout applies only with { training: true }.
  forward(ids, opts) {
    if (!this.#randomState?.pointer) throw new Error('this transformerEmbedding has been disposed');
    const o = options('forward options', opts, ['training', 'out']);
    const training = boolean('training', o.training ?? false);
    const { data, shape } = tokenIds(ids, this.vocabSize);
    const seq = shape.at(-1);
    if (seq > this.maxLength) throw new RangeError(`ids.shape[-1] (seq) must be an integer in [1, maxLength] = [1, ${this.maxLength}], got ${seq}`);
    const core = this.#core;
    const table = this.tokens.live().pointer;
    const positions = this.positions ? this.positions.live().pointer : 0;
    const out = core.produceRows({ rows: data.length, rowElements: this.dModel, what: 'the embeddings', out: o.out, inputs: [{ data, what: 'the ids' }] },
      (outPointer, firstRow, rowCount, idsPointer) => core.module.combinedEmbeddingRows(table, this.vocabSize, this.dModel, this.tokens.paddingIdx ?? -1,
        this.tokens.scale, positions, this.maxLength, idsPointer + firstRow * 4, rowCount, seq, firstRow, training, this.dropout, this.#randomState.pointer, outPointer));
    return { data: out, shape: [...shape, this.dModel] };
  }

  get disposed() {
    return !this.#randomState?.pointer;
  }

  dispose() {
    if (this.disposed) return;
    this.tokens.dispose();
    this.positions?.dispose();
    this.#randomState.free();
  }
}
