// Each op's options, stated once: the name as the API spells it (attributes and command-line flags spell it in
// kebab-case: dModel → d-model), its kind, range, default and a line of documentation. The package checks options
// through readOptions (messages name the option, what is allowed and the value); the elements take their attributes
// from here (optionAttribute), and tests check index.d.ts, the elements, the facades and the C++ core's own checks
// against these. A range bound given as a name ('maxLength') is the C++ core's limit of that name (limits::kLimits,
// written into core_tables.js when the package is built), so that the bound is stated once, in the core. `arguments`
// are an op's positional ones, in order, checked through readArgument.
import { CORE_LIMITS, CORE_OPS, GPU_KERNELS } from './core_tables.js';
import { boolean, integer, number, oneOf, options } from './validate.js';

const integerIn = (min, max, rest = {}) => ({ type: 'integer', min, max, ...rest });
const numberIn = (min, max, rest = {}) => ({ type: 'number', min, max, ...rest });
const oneOfValues = (values, rest = {}) => ({ type: 'enum', values, ...rest });
const trueOrFalse = (rest = {}) => ({ type: 'boolean', ...rest });
// Data (tensors, id lists, output arrays, nested options), with its TypeScript type: the op checks these itself.
const data = (doc, ts) => ({ type: 'data', optional: true, doc, ts });
const requiredData = (doc, ts) => ({ type: 'data', doc, ts });
const TENSOR = 'Tensor<Float32Array>';
const OUT = data('a Float32Array of exactly the result\'s size to write into', 'Float32Array');
const INT_OUT = data('an Int32Array of exactly the result\'s size to write into', 'Int32Array');
// The webgpu backend's form of an op that runs on the GPU: its result stays there (a GpuTensor: GpuResult), the
// arguments named in `gpuInputs` may be GpuTensors too, and it takes no `out`.
const ON_GPU = { returns: 'GpuResult' };
const SCALE = (doc) => ({ type: 'data', default: 'none', doc, ts: '\'none\' | \'sqrt\' | number' });

// T5's bucketing, shared by its three ops.
const T5_BUCKETING = {
  numBuckets: integerIn(2, 'maxBuckets', { default: 32, dependsOn: 'bidirectional', attribute: 'buckets', doc: 'buckets (at least 4 when bidirectional)' }),
  maxDistance: integerIn(2, 'maxPosition', { default: 128, dependsOn: 'numBuckets', doc: 'the distance past which buckets stop growing: above the exact buckets\' range' }),
  bidirectional: trueOrFalse({ default: true, doc: 'false: one-directional (decoder) buckets' }),
};
const PRECISION = oneOfValues(['exact', 'float32', 'bfloat16', 'float16'], {
  ts: 'RopePrecision', default: 'exact', doc: 'the cache as the exact maths, or as a float32 computation (cast to bfloat16 or float16) gives it',
});

