// The figure layer's scenes, laid out without a page: what every view of a figure (live, SVG, PNG, CLI) is drawn from.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { heatmapScene, proseNumber } from '../../dist/scene.js';
import { MASKED, colormap, heatmapPixels } from '../../dist/colormap.js';

describe('heatmap scenes', () => {
  it('give every cell the same whole number of device pixels where cells span two or more (no seams from 6- and 7-pixel columns by turns)', () => {
    for (const pixelRatio of [1, 1.25, 1.5, 2, 3]) {
      for (const [rows, columns] of [[64, 64], [1024, 64], [8, 300], [3, 7], [200, 12]]) {
        for (const available of [300, 420, 777, 1000]) {
          const { cells } = heatmapScene(rows, columns, {}, { available, pixelRatio, legend: false });
          for (const [size, count, name] of [[cells.width, columns, 'column'], [cells.height, rows, 'row']]) {
            const pixels = (size * pixelRatio) / count;
            if (pixels >= 2) assert.ok(Math.abs(pixels - Math.round(pixels)) < 1e-9, `${rows} × ${columns} in ${available} px at ×${pixelRatio}: a ${name} is ${pixels} device pixels`);
          }
          assert.ok(cells.width + 1e-9 >= 0 && cells.width <= available, `${rows} × ${columns} fits ${available} px`);
        }
      }
    }
  });

  it('keep square cells where they fit, and the given cell size when one is given', () => {
    const { cells } = heatmapScene(64, 64, {}, { available: 500, pixelRatio: 1, legend: false });
    assert.equal(cells.width, cells.height);
    const fixed = heatmapScene(10, 20, {}, { cell: 3, legend: false });
    assert.deepEqual([fixed.cells.width, fixed.cells.height], [60, 30]);
  });
});

describe('heatmap pixels', () => {
  it('paint each cell its value\'s colour (masked cells grey), cellSize × cellSize pixels, opaque', () => {
    const data = Float32Array.from([-2, -0.5, 0, 0.25, NaN, 1.5, -Infinity, 2, 0.7, Infinity, -1e-9, 1.9999]);
    for (const name of ['RdBu', 'viridis']) {
      for (const cellSize of [1, 3]) {
        const range = { min: -2, max: 2 };
        const { pixels, width, height } = heatmapPixels({ data, shape: [3, 4] }, { colormap: name, range, cellSize });
        assert.deepEqual([width, height], [4 * cellSize, 3 * cellSize]);
        const map = colormap(name, range);
        for (let y = 0; y < height; y++) {
          for (let x = 0; x < width; x++) {
            const value = data[Math.floor(y / cellSize) * 4 + Math.floor(x / cellSize)];
            const at = map.index(value) * 3;
            const expected = Number.isFinite(value) ? [map.rgb[at], map.rgb[at + 1], map.rgb[at + 2], 255] : [...MASKED.rgb, 255];
            const p = 4 * (y * width + x);
            assert.deepEqual(Array.from(pixels.subarray(p, p + 4)), expected, `${name}, cellSize ${cellSize}, pixel (${x}, ${y}) of value ${value}`);
          }
        }
      }
    }
  });
});

describe('numbers in sentences', () => {
  it('proseNumber: integers in full, others to a few significant digits, tiny and huge ones as m × 10ⁿ, zero as 0', () => {
    assert.equal(proseNumber(0), '0');
    assert.equal(proseNumber(8), '8');
    assert.equal(proseNumber(3000000), '3,000,000');
    assert.equal(proseNumber(Math.sqrt(8), 4), '2.828');
    assert.equal(proseNumber(0.5623413), '0.562');
    assert.equal(proseNumber(-1.349412), '−1.35');
    assert.equal(proseNumber(1e-6, 2), '1.0 × 10⁻⁶');
    assert.equal(proseNumber(-2.384e-7), '−2.38 × 10⁻⁷');
    assert.equal(proseNumber(12345678.9), '1.23 × 10⁷');
    assert.equal(proseNumber(NaN), 'missing');
    assert.equal(proseNumber(-0), '0');
    assert.equal(proseNumber(-5), '−5');
    assert.equal(proseNumber(1234.5), '1,230');
  });
});
