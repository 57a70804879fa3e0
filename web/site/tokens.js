// Token embeddings page: GPT-2 BPE → ids → rows of a seeded or dropped table; nearest tokens; a PCA scatter.
import { load } from 'posembed';
import { decode, encode } from 'gpt-tokenizer/encoding/r50k_base';
import { drawHeatmap, onHost, valueRange } from 'posembed/components';

const GPT2_VOCAB = 50257;
const pe = await load({ backend: 'auto' });
const $ = (selector) => document.querySelector(selector);
const form = $('#token-controls');
const errorBox = $('#token-error');
let dropped = null;  // { name, tensor } chosen from a dropped file
let embedding = null;
let embeddingKey = null;  // the dropped choice itself, or the seeded table's dModel and seed
let selected = 0;

function showError(message) {
  errorBox.textContent = message;
  errorBox.hidden = !message;
}

// The table in use: seeded [50257, dModel], or the dropped tensor.
function table() {
  const f = new FormData(form);
  const key = dropped ?? `seeded:${f.get('dModel')}:${f.get('seed')}`;
  if (key !== embeddingKey) {
    embedding?.dispose();
    embedding = null;
    embeddingKey = null;
    embedding = dropped
      ? pe.tokenEmbedding({ vocabSize: dropped.tensor.shape[0], dModel: dropped.tensor.shape[1], weights: dropped.tensor })
      : pe.tokenEmbedding({ vocabSize: GPT2_VOCAB, dModel: Number(f.get('dModel')), init: { std: 0.02, seed: Number(f.get('seed')) } });
    embeddingKey = key;
  }
  return embedding;
}

function scatter(canvas, points, labels) {
  const context = canvas.getContext('2d');
  context.clearRect(0, 0, canvas.width, canvas.height);
  const { min: x0, max: x1 } = valueRange(points.map((p) => p[0]));
  const { min: y0, max: y1 } = valueRange(points.map((p) => p[1]));
  const fit = (v, a, b, size) => 30 + ((v - a) / (b - a || 1)) * (size - 60);
  context.font = '12px system-ui, sans-serif';
  points.forEach(([x, y], i) => {
    const px = fit(x, x0, x1, canvas.width);
    const py = canvas.height - fit(y, y0, y1, canvas.height);
    context.fillStyle = '#1f5fbf';
    context.beginPath();
    context.arc(px, py, 4, 0, 2 * Math.PI);
    context.fill();
    context.fillStyle = '#1d232a';
    context.fillText(labels[i], px + 6, py - 6);
  });
}

