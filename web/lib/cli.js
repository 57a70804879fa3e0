#!/usr/bin/env node
// posembed render <encoding> [options] -o figure.png|.svg|.csv|.npy: the site's heatmaps as static figures.
// posembed rope --config FILE|PRESET ... -o cache.safetensors|.npy: a model's cos/sin cache.
// posembed check --config FILE|PRESET --cache FILE: a runtime's dumped cache against the model's (exit 0 consistent, 1 not).
import { readFileSync, writeFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parseArgs } from 'node:util';
import { PNG } from './vendor/png.js';
import { load, writeNpy, writeSafetensors } from './index.js';
import { MODEL_PRESETS } from './model_presets.js';
import { ENCODINGS, encodingFigure, encodingOptions } from './figures.js';
import { ELEMENT_SCHEMAS, readValues } from './components/attributes.js';
import { heatmapPixels, valueRange } from './colormap.js';
import { framedHeatmapSvg } from './frame_svg.js';

// The render command's flags are the heatmap element's attributes (its schema: names, ranges, defaults, documentation),
// the figure's frame aside: the same spelling and the same checks as in a page.
const HEATMAP = ELEMENT_SCHEMAS['posembed-heatmap'].attributes;
const RENDER_FLAGS = Object.keys(HEATMAP).filter((name) => !['encoding', 'caption', 'axes', 'legend'].includes(name));
const helpLine = (flag, doc) => `${`  ${flag}`.padEnd(35)} ${doc}`;
const flagLine = (name) => {
  const spec = HEATMAP[name];
  const value = spec.type === 'flag' ? '' : spec.type === 'enum' ? ` ${spec.values.join('|')}` : spec.type === 'boolean' ? ' true|false' : ' N';
  return helpLine(`--${name}${value}`, `${spec.doc}${spec.default !== undefined && spec.type !== 'flag' ? ` [${spec.default}]` : ''}`);
};

const HELP = `Usage: posembed render <encoding> [options] -o <file>

Renders an encoding as a heatmap (rows × columns, one cell per value), the same picture as the site's.
  encoding           ${ENCODINGS.join(' | ')}
  -o, --output FILE  .svg or .png (the framed figure: axes, colour bar, caption; in the SVG the cells are one
                     embedded image; the PNG is drawn by @resvg/resvg-js), .csv (values) or .npy (float32 values)

Options, as <posembed-heatmap>'s attributes (defaults in brackets):
${RENDER_FLAGS.map(flagLine).join('\n')}
${helpLine('--scale N', 'image pixels per cell [4 for png and svg]')}
${helpLine('--bare', 'svg, png: the cells alone, without the frame')}
${helpLine('-h, --help', 'this text')}

Example: npx posembed render sinusoidal --length 128 --d-model 256 -o pe.svg

Usage: posembed rope --config <config.json | preset> [options] -o <cache.safetensors | cache.npy>
       posembed check --config <config.json | preset> --cache <cache.safetensors | cache.npy> [options]

rope writes a model's RoPE cos/sin cache in HF's layout: tensors 'cos' and 'sin' [positions, rotary dim] in a
.safetensors file, or one .npy array [2, positions, rotary dim] (cos, then sin). check compares a runtime's dumped
cache (the same layouts) with the model's and says whether it is the exact maths, a float32 / float16 / bfloat16
computation of it, or a mismatch with the mistake that explains it; exit 0 when consistent, 1 when not.
  --config C         a config.json file, or a preset name (${'${PRESETS}'})
  --layer N          which layer's positions [0]
  --positions A:B    positions A to B - 1 [0:max_position_embeddings]; or a comma list (3,4,5)
  --precision P      rope: exact | float32 | bfloat16 | float16 [exact]
  --cache FILE       check: the runtime's cache

Examples: npx posembed rope --config config.json --positions 0:131072 --precision float32 -o cache.safetensors
          npx posembed check --config config.json --cache runtime.safetensors`;

const OPTIONS = {
  ...Object.fromEntries(RENDER_FLAGS.map((name) => [name, { type: HEATMAP[name].type === 'flag' ? 'boolean' : 'string' }])),
  output: { type: 'string', short: 'o' }, scale: { type: 'string' }, bare: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
  config: { type: 'string' }, layer: { type: 'string' }, positions: { type: 'string' }, precision: { type: 'string' }, cache: { type: 'string' },
};

// A numeric flag: absent → undefined; present → a number, else a clear error.
function numeric(values, name) {
  if (values[name] === undefined) return undefined;
  const value = Number(values[name]);
  if (values[name].trim() === '' || !Number.isFinite(value)) throw new RangeError(`--${name} must be a number, got '${values[name]}'`);
  return value;
}

