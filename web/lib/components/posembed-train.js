// <posembed-train task="mixed" positional="rope">: the tutorials' toy transformer trained live in a worker, with
// Start / Pause / Reset, loss and accuracy curves, the 20 token rows in 2-D (PCA) coloured by kind, their cosine
// similarities, the learned position table (positional="learned"), a box to ask it a question, longer lists
// than it was trained on, and its tables saved as files.
// Attributes: task (max, min, first, mixed, copy), positional (none, sinusoidal, learned, rope, alibi), d-model,
// heads, layers, seed, learning-rate, steps (where training stops; default 3000). A change starts afresh.
import { TOY_VOCABULARY } from '../toy_vocabulary.js';
import { Figure } from './figure.js';
import { PLANE_AXES, PLANE_NOTE, TOKEN_KINDS, tokenKind, trainingWorker } from './training.js';
import { ELEMENT_SCHEMAS, observedAttributes, problemsMessage } from '../element_schemas.js';
import { BASE_STYLE, LazyElement, adoptStyles, define } from './shared.js';

const TAG = 'posembed-train';
const REDRAW_MS = 300;
const MAX_FRAMES = 240;

// The digits' rows in their order, joined by a line in the scatter: once trained, it runs from 0 to 9.
const DIGIT_IDS = Array.from({ length: 10 }, (_, digit) => TOY_VOCABULARY.indexOf(String(digit)));

const STYLE = `
  .controls { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; margin: 0.25rem 0 0.5rem; }
  .status { font-family: var(--posembed-mono, ui-monospace, monospace); font-size: 0.85rem; }
  .grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 320px), 1fr)); gap: 0 1.5rem; }
  form { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; }
  input { font: inherit; padding: 0.25rem 0.4rem; width: 11em; }
  h3 { font-size: 1rem; margin: 1rem 0 0.25rem; }
  .answer { font-weight: 600; }
  .replay { display: flex; gap: 0.5rem; align-items: center; margin: 0.25rem 0; }
  .replay input { flex: 1; max-width: 40rem; width: auto; padding: 0; }
  select { font: inherit; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
`;

const TEMPLATE = `
  <div class="controls" part="controls">
    <button part="button" type="button" data-action="start" data-string="start"></button>
    <button part="button" type="button" data-action="pause" data-string="pause" disabled></button>
    <button part="button" type="button" data-action="reset" data-string="reset"></button>
    <label><span data-string="pace"></span> <select name="pace" part="controls">
      <option value="0" selected data-string="fastest"></option><option value="200">200 steps a second</option>
      <option value="50">50 steps a second</option><option value="10">10 steps a second</option></select></label>
    <span class="status"></span>
  </div>
  <label class="replay"><span data-string="replay"></span> <input name="frame" type="range" min="0" max="0" value="0" disabled aria-describedby="replay-step">
    <span id="replay-step" class="status"></span></label>
  <p class="visually-hidden" role="status"></p>
  <p class="error" part="error" hidden></p>
  <p class="caption honest"></p>
  <div class="grid"><div class="loss"></div><div class="accuracy"></div><div class="range"></div></div>
  <div class="grid"><div class="tokens"></div><div class="similarity"></div></div>
  <div class="positions"></div>
  <h3 data-string="ask"></h3>
  <form class="ask" part="controls">
    <label><span data-string="prompt"></span> <input name="prompt" value="First(3,1,2)" spellcheck="false" autocomplete="off"></label>
    <button part="button" type="submit" data-string="answer"></button>
    <span class="answer" aria-live="polite"></span>
  </form>
  <div class="probabilities"></div>
  <h3 data-string="longer"></h3>
  <div class="controls" part="controls"><button part="button" type="button" data-action="extrapolate" data-string="testLonger"></button><span class="extrapolation" aria-live="polite"></span></div>
  <h3 data-string="save"></h3>
  <div class="controls" part="controls">
    <button part="button" type="button" data-action="save-model" data-string="saveModel"></button>
    <button part="button" type="button" data-action="save-tokens" data-string="saveTokens"></button>
    <button part="button" type="button" data-action="save-positions" data-string="savePositions" hidden></button>
  </div>
`;

