// Image patches page: sincos2d on a grid; the cosine similarity of every patch's position to a chosen one.
import { load } from 'posembed';
import { Figure, onHost, valueRange } from 'posembed/components';
import { redrawOnChange } from './controls.js';
import { mountPatchKinds } from './ideas/patch-kinds.js';
import { mountHierarchy, mountTime } from './ideas/time-hierarchy.js';

const pe = await load({ backend: 'auto' });
const form = document.querySelector('#patch-controls');
const figure = new Figure(document.querySelector('#patches-figure'), { label: 'Cosine similarity of every patch position to the chosen patch' });
const table = document.querySelector('#patch-table');
let chosen = { row: 3, column: 4 };
let current = null;

// Which half of the columns encodes which coordinate, read from the table: the first half changes along a row of
// patches (it encodes the column, as MAE's code lays it out) and the second down a column, or the other way.
function whichHalf(patches, { gridH, gridW, dModel }) {
  if (gridH < 2 || gridW < 2) return '';
  const half = dModel / 2;
  const change = (from, to, columns) => {
    let sum = 0;
    for (const c of columns) sum += Math.abs(patches.data[to * dModel + c] - patches.data[from * dModel + c]);
    return sum;
  };
  const first = Array.from({ length: half }, (_, c) => c);
  const alongRow = change(0, 1, first);          // patch (0, 0) to (0, 1): the column moves
  const downColumn = change(0, gridW, first);    // patch (0, 0) to (1, 0): the row moves
  const [mine, other] = alongRow > 0 && downColumn === 0 ? ['column', 'row'] : ['row', 'column'];
  document.querySelector('#patch-readout').dataset.firstHalf = mine;
  return `The first ${half} numbers of each row encode the patch's ${mine} (they change only when the ${mine} does), the last ${half} its ${other}.`;
}

async function render() {
  const f = new FormData(form);
  const options = { gridH: Number(f.get('gridH')), gridW: Number(f.get('gridW')), dModel: Number(f.get('dModel')), clsToken: f.get('clsToken') === 'on' };
  const errorBox = document.querySelector('#patch-error');
  try {
    const positions = await onHost(pe.sincos2d(options));
    const first = options.clsToken ? 1 : 0;
    chosen = { row: Math.min(chosen.row, options.gridH - 1), column: Math.min(chosen.column, options.gridW - 1) };
    const patches = { data: positions.data.subarray(first * options.dModel), shape: [options.gridH * options.gridW, options.dModel] };
    const index = chosen.row * options.gridW + chosen.column;
    const query = { data: patches.data.slice(index * options.dModel, (index + 1) * options.dModel), shape: [1, options.dModel] };
    const similarity = await onHost(pe.similarity(query, patches, { metric: 'cosine' }));
    current = { options, similarity };
    const least = valueRange(similarity.data).min;
    figure.heatmap({ data: similarity.data, shape: [options.gridH, options.gridW] }, {
      colormap: 'viridis', range: { min: least, max: 1 }, x: { label: 'patch column' }, y: { label: 'patch row' }, colour: { label: 'cosine similarity' },
    });
    figure.moveCursorTo(index);
    figure.caption = `Brightest at the chosen patch and fading with distance, along its row and its column alike: the position says where a patch is in both directions. `
      + 'Click a patch, or focus the grid and use the arrow keys, to choose another.';
    document.querySelector('#patch-readout').textContent = `patch (row ${chosen.row}, column ${chosen.column})${options.clsToken ? ', after the cls row' : ''}: `
      + `cosine similarity 1 to itself, ${least.toFixed(4)} to the least similar patch. ${whichHalf(patches, options)}`;
    for (const [name, value] of Object.entries({ 'grid-h': options.gridH, 'grid-w': options.gridW, 'd-model': options.dModel })) table.setAttribute(name, String(value));
    errorBox.hidden = true;
  } catch (error) {
    errorBox.textContent = error.message;
    errorBox.hidden = false;
  }
}

// The figure's cursor follows the keys and the pointer; a key press or a click makes its cell the chosen patch.
const choose = () => {
  if (!current) return;
  const cursor = figure.cursor;
  chosen = { row: Math.floor(cursor / current.options.gridW), column: cursor % current.options.gridW };
  render();
};
figure.plot.addEventListener('click', choose);
figure.plot.addEventListener('keydown', (event) => { if (event.key.startsWith('Arrow')) choose(); });
redrawOnChange(form, render);
form.addEventListener('submit', (event) => event.preventDefault());
await Promise.all([
  render(),
  mountPatchKinds(pe, document.querySelector('#patch-kinds')),
  mountTime(pe, document.querySelector('#time-positions')),
  mountHierarchy(pe, document.querySelector('#hierarchy-positions')),
]);
document.documentElement.dataset.ready = 'true';
