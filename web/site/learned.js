// Learned vs sinusoidal: a seeded learned table, its interpolation to a longer length, the sinusoidal table at
// that length, and what a lookup past maxLength answers.
import { load } from 'posembed';
import { drawHeatmap, onHost, valueRange } from 'posembed/components';

const pe = await load({ backend: 'auto' });
const form = document.querySelector('#learned-controls');

function show(id, tensor, caption, range) {
  const canvas = document.querySelector(`#${id}`);
  drawHeatmap(canvas, tensor, { colormap: 'RdBu', range: range ?? valueRange(tensor.data) });
  canvas.style.width = `${tensor.shape[1] * 6}px`;
  canvas.style.height = `${tensor.shape[0] * 3}px`;
  document.querySelector(`#${id}-caption`).textContent = caption;
}

async function render() {
  const f = new FormData(form);
  const maxLength = Number(f.get('maxLength'));
  const dModel = Number(f.get('dModel'));
  const newLength = Number(f.get('newLength'));
  const past = document.querySelector('#past-end');
  let table = null;
  try {
    table = pe.learnedPositions({ maxLength, dModel, init: { std: 0.5, seed: Number(f.get('seed')) } });
    const weights = table.weights;
    const { min, max } = valueRange(weights.data);
    const limit = Math.max(-min, max);
    const range = { min: -limit, max: limit };
    show('learned', weights, `learned [${maxLength} × ${dModel}] (seeded, std 0.5)`, range);
    show('stretched', pe.interpolatePositions(weights, newLength), `interpolated to [${newLength} × ${dModel}]`, range);
    show('sinusoidal', await onHost(pe.sinusoidal({ length: newLength, dModel })), `sinusoidal [${newLength} × ${dModel}]`, { min: -1, max: 1 });
    const length = Number(f.get('lookup'));
    try {
      const rows = table.lookup(length);
      past.textContent = `lookup(${length}) → [${rows.shape.join(', ')}]: within the table.`;
    } catch (error) {
      past.textContent = `lookup(${length}) → ${error.name}: ${error.message}`;
    }
    document.documentElement.dataset.ready = 'true';
  } catch (error) {
    past.textContent = `${error.name}: ${error.message}`;
  } finally {
    table?.dispose();
  }
}

form.addEventListener('input', render);
form.addEventListener('submit', (event) => event.preventDefault());
render();
