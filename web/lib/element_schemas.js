// Every element's attributes, stated once: the name as written in HTML, its type, what it allows, its default and a
// line of documentation. The elements read their attributes through readAttributes (every problem named as the
// author wrote it, with what is allowed and the value, all at once), the command line's render flags and help are
// the heatmap's, the README's attribute tables are checked against this, and custom-elements.json and the JSX types
// are made from it.
import { COLORMAPS } from './colormap.js';
import { DRAWN_SCALING_PARAMETERS, DRAWN_SCALING_RULES, ENCODINGS, ROPE_FIGURE_FACTOR } from './encoding_figures.js';
import { OP_SCHEMAS, camelCase, kebabCase, optionAttribute } from './op_schemas.js';
import { CORE_ROPE_RULES } from './core_tables.js';

// The schemes an element's theme attribute names: the page's ('auto') or one pinned.
export const SCHEMES = ['light', 'dark', 'auto'];

const MAX_INT32 = 2 ** 31 - 1;

// Attribute kinds: integer and number ranges ([min, max]; `even`), enumerations, text, flags (present or not), and
// booleans written "true" / "false". An attribute that is an op's option is taken from its schema (optionAttribute:
// flags are the options that default to false).
const integer = (min, max, rest = {}) => ({ type: 'integer', min, max, ...rest });
const number = (min, max, rest = {}) => ({ type: 'number', min, max, ...rest });
const oneOf = (values, rest = {}) => ({ type: 'enum', values, ...rest });
const text = (rest = {}) => ({ type: 'text', ...rest });
const trueOrFalse = (rest = {}) => ({ type: 'boolean', ...rest });

const FRAME = {
  title: text({ doc: 'a title above the figure (as on any HTML element, also its tooltip)' }),
  caption: text({ doc: 'replaces the caption under the figure' }),
  axes: trueOrFalse({ default: true, doc: '"false" leaves out the axes' }),
  legend: trueOrFalse({ default: true, doc: '"false" leaves out the colour bar or legend' }),
};
// A heatmap's axis titles, in place of the encoding's own (the data's, or another language's words).
const AXIS_LABELS = {
  'x-label': text({ doc: 'the horizontal axis\'s title, in place of the encoding\'s' }),
  'y-label': text({ doc: 'the vertical axis\'s title, in place of the encoding\'s' }),
};
// The scaling attributes of the drawn rules (the core's table, cpp/src/rope.cpp): `scaling` naming the rule, and
// every parameter they read but the per-pair lists, with the core's range and words. An attribute left out leaves
// its parameter out (the package and the core fill it: dynamic's length from the positions drawn), but those in
// `defaults` (the figure's own) and those `leftOut` says the figure fills. `owner`: the encoding a heatmap's
// attributes belong to.
function scalingAttributes({ scalingDoc, defaults = {}, leftOut: figureFills = {}, owner = '' }) {
  const attributes = { scaling: oneOf(DRAWN_SCALING_RULES, { default: 'default', doc: scalingDoc }) };
  for (const name of DRAWN_SCALING_PARAMETERS) {
    const { type, min, max, exclusiveMin, doc, note, default: coreDefault } = CORE_ROPE_RULES.parameters[name];
    const using = DRAWN_SCALING_RULES.filter((rule) => CORE_ROPE_RULES.rules[rule].parameters.includes(name));
    const attribute = kebabCase(name);
    const required = using.some((rule) => CORE_ROPE_RULES.rules[rule].required.includes(name));
    const leftOut = figureFills[attribute] ?? (note || (required || coreDefault === undefined ? '' : `${coreDefault} when left out`));
    const readers = owner ? `${owner} (${using.join(', ')})` : using.join(', ');
    const rest = { ...(defaults[attribute] === undefined ? {} : { default: defaults[attribute] }), doc: `${readers}: ${doc}${leftOut ? ` (${leftOut})` : ''}` };
    attributes[attribute] = type === 'boolean' ? trueOrFalse(rest) : (type === 'integer' ? integer : number)(min, max, { ...(exclusiveMin ? { exclusiveMin } : {}), ...rest });
  }
  return attributes;
}
// The bias attributes the heatmap (alibi, t5) and <posembed-bias> share.
const BIAS = {
  causal: optionAttribute('alibiBias', 'causal', { doc: 'alibi: mask the keys after each query' }),
  buckets: optionAttribute('t5Buckets', 'numBuckets', { min: 4, max: 1024, doc: 't5: buckets' }),
  'max-distance': optionAttribute('t5Buckets', 'maxDistance', { min: 3, doc: 't5: the distance past which buckets stop growing' }),
};
// What every element takes, documented once (the README's theming section).
export const COMMON_ATTRIBUTES = {
  theme: oneOf(SCHEMES, { default: 'auto', doc: 'the colour scheme: "auto" takes the page\'s (the background behind the element, else its color-scheme); "light" or "dark" pins one' }),
};
const COLORMAP = oneOf(Object.keys(COLORMAPS), { doc: 'the colour map (default: the encoding\'s own)' });
// The heatmap's layout is sinusoidal's or RoPE's, as its encoding is.
const LAYOUTS = { sinusoidal: OP_SCHEMAS.sinusoidal.options.layout.values, rope: OP_SCHEMAS.applyRope.options.layout.values };

