#!/usr/bin/env node
// posembed render <encoding> [options] -o figure.png|.svg|.csv|.npy: the site's heatmaps as static figures.
import { writeFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parseArgs } from 'node:util';
import { PNG } from './vendor/png.js';
import { load } from './index.js';
import { ENCODINGS, encodingFigure } from './figures.js';
import { heatmapPixels, valueRange } from './colormap.js';

const HELP = `Usage: posembed render <encoding> [options] -o <file>

Renders an encoding as a heatmap (rows × columns, one cell per value), the same picture as the site's.
  encoding           ${ENCODINGS.join(' | ')}
  -o, --output FILE  .png (image), .svg (vector), .csv (values) or .npy (float32 values)

Options (defaults in brackets):
  --length N         positions (rows), or queries and keys for similarity, alibi and t5 [64]
  --d-model N        columns: sinusoidal and similarity [128], learned, rope and sincos2d [64]
  --base B           [10000]
  --layout L         sinusoidal: interleaved | split [interleaved]
  --timescale T      sinusoidal: standard | t2t [standard]
  --offset N         sinusoidal: first position [0]
  --seed N           learned: the random (untrained) table's seed [0]
  --new-length N     learned: stretch the table to N rows by linear interpolation
  --scaling S        rope: linear | dynamic (with --factor F) [none]
  --metric M         similarity: cosine | dot [cosine]
  --heads N          alibi: heads [8]          --head N     alibi: which head [0]
  --causal           alibi: mask the future
  --buckets N        t5: buckets [32]          --max-distance N  t5 [128]
  --unidirectional   t5: one-directional buckets
  --grid-h N, --grid-w N   sincos2d: the patch grid [8 x 8]
  --colormap NAME    RdBu | viridis [RdBu for encodings in [-1, 1], else viridis]
  --scale N          image pixels per cell [4 for png and svg]
  -h, --help         this text

Example: npx posembed render sinusoidal --length 128 --d-model 256 -o pe.png`;

const OPTIONS = {
  output: { type: 'string', short: 'o' }, length: { type: 'string' }, 'd-model': { type: 'string' }, base: { type: 'string' },
  layout: { type: 'string' }, timescale: { type: 'string' }, offset: { type: 'string' }, heads: { type: 'string' }, head: { type: 'string' },
  causal: { type: 'boolean' }, buckets: { type: 'string' }, 'max-distance': { type: 'string' }, unidirectional: { type: 'boolean' },
  'grid-h': { type: 'string' }, 'grid-w': { type: 'string' }, seed: { type: 'string' }, 'new-length': { type: 'string' },
  scaling: { type: 'string' }, factor: { type: 'string' }, metric: { type: 'string' }, colormap: { type: 'string' }, scale: { type: 'string' }, help: { type: 'boolean', short: 'h' },
};

// A numeric flag: absent → undefined; present → a number, else a clear error.
function numeric(values, name) {
  if (values[name] === undefined) return undefined;
  const value = Number(values[name]);
  if (values[name].trim() === '' || !Number.isFinite(value)) throw new RangeError(`--${name} must be a number, got '${values[name]}'`);
  return value;
}

function svg({ pixels, width, height }, scale) {
  const cells = [];
  for (let y = 0; y < height; y += scale) {
    for (let x = 0; x < width; x += scale) {
      const p = 4 * (y * width + x);
      cells.push(`<rect x="${x}" y="${y}" width="${scale}" height="${scale}" fill="rgb(${pixels[p]},${pixels[p + 1]},${pixels[p + 2]})"/>`);
    }
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" shape-rendering="crispEdges">\n${cells.join('\n')}\n</svg>\n`;
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

export async function main(argv) {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  if (values.help || positionals.length === 0) {
    console.log(HELP);
    return 0;
  }
  const [command, encoding] = positionals;
  if (command !== 'render' || !encoding) throw new TypeError(`expected: posembed render <encoding> ... (see --help), got '${positionals.join(' ')}'`);
  const output = values.output;
  const format = output ? extname(output).slice(1).toLowerCase() : '';
  if (!['png', 'svg', 'csv', 'npy'].includes(format)) throw new TypeError('-o must name a .png, .svg, .csv or .npy file');
  const pe = await load();
  const figure = await encodingFigure(pe, encoding, {
    length: numeric(values, 'length'), dModel: numeric(values, 'd-model'), base: numeric(values, 'base'), layout: values.layout, timescale: values.timescale,
    offset: numeric(values, 'offset'), heads: numeric(values, 'heads'), head: numeric(values, 'head'), causal: values.causal ?? false,
    buckets: numeric(values, 'buckets'), maxDistance: numeric(values, 'max-distance'), bidirectional: !values.unidirectional,
    gridH: numeric(values, 'grid-h'), gridW: numeric(values, 'grid-w'), seed: numeric(values, 'seed'), newLength: numeric(values, 'new-length'),
    scaling: values.scaling, factor: numeric(values, 'factor'), metric: values.metric,
  });
  const scale = numeric(values, 'scale') ?? 4;
  if (!Number.isInteger(scale) || scale < 1 || scale > 64) throw new RangeError(`--scale must be an integer in [1, 64], got ${scale}`);
  const picture = () => heatmapPixels(figure.tensor, {
    colormap: values.colormap ?? figure.colormap, range: figure.range ?? valueRange(figure.tensor.data.filter(Number.isFinite)), scale,
  });
  if (format === 'png') {
    const { pixels, width, height } = picture();
    const png = new PNG({ width, height });
    png.data = Buffer.from(pixels.buffer);
    writeFileSync(output, PNG.sync.write(png));
  } else if (format === 'svg') {
    writeFileSync(output, svg(picture(), scale));
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
