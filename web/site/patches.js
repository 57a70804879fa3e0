// Image patches page: sincos2d on a grid; the cosine similarity of every patch's position to a chosen one.
import { load } from 'posembed';
import { drawHeatmap, onHost, valueRange } from 'posembed/components';

const pe = await load({ backend: 'auto' });
const form = document.querySelector('#patch-controls');
const canvas = document.querySelector('#patches');
const table = document.querySelector('#patch-table');
let chosen = { row: 3, column: 4 };
let current = null;

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
    drawHeatmap(canvas, { data: similarity.data, shape: [options.gridH, options.gridW] }, { colormap: 'viridis', range: { min: least, max: 1 } });
    const cell = Math.max(4, Math.floor(420 / Math.max(options.gridH, options.gridW)));
    canvas.style.width = `${options.gridW * cell}px`;
    canvas.style.height = `${options.gridH * cell}px`;
    document.querySelector('#patch-readout').textContent = `patch (row ${chosen.row}, column ${chosen.column})${options.clsToken ? ', after the cls row' : ''}: `
      + `cosine similarity 1 to itself, ${least.toFixed(4)} to the least similar patch`;
    for (const [name, value] of Object.entries({ 'grid-h': options.gridH, 'grid-w': options.gridW, 'd-model': options.dModel })) table.setAttribute(name, String(value));
    errorBox.hidden = true;
    document.documentElement.dataset.ready = 'true';
  } catch (error) {
    errorBox.textContent = error.message;
    errorBox.hidden = false;
  }
}

canvas.addEventListener('click', (event) => {
  if (!current) return;
  const rect = canvas.getBoundingClientRect();
  chosen = { row: Math.floor(((event.clientY - rect.top) / rect.height) * current.options.gridH), column: Math.floor(((event.clientX - rect.left) / rect.width) * current.options.gridW) };
  render();
});
canvas.addEventListener('keydown', (event) => {
  const move = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[event.key];
  if (!move || !current) return;
  event.preventDefault();
  chosen = { row: Math.max(0, chosen.row + move[0]), column: Math.max(0, chosen.column + move[1]) };
  render();
});
form.addEventListener('input', render);
form.addEventListener('submit', (event) => event.preventDefault());
render();
