// The webgpu backend: the ops that fill or gather large tensors run on the GPU and return GpuTensors; the
// rest (and every exact angle the GPU must not compute) come from the wasm instance it keeps beside it.
// After a device loss every op falls back to wasm, says so in fallbackReason, and keeps its interface.
import { describe, integer, oneOf, options } from '../validate.js';
import { OP_SCHEMAS } from '../op_schemas.js';
import { floatMatrix, tokenIds } from '../tensor.js';
import { sinusoidalParams } from '../sinusoidal.js';
import { alibiParams } from '../alibi.js';
import { CORE_OP_NAMES, coreOpInput, coreOpShape, installCoreOpMethods } from '../core_ops.js';
import { relativeBuckets, t5BiasParams } from '../t5.js';
import { assertFiniteVectors, ropeParams, ropeTable } from '../rope.js';
import { matrix } from '../analysis.js';
import { GpuTensor, HostTensor } from './tensor.js';
import { sinusoidalGpu } from './sinusoidal.js';
import { gatherRowsGpu } from './token_embedding.js';
import { applyRopeGpu } from './rope.js';
import { alibiBiasGpu } from './alibi.js';
import { t5BiasGpu } from './t5.js';
import { similarityGpu } from './similarity.js';
import { coreOpGpu } from './core_ops.js';

// GPU ops keep their results on the GPU: an `out` buffer has nothing to receive them.
function noOut(out) {
  if (out !== undefined) throw new TypeError("out is not taken by the webgpu backend's ops: results stay on the GPU until read()");
}

function isGpuTensor(value) {
  return value instanceof GpuTensor || value instanceof HostTensor;
}

// What the wasm instance does for the webgpu backend unchanged: every op the registry gives no GPU form (webgpu), and
// the instance's other methods (models, weight files, the heap).
const HOST_METHODS = ['checkGguf', 'openTokenizer', 'openModel', 'modelPositions', 'readNpy', 'readSafetensors', 'openSafetensors', 'openNpy', 'openCheckpoint',
  'allocate', 'memory'];
export const HOST_OPS = [...Object.keys(OP_SCHEMAS).filter((op) => !OP_SCHEMAS[op].webgpu), ...HOST_METHODS];

export class PosembedGpu {
  #core;
  #wasm;
  #runtime;

  constructor(core, wasm, runtime) {
    this.#core = core;
    this.#wasm = wasm;
    this.#runtime = runtime;
    this.backend = 'webgpu';
    this.fallbackReason = null;
    this.simd = wasm.simd;
    this.threads = wasm.threads;
    this.encodersOnly = wasm.encodersOnly;
    for (const name of HOST_OPS) this[name] = (...args) => wasm[name](...args);
  }

  get modelPresets() {
    return this.#wasm.modelPresets;
  }

  get limits() {
    return this.#wasm.limits;
  }

  // Buffers this backend holds on the GPU now (for leak checks).
  get gpuBuffers() {
    return this.#runtime.liveBuffers;
  }

  get device() {
    return this.#runtime.device;
  }

  // The adapter's description (GPUAdapterInfo), where the implementation gives one.
  get adapterInfo() {
    return this.#runtime.adapter?.info ?? null;
  }

