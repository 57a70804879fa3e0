#!/usr/bin/env node
// posembed render <encoding> [options] -o figure.png|.svg|.csv|.npy: the site's heatmaps as static figures.
// posembed rope --config FILE|PRESET ... -o cache.safetensors|.npy: a model's cos/sin cache.
// posembed check --config FILE|PRESET --cache FILE | --gguf FILE: a runtime's dumped cache, or a GGUF file's rope fields, against
// the model's (exit 0 consistent, 1 not).
import { readFileSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { extname } from 'node:path';
import { parseArgs } from 'node:util';
import { PNG } from './vendor/png.js';
import { load, writeNpy, writeSafetensors } from './index.js';
import { MODEL_PRESETS } from './model_presets.js';
import { ENCODINGS, encodingFigure, encodingOptions } from './encoding_figures.js';
import { ELEMENT_SCHEMAS, readValues } from './element_schemas.js';
import { colormap as colourMap, heatmapPixels, valueRange } from './colormap.js';
import { estimatedWidth, heatmapScene, sceneShapes, shapesToSvg } from './scene.js';
import { THEME_PROPERTIES } from './components/theme.js';

// The render command's flags are the heatmap element's attributes (its schema: names, ranges, defaults, documentation),
// the figure's frame aside: the same spelling and the same checks as in a page.
const HEATMAP = ELEMENT_SCHEMAS['posembed-heatmap'].attributes;
const RENDER_FLAGS = Object.keys(HEATMAP).filter((name) => !['encoding', 'axes', 'legend'].includes(name));
const helpLine = (flag, doc) => `${`  ${flag}`.padEnd(35)} ${doc}`;
const flagLine = (name) => {
  const spec = HEATMAP[name];
  const value = spec.type === 'flag' ? '' : spec.type === 'enum' ? ` ${spec.values.join('|')}` : spec.type === 'boolean' ? ' true|false' : ' N';
  return helpLine(`--${name}${value}`, `${spec.doc}${spec.default !== undefined && spec.type !== 'flag' ? ` [${spec.default}]` : ''}`);
};

const RENDER_HELP = `Usage: posembed render <encoding> [options] -o <file>

Renders an encoding as a heatmap (rows × columns, one cell per value), the same picture as the site's.
  encoding           ${ENCODINGS.join(' | ')}
  -o, --output FILE  .svg or .png (the framed figure: title, axes, colour bar, caption; in the SVG the cells are one
                     embedded image at their drawn size), .csv (values) or .npy (float32 values)

Options, as <posembed-heatmap>'s attributes (defaults in brackets):
${RENDER_FLAGS.map(flagLine).join('\n')}
${helpLine('--cell-size N', 'image pixels along a cell\'s side [4 for png and svg]')}
${helpLine('--font FAMILY', 'svg, png: the text\'s font family [a sans font of this system]')}
${helpLine('--font-size N', 'svg, png: px of the axis titles and caption [12, more for wide figures]')}
${helpLine('--bare', 'svg, png: the cells alone, without the frame')}
${helpLine('-h, --help', 'this text')}

Example: npx posembed render sinusoidal --length 128 --d-model 256 -o pe.svg`;

const ROPE_HELP = `Usage: posembed rope --config <config.json | preset> [options] -o <cache.safetensors | cache.npy>
       posembed check --config <config.json | preset> --cache <cache.safetensors | cache.npy> [options]
       posembed check --config <config.json | preset> --gguf <model.gguf> [options]

rope writes a model's RoPE cos/sin cache in HF's layout: tensors 'cos' and 'sin' [positions, rotary dim] in a
.safetensors file, or one .npy array [2, positions, rotary dim] (cos, then sin). check --cache compares a runtime's
dumped cache (the same layouts, or rotary dim / 2 columns: a half-width cache) with the model's and says whether it
is the exact maths, a float32 / float16 / bfloat16 computation of it (naming the runtime order it matches: HF,
TensorRT-LLM, llama.cpp, MLX), or a mismatch with the mistake that explains it. check --gguf compares a GGUF file's
rope fields (base, rotated dimensions, scaling type, factor and original context, llama3's rope_freqs, mRoPE
sections, the architecture's pairing) with the config's. Exit 0 when consistent, 1 when not. Keys of the config
its family does not read are named as warnings.
  --config C         a config.json file, or a preset name (${'${PRESETS}'})
  --as FAMILY        read the config as this HF family (a remote-code model: --as deepseek_v3 for kimi_k2)
  --layer N          which layer's positions [0; check --gguf: the first RoPE layer]
  --positions A:B    positions A to B - 1 [rope: 0:max_position_embeddings; check: one per row of the cache,
                     0:rows]; or a comma list (3,4,5)
  --precision P      rope: exact | float32 | bfloat16 | float16 [exact] (the model's own: a model that keeps its
                     cache in float32 is not cast)
  --cache FILE       check: the runtime's cache
  --gguf FILE        check: a GGUF file, read lazily (its header and the rope_freqs tensor)

Examples: npx posembed rope --config config.json --positions 0:131072 --precision float32 -o cache.safetensors
          npx posembed check --config config.json --cache runtime.safetensors
          npx posembed check --config config.json --gguf model-Q4_K_M.gguf`;

const OPTIONS = {
  ...Object.fromEntries(RENDER_FLAGS.map((name) => [name, { type: HEATMAP[name].type === 'flag' ? 'boolean' : 'string' }])),
  output: { type: 'string', short: 'o' }, 'cell-size': { type: 'string' }, bare: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
  font: { type: 'string' }, 'font-size': { type: 'string' },
  config: { type: 'string' }, layer: { type: 'string' }, positions: { type: 'string' }, precision: { type: 'string' }, cache: { type: 'string' },
  gguf: { type: 'string' }, as: { type: 'string' },
};

// A numeric flag: absent → undefined; present → a number, else a clear error.
function numeric(values, name) {
  if (values[name] === undefined) return undefined;
  const value = Number(values[name]);
  if (values[name].trim() === '' || !Number.isFinite(value)) throw new RangeError(`--${name} must be a number, got '${values[name]}'`);
  return value;
}

// The page behind the figure in each scheme (an element's is the page's own).
const BACKGROUND = { light: '#ffffff', dark: '#16191d' };

// The text size that reads at the figure's size: 12 px up to 720 px wide, growing with it.
const fontSizeFor = (plotWidth) => Math.max(12, Math.min(32, Math.round(plotWidth / 60)));

// A heatmap framed as the elements frame it (the same scene, scene.js), written as SVG: the cells one embedded PNG
// (cellsPng, base64) at `cell` px a cell, so no viewer has to scale them and they stay crisp in any renderer.
// figure: encodingFigure's ({ tensor, x, y, colour, caption }); theme: 'light' | 'dark'; fontSize: px of the axis
// titles (ticks a little smaller; by default growing with the figure).
function framedHeatmapSvg(figure, cellsPng, { cell, colormap, range, title, theme, font = 'system-ui, sans-serif', fontSize }) {
  const [rows, columns] = figure.tensor.shape;
  const size = fontSize ?? fontSizeFor(columns * cell);
  const scene = heatmapScene(rows, columns, {
    x: figure.x, y: figure.y, colour: figure.colour, colormap, map: colourMap(colormap, range), missing: figure.tensor.data.some((v) => !Number.isFinite(v)),
  }, { cell, fontSize: size });
  const scheme = theme === 'dark' ? 1 : 0;
  const shapes = sceneShapes({ ...scene, title, caption: figure.caption }, {
    colour: (css) => THEME_PROPERTIES[/^var\(--pe-theme-(.+)\)$/.exec(css)?.[1]]?.[scheme] ?? css,
    family: font, measure: estimatedWidth, cells: { href: `data:image/png;base64,${cellsPng}` },
    sizes: { title: Math.round(size * 1.15), legend: size, caption: size },
  });
  return shapesToSvg(shapes, BACKGROUND[theme]);
}

// The framed SVG as a PNG of the same size, drawn by @resvg/resvg-js (loaded only for a framed PNG) with the
// system's fonts: the font asked for where the system has it, else its sans font.
async function rasterised(svg, font) {
  const { Resvg } = (await import('@resvg/resvg-js')).default;
  const has = hasFamily(Resvg);
  if (font && !has(font)) console.error(`warning: --font: this system has no font '${font}'; the PNG uses its sans font`);
  const family = font && has(font) ? font : SANS_FAMILIES.find(has) ?? 'sans-serif';
  return new Resvg(svg.replaceAll(/font-family="[^"]*"/g, `font-family="${family}"`), { font: { loadSystemFonts: true } }).render().asPng();
}

// Sans families common on Linux, macOS and Windows, in the order taken.
const SANS_FAMILIES = ['DejaVu Sans', 'Liberation Sans', 'Noto Sans', 'Helvetica', 'Arial', 'Segoe UI'];

// Whether this system has a font family: resvg reads only the first family of a font-family list, and falls back
// to a serif font for one it lacks (system-ui, and sans-serif where Arial is missing). A family is measured against
// one no system has.
function hasFamily(Resvg) {
  const width = (family) => new Resvg(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text font-family="${family.replaceAll('"', '')}" font-size="20">Hamburg 0123</text></svg>`,
    { font: { loadSystemFonts: true }, logLevel: 'off' }).getBBox()?.width;
  const missing = width('posembed no such font');
  return (family) => width(family) !== missing;
}

// The cells as a PNG file: one pixel a cell, or cellSize × cellSize.
function png({ pixels, width, height }) {
  const image = new PNG({ width, height });
  image.data = Buffer.from(pixels.buffer);
  return PNG.sync.write(image);
}

function npy({ data, shape }) {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';  // the data starts 64-byte aligned
  const prefix = Buffer.alloc(10);
  prefix.write('\x93NUMPY', 0, 'latin1');
  prefix.writeUInt8(1, 6);
  prefix.writeUInt16LE(header.length, 8);
  return Buffer.concat([prefix, Buffer.from(header, 'latin1'), Buffer.from(new Float32Array(data).buffer)]);
}

function csv({ data, shape: [rows, columns] }) {
  const lines = [];
  for (let r = 0; r < rows; r++) lines.push(Array.from(data.subarray(r * columns, (r + 1) * columns), (v) => (Number.isNaN(v) ? '-inf' : String(v))).join(','));
  return `${lines.join('\n')}\n`;
}

// --config: a preset name, or a config.json file (parsed).
function configOf(pe, values) {
  if (!values.config) throw new TypeError('--config is required: a config.json file or a preset name');
  if (values.config in pe.modelPresets) return values.config;
  let text;
  try {
    text = readFileSync(values.config, 'utf8');
  } catch (error) {
    throw new Error(`--config: cannot read '${values.config}' (${error.code ?? error.message}); presets: ${Object.keys(pe.modelPresets).join(', ')}`);
  }
  let config;
  try {
    config = JSON.parse(text);
  } catch (error) {
    throw new SyntaxError(`--config: '${values.config}' is not JSON: ${error.message}`);
  }
  return config;
}

const asOption = (values) => (values.as === undefined ? {} : { as: values.as });

function modelOf(pe, values) {
  const model = pe.modelPositions(configOf(pe, values), asOption(values));
  for (const warning of model.warnings) console.error(`warning: ${warning}`);
  return model;
}

// --positions a:b (b exclusive) or a comma list; by default `whole` (a:b).
function positionsOf(values, whole) {
  const spec = values.positions ?? whole;
  const range = spec.match(/^(\d+):(\d+)$/);
  if (range) {
    const [from, to] = [Number(range[1]), Number(range[2])];
    if (!(to > from) || to > 2 ** 31) throw new RangeError(`--positions a:b needs 0 <= a < b <= 2147483648, got '${spec}'`);
    return Int32Array.from({ length: to - from }, (_, i) => from + i);
  }
  if (!/^\d+(,\d+)*$/.test(spec)) throw new RangeError(`--positions must be a:b (b exclusive) or a comma list of whole numbers, got '${spec}'`);
  return Int32Array.from(spec.split(','), Number);
}

function ropeLayer(values, model) {
  const index = numeric(values, 'layer') ?? 0;
  const layer = model.layer(index);
  if (layer.kind !== 'rope') throw new RangeError(`--layer ${index} of this ${model.modelType} model uses ${layer.kind === 'none' ? 'no positions (NoPE)' : `${layer.kind} positions`}, not RoPE`);
  return layer.rope;
}

function readCache(pe, file) {
  const bytes = readFileSync(file);
  if (extname(file).toLowerCase() === '.npy') {
    const stacked = pe.readNpy(bytes);
    if (stacked.shape.length < 2 || stacked.shape[0] !== 2) throw new RangeError(`--cache ${file}: a .npy cache holds [2, positions, rotary dim] (cos, then sin), got [${stacked.shape}]`);
    const half = stacked.data.length / 2;
    const shape = stacked.shape.slice(1);
    return { cos: { data: stacked.data.subarray(0, half), shape }, sin: { data: stacked.data.subarray(half), shape: [...shape] } };
  }
  const tensors = pe.readSafetensors(bytes);
  for (const name of ['cos', 'sin']) {
    if (!tensors[name]) throw new RangeError(`--cache ${file} has no tensor '${name}' (it holds ${Object.keys(tensors).join(', ') || 'none'})`);
  }
  return { cos: tensors.cos, sin: tensors.sin };
}

async function ggufCommand(pe, values) {
  if (values.cache) throw new TypeError('check takes --cache or --gguf, not both');
  const layer = numeric(values, 'layer');
  const handle = await open(values.gguf, 'r').catch((error) => {
    throw new Error(`--gguf: cannot read '${values.gguf}' (${error.code ?? error.message})`);
  });
  try {
    const model = modelOf(pe, values);
    const result = await pe.checkGguf(handle, configOf(pe, values), { ...asOption(values), ...(layer === undefined ? {} : { layer }) });
    console.log(`${values.gguf}: llama.cpp architecture '${result.architecture}'${result.ropeType ? ` (${result.ropeType} rope)` : ''}, against ${model.modelType}'s layer ${result.layer}`);
    for (const field of result.fields) console.log(`  ${field.agrees ? 'ok  ' : 'DIFF'} ${field.key}: ${describeValue(field.gguf)}${field.agrees ? '' : ` — ${field.explanation}`}`);
    console.log(result.verdict === 'consistent' ? 'consistent' : `mismatch: ${result.mismatches.map((f) => f.key).join(', ')}`);
    return result.verdict === 'consistent' ? 0 : 1;
  } finally {
    await handle.close();
  }
}

const describeValue = (value) => (value === null ? 'absent' : Array.isArray(value) ? `[${value}]` : String(value));

async function ropeCommand(command, values) {
  const pe = await load();
  if (command === 'check' && values.gguf !== undefined) return ggufCommand(pe, values);
  const model = modelOf(pe, values);
  const spec = ropeLayer(values, model);
  if (command === 'rope') {
    const positions = positionsOf(values, `0:${model.maxPositions}`);
    const output = values.output;
    const format = output ? extname(output).slice(1).toLowerCase() : '';
    if (!['safetensors', 'npy'].includes(format)) throw new TypeError('-o must name a .safetensors or .npy file');
    const { cos, sin, precision } = pe.ropeCache(spec, { positions, precision: values.precision ?? 'exact' });
    if (format === 'npy') {
      const both = new Float32Array(cos.data.length * 2);
      both.set(cos.data);
      both.set(sin.data, cos.data.length);
      writeFileSync(output, writeNpy({ data: both, shape: [2, ...cos.shape] }));
    } else {
      writeFileSync(output, writeSafetensors({ cos, sin }, { model_type: model.modelType, precision, positions: values.positions ?? `0:${model.maxPositions}` }));
    }
    const asked = values.precision && values.precision !== precision ? ` (the model keeps its cache in float32: not cast to ${values.precision})` : '';
    console.log(`${output}: cos and sin [${cos.shape}] of ${model.modelType}'s layer ${numeric(values, 'layer') ?? 0} (${spec.scaling.type} RoPE, base ${spec.base}, ${spec.layout} layout), ${precision}${asked}`);
    return 0;
  }
  if (!values.cache) throw new TypeError('check needs --cache (the runtime\'s cos/sin cache: .safetensors with tensors cos and sin, or .npy [2, positions, rotary dim]) or --gguf (a GGUF file)');
  const cache = readCache(pe, values.cache);
  const rows = cache.cos.shape.length >= 2 ? cache.cos.shape[0] : 0;
  const result = pe.checkRopeCache(spec, { ...cache, positions: positionsOf(values, `0:${rows}`) });
  const where = result.at ? ` (largest difference ${result.maxAbs.toExponential(2)} at position ${result.at.position}, column ${result.at.column})` : '';
  if (result.verdict === 'mismatch') {
    console.log(`mismatch${where}\nsuspect: ${result.suspect}\n${result.explanation}`);
    return 1;
  }
  console.log(`consistent: ${result.verdict}${where}\n${result.explanation}`);
  return 0;
}

// A flag's value that starts with '-' (a negative number: --offset -5) is joined to its flag (--offset=-5), which is
// how parseArgs takes it.
function joinNegativeValues(argv) {
  const joined = [];
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].startsWith('--') ? argv[i].slice(2) : null;
    if (name && OPTIONS[name]?.type === 'string' && /^-\d|^-\.\d|^-Infinity$/.test(argv[i + 1] ?? '')) joined.push(`${argv[i]}=${argv[++i]}`);
    else joined.push(argv[i]);
  }
  return joined;
}

