/** A plain row-major tensor, owned by the caller. */
export interface Tensor<T extends Float32Array | Int32Array = Float32Array> {
  data: T;
  shape: number[];
}

/** Token ids: a 1-D array or Int32Array, or an Int32 tensor such as [batch, seq]. */
export type TokenIds = number[] | Int32Array | Tensor<Int32Array>;

export interface LoadOptions {
  /** 'wasm' (default). 'auto' uses wasm and says why in `fallbackReason`; 'webgpu' is not available yet. */
  backend?: 'wasm' | 'webgpu' | 'auto';
  /** 'auto' (default): the SIMD module where the engine supports wasm SIMD, else the scalar one. */
  simd?: 'auto' | boolean;
  /** Where to fetch the .wasm from (default: next to the package's index.js). */
  wasmUrl?: string | URL;
  /** The .wasm file's bytes, when the caller has them already. */
  wasmBinary?: ArrayBuffer | ArrayBufferView;
}

export interface SinusoidalOptions {
  /** Rows: positions offset .. offset + length - 1; integer in [1, 2^24]. */
  length: number;
  /** Columns; even integer in [2, 65536]. */
  dModel: number;
  /** Default 10000; in [1, 1e12]. */
  base?: number;
  /** 'interleaved' (sin, cos in columns 2i, 2i+1; default) or 'split' (all sines, then all cosines). */
  layout?: 'interleaved' | 'split';
  /** 'standard': w_i = base^(-2i/dModel) (default); 't2t': w_i = base^(-i/(dModel/2 - 1)) as tensor2tensor/fairseq. */
  timescale?: 'standard' | 't2t';
  /** First position, integer >= 0 (default 0). */
  offset?: number;
  /** Write into this buffer (length * dModel elements) instead of allocating. */
  out?: Float32Array;
}

export interface EmbeddingInitOptions {
  /** 'normal' (default): N(0, std^2); 'xavier-uniform': U(-a, a), a = gain * sqrt(6 / (vocabSize + dModel)). */
  type?: 'normal' | 'xavier-uniform';
  /** Default 0.02. */
  std?: number;
  /** Default 1. */
  gain?: number;
  /** Integer in [0, 2^53 - 1]; default 0. The same seed gives the same table on every build. */
  seed?: number;
}

export interface TokenEmbeddingOptions {
  vocabSize: number;
  dModel: number;
  /** This id's row reads as zeros (and is zeroed by init). */
  paddingIdx?: number | null;
  /** Rows are multiplied by 1 ('none', default), sqrt(dModel) ('sqrt') or the given number. */
  scale?: 'none' | 'sqrt' | number;
  /** The table, [vocabSize, dModel]. Give this or `init`. */
  weights?: Tensor<Float32Array>;
  init?: EmbeddingInitOptions;
}

export interface TokenEmbedding {
  readonly vocabSize: number;
  readonly dModel: number;
  readonly paddingIdx: number | null;
  /** The factor rows are multiplied by. */
  readonly scale: number;
  /** [...ids.shape, dModel]. Throws RangeError for an id outside [0, vocabSize - 1]. */
  lookup(ids: TokenIds, options?: { out?: Float32Array }): Tensor<Float32Array>;
  /** A copy of the table, [vocabSize, dModel]. */
  readonly weights: Tensor<Float32Array>;
  readonly disposed: boolean;
  /** Frees the table on the wasm heap. Harmless to call twice; the object throws if used afterwards. */
  dispose(): void;
}

export interface Posembed {
  readonly backend: 'wasm';
  /** Why 'auto' did not give WebGPU; null otherwise. */
  readonly fallbackReason: string | null;
  /** Whether the wasm SIMD module is in use. */
  readonly simd: boolean;
  /** [length, dModel]. */
  sinusoidal(options: SinusoidalOptions): Tensor<Float32Array>;
  tokenEmbedding(options: TokenEmbeddingOptions): TokenEmbedding;
  /** Heap size and live allocations, for leak checks. */
  memory(): { heapBytes: number; liveAllocations: number };
}

export function load(options?: LoadOptions): Promise<Posembed>;
/** Whether this engine runs WebAssembly SIMD. */
export function simdSupported(): boolean;