// What one element may draw at once: a heatmap's cells are computed and painted on the page's thread, which no
// setting in range may hold for more than 200 ms (measured in Chromium: tests/browser/attributes.test.mjs).
const MAX_CELLS = 2 ** 20;
const MAX_ELEMENTS = 2 ** 22;
const MAX_MULTIPLY_ADDS = 2 ** 28;  // similarity: length² × d-model
const CELLS = new Intl.NumberFormat('en');

export const ELEMENT_SCHEMAS = {
  'posembed-heatmap': {
    summary: 'a heatmap of one encoding, or of the author\'s own matrix set as element.data',
    attributes: {
      encoding: oneOf(ENCODINGS, { default: 'sinusoidal', doc: 'which table to draw' }),
      // An attribute that several encodings read is held (tests/js/op_schemas.test.mjs) within each option it feeds.
      length: integer(1, 8192, { default: 64, feeds: ['sinusoidal.length', 'learnedPositions.maxLength', 'alibiBias.keyLength', 't5Buckets.keyLength'],
        doc: 'rows (positions), or queries and keys (similarity, alibi, t5)' }),
      'd-model': integer(2, 4096, { even: true, feeds: ['sinusoidal.dModel', 'learnedPositions.dModel'],
        doc: 'columns: sinusoidal and similarity (default 128), learned, rope and sincos2d (default 64)' }),
      base: number(1, 1e12, { exclusiveMin: true, default: 10000, feeds: ['sinusoidal.base', 'applyRope.base', 'sincos2d.base'], doc: 'the frequencies\' base' }),
      layout: oneOf([...new Set(Object.values(LAYOUTS).flat())], { doc: 'sinusoidal: interleaved or split sin/cos columns; rope: half or interleaved pairs' }),
      timescale: optionAttribute('sinusoidal', 'timescale', { doc: 'sinusoidal: base^(-2i/d) or tensor2tensor\'s base^(-i/(d/2-1))' }),
      offset: optionAttribute('sinusoidal', 'offset', { max: MAX_INT32, default: 0, doc: 'sinusoidal: the first position drawn' }),
      seed: integer(0, 2 ** 32 - 1, { default: 0, doc: 'learned: the random (untrained) table\'s seed' }),
      'new-length': integer(2, 8192, { doc: 'learned: the table stretched to this many rows' }),
      ...scalingAttributes({ scalingDoc: 'rope: the scaling rule', defaults: { factor: ROPE_FIGURE_FACTOR }, leftOut: { 'original-max-positions': 'the figure\'s length when left out' }, owner: 'rope' }),
      metric: optionAttribute('similarity', 'metric', { default: 'cosine', doc: 'similarity: cosine or dot product' }),
      heads: optionAttribute('alibiBias', 'numHeads', { max: 64, default: 8, doc: 'alibi: heads' }),
      head: integer(0, 63, { default: 0, doc: 'alibi: which head, below heads' }),
      ...BIAS,
      bidirectional: optionAttribute('t5Buckets', 'bidirectional', { doc: 't5: "false" for one-directional (decoder) buckets' }),
      'grid-h': optionAttribute('sincos2d', 'gridH', { max: 256, default: 8, doc: 'sincos2d: patch rows' }),
      'grid-w': optionAttribute('sincos2d', 'gridW', { max: 256, default: 8, doc: 'sincos2d: patch columns' }),
      colormap: COLORMAP,
      ...FRAME,
      ...AXIS_LABELS,
    },
    check(v) {
      const problems = [];
      if (v.head !== undefined && v.head >= v.heads) problems.push(`head must be below heads (${v.heads}), got "${v.head}"`);
      const layouts = LAYOUTS[v.encoding];
      if (v.layout !== undefined && layouts && !layouts.includes(v.layout)) problems.push(`layout must be one of ${layouts.map((l) => `"${l}"`).join(', ')} for ${v.encoding}, got "${v.layout}"`);
      if (v.encoding === 'sincos2d' && v['d-model'] !== undefined && v['d-model'] % 4 !== 0) problems.push(`d-model must be a multiple of 4 for sincos2d, got "${v['d-model']}"`);
      return problems;
    },
    // What the element draws on the page's thread; the command line, which draws no page, leaves this out.
    budget(v) {
      const cells = {
        sinusoidal: v.length * (v['d-model'] ?? 128), learned: (v['new-length'] ?? v.length) * (v['d-model'] ?? 64), rope: v.length * (v['d-model'] ?? 64),
        similarity: v.length * v.length, alibi: v.length * v.length, t5: v.length * v.length, sincos2d: v['grid-h'] * v['grid-w'] * (v['d-model'] ?? 64),
      }[v.encoding];
      const computed = v.encoding === 'alibi' ? v.heads * v.length * v.length : v.encoding === 'similarity' ? v.length * v.length + v.length * (v['d-model'] ?? 128) : cells;
      if (cells > MAX_CELLS) return [`the ${v.encoding} table would have ${CELLS.format(cells)} cells, over this element's ${CELLS.format(MAX_CELLS)}: lower length${v.encoding === 'sincos2d' ? ', grid-h, grid-w' : ''} or d-model`];
      const multiplyAdds = v.encoding === 'similarity' ? v.length * v.length * (v['d-model'] ?? 128) : 0;
      if (multiplyAdds > MAX_MULTIPLY_ADDS) return [`the similarity of ${v.length} positions of ${v['d-model'] ?? 128} dimensions takes ${CELLS.format(multiplyAdds)} multiply-adds, over this element's ${CELLS.format(MAX_MULTIPLY_ADDS)}: lower length or d-model`];
      if (computed > MAX_ELEMENTS) {
        const what = v.encoding === 'alibi' ? 'the ALiBi bias of every head' : `the ${v.encoding} table and what it is computed from`;
        return [`${what} would hold ${CELLS.format(computed)} values, over this element's ${CELLS.format(MAX_ELEMENTS)}: lower ${v.encoding === 'alibi' ? 'heads or length' : 'length or d-model'}`];
      }
      return [];
    },
  },
  'posembed-lookup': {
    summary: 'the token lookup of an expression over the tutorials\' 20-token vocabulary, step by step',
    attributes: {
      text: text({ default: 'Max(1,6,2)', doc: 'the expression looked up' }),
      'd-model': integer(2, 512, { even: true, default: 64, doc: 'numbers per token' }),
      'pad-to': integer(1, 64, { default: 10, doc: 'the batch\'s length, padded with <pad>' }),
      seed: integer(0, 2 ** 32 - 1, { default: 0, doc: 'the random (untrained) table\'s seed' }),
      scale: oneOf(['sqrt', 'none'], { default: 'sqrt', doc: 'rows times √d_model, or as they are' }),
      axes: FRAME.axes, legend: FRAME.legend,
    },
  },
  'posembed-rope': {
    summary: 'dials of RoPE\'s pairs turning with the position, and which dimensions pair up',
    attributes: {
      'head-dim': optionAttribute('ropeInvFreq', 'headDim', { min: 4, max: 1024, default: 64, doc: 'the head\'s width' }),
      base: optionAttribute('ropeInvFreq', 'base', { max: 1e12 }),
      layout: oneOf(['half', 'interleaved'], { default: 'half', doc: 'half (GPT-NeoX, LLaMA) or interleaved (GPT-J) pairs' }),
      pairs: integer(1, 512, { default: 4, doc: 'dials shown, spread from the fastest pair to the slowest; at most head-dim / 2' }),
      position: integer(0, MAX_INT32, { default: 0, doc: 'the position the dials start at' }),
      speed: number(0, 1000, { exclusiveMin: true, default: 4, doc: 'positions a second while playing' }),
      ...scalingAttributes({ scalingDoc: 'the scaling rule (grey hands: unscaled)', defaults: { factor: 2, 'original-max-positions': 4096 } }),
    },
    check(v) {
      return v.pairs > v['head-dim'] / 2 ? [`pairs must be at most head-dim / 2 = ${v['head-dim'] / 2}, got "${v.pairs}"`] : [];
    },
  },
  'posembed-bias': {
    summary: 'ALiBi\'s or T5\'s attention bias, one heatmap per head',
    attributes: {
      kind: oneOf(['alibi', 't5'], { default: 'alibi', doc: 'which bias' }),
      heads: optionAttribute('alibiBias', 'numHeads', { max: 64, default: 8, doc: 'heads' }),
      length: integer(1, 512, { default: 32, doc: 'queries and keys' }),
      ...BIAS,
      seed: integer(0, 2 ** 32 - 1, { default: 0, doc: 't5: the random (untrained) table\'s seed' }),
      colormap: oneOf(Object.keys(COLORMAPS), { default: 'viridis', doc: 'the colour map' }),
      scale: oneOf(['shared', 'per-head'], { default: 'shared', doc: 'one colour scale for all heads, or one per head' }),
      ...FRAME,
      ...AXIS_LABELS,
    },
    budget(v) {
      const cells = v.heads * v.length * v.length;
      return cells > MAX_CELLS ? [`heads × length² would be ${CELLS.format(cells)} cells, over this element's ${CELLS.format(MAX_CELLS)}: lower heads or length`] : [];
    },
  },
  'posembed-train': {
    summary: 'the tutorials\' toy transformer trained live in a worker',
    attributes: {
      task: optionAttribute('trainer', 'task'),
      positional: optionAttribute('trainer', 'positional'),
      'd-model': optionAttribute('trainer', 'dModel'),
      heads: optionAttribute('trainer', 'heads'),
      layers: optionAttribute('trainer', 'layers'),
      seed: optionAttribute('trainer', 'seed', { max: 2 ** 32 - 1 }),
      'learning-rate': optionAttribute('trainer', 'learningRate'),
      steps: integer(1, 1000000, { default: 3000, doc: 'where training stops' }),
    },
    check(v) {
      const { heads, 'd-model': width } = v;
      return width % (2 * heads) === 0 ? [] : [`d-model must be a multiple of 2 × heads = ${2 * heads} (an even head size), got "${width}"`];
    },
  },
  'posembed-tokens': {
    summary: 'a real model\'s token embeddings: a text\'s pieces, their rows and nearest tokens, the vocabulary\'s map, a − b + c',
    attributes: {
      model: text({ default: 'smollm2-135m', doc: 'a preset (gpt2, smollm2-135m, qwen3-0.6b) or a model folder URL' }),
      text: text({ default: 'The king and the queen walked to Paris.', doc: 'cut by the model\'s tokenizer (≤ 256 tokens)' }),
      k: integer(1, 50, { default: 8, doc: 'nearest tokens listed' }),
      analogy: text({ default: 'king, man, woman', doc: 'a − b + c: three whole-token words' }),
    },
  },
  'posembed-model': {
    summary: 'a real model\'s positional layer, from its config.json',
    attributes: {
      config: text({ default: 'Llama-3.1-8B', doc: 'a preset\'s name (pe.modelPresets) or a config.json URL; or set element.config to a parsed config' }),
      as: text({ doc: 'the HF model_type to read the config as: a remote-code model\'s family (kimi_k2 as deepseek_v3), or the model_type of a config that has none' }),
      layer: integer(0, 100000, { default: 0, doc: 'which layer, below the model\'s number of layers' }),
      precision: trueOrFalse({ default: true, doc: '"false" leaves out the precision lab (the float32, float16 and bfloat16 caches\' error, and bfloat16\'s collisions)' }),
      ...FRAME,
    },
  },
};

