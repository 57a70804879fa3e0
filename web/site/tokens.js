// Token embeddings page: text → ids (GPT-2's BPE, or the tokenizer of the model the reader drops or opens by URL) →
// rows of an untrained seeded table, or of real weights the reader drops or opens; the nearest tokens and a PCA of the sentence's rows.
// The table and a dropped tokenizer live in the compute worker (a seeded GPT-2-sized table is 50257 rows; a
// tokenizer.json of 150,000 tokens takes seconds to read); this page draws.
import { Figure, TOY_VOCABULARY, toyIds, toyTokens } from 'posembed/components';
import { drawVocabularyMap, namedIds } from 'posembed/vocabulary-map';
import { load } from 'posembed';
import { compute } from './compute.js';
import { redrawOnChange } from './controls.js';
import { mountBpe } from './ideas/bpe.js';
import { mountTableSize } from './ideas/table-size.js';

// The page's instance, asked for first so that the elements below draw with it rather than load one of their own.
const loading = load();
const $ = (selector) => document.querySelector(selector);
const form = $('#token-controls');
const errorBox = $('#token-error');
const rowsFigure = new Figure($('#rows-figure'), { label: 'The looked-up rows, token by dimension' });
const pcaFigure = new Figure($('#pca-figure'), { label: "The sentence's rows placed by their two principal axes" });
const vocabularyFigure = new Figure($('#vocabulary-figure'), { label: 'How many of the table\'s rows lie in each cell of its two principal axes' });
const arithmeticFigure = new Figure($('#arithmetic-figure'), { label: 'The rows nearest a − b + c, by cosine', title: 'Nearest to a − b + c' });
const arithmeticForm = $('#arithmetic-controls');
let dropped = null;  // { name, shape, dtype, file } chosen from a dropped file
let modelTokenizer = null;  // { file, vocabSize, modelType }: a dropped tokenizer.json, read in the worker
let selected = 0;
let generation = 0;

function showError(message) {
  errorBox.textContent = message;
  errorBox.hidden = !message;
}

const shown = (label) => JSON.stringify(label).slice(1, -1);

function toyTextIds(text) {
  try {
    return Array.from(toyIds(toyTokens(text)));
  } catch (error) {
    throw new RangeError(`this table has the toy vocabulary's 20 rows, so the text must be toy tokens: ${error.message}`);
  }
}

// Text → ids and each id's text: the toy vocabulary's (a table of 20 rows, as the Train page saves it), or in the
// worker a dropped tokenizer's or GPT-2's.
async function encodeText(text) {
  if (isToy()) {
    const ids = toyTextIds(text);
    return { ids, labels: ids.map((id) => TOY_VOCABULARY[id]) };
  }
  return compute('encode', { text });
}

async function labelsOf(ids) {
  if (isToy()) return Array.from(ids, (id) => TOY_VOCABULARY[id] ?? '');
  return compute('labels', { ids: Array.from(ids) });
}

const tokenizerName = () => (modelTokenizer ? `${modelTokenizer.file}'s` : 'GPT-2\'s');

// A dropped table and a dropped tokenizer must be one model's: ids past the table's rows are refused, naming both.
// (The toy vocabulary's table is read with the toy vocabulary, whatever tokenizer is open.)
function checkPair() {
  if (dropped && !isToy() && modelTokenizer && modelTokenizer.vocabSize > dropped.shape[0]) {
    throw new RangeError(`${modelTokenizer.file} gives ids up to ${modelTokenizer.vocabSize - 1}, past the ${dropped.shape[0]} rows of ${dropped.name}: this tokenizer is not this table's`);
  }
}