export async function main(argv) {
  const { values, positionals } = parseArgs({ args: joinNegativeValues(argv), options: OPTIONS, allowPositionals: true });
  const [command, encoding] = positionals;
  if (values.help || positionals.length === 0) {
    const rope = ROPE_HELP.replace('${PRESETS}', Object.keys(MODEL_PRESETS).join(', '));
    console.log(command === 'render' ? RENDER_HELP : command === 'rope' || command === 'check' ? rope : `${RENDER_HELP}\n\n${rope}`);
    return 0;
  }
  if (command === 'rope' || command === 'check') {
    if (positionals.length > 1) throw new TypeError(`posembed ${command} takes options only, got '${positionals.slice(1).join(' ')}'`);
    return ropeCommand(command, values);
  }
  if (command !== 'render' || !encoding) throw new TypeError(`expected: posembed render <encoding> | rope | check ... (see --help), got '${positionals.join(' ')}'`);
  const output = values.output;
  const format = output ? extname(output).slice(1).toLowerCase() : '';
  if (!['png', 'svg', 'csv', 'npy'].includes(format)) throw new TypeError('-o must name a .png, .svg, .csv or .npy file');
  const read = readValues('posembed-heatmap', (name) => (name === 'encoding' ? encoding : values[name] ?? null),
    { written: (name) => (name === 'encoding' ? 'encoding' : `--${name}`), budget: false });
  if (read.problems.length) throw new RangeError(read.problems.join('; '));
  const pe = await load();
  const figure = await encodingFigure(pe, encoding, encodingOptions(read.values, (name) => values[name] !== undefined));
  const cellSize = numeric(values, 'cell-size') ?? 4;
  if (!Number.isInteger(cellSize) || cellSize < 1 || cellSize > 64) throw new RangeError(`--cell-size must be an integer in [1, 64], got ${cellSize}`);
  const colours = { colormap: read.values.colormap ?? figure.colormap, range: figure.range ?? valueRange(figure.tensor.data) };
  const [rows, columns] = figure.tensor.shape;
  const fontSize = numeric(values, 'font-size');
  if (fontSize !== undefined && !(fontSize >= 6 && fontSize <= 96)) throw new RangeError(`--font-size must be a number in [6, 96], got ${fontSize}`);
  const { title, caption, theme } = read.values;
  const framed = {
    ...figure, caption: caption ?? figure.caption,
    x: { ...figure.x, label: read.values['x-label'] ?? figure.x.label }, y: { ...figure.y, label: read.values['y-label'] ?? figure.y.label },
  };
  if (format === 'png' && values.bare) {
    writeFileSync(output, png(heatmapPixels(figure.tensor, { ...colours, cellSize })));
  } else if (format === 'png' || format === 'svg') {
    // The cells one embedded image at their drawn size (cellSize × cellSize pixels a cell: crisp in any renderer),
    // framed unless --bare.
    const cells = png(heatmapPixels(figure.tensor, { ...colours, cellSize })).toString('base64');
    const svg = values.bare
      ? `<svg xmlns="http://www.w3.org/2000/svg" width="${columns * cellSize}" height="${rows * cellSize}"><image width="${columns * cellSize}" height="${rows * cellSize}" preserveAspectRatio="none" style="image-rendering:pixelated" href="data:image/png;base64,${cells}"/></svg>\n`
      : framedHeatmapSvg(framed, cells, { cell: cellSize, ...colours, title: title ?? '', theme: theme === 'dark' ? 'dark' : 'light', font: values.font, fontSize });
    writeFileSync(output, format === 'svg' ? svg : await rasterised(svg, values.font));
  } else if (format === 'csv') {
    writeFileSync(output, csv(figure.tensor));
  } else {
    writeFileSync(output, npy(figure.tensor));
  }
  console.log(`${output}: ${framed.caption}`);
  return 0;
}

main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (error) => {
  console.error(`posembed: ${error.message}`);
  process.exitCode = 1;
});
