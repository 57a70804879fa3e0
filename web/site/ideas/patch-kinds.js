// Three ways to give image patches 2-D positions, side by side: MAE's sin-cos halves, ViT's one learned row per
// patch, and a factorised table (a learned vector per grid row plus one per grid column). The learned two are
// untrained here, and the figures say what that means: what a table knows before any image.
import { onHost } from 'posembed/components';
import { figures, integerField, mountIdea, rows } from './idea.js';

const INIT_STD = 0.02;

// The mean cosine similarity of the chosen patch to the patches sharing its row or its column, and to the rest.
function meanByLine(similarity, { gridH, gridW }, chosen) {
  const sums = { line: [0, 0], other: [0, 0] };
  for (let r = 0; r < gridH; r++) {
    for (let c = 0; c < gridW; c++) {
      if (r === chosen.row && c === chosen.column) continue;
      const group = r === chosen.row || c === chosen.column ? sums.line : sums.other;
      group[0] += similarity[r * gridW + c];
      group[1] += 1;
    }
  }
  return { line: sums.line[0] / sums.line[1], other: sums.other[1] ? sums.other[0] / sums.other[1] : NaN };
}

export function mountPatchKinds(pe, section) {
  const shown = figures(section, [
    { label: 'Cosine similarity to the chosen patch: 2-D sin-cos', title: '2-D sin-cos (half for the row, half for the column)' },
    { label: 'Cosine similarity to the chosen patch: a learned row per patch, untrained', title: 'Learned, one row per patch (untrained)' },
    { label: 'Cosine similarity to the chosen patch: a row vector plus a column vector, untrained', title: 'Factorised: row vector + column vector (untrained)' },
  ]);
  // The chosen patch is on the grid: its boxes' ranges follow the grid's size, and a smaller grid moves the patch
  // onto its last row or column.
  const { gridH: rowsBox, gridW: columnsBox, row: rowBox, column: columnBox } = section.querySelector('form').elements;
  const linkRanges = () => {
    for (const [box, size] of [[rowBox, rowsBox], [columnBox, columnsBox]]) {
      const last = Math.max(0, (Number(size.value) || 1) - 1);
      box.max = String(last);
      if (Number(box.value) > last && Number.isInteger(Number(size.value)) && Number(size.value) >= 2) box.value = String(last);
    }
  };
  section.querySelector('form').addEventListener('input', linkRanges);
  linkRanges();
  return mountIdea(section, shown, async (form) => {
    const gridH = integerField(form, 'gridH', 2, 32, 'grid rows');
    const gridW = integerField(form, 'gridW', 2, 32, 'grid columns');
    const dModel = integerField(form, 'dModel', 4, 512, 'd_model');
    if (dModel % 4) throw new RangeError(`d_model must be a multiple of 4 (sin-cos pairs for rows and for columns), got ${dModel}`);
    const chosen = { row: integerField(form, 'row', 0, gridH - 1, `patch row (below ${gridH}, the grid's rows)`),
      column: integerField(form, 'column', 0, gridW - 1, `patch column (below ${gridW}, the grid's columns)`) };
    const patches = gridH * gridW;
    const init = (seed) => ({ type: 'normal', std: INIT_STD, seed });
    const perPatch = pe.learnedPositions({ maxLength: patches, dModel, init: init(1) });
    const byRow = pe.learnedPositions({ maxLength: gridH, dModel, init: init(2) });
    const byColumn = pe.learnedPositions({ maxLength: gridW, dModel, init: init(3) });
    const factorised = new Float32Array(patches * dModel);
    for (let r = 0; r < gridH; r++) {
      for (let c = 0; c < gridW; c++) {
        const [rowVector, columnVector] = [rows(byRow.weights, r), rows(byColumn.weights, c)];
        factorised.set(rowVector.map((value, i) => value + columnVector[i]), (r * gridW + c) * dModel);
      }
    }
    const tables = [
      await onHost(pe.sincos2d({ gridH, gridW, dModel })),
      { data: perPatch.weights.data.slice(), shape: [patches, dModel] },
      { data: factorised, shape: [patches, dModel] },
    ];
    for (const table of [perPatch, byRow, byColumn]) table.dispose();
    const index = chosen.row * gridW + chosen.column;
    const means = [];
    for (const [n, table] of tables.entries()) {
      const query = { data: rows(table, index).slice(), shape: [1, dModel] };
      const similarity = await onHost(pe.similarity(query, table, { metric: 'cosine' }));
      means.push(meanByLine(similarity.data, { gridH, gridW }, chosen));
      shown[n].heatmap({ data: similarity.data, shape: [gridH, gridW] }, {
        range: { min: -1, max: 1 }, x: { label: 'patch column' }, y: { label: 'patch row' }, colour: { label: 'cosine similarity, −1 to 1 in all three' },
      });
      shown[n].moveCursorTo(index);
    }
    const said = (m) => `${m.line.toFixed(2)} along its row and column, ${Number.isNaN(m.other) ? 'no other patches' : `${m.other.toFixed(2)} elsewhere`}`;
    shown[0].caption = `Nothing learned, 0 parameters: similarity fades with distance in both directions, from a floor set by the slow columns that barely turn across ${Math.max(gridH, gridW)} patches (mean ${said(means[0])}).`;
    shown[1].caption = `${(patches * dModel).toLocaleString('en')} parameters (${patches} patches × ${dModel}), random before training: each patch is like itself only `
      + `(mean ${said(means[1])}). Nothing says which patches are neighbours: training has to find the grid from the images.`;
    shown[2].caption = `${((gridH + gridW) * dModel).toLocaleString('en')} parameters ((${gridH} + ${gridW}) × ${dModel}): even random, patches in the chosen row or `
      + `column share one of the two vectors, so they start alike (mean ${said(means[2])}): the grid is built in, not learned.`;
    section.dataset.means = JSON.stringify(means.map((m) => [Number(m.line.toFixed(4)), Number(m.other.toFixed(4))]));
  });
}
