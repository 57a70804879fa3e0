// The figure layer's scenes, laid out without a page: what every view of a figure (live, SVG, PNG, CLI) is drawn from.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { heatmapScene, proseNumber } from '../../dist/scene.js';

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
