// The ALiBi and T5 page's controls: they set the components' attributes, and plot the T5 bucket function.
import { load } from 'posembed';
import { Figure } from 'posembed/components';
import { mountRelativeVectors } from './ideas/relative-vectors.js';

const pe = await load({ backend: 'auto' });
const bucketFigure = new Figure(document.querySelector('#t5-figure'), { label: 'The T5 bucket of each relative position' });
const weightsFigure = new Figure(document.querySelector('#alibi-weights'), { label: 'Attention weights of the last query over the keys, for each head, from the ALiBi bias alone', maxHeight: 260 });
const alibiForm = document.querySelector('#alibi-controls');
const t5Form = document.querySelector('#t5-controls');

function updateAlibi() {
  const f = new FormData(alibiForm);
  const alibi = document.querySelector('#alibi');
  alibi.setAttribute('heads', String(f.get('heads')));
  alibi.setAttribute('length', String(f.get('length')));
  alibi.toggleAttribute('causal', f.get('causal') === 'on');
  alibi.setAttribute('scale', f.get('shared') === 'on' ? 'shared' : 'per-head');
  plotAlibiWeights(Number(f.get('heads')), Number(f.get('length')));
}

// The last query's softmax weights over the keys it sees, from the bias alone (every content score equal): a row per head.
function plotAlibiWeights(heads, length) {
  if (!(Number.isInteger(heads) && heads >= 1 && heads <= 64 && Number.isInteger(length) && length >= 2 && length <= 128)) return;
  const slopes = pe.alibiSlopes(heads).data;
  const weights = new Float32Array(heads * length);
  for (let h = 0; h < heads; h++) {
    // The last query's bias row: −slope × its distance to each key (0 for itself, the largest).
    const bias = Array.from({ length }, (_, k) => -slopes[h] * (length - 1 - k));
    let sum = 0;
    for (const b of bias) sum += Math.exp(b);
    bias.forEach((b, k) => { weights[h * length + k] = Math.exp(b) / sum; });
  }
  // How much of a head's attention falls on the nearest `near` keys (the query's own among them).
  const near = Math.min(4, length);
  const share = (h) => weights.subarray(h * length + length - near, (h + 1) * length).reduce((a, b) => a + b, 0);
  const percent = (x) => `${Math.round(x * 100)}%`;
  weightsFigure.heatmap({ data: weights, shape: [heads, length] }, {
    colormap: 'viridis', range: { min: 0, max: weights.reduce((a, b) => Math.max(a, b), 0) },
    x: { label: 'key position (the query is the last)' }, y: { label: 'head', names: (h) => `${h + 1} · slope ${slopes[h].toPrecision(2)}` },
    colour: { label: 'attention weight' },
    describe: (h, k, w) => `head ${h + 1}: key ${k} (${length - 1 - k} back) gets ${percent(w)} of the attention`,
  });
  weightsFigure.caption = heads === 1
    ? `The one head puts ${percent(share(0))} of the last query's attention on the nearest ${near} keys.`
    : `Head 1 (slope ${slopes[0].toPrecision(2)}) puts ${percent(share(0))} of the last query's attention on the nearest ${near} keys; head ${heads} (slope ${slopes[heads - 1].toPrecision(2)}) only ${percent(share(heads - 1))}, and still ${percent(weights[(heads - 1) * length])} on the first key, ${length - 1} back. Steep heads read the last few tokens; gentle ones the whole text.`;
}

function plotBuckets() {
  const f = new FormData(t5Form);
  const options = { numBuckets: Number(f.get('buckets')), maxDistance: Number(f.get('maxDistance')), bidirectional: f.get('bidirectional') === 'on' };
  const span = Math.max(8, Math.min(2048, Number(f.get('span')) || 200));
  const errorBox = document.querySelector('#t5-error');
  let buckets;
  try {
    buckets = pe.t5Bucket(Int32Array.from({ length: 2 * span + 1 }, (_, i) => i - span), options).data;
  } catch (error) {
    errorBox.textContent = error.message;
    errorBox.hidden = false;
    return;
  }
  errorBox.hidden = true;
  const relative = Array.from({ length: 2 * span + 1 }, (_, i) => i - span);
  bucketFigure.lines([{ label: 'bucket', x: relative, y: Array.from(buckets) }], { x: { label: 'key − query (relative position)' }, y: { label: 'bucket' } });
  bucketFigure.caption = `Distances below ${options.bidirectional ? options.numBuckets / 4 : options.numBuckets / 2} each get their own bucket; farther ones share buckets that widen `
    + `logarithmically, and every distance past ${options.maxDistance} falls in the last.${options.bidirectional ? ' Keys before and after the query use separate halves.' : ' Keys after the query all share bucket 0.'}`;
  document.querySelector('#t5-readout').textContent = `bucket(−1) = ${buckets[span - 1]}, bucket(0) = ${buckets[span]}, bucket(+1) = ${buckets[span + 1]}, `
    + `bucket(±${span}) = ${buckets[0]}, ${buckets[2 * span]}`;
  const matrix = document.querySelector('#t5-buckets');
  matrix.setAttribute('buckets', String(options.numBuckets));
  matrix.setAttribute('max-distance', String(options.maxDistance));
  matrix.setAttribute('bidirectional', String(options.bidirectional));
}

alibiForm.addEventListener('input', updateAlibi);
updateAlibi();
// The bucket count and maxDistance limit each other (maxDistance above the exact buckets: half the buckets, of
// each direction's half when bidirectional), so each field's range follows the other's value.
function linkBucketRanges() {
  const { buckets, maxDistance, bidirectional } = t5Form.elements;
  const exactPerBucket = bidirectional.checked ? 4 : 2;
  maxDistance.min = String(Math.floor(Number(buckets.value) / exactPerBucket) + 1);
  buckets.max = String(Math.min(256, exactPerBucket * (Number(maxDistance.value) - 1) + exactPerBucket - 1));
}

t5Form.addEventListener('input', () => {
  linkBucketRanges();
  plotBuckets();
});
linkBucketRanges();
for (const form of [alibiForm, t5Form]) form.addEventListener('submit', (event) => event.preventDefault());
plotBuckets();
// t5-small's trained bucket table (its encoder's, [32 buckets, 8 heads]), read by HTTP Range out of its checkpoint on
// the Hub; offline the element keeps its untrained table, and the page says why.
const T5_CHECKPOINT = 'https://huggingface.co/google-t5/t5-small/resolve/main/model.safetensors';
const T5_TABLE = 'encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight';
async function showTrainedT5() {
  const source = document.querySelector('#t5-source');
  source.textContent = 'Reading t5-small\'s table from the Hugging Face Hub…';
  try {
    const file = await pe.openSafetensors(T5_CHECKPOINT);
    const table = await file.tensor(T5_TABLE);
    document.querySelector('#t5').table = { ...table, name: 't5-small\'s trained table (its encoder\'s)' };
    source.textContent = `t5-small's ${T5_TABLE} [${table.shape.join(' × ')}], read from ${T5_CHECKPOINT}.`;
    source.dataset.table = 't5-small';
  } catch (error) {
    source.textContent = `t5-small's table could not be read from the Hub (${error.message}). Offline, the bias below comes from an untrained (random) table.`;
    source.dataset.table = 'random';
  }
}

await Promise.all([showTrainedT5(), mountRelativeVectors(pe, document.querySelector('#relative-vectors'))]);
document.documentElement.dataset.ready = 'true';