for (const schema of Object.values(ELEMENT_SCHEMAS)) Object.assign(schema.attributes, COMMON_ATTRIBUTES);

function describeAllowed(spec) {
  if (spec.type === 'enum') return `one of ${spec.values.map((v) => `"${v}"`).join(', ')}`;
  if (spec.type === 'boolean') return '"true" or "false"';
  const open = spec.exclusiveMin ? '(' : '[';
  return `${spec.type === 'integer' ? (spec.even ? 'an even integer' : 'an integer') : 'a number'} in ${open}${spec.min}, ${spec.max}]`;
}

// One attribute's value, or a problem in the author's words: `d-model must be an even integer in [2, 4096], got "7"`.
// `written` is how the name is shown (the command line's `--d-model`).
export function readValue(name, spec, raw, written = name) {
  if (spec.type === 'flag') return { value: raw !== null && raw !== false };
  if (raw === null || raw === undefined) return { value: spec.default };
  const problem = () => ({ problem: `${written} must be ${describeAllowed(spec)}, got "${raw}"` });
  switch (spec.type) {
    case 'text':
      return { value: raw };
    case 'enum':
      return spec.values.includes(raw) ? { value: raw } : problem();
    case 'boolean':
      // Present without a value (<… axes>, or a framework's `axes={true}` written as an attribute) is true, as HTML's
      // boolean attributes are.
      return raw === 'true' || raw === '' ? { value: true } : raw === 'false' ? { value: false } : problem();
    default: {
      const value = raw.trim() === '' ? NaN : Number(raw);
      const inRange = spec.exclusiveMin ? value > spec.min : value >= spec.min;
      if (!Number.isFinite(value) || !inRange || value > spec.max) return problem();
      if (spec.type === 'integer' && (!Number.isInteger(value) || (spec.even && value % 2 !== 0))) return problem();
      return { value };
    }
  }
}

