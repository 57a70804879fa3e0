// The command line: posembed render <encoding> -o figure.png|.svg|.csv|.npy; posembed rope and check.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pngjs from 'pngjs';
import { load, writeSafetensors } from '../../dist/index.js';
import { heatmapPixels } from '../../dist/colormap.js';
import { tempFolder } from '../temp_folders.mjs';

const CLI = new URL('../../dist/cli.js', import.meta.url).pathname;
// Run in a scratch folder: a relative -o never writes into the repository.
const workDir = tempFolder('cli-run');
const run = (...args) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: workDir });

describe('posembed render (command line)', () => {
  let pe;
  let dir;
  before(async () => {
    pe = await load();
    dir = tempFolder('cli');
  });

  it('--help prints the usage', () => {
    const { status, stdout } = run('--help');
    assert.equal(status, 0);
    assert.match(stdout, /^Usage: posembed render <encoding> \[options\] -o <file>/);
    assert.match(stdout, /sinusoidal \| learned \| rope \| similarity \| alibi \| t5 \| sincos2d/);
    assert.match(stdout, /Usage: posembed rope --config/);
    // Each command's --help is its own.
    const rope = run('rope', '--help');
    assert.match(rope.stdout, /^Usage: posembed rope --config <config\.json \| preset>/);
    assert.doesNotMatch(rope.stdout, /posembed render/);
    assert.match(run('check', '--help').stdout, /--gguf FILE {8}check: a GGUF file/);
    assert.doesNotMatch(run('render', '--help').stdout, /posembed rope/);
  });

  it('writes a framed PNG (axes, colour bar and caption drawn as the SVG has them); --bare: the heatmap of the package values, scaled', () => {
    const framedFile = join(dir, 'framed.png');
    assert.equal(run('render', 'sinusoidal', '--length', '16', '--d-model', '32', '--cell-size', '3', '-o', framedFile).status, 0);
    assert.equal(run('render', 'sinusoidal', '--length', '16', '--d-model', '32', '--cell-size', '3', '-o', join(dir, 'framed.svg')).status, 0);
    const framed = pngjs.PNG.sync.read(readFileSync(framedFile));
    const [, width, height] = readFileSync(join(dir, 'framed.svg'), 'utf8').match(/^<svg [^>]*width="(\d+)" height="(\d+)"/).map(Number);
    assert.deepEqual([framed.width, framed.height], [width, height]);
    // Ink below the cells (tick labels, the axis title, the caption's text) and left of them (the position labels).
    const inked = (x0, x1, y0, y1) => {
      let dark = 0;
      for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) if (framed.data[4 * (y * framed.width + x)] < 128) dark++;
      return dark;
    };
    const [left, top, cellsWidth, cellsHeight] = [58, 10, 32 * 3, 16 * 3];
    assert.ok(inked(left, left + cellsWidth, top + cellsHeight + 8, top + cellsHeight + 42) > 40, 'the x axis has no labels');
    assert.ok(inked(0, left - 8, top, top + cellsHeight) > 40, 'the y axis has no labels');
    assert.ok(inked(0, framed.width, framed.height - 40, framed.height) > 100, 'the caption has no text');
    const file = join(dir, 'pe.png');
    const { status, stdout } = run('render', 'sinusoidal', '--length', '16', '--d-model', '32', '--offset', '5', '--cell-size', '3', '--bare', '-o', file);
    assert.equal(status, 0, stdout);
    const png = pngjs.PNG.sync.read(readFileSync(file));
    assert.deepEqual([png.width, png.height], [96, 48]);
    const expected = heatmapPixels(pe.sinusoidal({ length: 16, dModel: 32, offset: 5 }), { colormap: 'RdBu', range: { min: -1, max: 1 }, cellSize: 3 });
    assert.deepEqual(new Uint8Array(png.data), new Uint8Array(expected.pixels.buffer));
  });

  it('writes .npy (read back by the package), .csv and .svg', () => {
    const npy = join(dir, 'alibi.npy');
    assert.equal(run('render', 'alibi', '--heads', '4', '--head', '1', '--length', '8', '-o', npy).status, 0);
    const bias = pe.alibiBias({ numHeads: 4, keyLength: 8 });
    assert.deepEqual(pe.readNpy(readFileSync(npy)), { data: bias.data.slice(64, 128), shape: [8, 8] });
    const csv = join(dir, 't5.csv');
    assert.equal(run('render', 't5', '--length', '5', '--buckets', '8', '--max-distance', '16', '-o', csv).status, 0);
    const rows = readFileSync(csv, 'utf8').trim().split('\n').map((line) => line.split(',').map(Number));
    assert.deepEqual(rows.flat(), Array.from(pe.t5Buckets({ queryLength: 5, keyLength: 5, numBuckets: 8, maxDistance: 16 }).data));
    // SVG: framed by default (axes, ticks, colour bar in words, caption), the cells one embedded image; --bare: the cells alone.
    const svg = join(dir, 'grid.svg');
    assert.equal(run('render', 'sincos2d', '--grid-h', '2', '--grid-w', '3', '--d-model', '8', '--cell-size', '2', '-o', svg).status, 0);
    const framed = readFileSync(svg, 'utf8');
    assert.equal(framed.match(/<image /g).length, 1);
    for (const text of ['>dimension<', '>patch (row-major)<', 'red = negative, white = 0, blue = positive', '2-D sin-cos positions']) {
      assert.ok(framed.includes(text), `the framed SVG lacks ${text}`);
    }
    assert.equal(run('render', 'sincos2d', '--grid-h', '2', '--grid-w', '3', '--d-model', '8', '--cell-size', '2', '--bare', '-o', svg).status, 0);
    const bare = readFileSync(svg, 'utf8');
    assert.match(bare, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="16" height="12"><image width="16" height="12" /);
    const cells = pngjs.PNG.sync.read(Buffer.from(bare.match(/base64,([^"]+)"/)[1], 'base64'));
    assert.deepEqual([cells.width, cells.height], [16, 12]);  // each cell 2 × 2 pixels: drawn at cell size 2, scaled by no viewer
    const large = join(dir, 'large.svg');
    assert.equal(run('render', 'sinusoidal', '--length', '256', '--d-model', '128', '-o', large).status, 0);
    assert.ok(readFileSync(large).length < 200000, 'a 32,768-cell figure is kilobytes, not megabytes');
  });

  it('writes the learned (stretched), rope and similarity tables the package computes', () => {
    const file = (name) => join(dir, `${name}.npy`);
    assert.equal(run('render', 'learned', '--length', '6', '--d-model', '4', '--seed', '3', '--new-length', '11', '-o', file('learned')).status, 0);
    const table = pe.learnedPositions({ maxLength: 6, dModel: 4, init: { type: 'normal', std: 1, seed: 3 } });
    assert.deepEqual(pe.readNpy(readFileSync(file('learned'))), pe.interpolatePositions(table.weights, 11));
    table.dispose();
    assert.equal(run('render', 'rope', '--length', '5', '--d-model', '8', '--scaling', 'linear', '--factor', '4', '-o', file('rope')).status, 0);
    const ones = { data: new Float32Array(40).fill(1), shape: [5, 8] };
    assert.deepEqual(pe.readNpy(readFileSync(file('rope'))), pe.applyRope(ones, { scaling: { type: 'linear', factor: 4 } }));
    // Every parameter of the drawn rules is a flag (the core's table), the trained length the figure's unless given.
    const longer = { data: new Float32Array(48 * 16).fill(1), shape: [48, 16] };
    assert.equal(run('render', 'rope', '--length', '48', '--d-model', '16', '--scaling', 'dynamic', '--factor', '4', '--original-max-positions', '12', '-o', file('dynamic')).status, 0);
    assert.deepEqual(pe.readNpy(readFileSync(file('dynamic'))), pe.applyRope(longer, { scaling: { type: 'dynamic', factor: 4, originalMaxPositions: 12 } }));
    assert.equal(run('render', 'rope', '--length', '48', '--d-model', '16', '--scaling', 'yarn', '--factor', '8', '--original-max-positions', '16', '--beta-fast', '8',
      '--truncate', 'false', '-o', file('yarn')).status, 0);
    assert.deepEqual(pe.readNpy(readFileSync(file('yarn'))), pe.applyRope(longer, { scaling: { type: 'yarn', factor: 8, originalMaxPositions: 16, betaFast: 8, truncate: false } }));
    assert.equal(run('render', 'similarity', '--length', '7', '--d-model', '16', '--metric', 'dot', '-o', file('similarity')).status, 0);
    assert.deepEqual(pe.readNpy(readFileSync(file('similarity'))), pe.similarity(pe.sinusoidal({ length: 7, dModel: 16 }), null, { metric: 'dot' }));
  });

  it('reports bad arguments with a message and exit code 1, every problem at once, flags spelled as written', () => {
    for (const [args, message] of [
      [['render', 'ropes', '-o', 'x.png'], 'encoding must be one of "sinusoidal", "learned", "rope", "similarity", "alibi", "t5", "sincos2d", got "ropes"'],
      [['render', 'learned', '--new-length', '1', '-o', 'x.png'], '--new-length must be an integer in [2, 8192], got "1"'],
      [['render', 'sinusoidal', '--length', 'abc', '-o', 'x.png'], '--length must be an integer in [1, 8192], got "abc"'],
      [['render', 'sinusoidal', '--d-model', '7', '--timescale', 'log', '-o', 'x.png'], '--d-model must be an even integer in [2, 4096], got "7"; --timescale must be one of "standard", "t2t", got "log"'],
      [['render', 'sinusoidal', '-o', 'x.gif'], '-o must name a .png, .svg, .csv or .npy file'],
      [['render', 'alibi', '--head', '9', '-o', 'x.png'], 'head must be below heads (8), got "9"'],
      [['render', 't5', '--bidirectional', 'no', '-o', 'x.png'], '--bidirectional must be "true" or "false", got "no"'],
      [['render', 'rope', '--original-max-positions', '0', '--beta-slow', '0', '-o', 'x.png'],
        '--original-max-positions must be an integer in [1, 2147483647], got "0"; --beta-slow must be a number in (0, 1000000], got "0"'],
    ]) {
      const { status, stderr } = run(...args);
      assert.equal(status, 1, args.join(' '));
      assert.equal(stderr.trim(), `posembed: ${message}`);
    }
  });

  it('runs through npx from the installed package', async () => {
    const { packAndInstall } = await import('../pack.mjs');
    const { project } = packAndInstall();
    const out = execFileSync('npx', ['--no-install', 'posembed', 'render', 'sinusoidal', '--length', '8', '--bare', '-o', 'pe.png'], { cwd: project, encoding: 'utf8' });
    assert.match(out, /pe\.png: Sinusoidal positions \[8 × 128\]/);
    assert.equal(pngjs.PNG.sync.read(readFileSync(join(project, 'pe.png'))).width, 128 * 4);
    // A framed PNG from the plain install (its renderer is a dependency), its cells crisp: each cell one uniform
    // block of cellSize × cellSize pixels of the colour the page paints, the grid found in the picture.
    const framed = spawnSync('npx', ['--no-install', 'posembed', 'render', 'alibi', '--length', '8', '--heads', '2', '--causal', '--cell-size', '10', '-o', 'framed.png'], { cwd: project, encoding: 'utf8' });
    assert.equal(framed.status, 0, framed.stderr);
    const image = pngjs.PNG.sync.read(readFileSync(join(project, 'framed.png')));
    const pe = await load();
    const headZero = pe.alibiBias({ numHeads: 2, keyLength: 8, causal: true }).data.subarray(0, 64);
    const { pixels } = heatmapPixels({ data: headZero, shape: [8, 8] }, { colormap: 'viridis' });
    const at = (x, y) => Array.from(image.data.subarray(4 * (y * image.width + x), 4 * (y * image.width + x) + 3));
    const cellColour = (r, c) => Array.from(pixels.subarray(4 * (r * 8 + c), 4 * (r * 8 + c) + 3));
    // (The axes' lines lie on the grid's left column and bottom row of pixels, as in the page.)
    const onAxis = (r, c, dx, dy) => (c === 0 && dx === 0) || (r === 7 && dy === 9);
    const gridAt = (left, top) => {
      for (let r = 0; r < 8; r++) for (let c = 0; c < 8; c++) for (let dy = 0; dy < 10; dy++) for (let dx = 0; dx < 10; dx++) {
        if (!onAxis(r, c, dx, dy) && at(left + c * 10 + dx, top + r * 10 + dy).some((v, i) => v !== cellColour(r, c)[i])) return false;
      }
      return true;
    };
    let found = null;
    for (let top = 0; top < image.height - 80 && !found; top++) for (let left = 0; left < image.width - 80 && !found; left++) if (gridAt(left, top)) found = [left, top];
    assert.ok(found, 'the 8 × 8 cells, 10 × 10 pixels each, exactly the page\'s colours (the masked ones grey)');
  });

  it('takes a title, caption, axis titles, theme, font size, and negative numbers as values', () => {
    const svgFile = join(tempFolder('cli-frame'), 'f.svg');
    const made = run('render', 'sinusoidal', '--length', '8', '--d-model', '16', '--title', 'Eight positions', '--caption', 'Mine.', '--x-label', 'Dimension',
      '--y-label', 'Position', '--theme', 'dark', '--font-size', '20', '-o', svgFile);
    assert.equal(made.status, 0, made.stderr);
    const svg = readFileSync(svgFile, 'utf8');
    for (const text of ['>Eight positions<', '>Mine.<', '>Dimension<', '>Position<', 'font-size="20"', 'fill="#e3e7ec"', 'fill="#16191d"']) assert.ok(svg.includes(text), text);
    assert.ok(!svg.includes('fill="#1d232a"'), 'no light-scheme ink in a dark figure');
    const negative = run('render', 'sinusoidal', '--offset', '-5', '-o', svgFile);
    assert.equal(negative.stderr.trim(), 'posembed: --offset must be an integer in [0, 2147483647], got "-5"');
    assert.equal(run('render', 'sinusoidal', '--font-size', '200', '-o', svgFile).stderr.trim(), 'posembed: --font-size must be a number in [6, 96], got 200');
  });
});

describe('posembed rope and check (command line): a model\'s cache, and a runtime\'s against it', () => {
  let pe;
  let dir;
  before(async () => {
    pe = await load();
    dir = tempFolder('cli-rope');
  });

  it('rope writes cos and sin from a config file; check says consistent (exit 0) for that and its bfloat16 cast', () => {
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify(pe.modelPresets['Llama-3.1-8B']));
    const cache = join(dir, 'cache.safetensors');
    const made = run('rope', '--config', config, '--positions', '0:4096', '--precision', 'float32', '-o', cache);
    assert.equal(made.status, 0, made.stderr);
    const tensors = pe.readSafetensors(readFileSync(cache));
    assert.deepEqual([tensors.cos.shape, tensors.sin.shape], [[4096, 128], [4096, 128]]);
    const spec = pe.modelPositions('Llama-3.1-8B').layer(0).rope;
    const expected = pe.ropeCache(spec, { positions: Int32Array.from({ length: 4096 }, (_, i) => i), precision: 'float32' });
    assert.deepEqual(tensors.cos.data, expected.cos.data);
    const checked = run('check', '--config', config, '--cache', cache, '--positions', '0:4096');
    assert.equal(checked.status, 0, checked.stdout + checked.stderr);
    assert.match(checked.stdout, /^consistent: float32/);
    const npy = join(dir, 'cache.npy');
    assert.equal(run('rope', '--config', 'Llama-3.1-8B', '--positions', '0:512', '--precision', 'bfloat16', '-o', npy).status, 0);
    const stacked = pe.readNpy(readFileSync(npy));
    assert.deepEqual(stacked.shape, [2, 512, 128]);
    // Without --positions, one position per row of the cache: 0 … 511.
    const again = run('check', '--config', 'Llama-3.1-8B', '--cache', npy);
    assert.equal(again.status, 0, again.stdout);
    assert.match(again.stdout, /^consistent: bfloat16/);
  });

  it('names the keys a config\'s family does not read, reads a remote-code model --as its family, and keeps a float32 model\'s cache float32', () => {
    const config = join(dir, 'partial.json');
    writeFileSync(config, JSON.stringify({ ...pe.modelPresets['Llama-3.1-8B'], partial_rotary_factor: 0.5 }));
    const warned = run('rope', '--config', config, '--positions', '0:8', '-o', join(dir, 'p.npy'));
    assert.equal(warned.status, 0, warned.stderr);
    assert.match(warned.stderr, /^warning: partial_rotary_factor \(0\.5\) is in the config, but HF's llama does not read it/);
    const kimi = join(dir, 'kimi.json');
    writeFileSync(kimi, JSON.stringify({ ...pe.modelPresets['DeepSeek-V3'], model_type: 'kimi_k2' }));
    assert.match(run('rope', '--config', kimi, '--positions', '0:8', '-o', join(dir, 'k.npy')).stderr, /follows HF's deepseek_v3: read it .* \{ as: 'deepseek_v3' \}/);
    const read = run('rope', '--config', kimi, '--as', 'deepseek_v3', '--positions', '0:8', '-o', join(dir, 'k.npy'));
    assert.equal(read.status, 0, read.stderr);
    assert.match(read.stderr, /warning: read as HF's deepseek_v3, as asked/);
    const olmo = join(dir, 'olmo.json');
    writeFileSync(olmo, JSON.stringify({ model_type: 'olmo2', hidden_size: 4096, num_attention_heads: 32, num_hidden_layers: 2, max_position_embeddings: 4096, rope_theta: 500000 }));
    const kept = run('rope', '--config', olmo, '--positions', '0:8', '--precision', 'bfloat16', '-o', join(dir, 'o.npy'));
    assert.match(kept.stdout, /, float32 \(the model keeps its cache in float32: not cast to bfloat16\)$/m);
  });

  it('check exits 1 with the diagnosis for a runtime that ignored the scaling', () => {
    const spec = pe.modelPositions('Llama-3.1-8B').layer(0).rope;
    const positions = Int32Array.from({ length: 2048 }, (_, i) => i * 64);
    const wrong = pe.ropeCache({ ...spec, scaling: { type: 'default' } }, { positions, precision: 'float32' });
    const file = join(dir, 'runtime.safetensors');
    writeFileSync(file, writeSafetensors({ cos: wrong.cos, sin: wrong.sin }));
    const { status, stdout } = run('check', '--config', 'Llama-3.1-8B', '--cache', file, '--positions', Array.from(positions).join(','));
    assert.equal(status, 1, stdout);
    assert.match(stdout, /^mismatch \(largest difference .* at position \d+, column \d+\)\nsuspect: scaling-ignored\nthe cache ignores the 'llama3' scaling/);
  });

  it('reports bad arguments with a message and exit code 1', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"model_type": "llama", "num_hidden_layers": 1, "hidden_size": 64, "num_attention_heads": 1, "max_position_embeddings": 8, "rope_scaling": {"rope_type": "linear", "factor": 2, "oops": 1}}');
    for (const [args, message] of [
      [['rope', '--config', 'Llama-9', '-o', 'x.npy'], /--config: cannot read 'Llama-9' \(ENOENT\); presets: DeepSeek-V3/],
      [['rope', '--config', bad, '-o', 'x.npy'], /config: rope_scaling\.oops is not a key posembed knows/],
      [['rope', '--config', 'gpt2', '-o', 'x.npy'], /--layer 0 of this gpt2 model uses learned positions, not RoPE/],
      [['rope', '--config', 'Llama-3.1-8B', '--positions', '5:5', '-o', 'x.npy'], /--positions a:b needs 0 <= a < b/],
      [['rope', '--config', 'Llama-3.1-8B', '--positions', '0:8', '-o', 'x.png'], /-o must name a \.safetensors or \.npy file/],
      [['rope', '--config', 'Llama-3.1-8B', '--positions', '0:8', '--precision', 'fp8', '-o', 'x.npy'], /precision must be one of 'exact', 'float32'/],
      [['check', '--config', 'Llama-3.1-8B'], /check needs --cache .* or --gguf \(a GGUF file\)/],
      [['check', '--config', 'Llama-3.1-8B', '--gguf', 'no-such.gguf'], /--gguf: cannot read 'no-such\.gguf' \(ENOENT\)/],
    ]) {
      const { status, stderr } = run(...args);
      assert.equal(status, 1, args.join(' '));
      assert.match(stderr.trim(), message);
    }
  });
});
