// The Train page: the <posembed-train> elements train themselves; this script runs the comparison of every
// positional option and the word-embedding panel, each in a training worker of its own.
import { Figure, PLANE_AXES, PLANE_NOTE, SERIES_COLOURS, TOY_VOCABULARY, trainingWorker } from 'posembed/components';

const $ = (selector) => document.querySelector(selector);
const POSITIONALS = ['none', 'sinusoidal', 'learned', 'rope', 'alibi'];
const COMPARE_STEPS = 600;
const COMPARE_SEEDS = [0, 1, 2];

// Accuracies over seeds as the table shows them: the mean, and the range the seeds spread over.
function spread(accuracies) {
  const percent = accuracies.map((a) => 100 * a);
  const mean = percent.reduce((a, b) => a + b, 0) / percent.length;
  const [low, high] = [percent.reduce((a, b) => Math.min(a, b)), percent.reduce((a, b) => Math.max(a, b))];
  return `${mean.toFixed(1)}% (${low.toFixed(0)}–${high.toFixed(0)})`;
}

// Sends one message and waits for the reply of `type` (the worker answers in order).
function ask(worker, message, type) {
  return new Promise((resolve, reject) => {
    const listen = ({ data }) => {
      if (data.type === 'error') reject(new Error(data.message));
      else if (data.type === type && (type !== 'snapshot' || !data.running)) resolve(data);
      else return;
      worker.removeEventListener('message', listen);
    };
    worker.addEventListener('message', listen);
    worker.postMessage(message);
  });
}

function mountComparison() {
  const button = $('#compare');
  const status = $('#compare-status');
  const body = $('#compare-table tbody');
  button.addEventListener('click', async () => {
    button.disabled = true;
    body.replaceChildren();
    const worker = trainingWorker();
    try {
      let done = 0;
      for (const positional of POSITIONALS) {
        const near = [];
        const far = [];
        let refused = false;
        for (const seed of COMPARE_SEEDS) {
          status.textContent = `Training with ${positional} positions, seed ${seed} (${++done} of ${POSITIONALS.length * COMPARE_SEEDS.length})…`;
          await ask(worker, { type: 'configure', kind: 'trainer', options: { task: 'mixed', positional, seed }, steps: COMPARE_STEPS }, 'snapshot');
          await ask(worker, { type: 'run' }, 'snapshot');
          near.push((await ask(worker, { type: 'extrapolate', minItems: 2, maxItems: 5 }, 'extrapolation')).accuracy);
          const longer = await ask(worker, { type: 'extrapolate', minItems: 6, maxItems: 10 }, 'extrapolation');
          if (longer.refused) refused = true;
          else far.push(longer.accuracy);
        }
        const row = body.insertRow();
        row.dataset.positional = positional;
        row.dataset.near = near.join(' ');
        row.dataset.far = far.join(' ');
        row.insertCell().textContent = positional;
        row.insertCell().textContent = spread(near);
        row.insertCell().textContent = refused ? 'cannot run: a learned table has no rows past position 15' : spread(far);
      }
      status.textContent = `Done: ${POSITIONALS.length * COMPARE_SEEDS.length} models trained.`;
    } catch (error) {
      status.textContent = error.message;
    } finally {
      worker.terminate();
      button.disabled = false;
    }
  });
}

const WORDS = ['king', 'queen', 'prince', 'princess', 'man', 'woman', 'boy', 'girl', 'apple', 'orange', 'banana', 'pear', 'dog', 'cat', 'horse', 'cow'];
const WORD_GROUPS = [
  { name: 'royalty', colour: SERIES_COLOURS[1], words: WORDS.slice(0, 4) },
  { name: 'people', colour: SERIES_COLOURS[0], words: WORDS.slice(4, 8) },
  { name: 'fruit', colour: SERIES_COLOURS[3], words: WORDS.slice(8, 12) },
  { name: 'animals', colour: SERIES_COLOURS[2], words: WORDS.slice(12) },
];