export const OP_SCHEMAS = {
  sinusoidal: {
    doc: 'sinusoidal positions [length, dModel]',
    returns: TENSOR,
    webgpu: ON_GPU,
    options: {
      length: integerIn(1, 'maxLength', { unless: 'positions', doc: 'rows: positions offset … offset + length − 1 (not with positions)' }),
      dModel: integerIn(2, 'maxDModel', { even: true, doc: 'columns: sin/cos pairs × 2' }),
      base: numberIn('minBase', 'maxBase', { default: 10000, doc: 'the frequencies\' base' }),
      layout: oneOfValues(['interleaved', 'split'], { default: 'interleaved', doc: 'sin and cos in alternate columns, or all sines then all cosines' }),
      timescale: oneOfValues(['standard', 't2t'], { default: 'standard', doc: 'base^(-2i/d), or tensor2tensor\'s base^(-i/(d/2-1))' }),
      offset: integerIn(0, 'maxPosition', { optional: true, dependsOn: 'length', doc: 'the first position (0 unless given); the last, offset + length − 1, at most maxPosition' }),
      positions: data('the positions of the rows, in place of length and offset', 'number[] | Int32Array'),
      out: OUT,
    },
  },
  alibiBias: {
    doc: 'ALiBi\'s bias [numHeads, queryLength, keyLength]; queries are the last queryLength keys; -Infinity where causal masks',
    returns: TENSOR,
    webgpu: ON_GPU,
    options: {
      numHeads: integerIn(1, 'maxHeads', { attribute: 'heads', doc: 'heads, each with its slope' }),
      queryLength: integerIn(1, 'maxLength', { optional: true, dependsOn: 'keyLength', doc: 'queries, the last of the keys: at most keyLength (default keyLength)' }),
      keyLength: integerIn(1, 'maxLength', { doc: 'keys' }),
      causal: trueOrFalse({ default: false, doc: 'mask (−Infinity) the keys after each query' }),
      slopes: data('the heads\' slopes, in place of ALiBi\'s geometric ones (BLOOM\'s and MPT\'s: modelPositions(config).layer(i).alibi.slopes)', 'number[] | Float32Array | Float64Array'),
      out: OUT,
    },
  },
  t5Bucket: {
    doc: 'T5\'s bucket of each relative position (key − query)',
    returns: 'Tensor<Int32Array>',
    arguments: { relativePositions: requiredData('the relative positions: an array of integers or an Int32Array', 'number[] | Int32Array') },
    options: { ...T5_BUCKETING, out: INT_OUT },
  },
  t5Bias: {
    doc: 'T5\'s bias [numHeads, queryLength, keyLength], gathered from a [numBuckets, numHeads] table by bucket',
    returns: TENSOR,
    webgpu: ON_GPU,
    arguments: { table: requiredData('the learned table [numBuckets, numHeads]', TENSOR) },
    options: {
      queryLength: integerIn(1, 'maxLength', { doc: 'queries' }),
      keyLength: integerIn(1, 'maxLength', { doc: 'keys' }),
      queryOffset: integerIn(0, 'maxLength', { default: 0, dependsOn: 'queryLength', doc: 'a decoder\'s cached step: the queries are positions queryOffset … queryOffset + queryLength − 1' }),
      ...T5_BUCKETING,
      out: OUT,
    },
  },
  tokenEmbedding: {
    doc: 'a [vocabSize, dModel] token table looked up by id',
    returns: 'TokenEmbedding',
    webgpu: { returns: 'Omit<TokenEmbedding, \'lookup\'> & { lookup(ids: TokenIds): GpuResult }' },
    options: {
      vocabSize: integerIn(1, 'maxVocabSize', { doc: 'rows: one per token id' }),
      dModel: integerIn(1, 'maxDModel', { doc: 'columns' }),
      paddingIdx: integerIn(0, 'maxVocabSize', { optional: true, dependsOn: 'vocabSize', ts: 'number | null', doc: 'this id\'s row reads as zeros (and init zeroes it): below vocabSize, or null' }),
      scale: SCALE('rows times 1 (\'none\'), √dModel (\'sqrt\') or a number in [-1e6, 1e6]'),
      weights: data('the table [vocabSize, dModel]; give this or init', TENSOR),
      init: data('a random table: { type: \'normal\', std, seed }', 'EmbeddingInitOptions'),
    },
  },
  learnedPositions: {
    doc: 'a learned [maxLength, dModel] position table looked up by position',
    returns: 'LearnedPositions',
    options: {
      maxLength: integerIn(1, 'maxLength', { doc: 'rows: the positions it has' }),
      dModel: integerIn(1, 'maxDModel', { doc: 'columns' }),
      weights: data('the table [maxLength, dModel]; give this or init', TENSOR),
      init: data('a random table: { type: \'normal\', std, seed }', 'EmbeddingInitOptions'),
    },
  },
  interpolatePositions: {
    doc: 'a [length, dModel] table stretched to [newLength, dModel] by align-corners linear interpolation',
    returns: TENSOR,
    arguments: {
      table: requiredData('the table [length, dModel]', TENSOR),
      newLength: integerIn(1, 'maxLength', { doc: 'rows of the result' }),
    },
    options: { out: OUT },
  },
  transformerEmbedding: {
    doc: 'the input layer: token rows × scale + positions, with dropout when training',
    returns: 'TransformerEmbedding',
    webgpu: { returns: 'Omit<TransformerEmbedding, \'forward\'> & { forward(ids: TokenIds, options?: { training?: boolean }): GpuResult }' },
    options: {
      vocabSize: integerIn(1, 'maxVocabSize', { doc: 'token ids' }),
      dModel: integerIn(2, 'maxDModel', { doc: 'columns (even for sinusoidal positions)' }),
      maxLength: integerIn(1, 'maxLength', { doc: 'the longest sequence (rows of the position table)' }),
      positional: oneOfValues(['sinusoidal', 'learned', 'none'], { default: 'sinusoidal', doc: 'the positions added' }),
      scale: SCALE('token rows times 1 (\'none\'), √dModel (\'sqrt\') or a number'),
      paddingIdx: integerIn(0, 'maxVocabSize', { optional: true, dependsOn: 'vocabSize', ts: 'number | null', doc: 'this id\'s row reads as zeros' }),
      dropout: numberIn(0, 0.999999, { default: 0, doc: 'inverted dropout\'s probability, applied only when training' }),
      seed: integerIn(0, Number.MAX_SAFE_INTEGER - 2, { default: 0, doc: 'seeds the token table (seed), learned positions (seed + 1) and dropout (seed + 2)' }),
      weights: data('the token table [vocabSize, dModel]', TENSOR),
      positionWeights: data('the learned position table [maxLength, dModel] (positional: \'learned\')', TENSOR),
    },
  },
  ropeInvFreq: {
    doc: 'RoPE\'s inverse frequencies [headDim / 2] under a scaling rule, and its attention factor',
    returns: '{ invFreq: Tensor<Float32Array>; attentionFactor: number }',
    options: {
      headDim: integerIn(2, 'maxDModel', { even: true, doc: 'the rotated width' }),
      base: numberIn(1, 'maxBase', { exclusiveMin: true, default: 10000, doc: 'the frequencies\' base (rope_theta)' }),
      scaling: data('the scaling rule and its parameters: { type: \'default\' | \'linear\' | \'dynamic\' | \'llama3\' | \'yarn\' | \'longrope\' | \'proportional\', ... }', 'RopeScaling'),
    },
  },
  applyRope: {
    doc: 'x [..., seq, headDim] with each vector turned by RoPE at its position',
    returns: TENSOR,
    webgpu: { ...ON_GPU, gpuInputs: ['x'] },
    arguments: { x: requiredData('the vectors: a tensor [..., seq, headDim]', TENSOR) },
    options: {
      positions: data('one position per row of x (seq), in place of offset; with a spec [seq], or [batch, seq] for x [batch, heads, seq, headDim] (mRoPE: [3, batch, seq], or text positions [seq] / [batch, seq])', 'RopePositions'),
      offset: integerIn(0, 'maxPosition', { optional: true, dependsOn: 'x', doc: 'positions offset, offset + 1, … (default 0)' }),
      rotaryDim: integerIn(2, 'maxDModel', { optional: true, even: true, dependsOn: 'x', doc: 'the rotated width, at most headDim (default headDim); the rest passes through' }),
      base: numberIn(1, 'maxBase', { exclusiveMin: true, default: 10000, doc: 'the frequencies\' base (rope_theta)' }),
      layout: oneOfValues(['half', 'interleaved'], { default: 'half', doc: 'GPT-NeoX/LLaMA\'s rotate_half, or GPT-J\'s interleaved pairs' }),
      scaling: data('the scaling rule and its parameters (as ropeInvFreq\'s)', 'RopeScaling'),
      spec: data('a model\'s RopeSpec (modelPositions(config).rope), in place of offset, rotaryDim, base, layout and scaling', 'RopeSpec'),
      precision: { ...PRECISION, doc: 'with a spec: its cache as the exact maths, or as a float32 computation (cast to bfloat16 or float16) gives it' },
      out: OUT,
    },
  },
  ropeCache: {
    doc: 'the cos/sin cache of a RopeSpec at positions, in HF\'s layout [...positions\' shape (without mRoPE\'s 3), rotaryDim]; its precision (not enumerable: the result saves and spreads as its two tensors) is the precision applied',
    returns: '{ cos: Tensor<Float32Array>; sin: Tensor<Float32Array>; readonly precision: RopePrecision }',
    arguments: { spec: requiredData('a model\'s RopeSpec (modelPositions(config).rope)', 'RopeSpec') },
    options: {
      positions: requiredData('the positions: [seq], [batch, seq] or, for mRoPE, [3, batch, seq]', 'RopePositions'),
      precision: { ...PRECISION, doc: 'the cache exact, or as a float32 computation (cast to bfloat16 or float16, where the model casts it) makes it; the result\'s precision says which was applied' },
      out: data('two Float32Arrays of the cache\'s size to write into', '{ cos: Float32Array; sin: Float32Array }'),
    },
  },
  checkRopeCache: {
    doc: 'whether a runtime\'s cos/sin cache is the exact maths, a float32/bf16/f16 computation of it, or a mismatch (and why)',
    returns: 'RopeCheck',
    arguments: { spec: requiredData('a model\'s RopeSpec (modelPositions(config).rope)', 'RopeSpec') },
    options: {
      cos: requiredData('the runtime\'s cos cache [...positions\' shape, rotaryDim] (rotaryDim / 2 for a half-width cache, as vLLM and flash-attention keep it; headDim for a whole-head one)', 'RuntimeCache'),
      sin: requiredData('its sin cache, the same shape', 'RuntimeCache'),
      positions: data('the positions the cache was made for (default: 0 … rows − 1, one per row of a [rows, width] cache)', 'RopePositions'),
      precision: { ...PRECISION, default: undefined, optional: true, doc: 'the precision the cache is said to have (ropeCache\'s result carries it): a coarser verdict is pointed out' },
    },
  },
  similarity: {
    doc: 'the dot products or cosines of a\'s rows with b\'s [n, m]',
    returns: TENSOR,
    webgpu: { ...ON_GPU, gpuInputs: ['a', 'b'] },
    arguments: { a: requiredData('rows [n, d]', TENSOR), b: data('rows [m, d] (default a)', 'Tensor<Float32Array> | null') },
    options: {
      metric: oneOfValues(['dot', 'cosine'], { default: 'dot', doc: 'dot product or cosine' }),
      out: OUT,
    },
  },
  pca: {
    doc: 'the centred rows of x projected on their principal axes [n, components]',
    returns: TENSOR,
    arguments: { x: requiredData('rows [n, d]', TENSOR) },
    options: {
      components: integerIn(1, 'maxDModel', { default: 2, dependsOn: 'x', doc: 'axes kept, at most min(rows, columns)' }),
      out: OUT,
    },
  },
  wordEmbeddings: {
    doc: 'skip-gram word vectors trained over a generated corpus or the caller\'s sentences',
    types: 'WordEmbeddingOptions',
    returns: 'WordEmbeddings',
    options: {
      corpus: { type: 'data', default: 'generated', ts: '\'generated\' | string[]', doc: '\'generated\' (a small grammar\'s sentences: royalty, people, fruit, animals) or an array of sentences' },
      // 4000: enough for the corpus's rank, gender and age directions to come out on every seed tried (2000 missed one in 24).
      sentences: integerIn(10, 100000, { optional: true, whenGenerated: 4000, doc: 'sentences of the generated corpus (default 4000)' }),
      dim: integerIn('wordsMinDim', 'wordsMaxDim', { default: 16, doc: 'numbers per word' }),
      window: integerIn(1, 'wordsMaxWindow', { default: 2, doc: 'words each side' }),
      negatives: integerIn(1, 'wordsMaxNegatives', { default: 5, doc: 'random words per pair' }),
      batchSize: integerIn(1, 'wordsMaxBatchSize', { default: 64, doc: 'centre words per step' }),
      learningRate: numberIn(0, 1, { exclusiveMin: true, default: 0.05, doc: 'plain SGD\'s rate' }),
      seed: integerIn(0, Number.MAX_SAFE_INTEGER, { default: 0, doc: 'the seed of the vectors, the corpus and the sampling' }),
    },
  },
  trainer: {
    doc: 'the tutorials\' toy transformer, trained in the page',
    returns: 'Trainer',
    options: {
      task: oneOfValues(['max', 'min', 'first', 'mixed', 'copy'], { default: 'mixed', doc: 'what the model learns to answer' }),
      positional: oneOfValues(['none', 'sinusoidal', 'learned', 'rope', 'alibi'], { default: 'sinusoidal', doc: 'how the model knows positions' }),
      dModel: integerIn('trainerMinDModel', 'trainerMaxDModel', { default: 64, doc: 'the model\'s width, a multiple of 2 × heads' }),
      layers: integerIn(1, 'trainerMaxLayers', { default: 1, doc: 'blocks' }),
      heads: integerIn(1, 'trainerMaxHeads', { default: 4, doc: 'attention heads' }),
      maxLength: integerIn('trainerMinLength', 'trainerMaxLength', { default: 16, doc: 'the longest prompt, in tokens' }),
      minItems: integerIn(1, 'trainerMaxItems', { default: 2, doc: 'the fewest numbers in a training list' }),
      maxItems: integerIn(1, 'trainerMaxItems', { optional: true, dependsOn: 'minItems', doc: 'the most numbers in a training list, at least minItems (default max(5, minItems))' }),
      batchSize: integerIn(1, 'trainerMaxBatchSize', { default: 32, doc: 'examples a step' }),
      learningRate: numberIn(0, 1, { exclusiveMin: true, default: 3e-3, doc: 'AdamW\'s rate' }),
      weightDecay: numberIn(0, 1, { default: 0.01, doc: 'AdamW\'s decoupled weight decay' }),
      scale: oneOfValues(['sqrt', 'none'], { default: 'sqrt', doc: 'token rows times √dModel, or as they are' }),
      seed: integerIn(0, Number.MAX_SAFE_INTEGER, { default: 0, doc: 'the seed of the weights and examples' }),
    },
  },
};

