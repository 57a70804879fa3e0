// Learned vs sinusoidal at a longer length than the learned table has: the table with its missing rows drawn as
// missing, the table stretched by interpolation, and the sinusoidal table, each framed by the figure layer.
import { load } from 'posembed';
import { MASKED } from 'posembed/colormap';
import { Figure, onHost } from 'posembed/components';
import { redrawOnChange } from './controls.js';
import { nextTask } from './ideas/idea.js';

const pe = await load({ backend: 'auto' });
const form = document.querySelector('#learned-controls');
const errorLine = document.querySelector('#learned-error');
const figure = (id, label, title) => new Figure(document.querySelector(`#${id}`), { label, title });
const learned = figure('learned-figure', 'The learned table, with no rows past its end', 'Learned: no rows past its end');
const stretched = figure('stretched-figure', 'The learned table stretched to the longer length by interpolation', 'Learned, stretched by interpolation');
const sinusoidal = figure('sinusoidal-figure', 'The sinusoidal table at the longer length', 'Sinusoidal: a formula');
const RANGE = { min: -3, max: 3 };
const MAX_FILE_BYTES = 64 * 2 ** 20;  // read on this thread: a position table, not a whole large model
let trained = null;  // { name, weights } from a file, in place of the seeded table

function checked(name, value, low, high) {
  if (!Number.isInteger(value) || value < low || value > high) throw new RangeError(`${name} must be an integer in [${low}, ${high}], got ${value}`);
  return value;
}