async function render() {
  const current = ++generation;
  try {
    const f = new FormData(form);
    const toy = isToy();
    checkPair();
    const { ids, labels } = await encodeText(String(f.get('text')));
    if (current !== generation) return;
    if (ids.length === 0) throw new RangeError(toy ? 'type a toy expression such as Max(1,6,2)' : 'type some text');
    if (ids.length > 256) throw new RangeError(`at most 256 tokens, got ${ids.length}`);
    selected = Math.min(selected, ids.length - 1);
    const dModel = Number(f.get('dModel'));
    if (!dropped && (!Number.isInteger(dModel) || dModel < 2 || dModel > 256 || dModel % 2)) throw new RangeError(`seeded d_model must be an even integer in [2, 256], got ${f.get('dModel')}`);
    rowsFigure.stale(true);
    pcaFigure.stale(true);
    const result = await compute('tokens', { ids, selected, table: tableChoice() });
    if (current !== generation) return;
    $('#token-chips').replaceChildren(...ids.map((id, i) => {
      const chip = document.createElement('button');
      chip.type = 'button';
      chip.className = 'token';
      chip.dataset.index = String(i);
      chip.setAttribute('aria-pressed', String(i === selected));
      chip.textContent = `${shown(labels[i])} → ${id}`;
      chip.addEventListener('click', () => { selected = i; render(); });
      return chip;
    }));
    const source = dropped ? `${dropped.name} from ${dropped.file}` : 'an untrained (random) table';
    if (result.tooSmall) {
      // A table too small for GPT-2's ids (such as a test file): show the table itself and say why.
      rowsFigure.heatmap(result.rows, { x: { label: 'dimension' }, y: { label: 'row of the table' }, colour: { label: 'value' } });
      $('#rows-caption').textContent = `The table has ${result.tooSmall.shape[0]} rows, but ${tokenizerName()} token ids go up to ${result.tooSmall.largest}: `
        + `a table with a row for each of its ids looks up real tokens. Showing the table itself, [${result.tooSmall.shape.join(', ')}].`;
      $('#nearest').replaceChildren();
    } else {
      const { rows } = result;
      rowsFigure.heatmap(rows, { x: { label: 'dimension' }, y: { label: 'token', names: labels.map(shown) }, colour: { label: 'value' } });
      // GPT-2's pieces on another model's table would be silently wrong rows: said, with the way out.
      const foreign = dropped && !toy && !modelTokenizer && dropped.shape[0] !== 50257
        ? ` The text is cut by GPT-2's tokenizer, but this table has ${dropped.shape[0].toLocaleString('en')} rows, not GPT-2's 50,257: it is another model's, whose ids mean other tokens. Drop that model's tokenizer.json to cut the text as it does.`
        : '';
      $('#rows-caption').textContent = `rows [${ids.length}, ${rows.shape[1]}] of a [${result.vocabSize}, ${rows.shape[1]}] table (${dropped ? dropped.name : 'seeded'}), ids from ${tokenizerName()} tokenizer.${foreign}`;
      rowsFigure.caption = dropped ? `Rows of ${source}.` : 'Rows of an untrained (random) table: until trained, the numbers carry no meaning.';
      $('#nearest-caption').textContent = dropped
        ? `The rows of ${source} closest in direction (cosine) to the selected token's row.`
        : 'Untrained (random) table: these neighbours are chance, not meaning. Open a model above, or drop its weights, to see real neighbours.';
      const nearestLabels = await labelsOf(result.indices);
      if (current !== generation) return;
      $('#nearest').replaceChildren(...Array.from(result.indices, (id, i) => {
        const item = document.createElement('li');
        item.textContent = `${JSON.stringify(nearestLabels[i])} (${id}): ${result.scores[i].toFixed(4)}`;
        return item;
      }));
      if (result.projected) {
        pcaFigure.points(ids.map((_, i) => ({ x: result.projected.data[2 * i], y: result.projected.data[2 * i + 1], label: shown(labels[i]) })),
          { x: { label: 'principal axis 1' }, y: { label: 'principal axis 2' } });
        pcaFigure.caption = dropped
          ? `The sentence's rows of ${source}, placed by the two directions along which they differ most. Tokens used alike tend to lie close.`
          : 'An untrained (random) table: "The" and "the" land anywhere. Positions here mean nothing until the table is trained or real weights are dropped.';
      }
    }
    showError('');
    renderVocabulary(ids);
    document.documentElement.dataset.rendered = String(Number(document.documentElement.dataset.rendered ?? 0) + 1);
  } catch (error) {
    if (current === generation) showError(error.message);
  }
}

// A dropped tokenizer.json is read in the worker; the text is cut by it from then on.
async function readTokenizer(file) {
  const status = $('#tokenizer-status');
  status.textContent = `Reading ${file.name}…`;
  try {
    const opened = await compute('openTokenizer', { file });
    modelTokenizer = opened;
    status.textContent = `Tokenizer: ${file.name} (${opened.modelType}, ${opened.vocabSize.toLocaleString('en')} ids).`;
    $('#tokenizer-remove').hidden = false;
    showError('');
  } catch (error) {
    status.textContent = modelTokenizer ? `Tokenizer: ${modelTokenizer.file}.` : 'Tokenizer: GPT-2\'s (built in).';
    showError(error.message);
    return;
  }
  redrawAll();
}

// A dropped file is opened in the compute worker (its header only); the chosen 2-D tensor is read from it, with
// progress, the likely token table first. A .json file is a tokenizer.
async function readWeights(file) {
  if (file.name.toLowerCase().endsWith('.json')) {
    readTokenizer(file);
    return;
  }
  await chooseTable(file.name, `Opening ${file.name}…`, () => compute('openWeights', { file }));
}

