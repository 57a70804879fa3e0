// The token-lookup walkthrough over the tutorials' toy vocabulary: text → tokens → ids → rows of the table
// → ×√d → + positions. Every step is a heatmap of all d columns on one colour scale, so the √d step shows
// as colour, the padding rows as white, and repeated tokens as identical rows until positions are added.
// The rows, the scaled rows and the encoding come from the package; the walkthrough lays them out.
import { onHost } from '../encoding_figures.js';
import { BORDER, INK, MUTED, cssFont } from '../scene.js';
import { TOY_PADDING, TOY_VOCABULARY, toyIds, toyTokens } from '../toy_vocabulary.js';
import { Figure, drawPicture, formatValue, proseNumber, textWidth } from './figure.js';

const RANGE = { min: -3, max: 3 };  // one scale for every step: unscaled rows (std 1/√d) read pale beside the rest
const CHIP = { size: 13, idSize: 11, padding: 6, gap: 4, height: 22, baseline: 15 };

// A token's chip as a picture (drawn live and in the exports from the same marks): the token and, smaller, its id,
// in a bordered box sized to them in the font `family`.
function tokenChip(token, id, family) {
  const idText = `→ ${id}`;
  const tokenWidth = textWidth(token, cssFont({ family, size: CHIP.size, weight: 400 }));
  const width = Math.ceil(2 * CHIP.padding + tokenWidth + CHIP.gap + textWidth(idText, cssFont({ family, size: CHIP.idSize, weight: 400 })));
  return {
    width, height: CHIP.height,
    marks: [
      { kind: 'rect', x: 0.5, y: 0.5, width: width - 1, height: CHIP.height - 1, fill: 'none', stroke: BORDER },
      { kind: 'text', x: CHIP.padding, y: CHIP.baseline, text: token, size: CHIP.size, weight: 400, fill: INK },
      { kind: 'text', x: CHIP.padding + tokenWidth + CHIP.gap, y: CHIP.baseline, text: idText, size: CHIP.idSize, weight: 400, fill: MUTED },
    ],
  };
}

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  node.append(...children);
  return node;
}

// Reads and checks the walkthrough's inputs; every RangeError names the control.
export function lookupInputs({ text, dModel, padTo, seed, scale }) {
  const checkInteger = (name, value, low, high) => {
    if (!Number.isInteger(value) || value < low || value > high) throw new RangeError(`${name} must be an integer in [${low}, ${high}], got ${value}`);
  };
  checkInteger('d_model', dModel, 2, 512);
  if (dModel % 2) throw new RangeError(`d_model must be even (sine and cosine pairs), got ${dModel}`);
  checkInteger('pad to', padTo, 1, 64);
  checkInteger('seed', seed, 0, 4294967295);
  const tokens = toyTokens(text);
  if (tokens.length === 0) throw new RangeError('type at least one token, such as Max(1,6,2)');
  if (tokens.length > 64) throw new RangeError(`at most 64 tokens, got ${tokens.length}`);
  while (tokens.length < padTo) tokens.push(TOY_VOCABULARY[TOY_PADDING]);
  return { tokens, dModel, seed, scaled: scale !== 'none' };
}

function largestDifference(tensor, a, b) {
  const d = tensor.shape[1];
  let largest = 0;
  for (let c = 0; c < d; c++) largest = Math.max(largest, Math.abs(tensor.data[a * d + c] - tensor.data[b * d + c]));
  return largest;
}

