// Before tables: one-hot vectors. A token as a row of the vocabulary's size with a single 1; every two tokens the
// same distance apart; and the lookup as the product one-hot × table, computed both ways by the package.
import { load } from 'posembed';
import { Figure, TOY_VOCABULARY, proseNumber, toyIds, toyTokens } from 'posembed/components';
import { redrawOnChange } from './controls.js';

const D_MODEL = 8;
const GPT2 = { vocabulary: 50257, width: 768, batch: 8, length: 1024 };

const bytes = (n) => {
  const units = [['GB', 1e9], ['MB', 1e6], ['kB', 1e3]];
  const [unit, size] = units.find(([, s]) => n >= s) ?? ['bytes', 1];
  return `${(n / size).toPrecision(3)} ${unit}`;
};

export async function mountOneHot(section) {
  const pe = await load();
  const form = section.querySelector('form');
  const errorLine = section.querySelector('.error');
  const [oneHotFigure, productFigure, lookupFigure] = ['.one-hot', '.product', '.lookup'].map((where, i) => new Figure(section.querySelector(where), {
    label: ['The one-hot rows of the expression', 'One-hot rows times the table', 'The rows looked up by id'][i],
    title: ['one-hot [tokens × 20]', 'one-hot × table [tokens × 8]', 'lookup [tokens × 8]'][i],
  }));
  const embedding = pe.tokenEmbedding({ vocabSize: TOY_VOCABULARY.length, dModel: D_MODEL, init: { std: 1, seed: 0 } });
  const table = embedding.weights;
  // The table's columns as rows: similarity(a, b) is a · bᵀ, so similarity(oneHot, tableᵀ) is oneHot · table.
  const transposed = { data: new Float32Array(table.data.length), shape: [D_MODEL, TOY_VOCABULARY.length] };
  for (let v = 0; v < TOY_VOCABULARY.length; v++) for (let k = 0; k < D_MODEL; k++) transposed.data[k * TOY_VOCABULARY.length + v] = table.data[v * D_MODEL + k];

  const draw = () => {
    let tokens;
    try {
      tokens = toyTokens(String(new FormData(form).get('text')));
    } catch (error) {
      errorLine.textContent = error.message;
      errorLine.hidden = false;
      return;
    }
    errorLine.hidden = true;
    const ids = Array.from(toyIds(tokens));
    const oneHot = { data: new Float32Array(ids.length * TOY_VOCABULARY.length), shape: [ids.length, TOY_VOCABULARY.length] };
    ids.forEach((id, row) => { oneHot.data[row * TOY_VOCABULARY.length + id] = 1; });
    const rows = { label: 'token', names: tokens };
    oneHotFigure.heatmap(oneHot, { colormap: 'viridis', range: { min: 0, max: 1 }, x: { label: 'vocabulary id', names: TOY_VOCABULARY }, y: rows, colour: { label: 'value' } });
    // Distances between different tokens' one-hot rows, from their dot products: |a − b|² = 2 − 2 a·b.
    const dots = pe.similarity(oneHot, null, { metric: 'dot' });
    const distances = [];
    ids.forEach((a, i) => ids.forEach((b, j) => { if (a !== b) distances.push(Math.sqrt(2 - 2 * dots.data[i * ids.length + j])); }));
    const nearest = distances.reduce((a, b) => Math.min(a, b), Infinity);
    const farthest = distances.reduce((a, b) => Math.max(a, b), -Infinity);
    oneHotFigure.caption = `${ids.length} tokens, ${ids.length} rows of ${TOY_VOCABULARY.length} numbers, each all zeros but one 1. `
      + (distances.length ? `Any two different tokens are the same distance apart: measured here, from ${proseNumber(nearest, 4)} to ${proseNumber(farthest, 4)} (√2 = ${proseNumber(Math.SQRT2, 4)}). `
        : '') + 'Nothing says that 1 is nearer 2 than Max: one-hot rows hold no meaning, and grow as long as the vocabulary.';
    const product = pe.similarity(oneHot, transposed, { metric: 'dot' });
    const looked = embedding.lookup(ids);
    const range = { min: -2.5, max: 2.5 };
    const columns = { label: 'dimension' };
    productFigure.heatmap(product, { colormap: 'RdBu', range, x: columns, y: rows, colour: { label: 'value' } });
    lookupFigure.heatmap(looked, { colormap: 'RdBu', range, x: columns, y: rows, colour: { label: 'value' } });
    let largest = 0;
    product.data.forEach((v, i) => { largest = Math.max(largest, Math.abs(v - looked.data[i])); });
    section.dataset.largestDifference = String(largest);
    section.dataset.distances = distances.length ? `${nearest} ${farthest}` : '';
    productFigure.caption = `Multiplying [${ids.length} × ${TOY_VOCABULARY.length}] one-hot rows by the [${TOY_VOCABULARY.length} × ${D_MODEL}] table picks out one table row per token.`;
    lookupFigure.caption = `Reading row id of the table directly gives the same [${ids.length} × ${D_MODEL}]: largest difference ${proseNumber(largest)}. `
      + 'That is what an embedding layer is: the product, without ever making the one-hot rows.';
  };
  redrawOnChange(form, draw);
  draw();
  const { vocabulary, width, batch, length } = GPT2;
  section.querySelector('.memory').textContent = `At GPT-2's size the difference is memory. A batch of ${batch} sequences of ${length} tokens as one-hot rows `
    + `of ${vocabulary} float32s is ${batch} × ${length} × ${vocabulary} × 4 bytes = ${bytes(batch * length * vocabulary * 4)}; as ids it is `
    + `${bytes(batch * length * 4)}, and the table they index, [${vocabulary} × ${width}], ${bytes(vocabulary * width * 4)} once. Ids [batch, seq] `
    + `look up rows [batch, seq, d_model]: [${batch}, ${length}] → [${batch}, ${length}, ${width}].`;
}