// A model by its folder URL (the Hub's …/resolve/main/): its tokenizer and its checkpoint's headers, then its token
// table streamed into the worker by HTTP Range, with progress.
async function readModel(url) {
  return chooseTable(url, `Opening ${url} (config.json, tokenizer.json, the checkpoint's headers)…`, async () => {
    const opened = await compute('openModel', { url });
    modelTokenizer = opened.tokenizer;
    $('#tokenizer-status').textContent = `Tokenizer: ${opened.tokenizer.file}'s (${opened.tokenizer.modelType}, ${opened.tokenizer.vocabSize.toLocaleString('en')} ids).`;
    $('#tokenizer-remove').hidden = false;
    return opened;
  });
}

// Opens weights in the worker (open()), lists their 2-D tensors, and reads the chosen one (the likely token table
// first) to be the table; a failure is named and the table in use stays. Resolves to whether the table was read.
async function chooseTable(source, opening, open) {
  const progress = $('#weights-progress');
  const status = $('#weights-status');
  const current = () => (dropped ? `Table: ${dropped.name} [${dropped.shape.join(', ')}] from ${dropped.file}.` : 'Table: seeded.');
  status.textContent = opening;
  let opened;
  try {
    opened = await open();
  } catch (error) {
    status.textContent = current();
    showError(error.message);
    return false;
  }
  const file = opened.tokenizer?.file ?? source;
  const select = $('#tensor-select');
  select.replaceChildren(...opened.matrices.map(({ name, shape, dtype }) => Object.assign(document.createElement('option'), { value: name, textContent: `${name} [${shape.join(', ')}] ${dtype}` })));
  select.value = opened.likely;
  $('#tensor-choice').hidden = opened.matrices.length < 2;
  const choose = async () => {
    const { name, shape, dtype, bytes } = opened.matrices.find((m) => m.name === select.value);
    progress.hidden = false;
    progress.value = 0;
    status.textContent = `Reading ${name} (${(bytes / 2 ** 20).toFixed(1)} MB of ${dtype}) from ${file}…`;
    try {
      await compute('readTable', { name }, { onProgress: (fraction) => { progress.value = fraction; } });
    } catch (error) {
      status.textContent = current();
      showError(`${file}: ${error.message}`);
      return false;
    } finally {
      progress.hidden = true;
    }
    useDropped({ name, shape, dtype, file }, `Table: ${name} [${shape.join(', ')}] from ${file}.`);
    showError('');
    redrawAll();
    return true;
  };
  select.onchange = choose;
  return choose();
}

// The page opens on a real model's table (the model field's first value, SmolLM2-135M: its size stated beside it),
// read once the untrained table is drawn. Where the reader's browser asks to save data, or the Hub cannot be reached,
// the untrained table stays, and the status line says why and how to read the real one.
async function openDefaultModel() {
  const url = $('#model-controls input[name=url]').value;
  const name = $(`#model-presets option[value="${url}"]`).textContent;
  if (navigator.connection?.saveData) {
    $('#weights-status').textContent = `Table: seeded (untrained). Your browser asks pages to save data, so ${name} is not read until you press "Open the model".`;
    return;
  }
  if (await readModel(url)) return;
  const reason = errorBox.textContent;
  showError('');
  $('#weights-status').textContent = `Table: seeded (untrained). ${name} could not be read from the Hub (${reason}); offline, the neighbours, pictures and arithmetic below are those of random rows.`;
}

// The dropped table, or a seeded one with a row for each id of the tokenizer in use.
const tableChoice = () => {
  const f = new FormData(form);
  return dropped ? { tensor: dropped.name } : { dModel: Number(f.get('dModel')), seed: Number(f.get('seed')), vocabSize: modelTokenizer?.vocabSize ?? 50257 };
};
function isToy() {
  return dropped?.shape[0] === TOY_VOCABULARY.length;
}

// The whole table's PCA as counts per cell (log scale), computed in the worker.
let vocabularyGeneration = 0;
async function renderVocabulary(ids) {
  const current = ++vocabularyGeneration;
  const rows = dropped ? dropped.shape[0] : modelTokenizer?.vocabSize ?? 50257;
  vocabularyFigure.stale(true, `Computing the principal axes of ${rows.toLocaleString('en')} rows…`);
  try {
    const result = await compute('vocabulary', { ids, table: tableChoice() });
    if (current !== vocabularyGeneration) return;
    // Each cell's example token and the selected one, named by the tokenizer in use.
    const named = namedIds(result);
    const names = new Map((await labelsOf(named)).map((label, i) => [named[i], label]));
    if (current !== vocabularyGeneration) return;
    const tokenName = (id) => names.get(id) ?? '';
    const { counts } = result;
    const chosen = drawVocabularyMap(vocabularyFigure, result, { tokenName, selectedId: ids[selected] });
    const where = chosen ? ` The selected token, ${JSON.stringify(tokenName(chosen.id))}, lies at (${chosen.x.toFixed(2)}, ${chosen.y.toFixed(2)}), in a cell of ${counts[chosen.cell]}.` : '';
    vocabularyFigure.caption = (dropped
      ? `All ${result.rows.toLocaleString('en')} rows of ${dropped.name} from ${dropped.file}: where many tokens crowd, the table gives them similar directions.`
      : `All ${result.rows.toLocaleString('en')} rows of an untrained (random) table: one round cloud, as random rows give; a trained table is not round.`) + where;
    $('#vocabulary').dataset.rows = String(result.rows);
  } catch (error) {
    if (current === vocabularyGeneration) vocabularyFigure.error(error.message);
  }
}

