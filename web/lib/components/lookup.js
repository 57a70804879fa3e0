import { onHost } from '../figures.js';

// The token-lookup walkthrough: text → tokens → ids → rows of the table → ×√d → + PE → combined.
// The rows, the scaled rows and the encoding come from the package; the panel only lays them out.

export const VOCABULARY = ['<pad>', '<bos>', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '+', '-', 'Min', 'Max', 'Sum', '(', ')', ','];
const PAD = 0;
const TOKEN_PATTERN = /Max|Min|Sum|\d|[()+,-]|\s+|./g;
const SHOWN_COLUMNS = 8;

export function tokenize(text) {
  const tokens = [];
  for (const [piece] of text.matchAll(TOKEN_PATTERN)) {
    if (/^\s+$/.test(piece)) continue;
    const id = VOCABULARY.indexOf(piece);
    if (id < 0) throw new RangeError(`'${piece}' is not in the vocabulary (${VOCABULARY.slice(2).join(' ')})`);
    tokens.push(piece);
  }
  return tokens;
}

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  node.append(...children);
  return node;
}

function matrixTable(step, tensor, labels) {
  const [rows, columns] = tensor.shape;
  const shown = Math.min(columns, SHOWN_COLUMNS);
  const head = element('tr', {}, element('th', { scope: 'col' }, 'pos'), element('th', { scope: 'col' }, 'token'));
  for (let c = 0; c < shown; c++) head.append(element('th', { scope: 'col' }, `d${c}`));
  if (shown < columns) head.append(element('th', { scope: 'col' }, `… ${columns - shown} more`));
  const body = [];
  for (let r = 0; r < rows; r++) {
    const tr = element('tr', {}, element('th', { scope: 'row' }, String(r)), element('td', {}, labels[r]));
    for (let c = 0; c < shown; c++) {
      tr.append(element('td', { 'data-step': step, 'data-row': String(r), 'data-col': String(c) }, tensor.data[r * columns + c].toFixed(4)));
    }
    if (shown < columns) tr.append(element('td', {}, '…'));
    body.push(tr);
  }
  return element('div', { class: 'matrix-scroll' }, element('table', { class: 'matrix', 'data-step': step }, element('thead', {}, head), element('tbody', {}, ...body)));
}

function stepBox(title, shape, ...content) {
  return element('div', { class: 'step' }, element('h3', {}, title, ' ', element('span', { class: 'shape' }, `[${shape.join(', ')}]`)), ...content);
}

export function mountLookup(pe, root) {
  const form = root.querySelector('#lookup-controls');
  const steps = root.querySelector('#lookup-steps');
  const errorBox = root.querySelector('#lookup-error');
  root.querySelector('#vocabulary').textContent = VOCABULARY.map((token, id) => `${id}: ${token}`).join('   ');
  let embedding = null;
  let embeddingKey = '';

  function table(dModel, seed) {
    const key = `${dModel}/${seed}`;
    if (key !== embeddingKey) {
      embedding?.dispose();
      // std 0.2 rather than GPT-2's 0.02, so that rows are visible at four decimals beside the encoding.
      embedding = pe.tokenEmbedding({ vocabSize: VOCABULARY.length, dModel, paddingIdx: PAD, scale: 'sqrt', init: { type: 'normal', std: 0.2, seed } });
      embeddingKey = key;
    }
    return embedding;
  }

  let generation = 0;

  async function render() {
    const current = ++generation;
    const f = new FormData(form);
    const dModel = Number(f.get('dModel'));
    let tokens;
    let emb;
    try {
      tokens = tokenize(String(f.get('text')));
      const padTo = Number(f.get('padTo'));
      if (!Number.isInteger(padTo) || padTo < 1 || padTo > 64) throw new RangeError(`pad to must be an integer in [1, 64], got ${f.get('padTo')}`);
      while (tokens.length < padTo) tokens.push(VOCABULARY[PAD]);
      if (tokens.length === 0) throw new RangeError('type at least one token');
      emb = table(dModel, Number(f.get('seed')));
    } catch (error) {
      errorBox.textContent = error.message;
      errorBox.hidden = false;
      return;
    }
    errorBox.hidden = true;
    const ids = tokens.map((token) => VOCABULARY.indexOf(token));
    const n = ids.length;
    const weights = emb.weights;
    const rows = { data: new Float32Array(n * dModel), shape: [n, dModel] };
    ids.forEach((id, r) => rows.data.set(weights.data.subarray(id * dModel, (id + 1) * dModel), r * dModel));
    const scaled = await onHost(emb.lookup(ids));
    const position = await onHost(pe.sinusoidal({ length: n, dModel }));
    if (current !== generation) return;  // a newer render has started
    const combined = { data: scaled.data.map((v, i) => v + position.data[i]), shape: [n, dModel] };

    const tokenChips = element('div', { class: 'tokens' }, ...tokens.map((t, i) => element('span', { class: 'token', 'data-index': String(i) }, t, ' ', element('small', {}, `→ ${ids[i]}`))));
    steps.replaceChildren(
      stepBox('1 · tokens → ids', [n], tokenChips, element('p', { class: 'ids' }, `ids = [${ids.join(', ')}]`)),
      stepBox('2 · rows of the table E[ids]', rows.shape, element('p', {}, `E has shape [${VOCABULARY.length}, ${dModel}]; row ${PAD} (<pad>) reads as zeros.`), matrixTable('rows', rows, tokens)),
      stepBox(`3 · × √dModel = × ${emb.scale.toFixed(4)}`, scaled.shape, matrixTable('scaled', scaled, tokens)),
      stepBox('4 · + positional encoding PE(pos)', position.shape, matrixTable('position', position, tokens)),
      stepBox('5 · combined = E[ids]·√dModel + PE', combined.shape, matrixTable('combined', combined, tokens)),
    );
  }

  const rerender = () => render().catch((error) => {
    errorBox.textContent = error.message;
    errorBox.hidden = false;
  });
  const preventSubmit = (event) => event.preventDefault();
  form.addEventListener('input', rerender);
  form.addEventListener('submit', preventSubmit);
  rerender();
  return {
    // Stops listening and frees the table.
    unmount() {
      generation++;
      form.removeEventListener('input', rerender);
      form.removeEventListener('submit', preventSubmit);
      embedding?.dispose();
      embedding = null;
      embeddingKey = '';
    },
    holdsTable: () => embedding !== null,
  };
}