async function render() {
  const f = new FormData(form);
  let table = null;
  try {
    const [maxLength, dModel] = trained ? trained.weights.shape : [checked('maxLength', Number(f.get('maxLength')), 2, 512), Number(f.get('dModel'))];
    const newLength = checked('longer length', Number(f.get('newLength')), 2, 2048);
    table = pe.learnedPositions({ maxLength, dModel, ...(trained ? { weights: trained.weights } : { init: { std: 1, seed: Number(f.get('seed')) } }) });
    const weights = table.weights;
    const shown = Math.max(newLength, maxLength);
    const padded = { data: new Float32Array(shown * dModel).fill(NaN), shape: [shown, dModel] };
    padded.data.set(weights.data);
    const axes = { x: { label: 'dimension' }, y: { label: 'position' } };
    learned.heatmap(padded, { ...axes, range: RANGE, colour: { label: 'value', missing: 'no row (past maxLength)' },
      rowRule: newLength > maxLength ? { row: maxLength, label: `maxLength ${maxLength}` } : undefined });
    learned.caption = `${trained ? `Trained table from ${trained.name}` : 'Untrained (random) learned table'}, [${maxLength} × ${dModel}]. `
      + `Positions ${maxLength} and later have no row${newLength > maxLength ? ` (${MASKED.word})` : ''}. `
      + `Colours from −3 to 3${trained ? '' : ': random values drawn with standard deviation 1, nearly all within ±3'}.`;
    stretched.heatmap(pe.interpolatePositions(weights, newLength), { ...axes, range: RANGE, colour: { label: 'value' } });
    stretched.caption = `The same table stretched to ${newLength} rows: row p is a blend of rows near p × ${((maxLength - 1) / Math.max(newLength - 1, 1)).toFixed(3)}. `
      + `${newLength > maxLength ? 'Neighbouring rows become near copies: positions blur together.' : 'Shrunk, rows are skipped.'} Colours from −3 to 3, as the table's.`;
    sinusoidal.heatmap(await onHost(pe.sinusoidal({ length: newLength, dModel })), { ...axes, range: { min: -1, max: 1 }, colour: { label: 'value' } });
    sinusoidal.caption = `The sinusoidal table at ${newLength} positions: a formula, so every position has a row, whatever the length. `
      + 'Colours from −1 to 1, the range of sines and cosines (a different scale from the learned tables beside it).';
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

// A trained table from a file: a .npy of [rows, d], or the wpe.weight of a .safetensors.
async function openTrained(file) {
  if (file.size > MAX_FILE_BYTES) throw new RangeError(`${file.name} is ${(file.size / 2 ** 20).toFixed(0)} MiB; open a file of at most 64 MiB here (the position table alone)`);
  const bytes = new Uint8Array(await file.arrayBuffer());
  const weights = file.name.toLowerCase().endsWith('.npy') ? pe.readNpy(bytes) : pe.readSafetensors(bytes)['wpe.weight'];
  if (!weights) throw new RangeError(`${file.name} has no wpe.weight (a learned position table); train with learned positions to get one`);
  if (weights.shape.length !== 2 || weights.shape[0] < 2 || weights.shape[0] > 512 || weights.shape[1] > 256) {
    throw new RangeError(`${file.name}: a position table must be [2–512 rows, 1–256 columns], got [${weights.shape.join(', ')}]`);
  }
  trained = { name: file.name, weights };
  for (const name of ['maxLength', 'dModel', 'seed']) form.elements[name].disabled = true;
  document.querySelector('#trained-clear').hidden = false;
}

document.querySelector('#trained-file').addEventListener('change', async (event) => {
  const [file] = event.target.files;
  if (!file) return;
  try {
    await openTrained(file);
    render();
  } catch (error) {
    errorLine.textContent = error.message;
    errorLine.hidden = false;
  }
});
document.querySelector('#trained-clear').addEventListener('click', (event) => {
  trained = null;
  for (const name of ['maxLength', 'dModel', 'seed']) form.elements[name].disabled = false;
  event.target.hidden = true;
  document.querySelector('#trained-file').value = '';
  render();
});

redrawOnChange(form, render);
form.addEventListener('submit', (event) => event.preventDefault());
render();

// GPT-2's learned positions, read by HTTP Range out of its checkpoint on the Hub (the table's bytes only); offline,
// the page says why it has only the untrained tables.
const GPT2_CHECKPOINT = 'https://huggingface.co/openai-community/gpt2/resolve/main/model.safetensors';
const GPT2_TABLE_NAMES = ['wpe.weight', 'transformer.wpe.weight'];
// Distances between two positions at which their rows are compared (about 40, spaced on a log scale).
const DISTANCES = [...new Set(Array.from({ length: 40 }, (_, i) => Math.round(1023 ** (i / 39))))];

const megabytes = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

// The mean cosine of rows p and p + k, over every eighth p: how alike positions k apart are.
function likenessByDistance({ data, shape: [rows, columns] }) {
  const norms = Float64Array.from({ length: rows }, (_, p) => {
    let sum = 0;
    for (let c = 0; c < columns; c++) sum += data[p * columns + c] ** 2;
    return Math.sqrt(sum);
  });
  return DISTANCES.filter((k) => k < rows).map((k) => {
    let total = 0;
    let count = 0;
    for (let p = 0; p + k < rows; p += 8) {
      let dot = 0;
      for (let c = 0; c < columns; c++) dot += data[p * columns + c] * data[(p + k) * columns + c];
      total += dot / (norms[p] * norms[p + k]);
      count++;
    }
    return { k, cosine: total / count };
  });
}

// The magnitude below which 99.5% of the values lie (from every 16th value: a sort of them all would hold the page),
// so the colours span the table, not its few outliers.
function typicalMagnitude(data) {
  const sample = Float32Array.from({ length: Math.ceil(data.length / 16) }, (_, i) => Math.abs(data[i * 16])).sort();
  return sample[Math.floor(0.995 * (sample.length - 1))] || 1;
}

async function showGpt2Positions() {
  const status = document.querySelector('#gpt2-status');
  const progress = document.querySelector('#gpt2-progress');
  const tableFigure = new Figure(document.querySelector('#gpt2-table'), { label: 'GPT-2\'s learned position table, position by dimension', title: 'GPT-2\'s position table (wpe)' });
  const likeness = new Figure(document.querySelector('#gpt2-similarity'), { label: 'How alike two positions\' rows are, against the distance between them', title: 'How alike positions k apart are' });
  status.textContent = 'Reading GPT-2\'s position table from the Hugging Face Hub…';
  try {
    const file = await pe.openSafetensors(GPT2_CHECKPOINT);
    const name = GPT2_TABLE_NAMES.find((candidate) => file.names.includes(candidate));
    if (!name) throw new Error('its checkpoint has no wpe.weight');
    const { bytes } = file.info(name);
    progress.hidden = false;
    const table = await file.tensor(name, { onProgress: (fraction) => { progress.value = fraction; } });
    progress.hidden = true;
    const [rows, columns] = table.shape;
    const limit = typicalMagnitude(table.data);
    tableFigure.heatmap(table, { x: { label: 'dimension' }, y: { label: 'position' }, range: { min: -limit, max: limit }, colour: { label: 'value' } });
    tableFigure.caption = `GPT-2's ${rows.toLocaleString('en')} learned rows of ${columns} numbers (${megabytes(bytes)} read by Range from its checkpoint). `
      + `Colours from −${limit.toPrecision(2)} to ${limit.toPrecision(2)}, where 99.5% of the values lie. Unlike the random tables below, its `
      + 'neighbouring rows are alike (right): training gave it structure down the positions.';
    // The likeness in a task of its own, after the 786,432-cell picture.
    await nextTask();
    const alike = likenessByDistance(table);
    likeness.lines([{ label: 'mean cosine of rows p and p + k', x: alike.map(({ k }) => k), y: alike.map(({ cosine }) => cosine) }], {
      x: { label: 'distance k (positions, log scale)', log: true }, y: { label: 'cosine similarity' },
      describe: (i) => `k = ${alike[i].k}: cosine ${alike[i].cosine.toFixed(2)}`,
    });
    const at = (k) => alike.find((entry) => entry.k >= k) ?? alike.at(-1);
    likeness.caption = `The mean cosine of two positions' rows: ${at(1).cosine.toFixed(2)} for neighbours, ${at(100).cosine.toFixed(2)} for positions `
      + `${at(100).k} apart (a random table's rows: about 0 at any distance). How alike two rows are tells the model how near the positions are.`;
    status.textContent = `GPT-2's position table: ${name} [${rows} × ${columns}], read from ${GPT2_CHECKPOINT}.`;
    document.querySelector('#gpt2-positions').dataset.rows = String(rows);
  } catch (error) {
    progress.hidden = true;
    for (const shown of [tableFigure, likeness]) shown.element.hidden = true;
    status.textContent = `GPT-2's table could not be read from the Hub (${error.message}). Offline, this page has only the untrained tables below.`;
    document.querySelector('#gpt2-positions').dataset.rows = '0';
  }
}
showGpt2Positions();

// Which public models learn their positions, from their configs (the model presets): a tutorial (doc 000) counts
// LLaMA among them.
function noteWhoLearns() {
  const scheme = (name) => {
    const layer = pe.modelPositions(name).layer(0);
    return layer.kind === 'learned' ? `learned, ${layer.learned.maxPositions} rows`
      : `${layer.kind === 'rope' ? 'RoPE' : layer.kind}${layer.rope?.scaling?.type && layer.rope.scaling.type !== 'default' ? ` with ${layer.rope.scaling.type} scaling` : ''}, no position table`;
  };
  const models = ['gpt2', 'bert-base-uncased', 'Llama-2-7b-hf', 'Llama-3.1-8B'];
  const schemes = models.map(scheme);
  const note = document.querySelector('#who-learns');
  note.textContent = 'A tutorial\'s claim, checked: the one on token embeddings (doc 000) says GPT-3, GPT-4 and LLaMA use learned positions. '
    + `Their configs, read by the package: ${models.map((name, i) => `${name}: ${schemes[i]}`).join('; ')}. GPT-2 and BERT learn theirs; LLaMA `
    + 'rotates queries and keys instead (RoPE). GPT-3 and GPT-4 publish no config. ';
  note.append(Object.assign(document.createElement('a'), { href: './model.html', textContent: 'Any model\'s, from its config.json' }), '.');
  note.dataset.schemes = schemes.join(' | ');
}
// After the figures, in a task of its own.
setTimeout(noteWhoLearns, 0);

