// Trains off the page's thread, for <posembed-train> and the Train page: the toy transformer (pe.trainer) or word
// vectors (pe.wordEmbeddings), in slices of about SLICE_MS so that pause, predict and reset are answered
// between slices. After each slice it posts a snapshot: step, loss, held-out accuracy, and the tables drawn.
import { acceptPackageFiles } from '../wasm.js';
import { load, writeNpy } from '../index.js';
import { integer } from '../validate.js';
import { alignProjection } from '../analysis.js';

// The page's URLs of the wasm files, before any other message (a site's bundler copies them for the page).
acceptPackageFiles();

const SLICE_MS = 120;
const EVALUATE_EVERY_MS = 400;
const MAX_STEPS = 1_000_000;

let pe = null;
let model = null;     // the Trainer or WordEmbeddings being trained
let kind = 'trainer';
let running = false;
let limit = 0;        // steps to stop at
let pace = 0;         // steps a second, 0 for as many as it can
let credit = 0;       // a paced run's steps due and not yet taken (slices take whole steps)
let words = [];       // the words whose vectors are drawn
let lastEvaluation = { at: -Infinity, accuracy: NaN, loss: NaN };
let lastProjection = null;  // the rows' 2-D projection last posted: the next is turned to follow it
let generation = 0;   // a configure() starts a new one; slices of an older one stop

const post = (message, transfer = []) => self.postMessage(message, transfer);

// Rows' 2-D PCA, turned within its plane to follow the frame before.
function followingProjection(rows) {
  const projected = pe.pca(rows, { components: 2 });
  lastProjection = lastProjection ? alignProjection(projected, lastProjection) : projected;
  return lastProjection;
}

// The toy model's tables: token rows (their 2-D PCA and cosine similarities) and, for learned positions, the
// position table.
function trainerSnapshot(loss) {
  const parameters = model.parameters();
  const table = parameters['wte.weight'];
  const projected = followingProjection(table);
  const similarity = pe.similarity(table, null, { metric: 'cosine' });
  const positions = parameters['wpe.weight'] ?? null;
  let largest = 0;
  for (const v of table.data) largest = Math.max(largest, Math.abs(v));
  const now = performance.now();
  if (now - lastEvaluation.at > EVALUATE_EVERY_MS || !running) {
    lastEvaluation = { at: now, ...model.evaluate({ count: 256 }) };
  }
  return { step: model.steps, loss, accuracy: lastEvaluation.accuracy, heldOutLoss: lastEvaluation.loss, projected, similarity, positions, largest };
}

function wordsSnapshot(loss) {
  const vectors = model.vectors;
  const dim = vectors.shape[1];
  const chosen = words.map((word) => model.vocabulary.indexOf(word)).filter((index) => index >= 0);
  const rows = new Float32Array(chosen.length * dim);
  chosen.forEach((index, i) => rows.set(vectors.data.subarray(index * dim, (index + 1) * dim), i * dim));
  const projected = followingProjection({ data: rows, shape: [chosen.length, dim] });
  return { step: model.steps, loss, words: chosen.map((index) => model.vocabulary[index]), projected };
}

function snapshot(loss = NaN) {
  return { limit, ...(kind === 'trainer' ? trainerSnapshot(loss) : wordsSnapshot(loss)) };
}

async function slice(current) {
  if (!running || current !== generation) return;
  const started = performance.now();
  if (pace > 0) credit = Math.min(credit + (pace * SLICE_MS) / 1000, pace);  // no more than a second's worth saved up
  const allowed = pace > 0 ? Math.floor(credit) : Infinity;
  let loss = NaN;
  let steps = 0;
  while (performance.now() - started < SLICE_MS && model.steps < limit && steps < allowed) {
    ({ loss } = model.step(1));
    steps++;
  }
  const busy = performance.now() - started;
  if (pace > 0) credit -= steps;
  if (model.steps >= limit) running = false;
  post({ type: 'snapshot', running, ...snapshot(loss), stepMs: steps ? busy / steps : NaN });
  // A paced run waits out the rest of its slice; a free one goes straight on.
  if (running) setTimeout(() => slice(current), pace > 0 ? Math.max(0, SLICE_MS - busy) : 0);
}

const handlers = {
  async configure({ kind: nextKind, options, steps, words: shown = [] }) {
    pe ??= await load();
    generation++;
    running = false;
    model?.dispose();
    model = null;
    kind = nextKind;
    limit = integer('steps', steps, 1, MAX_STEPS);
    words = shown;
    lastEvaluation = { at: -Infinity, accuracy: NaN, loss: NaN };
    lastProjection = null;
    model = kind === 'trainer' ? pe.trainer(options) : pe.wordEmbeddings(options);
    const first = snapshot();
    post({ type: 'snapshot', running, ...first, vocabulary: model.vocabulary });
  },
  // Steps a second while running: 0 for as many as the machine can.
  pace({ stepsPerSecond }) {
    pace = integer('stepsPerSecond', stepsPerSecond, 0, 100000);
  },
  run() {
    if (running || !model) return;
    running = model.steps < limit;
    if (running) slice(generation);
    else post({ type: 'snapshot', running, ...snapshot() });  // at its last step already: say so
  },
  pause() {
    running = false;
    if (model) post({ type: 'snapshot', running, ...snapshot() });
  },
  predict({ prompt }) {
    return { type: 'prediction', prompt, ...model.predict(prompt) };
  },
  nearest({ word, k }) {
    return { type: 'nearest', word, nearest: model.nearest(word, { k }) };
  },
  analogy({ a, b, c, k }) {
    return { type: 'analogy', a, b, c, found: model.analogy(a, b, c, { k }) };
  },
  // Accuracy on longer lists than training's (or why it cannot be measured).
  extrapolate({ minItems, maxItems }) {
    try {
      return { type: 'extrapolation', minItems, maxItems, ...model.evaluate({ count: 256, minItems, maxItems }) };
    } catch (error) {
      return { type: 'extrapolation', minItems, maxItems, refused: error.message };
    }
  },
  // The trained tables as files: the whole model (.safetensors) or one table (.npy).
  save({ format, name }) {
    const bytes = format === 'safetensors' ? model.save() : writeNpy(model.parameters()[name]);
    return { type: 'file', format, name, bytes };
  },
};

// Messages are handled one after another, in the order sent: a configure still loading the module finishes before a
// later one (the reader's next choice) replaces its model, which would otherwise race it and could lose.
let handled = Promise.resolve();
self.onmessage = ({ data }) => {
  handled = handled.then(() => handle(data));
};

async function handle(data) {
  try {
    if (!model && data.type !== 'configure') throw new Error('the model is still being made; try again in a moment');
    const reply = await handlers[data.type](data);
    if (reply) post(reply, reply.bytes ? [reply.bytes.buffer] : []);
  } catch (error) {
    post({ type: 'error', request: data.type, name: error.name, message: error.message });
  }
}
