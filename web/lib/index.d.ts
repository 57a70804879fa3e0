/** A plain row-major tensor, owned by the caller. */
export interface Tensor<T extends ArrayLike<number> = Float32Array> {
  data: T;
  shape: number[];
}

/** Token ids: a 1-D array or Int32Array, or an Int32 tensor such as [batch, seq]. */
export type TokenIds = number[] | Int32Array | Tensor<Int32Array>;

export interface LoadOptions {
  /** 'wasm' (default); 'webgpu' (throws if WebGPU cannot be had); 'auto': WebGPU where it can be had, else wasm
   *  with the reason in `fallbackReason`. */
  backend?: 'wasm' | 'webgpu' | 'auto';
  /** A GPU object where there is no navigator.gpu (Node: `create([])` from the webgpu package). */
  gpu?: { requestAdapter(options?: object): Promise<unknown> };
  /** Limits to ask the device for instead of the adapter's largest; posembed keeps within them even where the
   *  device gives more (WebGPU raises requests below its defaults), e.g. to see how a small device would fare. */
  gpuLimits?: { maxStorageBufferBindingSize?: number; maxBufferSize?: number; maxComputeWorkgroupsPerDimension?: number };
  /** 'auto' (default): the SIMD module where the engine supports wasm SIMD, else the scalar one. */
  simd?: 'auto' | boolean;
  /** Threads the kernels split their rows over, the calling one included: 1 (default); 'auto' gives as many
   *  as cores, up to 4, where the engine allows threads (Node; in browsers, cross-origin-isolated pages), else
   *  1; an integer in [1, 64] asks for exactly that (more than 1 throws where threads are not allowed).
   *  Threads pay where data stays on the wasm heap (pe.allocate); copies to and from JS arrays are slower. */
  threads?: 'auto' | number;
  /** Where to fetch the .wasm from (default: next to the package's index.js): that of the module loaded,
   *  posembed-simd.wasm (posembed-scalar.wasm with simd: false), or posembed-threads.wasm with threads > 1.
   *  With wasmUrl or wasmBinary given, threads 'auto' means 1. */
  wasmUrl?: string | URL;
  /** The .wasm file's bytes, when the caller has them already (the same file as for wasmUrl). */
  wasmBinary?: ArrayBuffer | ArrayBufferView;
  /** true: the light module the elements draw with (posembed-encoders-simd.wasm, about half the bytes),
   *  single-threaded SIMD: every encoder op, similarity and nearest; pca(), trainer(), wordEmbeddings() and the
   *  weight-file readers (readNpy(), readSafetensors(), openSafetensors(), openNpy(), openCheckpoint()) throw; modelPositions(), modelPresets and checkRopeCache() work once the page has loaded
   *  their code (a full load() or a <posembed-model> does). Where the engine lacks SIMD the full scalar module serves. */
  encodersOnly?: boolean;
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

/** The dtypes a token table is kept in on the heap. */
export type TableDtype = 'F32' | 'F16' | 'BF16' | 'F8_E4M3' | 'F8_E5M2';

export interface TokenEmbedding {
  readonly vocabSize: number;
  readonly dModel: number;
  readonly paddingIdx: number | null;
  /** The factor rows are multiplied by. */
  readonly scale: number;
  /** How the table is kept on the heap: F32, or the dtype of the file it was read from (float16, bfloat16, float8), each op widening rows to float32 as it reads them. */
  readonly dtype: TableDtype;
  /** [...ids.shape, dModel]. Throws RangeError for an id outside [0, vocabSize - 1]. */
  lookup(ids: TokenIds, options?: { out?: Float32Array }): Tensor<Float32Array>;
  /** A copy of the table as float32, [vocabSize, dModel]. */
  readonly weights: Tensor<Float32Array>;
  readonly disposed: boolean;
  /** Frees the table on the wasm heap. Harmless to call twice; the object throws if used afterwards. */
  dispose(): void;
}

export interface TokenEmbedding {
  nearest(query: Float32Array | number[], options?: { k?: number; metric?: 'cosine' | 'dot' }): { indices: Int32Array; scores: Float32Array };
  /** The k rows (default 5) nearest row a − row b + row c of the table as stored, by cosine, rows a, b and c left out, best first. */
  analogy(a: number, b: number, c: number, options?: { k?: number }): { indices: Int32Array; scores: Float32Array };
  /** pe.pca() of the table as stored (before scale), [vocabSize, components], read where it lies on the wasm heap (pe.pca(embedding.weights) copies the table twice). Not in the encoders-only module. */
  pca(options?: PcaOptions): Tensor<Float32Array>;
}

/** An array on the wasm heap (see Posembed.allocate). */
export interface HeapArray<T extends Float32Array | Int32Array = Float32Array> {
  readonly length: number;
  /** A fresh view on every read: any call may grow the heap and detach earlier views. A view keeps its array alive; once disposed, its views are refused as out or input. */
  readonly data: T;
  readonly disposed: boolean;
  dispose(): void;
}

export interface LearnedPositions {
  readonly maxLength: number;
  readonly dModel: number;
  /** lookup(length) → positions 0..length-1; lookup(positions) → those rows. RangeError past maxLength. */
  lookup(lengthOrPositions: number | number[] | Int32Array, options?: { out?: Float32Array }): Tensor<Float32Array>;
  readonly weights: Tensor<Float32Array>;
  readonly disposed: boolean;
  dispose(): void;
}

export interface TransformerEmbedding {
  readonly vocabSize: number;
  readonly dModel: number;
  readonly maxLength: number;
  readonly positional: 'sinusoidal' | 'learned' | 'none';
  readonly dropout: number;
  readonly tokens: TokenEmbedding;
  readonly positions: LearnedPositions | { readonly weights: Tensor<Float32Array> } | null;
  /** ids [..., seq] → [..., seq, dModel]: token * scale + position (+ dropout when training). */
  forward(ids: TokenIds, options?: { training?: boolean; out?: Float32Array }): Tensor<Float32Array>;
  readonly disposed: boolean;
  dispose(): void;
}

/** One layer's RoPE, as `pe.modelPositions(config).layer(i).rope` gives it. */
export interface RopeSpec {
  type: RopeScaling['type'];
  /** The size of the vector RoPE is applied to (DeepSeek: qk_rope_head_dim). */
  headDim: number;
  /** Dimensions that turn (partial rotary: fewer than headDim). */
  rotaryDim: number;
  layout: 'half' | 'interleaved';
  base: number;
  /** [rotaryDim / 2] in float64, at the trained length (LongRoPE: the short factors). */
  invFreq?: Float64Array;
  /** What cos and sin are multiplied by (YaRN, LongRoPE). */
  attentionFactor?: number;
  scaling: RopeScaling;
  originalMaxPositions?: number;
  /** mRoPE: pairs driven by time, height and width positions. */
  mropeSection?: [number, number, number];
  mropeInterleaved?: boolean;
  /** Queries scaled by 1 + beta · ln(1 + floor((position + shift) / floor)) (Ministral 3; Llama 4's NoPE layers). */
  queryScale?: QueryScale;
  /** What the model does with its cos/sin cache: casts it to its dtype ('cast', default), or keeps it in float32
   *  ('float32') or as complex float32 ('complex64'): precision 'bfloat16'/'float16' then gives the float32 cache. */
  cache?: 'cast' | 'float32' | 'complex64';
  /** 'reversed' where the model turns by −angle (its rotate_half negated: nanochat); applyRope follows it. */
  rotation?: 'forward' | 'reversed';
}

export interface QueryScale { beta: number; floor: number; shift: number }

export interface ModelLayer {
  kind: 'rope' | 'alibi' | 'learned' | 'sinusoidal' | 't5' | 'none';
  rope?: RopeSpec;
  /** biasScale: what the bias is multiplied by with the scores (Falcon adds it before its 1/√head). */
  alibi?: { slopes: Float64Array; rule: 'bloom' | 'mpt'; biasScale: number };
  t5?: { numBuckets: number; maxDistance: number; bidirectional: boolean };
  learned?: { maxPositions: number; offset: number };
  sinusoidal?: { offset: number; timescale: 'standard' | 't2t'; layout: 'interleaved' | 'split' };
  /** What multiplies q·k in this layer's attention. */
  scoreScale: number;
  queryScale?: QueryScale;
}

export interface ModelPositions {
  modelType: string;
  numLayers: number;
  maxPositions: number | null;
  /** Each layer's scheme: 'full_attention', 'sliding_attention', 'nope', 'alibi', 'encoder', ... */
  layerTypes: string[];
  layer(i?: number): ModelLayer;
  /** The HF family the config was read as: its entry in posembed's table of families. */
  family: { modelType: string; follows: string | null; source: string; cache: 'cast' | 'float32' | 'complex64' | null };
  /** Keys the file left out that HF's config class filled with its defaults. */
  defaults: string[];
  /** Position keys the file holds that the family does not read (and what HF does instead), or `as` in use. */
  warnings: string[];
}

export interface ModelPositionsOptions {
  /** Read the config as this HF family (a remote-code model whose code follows one: kimi_k2 as 'deepseek_v3'). */
  as?: string;
}

/** A parsed config.json: the keys posembed reads are checked, any other key is left alone. */
export type ModelConfig = Record<string, unknown>;

export type RopePrecision = 'exact' | 'float32' | 'bfloat16' | 'float16';
/** [seq], or an Int32 tensor [batch, seq] (HF's conventions: with mRoPE both are text, serving all three streams); mRoPE's time, height and width apart: [3, batch, seq]. */
export type RopePositions = number[] | Int32Array | { data: Int32Array | number[]; shape: number[] };

/** A runtime's cos or sin table, float32 or float64. */
export interface RuntimeCache { data: Float32Array | Float64Array; shape: number[] }

export interface RopeCheck {
  verdict: 'exact' | 'float32' | 'bfloat16' | 'float16' | 'mismatch';
  maxAbs: number;
  at: { position: number; column: number } | null;
  /** The float32 order of operations the cache matches best, where it is float32 (or cast from it). */
  order: null | RuntimeOrder;
  /** Every order whose error bounds the cache is within. */
  orders?: RuntimeOrder[];
  /** The dominant mistake; with `suspects`, two mistakes at once. */
  suspect: null | 'layout' | 'base' | 'scaling-ignored' | 'scaling-factor' | 'attention-factor' | 'position-offset' | 'rotary-dim' | 'longrope-factors' | 'mrope-section' | 'half-precision-angle' | 'unknown';
  suspects?: string[];
  explanation: string;
}

/** HF transformers (also SGLang), vLLM (HF's order in a half-width cache), TensorRT-LLM, llama.cpp (ggml), MLX. */
export type RuntimeOrder = 'hf' | 'vllm' | 'tensorrt-llm' | 'ggml' | 'mlx';

/** A malformed .npy or .safetensors file; `offset` is the byte where it goes wrong. */
export class WeightFileError extends Error {
  readonly offset: number | null;
}

/** A URL that could not be read: `status` is the server's answer (null where there was none: offline, CORS). */
export class WeightFetchError extends Error {
  readonly url: string;
  readonly status: number | null;
}

/** How a URL is fetched: your fetch, headers on every request (an Authorization for gated models), an AbortSignal. */
export interface FetchOptions {
  fetch?: typeof fetch;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** As the header's bytes arrive (0 … 1). */
  onProgress?: (fraction: number) => void;
}

/** A model's token table from its checkpoint: on the heap as float32, read a block of rows at a time. */
export interface TokenTableOptions {
  /** The table's tensor (default: found by its usual names, model.embed_tokens.weight and the like). */
  name?: string;
  signal?: AbortSignal;
  onProgress?: (fraction: number) => void;
}

/** A real model's input layer. */
export interface OpenedModel {
  config: ModelConfig;
  /** modelPositions(config). */
  positions: ModelPositions;
  tokenizer: ModelTokenizer;
  checkpoint: WeightFile;
  /** The token table (refused where the tokenizer's ids pass its rows). */
  tokenEmbedding(options?: TokenTableOptions): Promise<TokenEmbedding & { readonly storedDtype: string }>;
}

export interface Trainer {
  /** The 20 toy tokens: '<pad>', '<end>', '0'…'9', 'First', 'Last', 'Min', 'Max', 'Sum', '(', ')', ','. */
  readonly vocabulary: readonly string[];
  readonly config: Readonly<Required<TrainerOptions>>;
  /** AdamW steps taken. */
  readonly steps: number;
  readonly disposed: boolean;
  encode(text: string): Int32Array;
  decode(ids: Int32Array | number[]): string;
  /** n AdamW steps on generated batches; loss: their mean. */
  step(n?: number): { step: number; loss: number };
  /** Held-out examples (the same ones every call); accuracy counts examples with every answer token right. */
  evaluate(options?: { count?: number; minItems?: number; maxItems?: number }): { accuracy: number; loss: number };
  /** Greedy answer; probabilities of its first token over the vocabulary. */
  predict(prompt: string): { answer: string; probabilities: Float32Array };
  /** Copies, in GPT-2's names (wte.weight, wpe.weight, h.0.attn.c_attn.weight [in, out], ..., ln_f.bias). */
  parameters(): Record<string, Tensor<Float32Array>>;
  setParameters(parameters: Record<string, Tensor<Float32Array>>): void;
  /** The prompts' answers come from the task's rule. */
  lossAndGradients(prompts: string[]): { loss: number; gradients: Record<string, Tensor<Float32Array>> };
  /** The parameters as a .safetensors file. */
  save(): Uint8Array;
  dispose(): void;
}

export interface WordEmbeddings {
  readonly vocabulary: readonly string[];
  readonly counts: readonly number[];
  readonly sentences: readonly string[];
  readonly steps: number;
  readonly disposed: boolean;
  /** [words, dim], a copy. */
  readonly vectors: Tensor<Float32Array>;
  step(n?: number): { step: number; loss: number };
  nearest(word: string, options?: { k?: number }): { word: string; score: number }[];
  /** The k words nearest a − b + c by cosine, a, b and c left out (king − man + woman → queen). */
  analogy(a: string, b: string, c: string, options?: { k?: number }): { word: string; score: number }[];
  dispose(): void;
}

/** A weights file's bytes: a Blob or File, or in Node a FileHandle (fs.promises.open), read lazily; or the bytes in
 *  memory. (Node 20's fs.openAsBlob gives files past 4 GB a wrong size: open those with fs.promises.open.) */
export interface OpenTokenizerOptions {
  /** The fetch to use (default: globalThis.fetch); headers for every request (an Authorization for gated models). */
  fetch?: typeof fetch;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** tokenizer_config.json's contents, where the source does not give them (a folder URL fetches them). */
  config?: Record<string, unknown>;
}

/** A real model's tokenizer (HF tokenizers' pipelines: byte-level BPE, SentencePiece-style BPE, Unigram, WordPiece). */
export interface ModelTokenizer {
  /** One past the largest id, added tokens included. */
  readonly vocabSize: number;
  readonly modelType: 'BPE' | 'WordPiece' | 'Unigram' | 'WordLevel';
  /** The ids of text; addSpecialTokens: the model's post-processor adds its BOS / CLS and SEP. */
  encode(text: string, options?: { addSpecialTokens?: boolean }): Int32Array;
  decode(ids: number[] | Int32Array, options?: { skipSpecialTokens?: boolean }): string;
  /** The vocabulary's string for an id, as the model stores it. */
  piece(id: number): string;
}

export interface GgufCheckOptions {
  /** The layer whose RoPE the file is compared with (default: the first RoPE layer). */
  layer?: number;
  /** Read the config as this HF family (see ModelPositionsOptions). */
  as?: string;
}

export interface GgufField {
  /** The GGUF key ('llama.rope.freq_base', 'rope_freqs.weight', 'general.architecture (rope type)'). */
  key: string;
  gguf: unknown;
  expected: unknown;
  agrees: boolean;
  /** What differs, in words (null where the field agrees). */
  explanation: string | null;
}

export interface GgufCheck {
  /** llama.cpp's architecture (general.architecture) and its pairing: 'norm' adjacent pairs, 'neox' halves. */
  architecture: string;
  ropeType: 'norm' | 'neox' | 'mrope' | 'imrope' | null;
  modelType: string;
  layer: number;
  fields: GgufField[];
  mismatches: GgufField[];
  verdict: 'consistent' | 'mismatch';
}

// @posembed-generated: op declarations

export type WeightSource = Blob | { read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>; stat(): Promise<{ size: number }> } | Uint8Array | ArrayBuffer | ArrayBufferView;
/** What a weights file stores, as posembed hands it back. */
export type StoredArray = Float32Array | Float64Array | Int32Array | Int16Array | Int8Array | Uint32Array | Uint16Array | Uint8Array;

export interface WeightFile {
  /** The tensors' names, in the order of their data. */
  readonly names: string[];
  /** safetensors' __metadata__ (strings), or the index's metadata; {} for .npy. */
  readonly metadata: Record<string, unknown>;
  /** dtype as the file spells it ('F32', 'BF16', 'I64', …; a type posembed does not read keeps its name). */
  info(name: string): { dtype: string; shape: number[]; bytes: number };
  /** Reads only this tensor's bytes. WeightFileError for a dtype posembed does not read or an I64 past ±(2^53 − 1). */
  tensor(name: string, options?: { onProgress?: (fraction: number) => void }): Promise<Tensor<StoredArray>>;
  /** The token table on the heap in the file's dtype (`dtype`; F64 is narrowed to F32), streamed a block of rows at a time with no copy in JS; `storedDtype` is the file's. A NaN or infinity in it is refused. */
  tokenEmbedding(options?: TokenTableOptions): Promise<TokenEmbedding & { readonly storedDtype: string }>;
}

export interface Posembed extends PosembedOps {
  readonly backend: 'wasm' | 'webgpu';
  /** Why 'auto' did not give WebGPU; null otherwise. */
  readonly fallbackReason: string | null;
  /** Whether a wasm SIMD module is in use. */
  readonly simd: boolean;
  /** Threads the wasm kernels split their rows over (1: the single-threaded module). */
  readonly threads: number;
  /** Whether this instance has the light encoders-only module (load({ encodersOnly: true })). */
  readonly encodersOnly: boolean;
  /** Whether dispose() has been called. */
  readonly disposed: boolean;
  /** The C++ core's limits (rows a call may produce, columns, the largest position, vocabulary size, the
   *  frequencies' base, heads, the toy models' sizes), which the options' ranges name. */
  readonly limits: Readonly<Record<CoreLimitName, number>>;
  /** A real model's positional layer from its config.json, or a preset's name. */
  modelPositions(config: ModelConfig | string, options?: ModelPositionsOptions): ModelPositions;
  /** Position fields of public configs, by name. */
  readonly modelPresets: Record<string, ModelConfig>;
  /** The array of a .npy file held in memory (see openNpy for the dtypes). */
  readNpy(bytes: Uint8Array | ArrayBuffer | ArrayBufferView): Tensor<StoredArray>;
  /** Every tensor of a .safetensors file held in memory (see openSafetensors for the dtypes). */
  readSafetensors(bytes: Uint8Array | ArrayBuffer | ArrayBufferView): Record<string, Tensor<StoredArray>>;
  /** A .safetensors file opened lazily: the header read now, each tensor's bytes only when asked for. Floats (F64,
   *  F32, F16, BF16, F8_E4M3, F8_E5M2) read as Float32Array; I32, I16, I8, U32, U16, U8 and BOOL in their own
   *  arrays; I64 and U64 as Float64Array (a value past ±(2^53 − 1) is an error for that tensor only). */
  openSafetensors(source: WeightSource | string | URL, options?: FetchOptions): Promise<WeightFile>;
  /** A model's tokenizer from its tokenizer.json: a URL (of the file, or of the model's folder, which also gives
   *  tokenizer_config.json), a Blob or File, the JSON text or the parsed object. */
  openTokenizer(source: string | Blob | Record<string, unknown>, options?: OpenTokenizerOptions): Promise<ModelTokenizer>;
  /** A GGUF file's rope fields (read lazily) against a config.json or a preset: each field that disagrees named. */
  checkGguf(source: WeightSource, config: ModelConfig | string, options?: GgufCheckOptions): Promise<GgufCheck>;
  /** A .npy file opened lazily; its one array is named after the File (without .npy), or 'array'. */
  openNpy(source: WeightSource | string | URL, options?: FetchOptions): Promise<WeightFile>;
  /** A sharded checkpoint (its model.safetensors.index.json and the shards it names), or one .safetensors file:
   *  every shard's header read now, each tensor from its shard when asked for. */
  openCheckpoint(files: File[] | Record<string, WeightSource | string> | string | URL, options?: FetchOptions): Promise<WeightFile>;
  /** A model's config, positions, tokenizer, checkpoint and token table: a folder URL or its Files. */
  openModel(source: string | URL | File[], options?: FetchOptions): Promise<OpenedModel>;
  /** An array on the wasm heap: written in place as `out`, read in place as an input (an `out` sharing bytes with a heap input throws, except that applyRope rotates `x` in place when `out` is `x.data`). */
  allocate(elements: number, options?: { type?: 'float32' }): HeapArray<Float32Array>;
  allocate(elements: number, options: { type: 'int32' }): HeapArray<Int32Array>;
  /** Heap size and live allocations, for leak checks. */
  memory(): { heapBytes: number; liveAllocations: number };
  /**
   * Ends the instance: the threaded module's workers stop, its memory (and on webgpu the GPU device) is
   * released; every later call on it, or on the tables and heap arrays it made, throws. Repeatable.
   */
  dispose(): void;
}

/** A result of the webgpu backend: the data stays on the GPU until read(); GPU ops take it as input. */
export class GpuTensor<T extends Float32Array | Int32Array = Float32Array> {
  readonly shape: number[];
  /** The GPUBuffer holding the data; null once disposed. */
  readonly buffer: unknown;
  /** Resolves once the GPU work that made it was validated; rejects with a WebGPU error otherwise. */
  ready(): Promise<void>;
  read(): Promise<Tensor<T>>;
  dispose(): void;
}

type GpuResult<T extends Float32Array | Int32Array = Float32Array> = GpuTensor<T>;
type Input = Tensor<Float32Array> | GpuTensor<Float32Array>;

/** The webgpu backend: the large fills and gathers return GpuTensors; the other ops are the wasm ones.
 *  After a device loss, backend becomes 'wasm', fallbackReason says why, and ops keep returning tensors with read(). */
export interface PosembedGpu extends Omit<Posembed, 'backend' | GpuOpName | 'dispose'>, PosembedGpuOps {
  readonly backend: 'webgpu' | 'wasm';
  /** Ends the instance at once (as Posembed's); the device is destroyed once its queue's work is done. */
  dispose(): Promise<void>;
  /** The GPUDevice in use (for error scopes). */
  readonly device: any;
  /** GPU buffers held now, for leak checks. */
  readonly gpuBuffers: number;
  /** Draws matrix `index` (default 0) of a float32 GpuTensor [..., rows, columns] on a canvas (one pixel per cell,
   *  resized to columns x rows) with a render pipeline that applies the colormap: nothing is read back.
   *  `range` spans the colormap (diverging maps: ±max |min|, |max|); non-finite cells are black. Resolves once
   *  the GPU took the work without error (an OffscreenCanvas can then be drawn onto a 2d canvas); rejects with
   *  the WebGPU error otherwise. */
  renderHeatmap(tensor: GpuTensor, canvas: HTMLCanvasElement | OffscreenCanvas, options: { range: { min: number; max: number }; colormap?: 'RdBu' | 'viridis'; index?: number }): Promise<void>;
}

export function load(options?: LoadOptions & { backend?: 'wasm' }): Promise<Posembed>;
export function load(options: LoadOptions & { backend: 'webgpu' | 'auto' }): Promise<PosembedGpu | Posembed>;
/** Tensors as a .safetensors file (F32, in the object's order); metadata (strings only) goes in __metadata__. A shape
 *  that does not hold its data, or a name that is empty or '__metadata__', is a RangeError; anything not a
 *  Float32Array tensor a TypeError. */
export function writeSafetensors(tensors: Record<string, Tensor<Float32Array>>, metadata?: Record<string, string>): Uint8Array;
/** A tensor as a .npy file (version 1.0, '<f4', C order, laid out as numpy.save does); checked as writeSafetensors. */
export function writeNpy(tensor: Tensor<Float32Array>): Uint8Array;
/** Whether this engine runs WebAssembly SIMD. */
export function simdSupported(): boolean;
/** Whether this engine can run posembed's threaded module (SharedArrayBuffer: Node, or a cross-origin-isolated page). */
export function threadsSupported(): boolean;
