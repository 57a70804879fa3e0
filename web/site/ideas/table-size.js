// How wide and how long a token table should be, measured: wider rows leave more room for unrelated tokens to stay
// unrelated (random rows grow closer to orthogonal as d grows), and every row costs d numbers, paid once when one table
// serves as the input lookup and the output layer (tied), twice when the output layer has its own.
import { onHost } from 'posembed/components';
import { figures, integerField, mountIdea, nextTask } from './idea.js';

const ROWS = 256;
const WIDTHS = [4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048];
// Real tables, from each model's config: vocabulary, width, and whether the output layer reuses the table.
const MODELS = [
  { name: 'T5-small (v1.0)', vocab: 32128, width: 512, tied: true },
  { name: 'GPT-2', vocab: 50257, width: 768, tied: true },
  { name: 'Llama 3.2 1B', vocab: 128256, width: 2048, tied: true },
  { name: 'Llama 3.1 8B', vocab: 128256, width: 4096, tied: false },
];
// GPT-2 small's parameters from its shape: token and position tables, 12 blocks of attention (4 d × d weights, 4 d
// biases), a 4d-wide MLP (8 d² weights, 5 d biases) and two layer norms (4 d), and the final layer norm (2 d).
const GPT2 = { vocab: 50257, width: 768, positions: 1024, layers: 12 };
const gpt2Parameters = ({ vocab, width: d, positions, layers }) => vocab * d + positions * d + layers * (12 * d * d + 13 * d) + 2 * d;

// A count of numbers as a reader takes it in: in millions from 100,000 up, else in full.
const millions = (n) => (n < 1e5 ? n.toLocaleString('en') : `${(n / 1e6).toFixed(n < 1e7 ? 2 : 1)} M`);

// The largest |cosine| between two of ROWS seeded random rows of width d.
async function closestPair(pe, width) {
  const table = pe.tokenEmbedding({ vocabSize: ROWS, dModel: width, init: { std: 1, seed: width } });
  try {
    const rows = await onHost(table.lookup(Int32Array.from({ length: ROWS }, (_, i) => i)));
    const cosines = await onHost(pe.similarity(rows, null, { metric: 'cosine' }));
    let largest = 0;
    for (let r = 0; r < ROWS; r++) for (let c = r + 1; c < ROWS; c++) largest = Math.max(largest, Math.abs(cosines.data[r * ROWS + c]));
    return largest;
  } finally {
    table.dispose();
  }
}

export function mountTableSize(pe, section) {
  const [room, cost] = figures(section, [
    { label: 'The largest cosine between two of 256 random rows, against the row width d', title: 'Room: how unrelated random rows stay' },
    { label: 'Numbers in the token tables: your choice, tied and untied, beside real models', title: 'Cost: numbers in the token tables' },
  ]);
  const closest = new Map();
  return mountIdea(section, [room, cost], async (form, superseded) => {
    const vocab = integerField(form, 'vocab', 256, 262144, 'vocabulary');
    const width = integerField(form, 'width', 4, 2048, 'd_model');
    const widths = [...new Set([...WIDTHS, width])].sort((a, b) => a - b);
    for (const d of widths) {
      if (closest.has(d)) continue;
      closest.set(d, await closestPair(pe, d));
      await nextTask();  // one width per task: the widest take tens of milliseconds each
      if (superseded()) return;
    }
    room.lines([{ label: `largest |cosine| among ${ROWS} random rows`, x: widths, y: widths.map((d) => closest.get(d)), width: 3 }],
      { x: { label: 'row width d', log: true }, y: { label: 'largest |cosine|', domain: [0, 1] } });
    // The reader's width beside the other end of the range.
    const other = width >= 64 ? WIDTHS[0] : WIDTHS.at(-1);
    room.caption = `At d = ${width}, no two of ${ROWS} random rows are closer than |cosine| ${closest.get(width).toFixed(2)} (1 would be the same direction, 0 unrelated); `
      + `at d = ${other} the closest pair reaches ${closest.get(other).toFixed(2)}. Wider rows leave room for many tokens to be unrelated and for the directions that relate some of them, `
      + 'at the price of d numbers per token in every table and every layer.';
    const bars = [
      { label: 'yours, tied', value: vocab * width, group: 'tied: one table in and out' },
      { label: 'yours, untied', value: 2 * vocab * width, group: 'untied: its own output layer' },
      ...MODELS.map((m) => ({ label: m.name, value: (m.tied ? 1 : 2) * m.vocab * m.width, group: m.tied ? 'tied: one table in and out' : 'untied: its own output layer' })),
    ];
    cost.bars(bars, {
      groups: [{ name: 'tied: one table in and out', colour: '#2a9d8f' }, { name: 'untied: its own output layer', colour: '#d1495b' }],
      x: { label: 'table' }, y: { label: 'numbers (parameters)', log: true },
      describe: (i) => `${bars[i].label}: ${millions(bars[i].value)} numbers`,
    });
    const gpt2Table = GPT2.vocab * GPT2.width;
    const untied = MODELS.find((m) => !m.tied);
    cost.caption = `Your ${vocab.toLocaleString('en')} × ${width} table is ${millions(vocab * width)} numbers; an untied output layer doubles it. `
      + `GPT-2's one table (${millions(gpt2Table)}) is ${Math.round((100 * gpt2Table) / gpt2Parameters(GPT2))}% of all its ${millions(gpt2Parameters(GPT2))} parameters, `
      + 'and serves twice: it looks up each token, and the output layer scores every token by the dot product of the last hidden row with that token\'s row. '
      + `The original T5 (v1.0) shares one table between its encoder, its decoder and its output layer. ${untied.name} keeps two tables of ${millions(untied.vocab * untied.width)} numbers each.`;
    section.dataset.closest = JSON.stringify(Object.fromEntries(closest));
  });
}