// How the digits lie in the token rows' 2-D picture, measured on the points drawn: their line (the main direction
// of the ten points), how well their order along it follows 0–9 (Spearman's ρ, signed so that 9's end is positive),
// and where a token falls along it (−1: past 0's end … 1: past 9's end, the digits' span between).
function digitLine(projected) {
  const at = (id) => [projected[2 * id], projected[2 * id + 1]];
  const points = DIGIT_IDS.map(at);
  const [mx, my] = [0, 1].map((k) => points.reduce((sum, p) => sum + p[k], 0) / points.length);
  let [xx, xy, yy] = [0, 0, 0];
  for (const [x, y] of points) [xx, xy, yy] = [xx + (x - mx) ** 2, xy + (x - mx) * (y - my), yy + (y - my) ** 2];
  const angle = 0.5 * Math.atan2(2 * xy, xx - yy);
  const along = (id) => (at(id)[0] - mx) * Math.cos(angle) + (at(id)[1] - my) * Math.sin(angle);
  const t = DIGIT_IDS.map(along);
  const rank = (values) => values.map((v) => values.filter((w) => w < v).length);
  const ranks = rank(t);
  const n = t.length;
  const rho = 1 - (6 * ranks.reduce((sum, r, digit) => sum + (r - digit) ** 2, 0)) / (n * (n * n - 1));
  const sign = rho < 0 ? -1 : 1;
  const [low, high] = t.reduce(([a, b], v) => [Math.min(a, v), Math.max(b, v)], [Infinity, -Infinity]);
  return { rho: Math.abs(rho), where: (id) => (2 * (sign * along(id) - (sign > 0 ? low : -high))) / (high - low) - 1 };
}

const MAX_ID = TOY_VOCABULARY.indexOf('Max');
const MIN_ID = TOY_VOCABULARY.indexOf('Min');

// What a reader can see in the token rows' 2-D picture, said from the picture drawn (this run's, not a typical one).
function tokenRowsCaption(trained, task, projected) {
  if (!trained) return 'Random rows: where a token sits says nothing yet, and the grey line from 0 to 9 zigzags at random.';
  if (task !== 'mixed') return 'Tokens that play the same part drift together: the digits, the brackets and the comma. The operations stay apart, since each asks for something else.';
  const { rho, where } = digitLine(projected);
  const ordered = rho >= 0.9
    ? `the digits line up in their order along their line (rank correlation ${rho.toFixed(2)} with 0–9: Max and Min need it), so the grey line runs from one end to the other.`
    : `the digits have not lined up in their order on this run (rank correlation ${rho.toFixed(2)} with 0–9 along their line).`;
  const [max, min] = [where(MAX_ID), where(MIN_ID)];
  const ends = rho >= 0.9 && max > 0.5 && min < -0.5
    ? ' Max sits toward 9\'s end and Min toward 0\'s: the model must do opposite things with them.'
    : rho >= 0.9 && min > 0.5 && max < -0.5 ? ' Max and Min sit at opposite ends, Max toward 0\'s.' : '';
  return `Tokens that play the same part drift together; ${ordered}${ends}`;
}

// What the learned position table has learned, measured: which rows training has not reached, and how the first
// number's slot (position 2, after 'Max' and '(') stands to the other numbers' slots (4, 6, 8, 10).
const FIRST_NUMBER = 2;
const OTHER_NUMBERS = [4, 6, 8, 10];
function positionsCaption(table, initial, trained) {
  const intro = 'Each row is the vector added at one position; rows past maxLength do not exist.';
  if (!trained || !initial) return `${intro} Untrained: every row is noise.`;
  const [rows, width] = table.shape;
  const row = (t, r) => t.data.subarray(r * width, (r + 1) * width);
  const moved = Array.from({ length: rows }, (_, r) => Math.sqrt(row(table, r).reduce((sum, v, k) => sum + (v - row(initial, r)[k]) ** 2, 0)));
  const most = moved.reduce((a, b) => Math.max(a, b), 0);
  const still = moved.map((m, r) => (m < 0.05 * most ? r : -1)).filter((r) => r >= 0);
  const cosine = (a, b) => {
    let [dot, aa, bb] = [0, 0, 0];
    for (let k = 0; k < width; k++) [dot, aa, bb] = [dot + a[k] * b[k], aa + a[k] ** 2, bb + b[k] ** 2];
    return dot / Math.sqrt(aa * bb);
  };
  const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
  const firstToOthers = mean(OTHER_NUMBERS.map((r) => cosine(row(table, FIRST_NUMBER), row(table, r))));
  const amongOthers = mean(OTHER_NUMBERS.flatMap((a, i) => OTHER_NUMBERS.slice(i + 1).map((b) => cosine(row(table, a), row(table, b)))));
  const unreached = still.length ? ` Rows ${still[0]}–${still.at(-1)} have hardly moved from their random start: no training question is that long, so nothing trains them.` : '';
  const slots = ` The numbers sit at positions 2, 4, 6, …: row 2 (always the first number) against rows 4, 6, 8, 10 has cosine ${firstToOthers.toFixed(2)} on average; those four among themselves ${amongOthers.toFixed(2)}.`;
  const lesson = firstToOthers < 0 && amongOthers > 0.3 ? ' The model has learned which slot holds the first number, the one First asks for.' : '';
  return `${intro}${unreached}${slots}${lesson}`;
}