// a − b + c on the table's rows, each word one GPT-2 token (with the leading space words have inside a sentence).
let arithmeticGeneration = 0;
async function renderArithmetic() {
  const current = ++arithmeticGeneration;
  const errorLine = $('#arithmetic-error');
  try {
    if (isToy()) throw new RangeError('this table is the toy vocabulary\'s (20 rows): word arithmetic needs a real vocabulary');
    checkPair();
    const f = new FormData(arithmeticForm);
    // Each word one token of the tokenizer in use, as inside a sentence (after a space), else alone.
    const ids = [];
    for (const name of ['a', 'b', 'c']) {
      const word = String(f.get(name)).trim();
      const spaced = await encodeText(` ${word}`);
      const tokens = spaced.ids.length === 1 ? spaced : await encodeText(word);
      if (!word || tokens.ids.length !== 1) {
        throw new RangeError(`${name} must be one token of ${tokenizerName()} tokenizer: ${JSON.stringify(` ${word}`)} is ${spaced.ids.length} (${spaced.labels.map((t) => JSON.stringify(t)).join(', ')})`);
      }
      ids.push(tokens.ids[0]);
    }
    arithmeticFigure.stale(true);
    const found = await compute('analogy', { a: ids[0], b: ids[1], c: ids[2], k: 8, table: tableChoice() });
    const [wordLabels, foundLabels] = [await labelsOf(ids), await labelsOf(found.map(({ id }) => id))];
    if (current !== arithmeticGeneration) return;
    errorLine.hidden = true;
    const words = wordLabels.map((label) => label.trim());
    arithmeticFigure.bars(found.map(({ score }, i) => ({ label: JSON.stringify(foundLabels[i]), value: score })), {
      x: { label: 'token' }, y: { label: 'cosine with a − b + c' },
    });
    arithmeticFigure.caption = dropped
      ? `The rows of ${dropped.name} nearest ${words[0]} − ${words[1]} + ${words[2]}; nearest: ${JSON.stringify(foundLabels[0])}.`
      : 'An untrained (random) table: these neighbours are chance. Open a model above, or drop its weights, to ask a trained table.';
    $('#token-arithmetic').dataset.nearest = foundLabels[0];
  } catch (error) {
    if (current !== arithmeticGeneration) return;
    errorLine.textContent = error.message;
    errorLine.hidden = false;
  }
}

function redrawAll() {
  return Promise.all([render(), renderArithmetic()]);
}

const drop = $('#drop');
drop.addEventListener('dragover', (event) => { event.preventDefault(); drop.classList.add('over'); });
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (event) => {
  event.preventDefault();
  drop.classList.remove('over');
  if (event.dataTransfer.files[0]) readWeights(event.dataTransfer.files[0]);
});
$('#model-controls').addEventListener('submit', (event) => {
  event.preventDefault();
  readModel(new FormData(event.target).get('url').trim());
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
$('#tokenizer-remove').addEventListener('click', async () => {
  await compute('openTokenizer', { file: null });
  modelTokenizer = null;
  $('#tokenizer-status').textContent = 'Tokenizer: GPT-2\'s (built in).';
  $('#tokenizer-remove').hidden = true;
  redrawAll();
});
$('#weights-remove').addEventListener('click', () => {
  useDropped(null, 'Table: seeded.');
  $('#tensor-choice').hidden = true;
  redrawAll();
});
redrawOnChange(form, redrawAll);
redrawOnChange(arithmeticForm, renderArithmetic);
for (const each of [form, arithmeticForm]) each.addEventListener('submit', (event) => event.preventDefault());
// The ideas further down: BPE learned on this page's prose, cutting the reader's sentence; the table's size.
const pageProse = () => [...document.querySelectorAll('header p, main section > p:not(.caption, .error, .status)')].map((p) => p.textContent).join(' ');
const bpe = mountBpe($('#bpe'), { corpus: pageProse, sentence: () => String(new FormData(form).get('text')) });
form.elements.text.addEventListener('input', () => $('#bpe form').dispatchEvent(new Event('input')));
await Promise.all([redrawAll(), bpe, mountTableSize(await loading, $('#table-size'))]);
await openDefaultModel();
document.documentElement.dataset.ready = 'true';
