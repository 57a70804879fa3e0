// Learned vs sinusoidal at a longer length than the learned table has: the table with its missing rows drawn as
// missing, the table stretched by interpolation, and the sinusoidal table, each framed by the figure layer.
import { load } from 'posembed';
import { Figure, onHost } from 'posembed/components';

const pe = await load({ backend: 'auto' });
const form = document.querySelector('#learned-controls');
const errorLine = document.querySelector('#learned-error');
const figure = (id, label) => new Figure(document.querySelector(`#${id}`), { label });
const learned = figure('learned-figure', 'The learned table, with no rows past its end');
const stretched = figure('stretched-figure', 'The learned table stretched to the longer length by interpolation');
const sinusoidal = figure('sinusoidal-figure', 'The sinusoidal table at the longer length');
const RANGE = { min: -3, max: 3 };
let timer = 0;

function checked(name, value, low, high) {
  if (!Number.isInteger(value) || value < low || value > high) throw new RangeError(`${name} must be an integer in [${low}, ${high}], got ${value}`);
  return value;
}

async function render() {
  const f = new FormData(form);
  let table = null;
  try {
    const maxLength = checked('maxLength', Number(f.get('maxLength')), 2, 512);
    const dModel = Number(f.get('dModel'));
    const newLength = checked('longer length', Number(f.get('newLength')), 2, 2048);
    table = pe.learnedPositions({ maxLength, dModel, init: { std: 1, seed: Number(f.get('seed')) } });
    const weights = table.weights;
    const shown = Math.max(newLength, maxLength);
    const padded = { data: new Float32Array(shown * dModel).fill(NaN), shape: [shown, dModel] };
    padded.data.set(weights.data);
    const axes = { x: { label: 'dimension' }, y: { label: 'position' } };
    learned.heatmap(padded, { ...axes, range: RANGE, colour: { label: 'value', missing: 'no row (past maxLength)' },
      rowRule: newLength > maxLength ? { row: maxLength, label: `maxLength ${maxLength}` } : undefined });
    learned.caption = `Untrained (random) learned table, [${maxLength} × ${dModel}]. Positions ${maxLength} and later have no row${newLength > maxLength ? ' (black)' : ''}.`;
    stretched.heatmap(pe.interpolatePositions(weights, newLength), { ...axes, range: RANGE, colour: { label: 'value' } });
    stretched.caption = `The same table stretched to ${newLength} rows: row p is a blend of rows near p × ${((maxLength - 1) / Math.max(newLength - 1, 1)).toFixed(3)}. `
      + `${newLength > maxLength ? 'Neighbouring rows become near copies: positions blur together.' : 'Shrunk, rows are skipped.'}`;
    sinusoidal.heatmap(await onHost(pe.sinusoidal({ length: newLength, dModel })), { ...axes, range: { min: -1, max: 1 }, colour: { label: 'value' } });
    sinusoidal.caption = `The sinusoidal table at ${newLength} positions: a formula, so every position has a row, whatever the length.`;
    const past = document.querySelector('#past-end');
    try {
      const rows = table.lookup(newLength);
      past.textContent = `lookup(${newLength}) → [${rows.shape.join(', ')}]: within the table.`;
    } catch (error) {
      past.textContent = `lookup(${newLength}) → ${error.name}: ${error.message}`;
    }
    errorLine.hidden = true;
    document.documentElement.dataset.ready = 'true';
  } catch (error) {
    errorLine.textContent = error.message;
    errorLine.hidden = false;
    for (const shownFigure of [learned, stretched, sinusoidal]) shownFigure.stale(true);
  } finally {
    table?.dispose();
  }
}

form.addEventListener('input', () => {
  clearTimeout(timer);
  timer = setTimeout(render, 120);
});
form.addEventListener('submit', (event) => event.preventDefault());
render();