// The walkthrough in `container`: call update(inputs) to draw it for new inputs; dispose() frees the table.
export function createLookup(pe, container, { axes = true, legend = true } = {}) {
  const chips = element('div', { class: 'tokens' });
  const ids = element('p', { class: 'ids' });
  container.append(element('section', { class: 'step' }, element('h3', {}, '1 · Text → tokens → ids'), chips, ids));
  // A step: its figure, headed by its title; its caption says what the numbers show.
  const step = (title, label) => {
    const box = element('section', { class: 'step' });
    container.append(box);
    return new Figure(box, { label, title, heading: 3, axes, legend });
  };
  const rows = step('2 · Each id picks its row of the embedding table E', 'Rows of the embedding table for each token');
  const scaled = step('3 · × √d_model', 'The rows multiplied by the square root of d_model');
  const position = step('4 · The positional encoding PE(position)', 'The sinusoidal encoding of each position');
  const sum = step('5 · Input to the first layer = E[id]·√d_model + PE(position)', 'The sum of the scaled rows and the positions');
  const figures = [rows, scaled, position, sum];

  let embedding = null;
  let embeddingKey = '';
  let generation = 0;

  function table(dModel, seed) {
    const key = `${dModel}/${seed}`;
    if (key !== embeddingKey) {
      embedding?.dispose();
      // std 1/√d, the original Transformer's initialisation for its shared table: ×√d brings the rows to the
      // size of the position values.
      embedding = pe.tokenEmbedding({ vocabSize: TOY_VOCABULARY.length, dModel, paddingIdx: TOY_PADDING, init: { type: 'normal', std: 1 / Math.sqrt(dModel), seed } });
      embeddingKey = key;
    }
    return embedding;
  }

  async function update(inputs) {
    const current = ++generation;
    const { tokens, dModel, seed, scaled: scaling } = lookupInputs(inputs);
    for (const figure of figures) figure.stale(true);
    const tokenIds = toyIds(tokens);
    const n = tokens.length;
    const emb = table(dModel, seed);
    const picked = await onHost(emb.lookup(tokenIds));
    const factor = scaling ? Math.sqrt(dModel) : 1;
    const times = { data: picked.data.map((v) => v * factor), shape: picked.shape };
    const positions = await onHost(pe.sinusoidal({ length: n, dModel }));
    if (current !== generation) return;
    const total = { data: times.data.map((v, i) => v + positions.data[i]), shape: [n, dModel] };

    const drawChips = () => {
      const family = getComputedStyle(chips).fontFamily;
      chips.replaceChildren(...tokens.map((t, i) => drawPicture(tokenChip(t, tokenIds[i], family), { class: 'token-chip', role: 'img', 'aria-label': `${t} → ${tokenIds[i]}`, 'data-index': String(i) })));
    };
    drawChips();
    // Sized in the page's font: measured again once a web font still loading has come.
    if (document.fonts?.status === 'loading') document.fonts.ready.then(() => { if (current === generation) drawChips(); });
    ids.textContent = `ids = [${tokenIds.join(', ')}]`;
    const labels = tokens.map((t, i) => `${i} ${t}`);
    const y = { label: 'position · token', names: labels };
    const x = { label: 'dimension' };
    const describe = (what) => (row, column, value) => `${what}, position ${row} (${tokens[row]}), dimension ${column}: ${formatValue(value)}`;
    rows.heatmap(picked, { range: RANGE, x, y, colour: { label: 'value' }, describe: describe('E[id]') });
    scaled.heatmap(times, { range: RANGE, x, y, colour: { label: 'value' }, describe: describe(`E[id] × ${factor.toFixed(4)}`) });
    position.heatmap(positions, { range: RANGE, x, y: { label: 'position', names: labels }, colour: { label: 'value' }, describe: describe('PE') });
    sum.heatmap(total, { range: RANGE, x, y, colour: { label: 'value' }, describe: describe('sum') });

    const padded = tokens.flatMap((t, i) => (t === TOY_VOCABULARY[TOY_PADDING] ? [i] : []));
    rows.caption = `An untrained (random) table, [${TOY_VOCABULARY.length} tokens × ${dModel}], values drawn with standard deviation 1/√${dModel} = ${(1 / Math.sqrt(dModel)).toFixed(3)}: pale, and meaningless until trained.`
      + (padded.length ? ` Rows ${padded[0]}–${padded.at(-1)} are <pad>: its row is kept at zero, so they are white.` : '');
    const repeated = tokens.findIndex((t, i) => t !== TOY_VOCABULARY[TOY_PADDING] && tokens.indexOf(t) !== i);
    const first = tokens.indexOf(tokens[repeated]);
    scaled.caption = (scaling
      ? `×√${dModel} = ×${proseNumber(factor, 4)}: the same pattern, now with values about as large as the positions' ±1.`
      : 'Scaling is off: the rows stay small beside the positions, which would drown them out.')
      + (repeated >= 0 ? ` Rows ${first} and ${repeated} are both '${tokens[repeated]}': identical so far (largest difference ${proseNumber(largestDifference(times, first, repeated))}).` : '');
    position.caption = 'Each row is one position: the same for every sentence, whatever its tokens. Left columns change fast down the rows, right ones slowly.';
    sum.caption = 'What the first attention layer sees: token identity and position mixed into one vector per row.'
      + (repeated >= 0 ? ` After adding positions, rows ${first} and ${repeated} ('${tokens[repeated]}') differ (largest difference ${proseNumber(largestDifference(total, first, repeated))}): the model can tell the two apart.` : '');
  }

  return {
    update,
    holdsTable: () => embedding !== null,
    dispose() {
      generation++;
      embedding?.dispose();
      embedding = null;
      embeddingKey = '';
    },
  };
}

// Wires the walkthrough to a form (#lookup-controls: text, dModel, padTo, seed, scale) with an error line
// (#lookup-error) beside it and the steps in #lookup-steps. Returns { unmount, holdsTable }.
export function mountLookup(pe, root, options) {
  const form = root.querySelector('#lookup-controls');
  const errorBox = root.querySelector('#lookup-error');
  const vocabulary = root.querySelector('#vocabulary');
  if (vocabulary) vocabulary.textContent = TOY_VOCABULARY.map((token, id) => `${id}: ${token}`).join('   ');
  const lookup = createLookup(pe, root.querySelector('#lookup-steps'), options);
  let timer = 0;

  const render = () => {
    const f = new FormData(form);
    return lookup.update({
      text: String(f.get('text')), dModel: Number(f.get('dModel')), padTo: Number(f.get('padTo')), seed: Number(f.get('seed')),
      scale: f.get('scale') === null ? 'none' : 'sqrt',
    }).then(() => { errorBox.hidden = true; }, (error) => {
      errorBox.textContent = error.message;
      errorBox.hidden = false;
    });
  };
  const debounced = () => {
    clearTimeout(timer);
    timer = setTimeout(render, 120);
  };
  const preventSubmit = (event) => event.preventDefault();
  form.addEventListener('input', debounced);
  form.addEventListener('submit', preventSubmit);
  const first = render();
  return {
    ready: first,
    render,
    unmount() {
      clearTimeout(timer);
      form.removeEventListener('input', debounced);
      form.removeEventListener('submit', preventSubmit);
      lookup.dispose();
    },
    holdsTable: lookup.holdsTable,
  };
}