  // Runs gpu() while the device lives; after a loss, or once GPU work failed validation, host() on wasm,
  // wrapped as a tensor with read(). A GPU result whose work fails validation is computed again on wasm.
  #either(gpu, host) {
    this.#core.assertLive();
    if (this.#runtime.lost && this.backend !== 'wasm') {
      const { reason, message } = this.#runtime.lost;
      this.#fallBack(`the WebGPU device was lost (${reason ?? 'unknown'}${message ? `: ${message}` : ''})`);
    }
    if (this.backend === 'wasm') return wrapHost(host());
    const result = gpu();
    if (result instanceof GpuTensor) {
      result.computeOnHost = () => wrapHost(host()).read();
      result.fallback = (error) => {
        this.#fallBack(`a WebGPU error (${firstLine(error)})`);
        return result.computeOnHost();
      };
    }
    return result;
  }

  #fallBack(why) {
    this.backend = 'wasm';
    this.fallbackReason = `${why}; using wasm`;
  }

  // A GPU buffer holding x (a GpuTensor's own buffer, or an upload of a host tensor) and how to let it go.
  // check(data) looks at host data before it goes up (after a view of a disposed heap array is refused here,
  // as on wasm).
  #onGpu(x, what, opts, check) {
    if (isGpuTensor(x) && x.buffer) return { buffer: x.buffer, release: () => {} };
    const data = isGpuTensor(x) ? x.tensor.data : x.data;
    this.#core.onHeap(data, `${what}.data`);
    check?.(data);
    const buffer = this.#runtime.upload(data, what, opts);
    return { buffer, release: () => this.#runtime.release(buffer) };
  }

  sinusoidal(opts) {
    const p = sinusoidalParams(this.#core, opts);
    noOut(p.out);
    return this.#either(
      () => (p.positions ? this.#upload(this.#wasm.sinusoidal(opts), 'the sinusoidal rows') : sinusoidalGpu(this.#runtime, this.#wasm, p)),
      () => this.#wasm.sinusoidal(opts));
  }

  // A GPU form for each op of the core's table that has a WGSL kernel (webgpu/core_ops.js).
  static {
    installCoreOpMethods(this, CORE_OP_NAMES.filter((name) => OP_SCHEMAS[name].webgpu), (gpu, op, args) => {
      const p = coreOpShape(gpu.#core, op, args);
      noOut(p.out);
      return gpu.#either(() => coreOpGpu(gpu.#runtime, op, p, coreOpInput(gpu.#core, op, p)), () => gpu.#wasm[op](...args));
    });
  }

  #upload(tensor, what) {
    return new GpuTensor(this.#runtime, this.#runtime.upload(tensor.data, what), tensor.shape, tensor.data.constructor, Promise.resolve(null));
  }

  alibiBias(opts) {
    const p = alibiParams(this.#core, opts);
    noOut(p.out);
    return this.#either(() => alibiBiasGpu(this.#runtime, p, p.slopes ?? this.#wasm.alibiSlopes(p.numHeads).data), () => this.#wasm.alibiBias(opts));
  }

  t5Bias(table, opts) {
    const p = t5BiasParams(this.#core, table, opts);
    noOut(p.out);
    // A decoder step's rows (queryOffset) come from the host: the GPU kernel writes whole matrices.
    if (p.queryOffset > 0) return this.#upload(this.#wasm.t5Bias(table, opts), 'the T5 bias');
    return this.#either(() => {
      this.#core.onHeap(p.data, 'table.data');
      const buffer = this.#runtime.upload(p.data, 'the bias table');
      try {
        return t5BiasGpu(this.#runtime, { ...p, table: buffer }, relativeBuckets(this.#core, p));
      } finally {
        this.#runtime.release(buffer);
      }
    }, () => this.#wasm.t5Bias(table, opts));
  }

  applyRope(x, opts) {
    if (opts !== null && typeof opts === 'object' && opts.spec !== undefined) {
      // A model's spec (per-batch positions, mRoPE, precision modes) turns x on the host.
      if (isGpuTensor(x) && x.buffer) throw new TypeError('applyRope with a spec runs on the host: pass x as a host tensor (await x.read())');
      return this.#upload(this.#wasm.applyRope(isGpuTensor(x) ? x.tensor : x, opts), 'the rotated x');
    }
    const p = ropeParams(this.#core, x, opts, { allowGpu: true });
    noOut(p.out);
    return this.#either(() => {
      // Read slice by slice with the output; its values must be finite, as the wasm kernel checks.
      const input = this.#onGpu(x, 'x', { chunked: true }, (data) => assertFiniteVectors(data, p.headDim));
      try {
        return applyRopeGpu(this.#runtime, { ...p, x: input.buffer, table: ropeTable(this.#core, p) });
      } finally {
        input.release();
      }
    }, () => this.#wasm.applyRope(isGpuTensor(x) ? x.tensor : x, opts));
  }

  similarity(a, b, opts) {
    const o = options('similarity options', opts, ['metric', 'out']);
    noOut(o.out);
    const metric = oneOf('metric', o.metric ?? 'dot', ['dot', 'cosine']);
    // A host tensor's values are checked here, before they go to the GPU (the wasm path checks them on its heap).
    const shapeOf = (name, x) => {
      if (isGpuTensor(x)) return gpuMatrixShape(name, x);
      const { rows, columns } = matrix(name, x);
      floatMatrix(name, x, rows, columns);
      return [rows, columns];
    };
    const [n, depth] = shapeOf('a', a);
    const right = b === undefined || b === null ? a : b;
    const [m, depthB] = shapeOf('b', right);
    if (depthB !== depth) throw new RangeError(`b.shape[1] must equal a.shape[1] = ${depth}, got ${depthB}`);
    return this.#either(() => {
      const left = this.#onGpu(a, 'a', { chunked: true });  // bound in blocks of rows
      const other = right === a ? left : this.#onGpu(right, 'b', { chunked: true });
      try {
        return similarityGpu(this.#runtime, { a: left.buffer, n, b: other.buffer, m, depth, metric });
      } finally {
        left.release();
        if (other !== left) other.release();
      }
    }, () => this.#wasm.similarity(hostOf(a), right === a ? undefined : hostOf(right), { metric }));
  }

  // Draws matrix `index` of a GpuTensor [..., rows, columns] on canvas with a render pipeline that applies
  // the colormap: nothing is read back. `range` is required (finding it would mean reading the tensor).
  // Resolves once drawn, rejects with any WebGPU error it raised; the module (and the colormaps' library)
  // loads on first use only.
  async renderHeatmap(tensor, canvas, opts) {
    if (!(tensor instanceof GpuTensor) || !tensor.buffer) {
      throw new TypeError('renderHeatmap draws a GpuTensor that is not disposed; draw a host tensor (or the result of read()) with canvas 2D');
    }
    if (tensor.type !== Float32Array) throw new TypeError('renderHeatmap draws float32 GpuTensors; this one holds integers');
    const o = options('renderHeatmap options', opts, ['colormap', 'range', 'index']);
    const { renderHeatmapGpu } = await import('./heatmap.js');
    try {
      await renderHeatmapGpu(this.#runtime, tensor, canvas, o);
    } catch (error) {
      // Bad options are the caller's to fix; any other failure (a canvas WebGPU cannot present to, a dropped
      // instance) is the GPU's: the ops go on on wasm, and the caller draws the result read() gives.
      if (!(error instanceof RangeError || error instanceof TypeError)) this.#fallBack(`drawing on a WebGPU canvas failed (${firstLine(error)})`);
      throw error;
    }
  }

  tokenEmbedding(opts) {
    return new GpuTokenEmbedding(this, this.#wasm.tokenEmbedding(opts), this.#runtime);
  }

  transformerEmbedding(opts) {
    return new GpuTransformerEmbedding(this, this.#wasm.transformerEmbedding(opts), this.#runtime);
  }

  // Ends this instance at once, the wasm instance beside it too (see Posembed.dispose): every later call
  // throws. The device is destroyed once the work already given to its queue (uploads of tables made just
  // before) has finished, which the promise waits for: Node's WebGPU crashes on a device destroyed under them.
  async dispose() {
    if (this.#core.disposed) return;
    this.#wasm.dispose();
    await this.#runtime.device.queue.onSubmittedWorkDone();
    this.#runtime.device.destroy();
  }

  get disposed() {
    return this.#core.disposed;
  }

  // For the GPU objects below: run on the GPU while the device lives.
  either(gpu, host) {
    return this.#either(gpu, host);
  }
}

// What an error says, in one line: some WebGPU errors carry no message, only their name.
function firstLine(error) {
  return (error?.message || error?.name || String(error)).split('\n')[0];
}

function wrapHost(result) {
  return result && result.data && result.shape ? new HostTensor(result) : result;
}

function hostOf(x) {
  if (isGpuTensor(x)) {
    if (!x.tensor) throw new Error('a GpuTensor of a lost device cannot be read; compute it again');
    return x.tensor;
  }
  return x;
}

function gpuMatrixShape(name, x) {
  if (!Array.isArray(x.shape) || x.shape.length !== 2) throw new TypeError(`${name} must be a [rows, columns] tensor, got shape ${describe(x.shape)}`);
  return [integer(`${name}.shape[0]`, x.shape[0], 1, 2 ** 24), integer(`${name}.shape[1]`, x.shape[1], 1, 65536)];
}

// A token table kept twice: on the wasm heap (nearest, weights, the fallback) and on the GPU (lookup).
class GpuTokenEmbedding {
  #backend;
  #runtime;
  #host;
  #table;

  constructor(backend, host, runtime) {
    this.#backend = backend;
    this.#runtime = runtime;
    this.#host = host;
    try {
      this.#table = runtime.uploadRows(host.heapView(), host.dModel, 'the embedding table');
    } catch (error) {
      host.dispose();
      throw error;
    }
    for (const key of ['vocabSize', 'dModel', 'paddingIdx', 'scale']) this[key] = host[key];
  }

  lookup(ids, opts) {
    if (!this.#table) throw new Error('this tokenEmbedding has been disposed');
    noOut(options('lookup options', opts, ['out']).out);
    const { data, shape } = tokenIds(ids, this.vocabSize);
    return this.#backend.either(
      () => gatherRowsGpu(this.#runtime, { table: this.#table, vocabSize: this.vocabSize, dModel: this.dModel, paddingIdx: this.paddingIdx, scale: this.scale }, data, shape),
      () => this.#host.lookup(ids));
  }

  nearest(query, opts) {
    return this.#host.nearest(query, opts);
  }

  get weights() {
    return this.#host.weights;
  }

  get disposed() {
    return this.#table === null;
  }

  dispose() {
    if (this.#table === null) return;
    this.#runtime.releaseRows(this.#table);
    this.#table = null;
    this.#host.dispose();
  }
}

// The fused layer on the GPU; with training dropout it runs on wasm, whose seeded generator the GPU does
// not reproduce.
class GpuTransformerEmbedding {
  #backend;
  #runtime;
  #host;
  #tokens;
  #positions;

  constructor(backend, host, runtime) {
    this.#backend = backend;
    this.#runtime = runtime;
    this.#host = host;
    try {
      this.#tokens = runtime.uploadRows(host.tokens.heapView(), host.dModel, 'the token table');
      // Up to maxBufferSize; a forward binds only the rows its sequence length uses.
      this.#positions = host.positions ? runtime.upload(host.positions.heapView(), 'the position table', { chunked: true }) : null;
    } catch (error) {
      if (this.#tokens) runtime.releaseRows(this.#tokens);
      host.dispose();
      throw error;
    }
    for (const key of ['vocabSize', 'dModel', 'maxLength', 'positional', 'dropout']) this[key] = host[key];
    this.tokens = host.tokens;
  }

  forward(ids, opts) {
    if (!this.#tokens) throw new Error('this transformerEmbedding has been disposed');
    const o = options('forward options', opts, ['training', 'out']);
    noOut(o.out);
    if (o.training === true && this.dropout > 0) return new HostTensor(this.#host.forward(ids, o));
    const { data, shape } = tokenIds(ids, this.vocabSize);
    const seq = shape.at(-1);
    if (seq > this.maxLength) throw new RangeError(`ids.shape[-1] (seq) must be an integer in [1, maxLength] = [1, ${this.maxLength}], got ${seq}`);
    return this.#backend.either(
      () => gatherRowsGpu(this.#runtime, { table: this.#tokens, vocabSize: this.vocabSize, dModel: this.dModel, paddingIdx: this.#host.tokens.paddingIdx,
        scale: this.#host.tokens.scale, positions: this.#positions, seq }, data, shape),
      () => this.#host.forward(ids, o));
  }

  get disposed() {
    return this.#tokens === null;
  }

  dispose() {
    if (this.#tokens === null) return;
    this.#runtime.releaseRows(this.#tokens);
    if (this.#positions) this.#runtime.release(this.#positions);
    this.#tokens = null;
    this.#host.dispose();
  }
}