export class PosembedTrain extends LazyElement {
  static words = {
    ...LazyElement.words, start: 'Start', pause: 'Pause', reset: 'Reset', pace: 'pace', fastest: 'as fast as it can', replay: 'replay',
    ask: 'Ask it', prompt: 'Prompt', answer: 'Answer', longer: 'Longer lists than it was trained on', testLonger: 'Test on 6–10 items',
    save: 'Save the trained tables', saveModel: 'Model (.safetensors)', saveTokens: 'Token table (.npy)', savePositions: 'Position table (.npy)',
    waitingForStart: 'Nothing yet: press Start', waitingForAnswer: 'Nothing yet: press Answer',
  };

  static observedAttributes = observedAttributes(TAG);

  #root;
  #worker = null;
  #fileUrls = [];  // saved files' object URLs
  #history = { step: [], loss: [], accuracy: [], largest: [] };
  #latest = null;
  #frames = [];        // the snapshots drawn so far, for the replay (thinned to MAX_FRAMES)
  #replaying = null;   // the frame the reader went back to, or null for the latest
  #drawnAt = 0;
  #drawTimer = 0;
  #partTimer = 0;
  #lastLoss = NaN;
  #options = null;  // pe.trainer's options, from the attributes of the last render
  #figures;

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
    adoptStyles(this.#root, BASE_STYLE, STYLE);
    this.#root.innerHTML = TEMPLATE;
    const $ = (selector) => this.#root.querySelector(selector);
    this.#figures = {
      loss: new Figure($('.loss'), { label: 'Training loss by step', title: 'Loss (cross-entropy on the answers)' }),
      accuracy: new Figure($('.accuracy'), { label: 'Held-out accuracy by step', title: 'Held-out accuracy' }),
      range: new Figure($('.range'), { label: 'The largest value in the token table by step', title: 'Token table: largest |value|' }),
      tokens: new Figure($('.tokens'), { label: 'The 20 token rows projected to two dimensions', title: 'Token rows, 2-D (PCA)' }),
      similarity: new Figure($('.similarity'), { label: 'Cosine similarity of every pair of token rows', title: 'Cosine similarity of token rows' }),
      positions: new Figure($('.positions'), { label: 'The learned position table', title: 'Learned position table' }),
      probabilities: new Figure($('.probabilities'), { label: 'Probability of each token as the answer', title: 'Its probabilities for the first answer token' }),
    };
    this.#root.addEventListener('click', (event) => {
      const action = event.target.closest?.('button[data-action]')?.dataset.action;
      if (action) this.#act(action);
    });
    $('select[name="pace"]').addEventListener('change', (event) => this.#send({ type: 'pace', stepsPerSecond: Number(event.target.value) }));
    $('input[name="frame"]').addEventListener('input', (event) => {
      const index = Number(event.target.value);
      this.#replaying = index >= this.#frames.length - 1 ? null : index;
      this.#draw();
    });
    $('.ask').addEventListener('submit', (event) => {
      event.preventDefault();
      this.#figures.probabilities.stale(true);
      this.#send({ type: 'predict', prompt: new FormData(event.target).get('prompt') });
    });
  }

  #$(selector) {
    return this.#root.querySelector(selector);
  }

  get running() {
    return this.#latest?.running ?? false;
  }

  // The options given to pe.trainer: the checked attributes that are its options (element_schemas.js takes them from its
  // schema), by the option's name.
  static #trainerOptions(values) {
    return Object.fromEntries(Object.entries(ELEMENT_SCHEMAS[TAG].attributes).filter(([, spec]) => spec.option?.startsWith('trainer.'))
      .map(([attribute, spec]) => [spec.option.slice('trainer.'.length), values[attribute]]));
  }

  render() {
    const { values, problems } = this.readAttributes();
    if (problems.length) {
      // Nothing will be computed: no figure waits.
      for (const figure of Object.values(this.#figures)) figure.stale(false);
      this.#showError(problemsMessage(TAG, problems));
      return;
    }
    this.#options = PosembedTrain.#trainerOptions(values);
    this.#worker ??= this.#startWorker();
    this.#history = { step: [], loss: [], accuracy: [], largest: [] };
    this.#latest = null;
    this.#frames = [];
    this.#replaying = null;
    this.#lastLoss = NaN;
    delete this.dataset.accuracy;
    this.#$('.error').hidden = true;
    this.#$('.answer').textContent = '';
    this.#$('.extrapolation').textContent = '';
    this.#$('[data-action="save-positions"]').hidden = values.positional !== 'learned';
    for (const figure of Object.values(this.#figures)) figure.stale(true);
    this.#figures.probabilities.waiting(this.word('waitingForAnswer'));
    this.#send({ type: 'configure', kind: 'trainer', options: this.#options, steps: values.steps });
    this.#send({ type: 'pace', stepsPerSecond: Number(this.#$('select[name="pace"]').value) });
  }

  #startWorker() {
    let worker;
    try {
      worker = trainingWorker();
    } catch (error) {
      this.#showError(`the training worker could not start: ${error.message}`);
      return null;
    }
    worker.onmessage = ({ data }) => this.#receive(data);
    worker.onerror = (event) => this.#showError(`the training worker could not start${event.message ? `: ${event.message}` : ' (a page with a Content-Security-Policy must allow its script in worker-src: the page\'s origin, or blob: for a CDN)'}`);
    return worker;
  }

  #send(message) {
    this.#worker?.postMessage(message);
  }

  #act(action) {
    if (action === 'start') this.#send({ type: 'run' });
    if (action === 'pause') this.#send({ type: 'pause' });
    if (action === 'reset') this.render();
    if (action === 'extrapolate') this.#send({ type: 'extrapolate', minItems: 6, maxItems: 10 });
    if (action === 'save-model') this.#send({ type: 'save', format: 'safetensors' });
    if (action === 'save-tokens') this.#send({ type: 'save', format: 'npy', name: 'wte.weight' });
    if (action === 'save-positions') this.#send({ type: 'save', format: 'npy', name: 'wpe.weight' });
  }

  #showError(message) {
    const box = this.#$('.error');
    box.textContent = message;
    box.hidden = false;
  }

  #announce(text) {
    this.#$('[role="status"]').textContent = text;
  }

  #receive(message) {
    if (message.type === 'error') {
      if (message.request === 'predict') {
        this.#$('.answer').textContent = message.message;
        this.#figures.probabilities.waiting('No answer to this prompt');
      } else {
        // The trainer refused its options: no figure will be drawn until they change.
        for (const figure of Object.values(this.#figures)) figure.stale(false);
        this.#showError(message.message);
      }
      return;
    }
    if (message.type === 'snapshot') this.#snapshot(message);
    if (message.type === 'prediction') this.#prediction(message);
    if (message.type === 'extrapolation') {
      this.#$('.extrapolation').textContent = message.refused
        ? `Cannot answer: ${message.refused}.`
        : `Accuracy on ${message.minItems}–${message.maxItems} items: ${(100 * message.accuracy).toFixed(1)}% (loss ${message.loss.toFixed(3)}).`;
    }
    if (message.type === 'file') this.#download(message);
  }

  #snapshot(snapshot) {
    const wasRunning = this.running;
    this.#latest = snapshot;
    if (Number.isFinite(snapshot.loss)) {
      this.#history.step.push(snapshot.step);
      this.#history.loss.push(snapshot.loss);
      this.#history.accuracy.push(snapshot.accuracy);
      this.#history.largest.push(snapshot.largest);
    }
    this.#$('[data-action="start"]').disabled = snapshot.running;
    this.#$('[data-action="pause"]').disabled = !snapshot.running;
    if (Number.isFinite(snapshot.loss)) this.#lastLoss = snapshot.loss;
    const accuracy = Number.isFinite(snapshot.accuracy) ? `${(100 * snapshot.accuracy).toFixed(1)}%` : '–';
    this.#$('.status').textContent = `step ${snapshot.step} · loss ${Number.isFinite(this.#lastLoss) ? this.#lastLoss.toFixed(3) : '–'} · held-out accuracy ${accuracy}`
      + (Number.isFinite(snapshot.stepMs) ? ` · ${snapshot.stepMs.toFixed(1)} ms/step` : '')
      + (snapshot.step >= snapshot.limit ? ` · done (${snapshot.limit} steps; Reset to start again)` : '');
    if (wasRunning !== snapshot.running) {
      this.#announce(snapshot.running ? 'Training.' : `Paused at step ${snapshot.step}, held-out accuracy ${accuracy}.`);
      this.announce('change', { running: snapshot.running, step: snapshot.step, accuracy: snapshot.accuracy });
    }
    this.dataset.step = String(snapshot.step);
    if (Number.isFinite(snapshot.accuracy)) this.dataset.accuracy = String(snapshot.accuracy);
    this.#keepFrame(snapshot);
    if (this.#replaying !== null) return;  // the reader is looking back: the latest waits for the replay's end
    // Drawing at most every REDRAW_MS keeps the page's thread free while the worker posts.
    clearTimeout(this.#drawTimer);
    const wait = this.#drawnAt + REDRAW_MS - performance.now();
    if (wait <= 0 || !snapshot.running) this.#draw();
    else this.#drawTimer = setTimeout(() => this.#draw(), wait);
  }

  // Keeps a snapshot's tables for the replay: a new step, or the first; when there are too many, every other older
  // one goes, so the replay spans the whole run at a coarser grain.
  #keepFrame(snapshot) {
    const last = this.#frames.at(-1);
    if (last && last.step === snapshot.step) this.#frames[this.#frames.length - 1] = snapshot;
    else this.#frames.push(snapshot);
    if (this.#frames.length > MAX_FRAMES && this.#replaying === null) this.#frames = this.#frames.filter((_, i) => i % 2 === 0 || i === this.#frames.length - 1);
    const slider = this.#$('input[name="frame"]');
    slider.max = String(this.#frames.length - 1);
    slider.disabled = this.#frames.length < 2;
    if (this.#replaying === null) slider.value = slider.max;
  }

  // What is on screen: the frame the reader went back to, or the latest snapshot.
  get #shown() {
    return this.#replaying === null ? this.#latest : this.#frames[this.#replaying];
  }

  #draw() {
    const snapshot = this.#shown;
    if (!snapshot) return;
    const replayed = this.#replaying !== null;
    this.#$('#replay-step').textContent = replayed ? `step ${snapshot.step} of ${this.#latest.step} (move right to the end to follow training again)` : `step ${snapshot.step}`;
    this.#drawnAt = performance.now();
    const { positional, task } = this.#options;
    const f = this.#figures;
    const trained = snapshot.step > 0;
    this.#$('.honest').textContent = trained
      ? `After ${snapshot.step} steps of training on ${task === 'mixed' ? 'Max, Min and First' : task} with ${positional} positions.`
      : 'Untrained: every table is random until you press Start. Nothing in these pictures means anything yet.';
    const { step, loss, accuracy, largest } = this.#history;
    // One figure per task: the page's thread is never held for all of them at once.
    const parts = [() => {
      for (const [figure, values, label, domain] of [[f.loss, loss, 'loss', undefined], [f.accuracy, accuracy, 'accuracy', [0, 1]],
        [f.range, largest, 'largest |value|', undefined]]) {
        if (values.length === 0) {
          figure.waiting(this.word('waitingForStart'));
          continue;
        }
        figure.lines([{ label, x: step.length > 1 ? step : [0, ...step], y: values.length > 1 ? values : [values[0], values[0]] }],
          { x: { label: 'step' }, y: { label, domain }, follow: true, rules: replayed ? [{ x: snapshot.step, label: 'replayed' }] : [] });
        figure.stale(false);
      }
      f.loss.caption = 'The loss falls as the model learns to answer; each point is the mean over the steps since the one before.';
      f.accuracy.caption = 'Share of 256 held-out questions answered right. Guessing would get about 10%.';
      f.range.caption = largest.length
        ? `The token table's largest |value| grows from ${this.#frames[0]?.largest?.toFixed(2) ?? '–'} at the start to ${largest.at(-1).toFixed(2)}: training pushes `
          + 'rows apart so that the tokens it must tell apart point different ways, and larger values make sharper scores after the tied output layer.'
        : 'The token table\'s largest |value|, as training goes on.';
    }, () => {
      const projected = snapshot.projected.data;
      f.tokens.points(TOY_VOCABULARY.map((token, i) => ({ x: projected[2 * i], y: projected[2 * i + 1], label: token, group: tokenKind(token) })),
        { groups: TOKEN_KINDS.map(({ name, colour }) => ({ name, colour })), ...PLANE_AXES,
          path: { indices: DIGIT_IDS, label: 'the digits, 0 to 9 in order' } });
      f.tokens.caption = `${tokenRowsCaption(trained, task, projected)}${trained ? ` ${PLANE_NOTE}` : ''}`;
      f.tokens.stale(false);
    }, () => {
      f.similarity.heatmap(snapshot.similarity, { colormap: 'RdBu', range: { min: -1, max: 1 }, x: { label: 'token', names: TOY_VOCABULARY },
        y: { label: 'token', names: TOY_VOCABULARY }, colour: { label: 'cosine similarity' } });
      f.similarity.caption = trained ? 'Blue: rows pointing the same way (the digits among themselves, the brackets and the comma); red: opposite ways. Max and Min often end up apart: the model must do opposite things with them.' : 'Random rows are nearly unrelated: white off the diagonal.';
      f.similarity.stale(false);
    }, () => {
      this.#$('.positions').hidden = !snapshot.positions;
      if (snapshot.positions) {
        f.positions.heatmap(snapshot.positions, { colormap: 'RdBu', x: { label: 'dimension' }, y: { label: 'position' }, colour: { label: 'value' } });
        f.positions.caption = positionsCaption(snapshot.positions, this.#frames[0]?.positions, trained);
        f.positions.stale(false);
      }
    }];
    clearTimeout(this.#partTimer);
    const next = () => {
      const part = parts.shift();
      if (!part) {
        this.dataset.drawn = String(snapshot.step);
        this.announce('render', { step: snapshot.step, loss: snapshot.loss, accuracy: snapshot.accuracy });
        return;
      }
      part();
      this.#partTimer = setTimeout(next, 0);
    };
    next();
  }

  #prediction({ prompt, answer, probabilities }) {
    this.#$('.answer').textContent = `${prompt} → ${answer}`;
    const f = this.#figures.probabilities;
    f.bars(Array.from(probabilities, (value, i) => ({ label: TOY_VOCABULARY[i], value, group: tokenKind(TOY_VOCABULARY[i]) })),
      { groups: TOKEN_KINDS.map(({ name, colour }) => ({ name, colour })), x: { label: 'token' }, y: { label: 'probability', domain: [0, 1] } });
    f.caption = `The model's probabilities for the first token of its answer to ${prompt}. They come from the token table itself: the model's `
      + 'last vector is compared (dot product) with every row of the table, and a softmax turns the scores into probabilities. Input and output share one '
      + 'table (weight tying), so there is no second one to learn, and a token\'s row must serve both to read it and to say it.';
    f.stale(false);
  }

  #download({ format, name, bytes }) {
    const { positional, task } = this.#options;
    const file = format === 'safetensors' ? `posembed-${task}-${positional}.safetensors` : `${name.replace('.weight', '')}-${task}-${positional}.npy`;
    // Saved files' URLs live until the element's removal: revoked on a timer, a download the browser is slow to
    // start (a busy machine) would find its file gone.
    const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
    this.#fileUrls.push(url);
    const link = document.createElement('a');
    link.href = url;
    link.download = file;
    link.click();
  }

  // Removed from the page: the worker and its model go.
  released() {
    for (const url of this.#fileUrls.splice(0)) URL.revokeObjectURL(url);
    clearTimeout(this.#drawTimer);
    clearTimeout(this.#partTimer);
    this.#worker?.terminate();
    this.#worker = null;
    this.dataset.disposed = 'true';
  }

  connectedCallback() {
    delete this.dataset.disposed;
    super.connectedCallback();
  }
}

define(TAG, PosembedTrain);
