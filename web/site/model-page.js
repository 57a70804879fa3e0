// The "Your model" page: a preset or the reader's config.json drives <posembed-model>; a dropped runtime cache is
// checked against the chosen layer in the compute worker (reading and checking 131k positions takes seconds).
import { load } from 'posembed';
import { compute } from './compute.js';

const pe = await load();
const element = document.querySelector('#model');
const presetSelect = document.querySelector('#preset');
const slider = document.querySelector('#layer');
const number = document.querySelector('#layer-number');
const errorBox = document.querySelector('#config-error');
const source = document.querySelector('#config-source');
let config = 'Llama-3.1-8B';

for (const name of Object.keys(pe.modelPresets)) presetSelect.append(new Option(name, name, name === config, name === config));

function showError(message) {
  errorBox.textContent = message;
  errorBox.hidden = !message;
}

// What the config holds that its family does not read (HF goes on without it): named, one line each.
const warningsBox = document.querySelector('#config-warnings');
function showWarnings(warnings) {
  warningsBox.querySelector('ul').replaceChildren(...warnings.map((text) => Object.assign(document.createElement('li'), { textContent: text })));
  warningsBox.hidden = warnings.length === 0;
}

// A config is used once posembed reads it: its errors are shown here, and the element keeps the last good one.
function use(given, where) {
  let model;
  try {
    model = pe.modelPositions(given);
  } catch (error) {
    showError(`${where}: ${error.message}`);
    return;
  }
  showError('');
  showWarnings(model.warnings);
  config = given;
  for (const input of [slider, number]) {
    input.max = String(model.numLayers - 1);
    input.value = '0';
  }
  const sources = typeof given === 'string' ? pe.modelPresets[given]._source : null;
  source.textContent = sources ? `Position fields of ${given}'s published config.json, read from ${sources.length} source${sources.length > 1 ? 's' : ''}${pe.modelPresets[given]._verified ? ' that agree' : ''}: ${sources.map((s) => s.split(' ')[0]).join('; ')}.` : `${where}.`;
  if (typeof given === 'string') {
    element.config = null;
    element.setAttribute('config', given);
  } else {
    element.config = given;
  }
  element.setAttribute('layer', '0');
}

function parse(text, where) {
  try {
    return JSON.parse(text);
  } catch (error) {
    showError(`${where} is not JSON: ${error.message}`);
    return null;
  }
}

presetSelect.addEventListener('change', () => use(presetSelect.value, presetSelect.value));
for (const input of [slider, number]) {
  input.addEventListener('input', () => {
    const layer = Number(input.value);
    if (!Number.isInteger(layer) || layer < 0 || layer > Number(slider.max)) {
      showError(`layer must be an integer in [0, ${slider.max}], got ${input.value}`);
      return;
    }
    showError('');
    slider.value = number.value = String(layer);
    element.setAttribute('layer', String(layer));
  });
}
document.querySelector('#config-file').addEventListener('change', async (event) => {
  const file = event.target.files[0];
  if (!file) return;
  const parsed = parse(await file.text(), file.name);
  if (parsed) use(parsed, `your ${file.name}`);
});
document.querySelector('#use-text').addEventListener('click', () => {
  const parsed = parse(document.querySelector('#config-text').value, 'the pasted text');
  if (parsed) use(parsed, 'the pasted config.json');
});
document.querySelector('#model-controls').addEventListener('submit', (event) => event.preventDefault());

const result = document.querySelector('#check-result');
async function check() {
  const file = document.querySelector('#check-file').files[0];
  if (!file) return;
  const from = Number(document.querySelector('#check-from').value);
  if (!Number.isInteger(from) || from < 0) {
    result.textContent = `first position must be a whole number >= 0, got ${document.querySelector('#check-from').value}`;
    return;
  }
  result.textContent = `Checking ${file.name}…`;
  try {
    const r = await compute('checkCache', { file, config, layer: Number(slider.value), from });
    const where = r.at ? ` Largest difference ${r.maxAbs.toExponential(2)} at position ${r.at.position}, column ${r.at.column}.` : '';
    result.textContent = r.verdict === 'mismatch'
      ? `Mismatch (${r.rows} positions × ${r.columns} columns).${where}\nSuspect: ${r.suspect}. ${r.explanation}.`
      : `Consistent: ${r.verdict} (${r.rows} positions × ${r.columns} columns).${where}\n${r.explanation}.`;
    result.dataset.verdict = r.verdict;
  } catch (error) {
    result.textContent = error.message;
    result.dataset.verdict = 'error';
  }
}
document.querySelector('#check-file').addEventListener('change', check);
document.querySelector('#check-from').addEventListener('change', check);
document.querySelector('#check-controls').addEventListener('submit', (event) => event.preventDefault());
document.documentElement.dataset.ready = 'true';