function mountWords() {
  const worker = trainingWorker();
  const figure = new Figure($('#words-figure'), { label: 'Word vectors projected to two dimensions', title: 'Word vectors, 2-D (PCA)' });
  const start = $('#words-start');
  const pause = $('#words-pause');
  const result = $('#words-result');
  const analogy = new Figure($('#analogy-figure'), { label: 'The words nearest a − b + c, by cosine', title: 'Nearest to a − b + c' });
  let drawnAt = 0;
  let trainedSteps = 0;
  worker.onmessage = ({ data }) => {
    if (data.type === 'error') {
      if (data.request === 'analogy') analogy.waiting(data.message);
      else result.textContent = data.message;
      return;
    }
    if (data.type === 'analogy') {
      analogy.bars(data.found.map(({ word, score }) => ({ label: word, value: score, group: WORD_GROUPS.find((g) => g.words.includes(word))?.name ?? 'other' })),
        { groups: [...WORD_GROUPS, { name: 'other', colour: SERIES_COLOURS[5] }], x: { label: 'word' }, y: { label: 'cosine with a − b + c', domain: [-1, 1] } });
      analogy.caption = trainedSteps === 0
        ? `${data.a} − ${data.b} + ${data.c} on untrained vectors: random words, since nothing has been learned yet. Press Start above.`
        : `${data.a} − ${data.b} + ${data.c} after ${trainedSteps} steps: nearest is ${data.found[0].word} (cosine ${data.found[0].score.toFixed(2)}). The three words themselves are left out, as is usual.`;
      analogy.stale(false);
      $('#analogy-figure').dataset.nearest = data.found[0].word;
      return;
    }
    if (data.type === 'nearest') {
      result.textContent = `Nearest to ${data.word}: ${data.nearest.map((n) => `${n.word} (${n.score.toFixed(2)})`).join(', ')}`;
      return;
    }
    if (data.type !== 'snapshot') return;
    trainedSteps = data.step;
    start.disabled = data.running;
    pause.disabled = !data.running;
    $('#words-status').textContent = `step ${data.step}${Number.isFinite(data.loss) ? ` · loss ${data.loss.toFixed(3)}` : ''}`;
    if (data.running && performance.now() - drawnAt < 300) return;
    drawnAt = performance.now();
    const group = (word) => WORD_GROUPS.find((g) => g.words.includes(word)).name;
    figure.points(data.words.map((word, i) => ({ x: data.projected.data[2 * i], y: data.projected.data[2 * i + 1], label: word, group: group(word) })),
      { groups: WORD_GROUPS, ...PLANE_AXES });
    figure.caption = data.step === 0
      ? 'Untrained: the vectors are random, and the words lie anywhere.'
      : `After ${data.step} steps: words of one kind gather, because they appear in the same sentences. ${PLANE_NOTE}`;
    $('#words-figure').dataset.step = String(data.step);
  };
  worker.postMessage({ type: 'configure', kind: 'words', options: { corpus: 'generated' }, steps: 3000, words: WORDS });
  worker.postMessage({ type: 'analogy', a: 'king', b: 'man', c: 'woman', k: 6 });  // the untrained answer, said to be so
  start.addEventListener('click', () => worker.postMessage({ type: 'run' }));
  pause.addEventListener('click', () => worker.postMessage({ type: 'pause' }));
  $('#words-nearest').addEventListener('submit', (event) => {
    event.preventDefault();
    worker.postMessage({ type: 'nearest', word: new FormData(event.target).get('word'), k: 5 });
  });
  $('#words-analogy').addEventListener('submit', (event) => {
    event.preventDefault();
    analogy.stale(true);
    const { a, b, c } = Object.fromEntries(new FormData(event.target));
    worker.postMessage({ type: 'analogy', a, b, c, k: 6 });
  });
}

// The embedding layer's parameter count, for the check-yourself answer: the token table's rows × d_model.
function showEmbeddingParameters(dModel) {
  $('[data-answer="embedding-parameters"] .value').textContent = `${TOY_VOCABULARY.length} × ${dModel} = ${TOY_VOCABULARY.length * dModel}`;
}

// The form's choices become the main trainer's attributes (each change starts it afresh).
function mountControls() {
  const form = $('#train-controls');
  const trainer = $('#main-trainer');
  const error = $('#train-error');
  form.addEventListener('submit', (event) => event.preventDefault());
  form.addEventListener('change', () => {
    const values = new FormData(form);
    const dModel = Number(values.get('dModel'));
    const seed = Number(values.get('seed'));
    const problem = !(Number.isInteger(dModel) && dModel >= 8 && dModel <= 256 && dModel % 8 === 0) ? `d_model must be a multiple of 8 in [8, 256], got ${values.get('dModel')}`
      : !(Number.isInteger(seed) && seed >= 0 && seed <= 1e6) ? `seed must be an integer in [0, 1000000], got ${values.get('seed')}` : '';
    error.textContent = problem;
    error.hidden = !problem;
    if (problem) return;
    trainer.setAttribute('task', values.get('task'));
    trainer.setAttribute('positional', values.get('positional'));
    trainer.setAttribute('d-model', String(dModel));
    trainer.setAttribute('seed', String(seed));
    showEmbeddingParameters(dModel);
  });
  showEmbeddingParameters(Number(new FormData(form).get('dModel')));
}

mountControls();
mountComparison();
mountWords();
document.documentElement.dataset.ready = 'true';