// The framed SVG as a PNG of the same size, drawn by @resvg/resvg-js (an optional peer dependency: a text
// renderer is more than the package should carry), with the system's fonts.
async function rasterised(svg) {
  const renderer = '@resvg/resvg-js';  // not a literal: an optional dependency, resolved where the user installed it
  let Resvg;
  try {
    ({ Resvg } = (await import(/* @vite-ignore */ renderer)).default);
  } catch (error) {
    if (error.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new Error('a framed .png is drawn by @resvg/resvg-js, which is not installed here: npm install @resvg/resvg-js; or write .svg, or add --bare for the cells alone');
  }
  const family = sansFamily(Resvg) ?? 'sans-serif';
  return new Resvg(svg.replaceAll('font-family="system-ui, sans-serif"', `font-family="${family}"`), { font: { loadSystemFonts: true }, background: '#ffffff' })
    .render().asPng();
}

// Sans families common on Linux, macOS and Windows, in the order taken.
const SANS_FAMILIES = ['DejaVu Sans', 'Liberation Sans', 'Noto Sans', 'Helvetica', 'Arial', 'Segoe UI'];

// The first of SANS_FAMILIES this system has: resvg reads only the first family of a font-family list, and falls
// back to a serif font for one it lacks (system-ui, and sans-serif where Arial is missing). Each candidate is
// measured against a family no system has.
function sansFamily(Resvg) {
  const width = (family) => new Resvg(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text font-family="${family}" font-size="20">Hamburg 0123</text></svg>`,
    { font: { loadSystemFonts: true }, logLevel: 'off' }).getBBox()?.width;
  const missing = width('posembed no such font');
  return SANS_FAMILIES.find((family) => width(family) !== missing);
}

// The cells as a PNG file: one pixel a cell, or scale × scale.
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

// --config: a preset name, or a config.json file.
function modelOf(pe, values) {
  if (!values.config) throw new TypeError('--config is required: a config.json file or a preset name');
  if (values.config in pe.modelPresets) return pe.modelPositions(values.config);
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
  return pe.modelPositions(config);
}

// --positions a:b (b exclusive) or a comma list; by default the model's whole context.
function positionsOf(values, model) {
  const spec = values.positions ?? `0:${model.maxPositions}`;
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

async function ropeCommand(command, values) {
  const pe = await load();
  const model = modelOf(pe, values);
  const spec = ropeLayer(values, model);
  const positions = positionsOf(values, model);
  if (command === 'rope') {
    const output = values.output;
    const format = output ? extname(output).slice(1).toLowerCase() : '';
    if (!['safetensors', 'npy'].includes(format)) throw new TypeError('-o must name a .safetensors or .npy file');
    const precision = values.precision ?? 'exact';
    const { cos, sin } = pe.ropeCache(spec, { positions, precision });
    if (format === 'npy') {
      const both = new Float32Array(cos.data.length * 2);
      both.set(cos.data);
      both.set(sin.data, cos.data.length);
      writeFileSync(output, writeNpy({ data: both, shape: [2, ...cos.shape] }));
    } else {
      writeFileSync(output, writeSafetensors({ cos, sin }, { model_type: model.modelType, precision, positions: values.positions ?? `0:${model.maxPositions}` }));
    }
    console.log(`${output}: cos and sin [${cos.shape}] of ${model.modelType}'s layer ${numeric(values, 'layer') ?? 0} (${spec.scaling.type} RoPE, base ${spec.base}, ${spec.layout} layout), ${precision}`);
    return 0;
  }
  if (!values.cache) throw new TypeError('--cache is required: the runtime\'s cos/sin cache (.safetensors with tensors cos and sin, or .npy [2, positions, rotary dim])');
  const result = pe.checkRopeCache(spec, { ...readCache(pe, values.cache), positions });
  const where = result.at ? ` (largest difference ${result.maxAbs.toExponential(2)} at position ${result.at.position}, column ${result.at.column})` : '';
  if (result.verdict === 'mismatch') {
    console.log(`mismatch${where}\nsuspect: ${result.suspect}\n${result.explanation}`);
    return 1;
  }
  console.log(`consistent: ${result.verdict}${where}\n${result.explanation}`);
  return 0;
}

export async function main(argv) {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  if (values.help || positionals.length === 0) {
    console.log(HELP.replace('${PRESETS}', Object.keys(MODEL_PRESETS).join(', ')));
    return 0;
  }
  const [command, encoding] = positionals;
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
  const scale = numeric(values, 'scale') ?? 4;
  if (!Number.isInteger(scale) || scale < 1 || scale > 64) throw new RangeError(`--scale must be an integer in [1, 64], got ${scale}`);
  const colours = { colormap: read.values.colormap ?? figure.colormap, range: figure.range ?? valueRange(figure.tensor.data) };
  const [rows, columns] = figure.tensor.shape;
  if (format === 'png' && values.bare) {
    writeFileSync(output, png(heatmapPixels(figure.tensor, { ...colours, scale })));
  } else if (format === 'png' || format === 'svg') {
    // The cells one embedded image (one pixel a cell, drawn crisp at scale), framed unless --bare.
    const cells = png(heatmapPixels(figure.tensor, colours)).toString('base64');
    const svg = values.bare
      ? `<svg xmlns="http://www.w3.org/2000/svg" width="${columns * scale}" height="${rows * scale}"><image width="${columns * scale}" height="${rows * scale}" preserveAspectRatio="none" style="image-rendering:pixelated" href="data:image/png;base64,${cells}"/></svg>\n`
      : framedHeatmapSvg(figure, cells, { cell: scale, ...colours });
    writeFileSync(output, format === 'svg' ? svg : await rasterised(svg));
  } else if (format === 'csv') {
    writeFileSync(output, csv(figure.tensor));
  } else {
    writeFileSync(output, npy(figure.tensor));
  }
  console.log(`${output}: ${figure.caption}`);
  return 0;
}

main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (error) => {
  console.error(`posembed: ${error.message}`);
  process.exitCode = 1;
});