// The ops stated whole in the core (core_ops.hpp; written into core_tables.js when the package is built; core_ops.js
// runs them), each with the schema every op has: its positional options as arguments, an out (a Float32Array, or an
// Int32Array for an int32 result), and a GPU form where a WGSL kernel of its name is in webgpu/kernels/.
function coreOpSchema(name, { doc, result, options }) {
  if (OP_SCHEMAS[name]) throw new Error(`posembed: the core's op ${name} has the name of an op the package states itself`);
  const spec = ({ type, min, max, default: value, doc: line, attribute }) => ({
    type, ...(type === 'boolean' ? {} : { min, max }), ...(value === undefined ? {} : { default: value }), doc: line, ...(attribute ? { attribute } : {}),
  });
  const entries = (positional) => Object.fromEntries(options.filter((option) => option.positional === positional).map((option) => [option.name, spec(option)]));
  const positional = entries(true);
  const integers = result === 'int32';
  return {
    doc,
    returns: integers ? 'Tensor<Int32Array>' : TENSOR,
    ...(GPU_KERNELS[name] ? { webgpu: integers ? { returns: 'GpuResult<Int32Array>' } : ON_GPU } : {}),
    ...(Object.keys(positional).length ? { arguments: positional } : {}),
    options: { ...entries(false), out: integers ? INT_OUT : OUT },
  };
}
for (const [name, op] of Object.entries(CORE_OPS)) OP_SCHEMAS[name] = coreOpSchema(name, op);