// Values read by name (raw(name): the text given, or null) and checked: { values, problems }, every problem at once;
// the element's budget too unless { budget: false }.
export function readValues(tag, raw, { written = (name) => name, budget = true } = {}) {
  const schema = ELEMENT_SCHEMAS[tag];
  const values = {};
  const problems = [];
  for (const [name, spec] of Object.entries(schema.attributes)) {
    const { value, problem } = readValue(name, spec, raw(name), written(name));
    if (problem) problems.push(problem);
    else values[name] = value;
  }
  if (problems.length === 0 && schema.check) problems.push(...schema.check(values));
  if (problems.length === 0 && budget && schema.budget) problems.push(...schema.budget(values));
  return { values, problems };
}

// An element's attributes read and checked: { values (by attribute name), problems (every one, in the author's words) }.
export function readAttributes(element, tag = element.localName) {
  return readValues(tag, (name) => element.getAttribute(name));
}

export const observedAttributes = (tag) => Object.keys(ELEMENT_SCHEMAS[tag].attributes);

// Attributes any HTML element may carry, and those frameworks add (data-v-…, _ngcontent-…, xml:lang): never unknown.
const GLOBAL_ATTRIBUTES = new Set(['id', 'class', 'style', 'slot', 'part', 'exportparts', 'hidden', 'title', 'lang', 'dir', 'tabindex', 'role', 'is',
  'inert', 'autofocus', 'accesskey', 'autocapitalize', 'contenteditable', 'draggable', 'enterkeyhint', 'inputmode', 'nonce', 'popover',
  'spellcheck', 'translate', 'itemscope', 'itemtype', 'itemprop', 'itemid', 'itemref', 'key', 'ref']);