async function render() {
  try {
    const ids = encode(String(new FormData(form).get('text')));
    if (ids.length === 0) throw new RangeError('type some text');
    const labels = ids.map((id) => decode([id]));
    const emb = table();
    const chips = ids.map((id, i) => {
      const chip = document.createElement('button');
      chip.type = 'button';
      chip.className = 'token';
      chip.dataset.index = String(i);
      chip.setAttribute('aria-pressed', String(i === selected));
      chip.textContent = `${JSON.stringify(labels[i]).slice(1, -1)} → ${id}`;
      chip.addEventListener('click', () => { selected = i; render(); });
      return chip;
    });
    $('#token-chips').replaceChildren(...chips);
    const largestId = valueRange(ids).max;
    if (largestId >= emb.vocabSize) {
      // A table too small for GPT-2's ids (such as a test file): show the table itself and say why.
      const weights = emb.weights;
      drawHeatmap($('#rows'), weights, { colormap: 'RdBu', range: valueRange(weights.data) });
      $('#rows-caption').textContent = `The table has ${emb.vocabSize} rows, but these token ids go up to ${largestId}: `
        + `GPT-2's wte (${GPT2_VOCAB} rows) looks up real tokens. Showing the table itself, [${weights.shape.join(', ')}].`;
      $('#nearest').replaceChildren();
      return;
    }
    const rows = await onHost(emb.lookup(ids));
    // RdBu spans ±(the largest magnitude) of the range: zero stays white.
    drawHeatmap($('#rows'), { data: rows.data, shape: [ids.length, emb.dModel] }, { colormap: 'RdBu', range: valueRange(rows.data) });
    $('#rows').style.width = `${Math.min(900, emb.dModel * 6)}px`;
    $('#rows').style.height = `${ids.length * 12}px`;
    $('#rows-caption').textContent = `rows [${ids.length}, ${emb.dModel}] of a [${emb.vocabSize}, ${emb.dModel}] table (${dropped ? dropped.name : 'seeded'})`;
    selected = Math.min(selected, ids.length - 1);
    const query = rows.data.slice(selected * emb.dModel, (selected + 1) * emb.dModel);
    const { indices, scores } = emb.nearest(query, { k: 8, metric: 'cosine' });
    $('#nearest').replaceChildren(...Array.from(indices, (id, i) => {
      const item = document.createElement('li');
      item.textContent = `${JSON.stringify(decode([id]))} (${id}): ${scores[i].toFixed(4)}`;
      return item;
    }));
    if (ids.length >= 2) {
      const projected = pe.pca({ data: rows.data, shape: [ids.length, emb.dModel] }, { components: 2 });
      scatter($('#pca'), ids.map((_, i) => [projected.data[2 * i], projected.data[2 * i + 1]]), labels);
    }
    showError('');
    document.documentElement.dataset.rendered = String(Number(document.documentElement.dataset.rendered ?? 0) + 1);
  } catch (error) {
    showError(error.message);
  }
}

// Dropped files go to the worker; progress shows while it streams them in.
function readWeights(file) {
  const progress = $('#weights-progress');
  const status = $('#weights-status');
  progress.hidden = false;
  progress.value = 0;
  status.textContent = `Reading ${file.name}…`;
  const worker = new Worker(new URL('./weights-worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = ({ data }) => {
    if (data.progress !== undefined) {
      progress.value = data.progress;
      return;
    }
    worker.terminate();
    progress.hidden = true;
    if (data.error) {
      status.textContent = 'Table: unchanged.';
      showError(data.error);
      return;
    }
    const matrices = Object.entries(data.tensors).filter(([, t]) => t.shape.length === 2);
    if (matrices.length === 0) {
      showError(`${file.name}: no 2-D tensor to use as an embedding table`);
      return;
    }
    const select = $('#tensor-select');
    select.replaceChildren(...matrices.map(([name, t]) => Object.assign(document.createElement('option'), { value: name, textContent: `${name} [${t.shape.join(', ')}]` })));
    $('#tensor-choice').hidden = matrices.length < 2;
    const choose = () => {
      const tensor = data.tensors[select.value];
      useDropped({ name: select.value, tensor }, `Table: ${select.value} [${tensor.shape.join(', ')}] from ${file.name}.`);
      showError('');
      render();
    };
    select.onchange = choose;
    choose();
  };
  worker.postMessage({ file });
}

const drop = $('#drop');
drop.addEventListener('dragover', (event) => { event.preventDefault(); drop.classList.add('over'); });
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (event) => {
  event.preventDefault();
  drop.classList.remove('over');
  if (event.dataTransfer.files[0]) readWeights(event.dataTransfer.files[0]);
});
$('#weights-file').addEventListener('change', (event) => { if (event.target.files[0]) readWeights(event.target.files[0]); });
// Typing changes the text only: a dropped table stays until the reader removes it, and the seeded table's
// controls wait, disabled, until then.
function useDropped(next, status) {
  dropped = next;
  for (const name of ['dModel', 'seed']) form.elements[name].disabled = dropped !== null;
  $('#weights-remove').hidden = dropped === null;
  $('#weights-status').textContent = status;
}
$('#weights-remove').addEventListener('click', () => {
  useDropped(null, 'Table: seeded.');
  $('#tensor-choice').hidden = true;
  render();
});
form.addEventListener('input', render);
form.addEventListener('submit', (event) => event.preventDefault());
await render();
document.documentElement.dataset.ready = 'true';