// A spec with its bounds as numbers (a core limit's name read from CORE_LIMITS).
function withBounds(spec) {
  const bound = (value) => (typeof value === 'string' ? CORE_LIMITS[value] : value);
  return spec.min === undefined ? spec : { ...spec, min: bound(spec.min), max: bound(spec.max) };
}

// What an op's option allows.
export function resolvedOption(op, name) {
  return withBounds(OP_SCHEMAS[op].options[name]);
}

const withAllBounds = (specs) => Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, withBounds(spec)]));

// Every op's schema with its bounds as numbers: what the declarations, the README and the command line state.
export function resolvedSchemas() {
  return Object.fromEntries(Object.entries(OP_SCHEMAS).map(([op, schema]) => [op, {
    ...schema, options: withAllBounds(schema.options), ...(schema.arguments ? { arguments: withAllBounds(schema.arguments) } : {}),
  }]));
}

// The op's options checked against its schema: every value, or its default; absent optional ones stay undefined
// (the op decides), and data options are passed as given, as are those whose range depends on another option
// (dependsOn: the op checks them, in their real range).
export function readOptions(op, given) {
  const o = options(`${op} options`, given, Object.keys(OP_SCHEMAS[op].options));
  const values = {};
  for (const name of Object.keys(OP_SCHEMAS[op].options)) {
    const spec = resolvedOption(op, name);
    const value = o[name] ?? spec.default;
    const absentAllowed = spec.optional || (spec.unless !== undefined && o[spec.unless] !== undefined);
    values[name] = (value === undefined && absentAllowed) || spec.dependsOn ? value : checkValue(name, value, spec);
  }
  return values;
}