const isGlobal = (name) => GLOBAL_ATTRIBUTES.has(name) || /^(aria-|data-|on|_)|:/.test(name);

function editDistance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length];
}

// The element's attributes that it does not read (a misspelling, an attribute of another element), each in the
// author's words with the nearest one it reads: ['no attribute "lenght" (did you mean "length"?)'].
export function unknownAttributes(element, tag = element.localName) {
  const known = Object.keys(ELEMENT_SCHEMAS[tag].attributes);
  return element.getAttributeNames().filter((name) => !known.includes(name) && !isGlobal(name)).map((name) => {
    const [nearest] = known.map((k) => [k, editDistance(name, k)]).filter(([, d]) => d <= Math.max(2, name.length / 3)).sort((x, y) => x[1] - y[1]);
    return `no attribute "${name}"${nearest ? ` (did you mean "${nearest[0]}"?)` : ''}`;
  });
}

// A message of the package's, in the words of the element's attributes: an option spelled otherwise in HTML (dModel,
// scaling.lowFreqFactor) is named as the author wrote it (d-model, low-freq-factor); scaling.type is scaling.
export function inAttributeWords(tag, message) {
  const spellings = [['scaling.type', 'scaling']];
  for (const attribute of Object.keys(ELEMENT_SCHEMAS[tag].attributes)) {
    const option = camelCase(attribute);
    spellings.push([`scaling.${option}`, attribute]);
    if (option !== attribute) spellings.push([option, attribute]);
  }
  return spellings.reduce((text, [option, attribute]) => text.replace(new RegExp(`(?<![\\w.-])${option.replace('.', '\\.')}\\b`, 'g'), attribute), message);
}

// The problems as one message for the element's error line.
export function problemsMessage(tag, problems) {
  return problems.length === 1 ? `<${tag}>: ${problems[0]}` : `<${tag}>: ${problems.length} attributes need fixing: ${problems.join('; ')}`;
}
