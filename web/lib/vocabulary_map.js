// A whole vocabulary by its two principal axes, as a reader can see it: how many of the table's rows fall in each
// cell of a grid (drawn as a density map: a GPT-2 table's 50,257 points would hide each other), one example token per
// cell (the row nearest the cell's centre, for the cursor's readout), and the cells a text's ids fall in.
// Used by <posembed-tokens> and the site's tokens page (`posembed/vocabulary-map`): the grid in their workers, the
// drawing (on a Figure of the figure layer) on the page.

// projected: [rows, 2] (a table's pca({ components: 2 }).data); ids: the ids to place → { counts, example, cells,
// xs, ys (each axis's range), rows, places: [{ id, x, y, cell }] }. Row 0 of the grid is its top: the second axis
// grows upwards, as on a plot.
export function vocabularyGrid(projected, { ids = [], cells = 80 } = {}) {
  const count = projected.length / 2;
  const extent = (axis) => {
    let [low, high] = [Infinity, -Infinity];
    for (let r = 0; r < count; r++) [low, high] = [Math.min(low, projected[2 * r + axis]), Math.max(high, projected[2 * r + axis])];
    return high > low ? [low, high] : [low - 1, high + 1];
  };
  const [xs, ys] = [extent(0), extent(1)];
  const cell = (value, [low, high]) => Math.min(cells - 1, Math.floor(((value - low) / (high - low)) * cells));
  const cellOf = (r) => (cells - 1 - cell(projected[2 * r + 1], ys)) * cells + cell(projected[2 * r], xs);
  const counts = new Float32Array(cells * cells);
  const example = new Int32Array(cells * cells).fill(-1);
  const centreDistance = new Float64Array(cells * cells).fill(Infinity);
  for (let r = 0; r < count; r++) {
    const at = cellOf(r);
    const [row, column] = [Math.floor(at / cells), at % cells];
    counts[at] += 1;
    const cx = xs[0] + ((column + 0.5) / cells) * (xs[1] - xs[0]);
    const cy = ys[0] + ((cells - row - 0.5) / cells) * (ys[1] - ys[0]);
    const distance = (projected[2 * r] - cx) ** 2 + (projected[2 * r + 1] - cy) ** 2;
    if (distance < centreDistance[at]) [centreDistance[at], example[at]] = [distance, r];
  }
  const places = ids.filter((id) => id >= 0 && id < count).map((id) => ({ id, x: projected[2 * id], y: projected[2 * id + 1], cell: cellOf(id) }));
  return { counts, example, cells, xs, ys, rows: count, places };
}

// The ids a drawn map names: each cell's example and the placed ones.
export function namedIds(grid) {
  return [...new Set([...grid.example].filter((id) => id >= 0).concat(grid.places.map((p) => p.id)))];
}

// An id's text; a piece that is part of a character's bytes (byte-level BPE cuts 東 in three) decodes to U+FFFD
// alone, so it is shown as the vocabulary stores it.
export function tokenLabel(tokenizer, id) {
  const text = tokenizer.decode([id]);
  return text.includes('\uFFFD') ? tokenizer.piece(id) : text;
}

// The map drawn on a Figure: log counts per cell, each cell's readout naming one of its tokens, the cursor on the
// selected token.
// grid: vocabularyGrid's result; tokenName(id) → its text; selectedId: the token to put the cursor on (or null).
// Returns where the selected token lies ({ id, x, y, cell }), or null.
export function drawVocabularyMap(figure, grid, { tokenName, selectedId = null }) {
  const { counts, example, cells, xs, ys, places } = grid;
  const logCounts = counts.map((n) => Math.log10(1 + n));
  const centre = ([low, high], i) => (low + ((i + 0.5) / cells) * (high - low)).toFixed(2);
  figure.heatmap({ data: logCounts, shape: [cells, cells] }, {
    colormap: 'viridis', range: { min: 0, max: logCounts.reduce((a, b) => Math.max(a, b), 1) },
    x: { label: 'principal axis 1', names: Array.from({ length: cells }, (_, i) => centre(xs, i)) },
    y: { label: 'principal axis 2', names: Array.from({ length: cells }, (_, i) => centre(ys, cells - 1 - i)) },
    colour: { label: 'log10(1 + tokens in the cell)' },
    describe: (row, column) => {
      const at = row * cells + column;
      return counts[at] ? `${counts[at]} token${counts[at] === 1 ? '' : 's'} here, such as ${JSON.stringify(tokenName(example[at]))}` : 'no token here';
    },
  });
  const chosen = places.find((p) => p.id === selectedId) ?? null;
  if (chosen) figure.moveCursorTo(chosen.cell);
  return chosen;
}