// An op's positional argument checked against its schema (data arguments are the op's to check).
export function readArgument(op, name, value) {
  return checkValue(name, value, withBounds(OP_SCHEMAS[op].arguments[name]));
}

function checkValue(name, value, spec) {
  if (spec.type === 'integer') return integer(name, value, spec.min, spec.max, { even: spec.even });
  if (spec.type === 'number') return number(name, value, spec.min, spec.max, { exclusiveMin: spec.exclusiveMin });
  if (spec.type === 'enum') return oneOf(name, value, spec.values);
  if (spec.type === 'boolean') return boolean(name, value);
  return value;
}

// An option's name as HTML and the command line spell it (dModel → d-model), and back.
export const kebabCase = (name) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
export const camelCase = (name) => name.replace(/-(\w)/g, (_, letter) => letter.toUpperCase());

// An op option as an element attribute or command-line flag: its kebab-case name unless the schema spells it
// otherwise (numHeads → heads, as the trainer's), and its kind, values, default and range, where `overrides` may
// narrow the range (an element's size budget) or say more for its readers.
export function attributeName(op, name) {
  return OP_SCHEMAS[op].options[name].attribute ?? kebabCase(name);
}

export function optionAttribute(op, name, overrides = {}) {
  const spec = resolvedOption(op, name);
  const type = spec.type === 'boolean' && spec.default === false ? 'flag' : spec.type;
  const { optional, unless, dependsOn, attribute, ...rest } = spec;
  return { ...rest, type, option: `${op}.${name}`, ...overrides };
}
