// The ALiBi and T5 page's controls: they set the components' attributes, and plot the T5 bucket function.
import { load } from 'posembed';
import { Figure } from 'posembed/components';
import { mountRelativeVectors } from './ideas/relative-vectors.js';

const pe = await load({ backend: 'auto' });
const bucketFigure = new Figure(document.querySelector('#t5-figure'), { label: 'The T5 bucket of each relative position' });
const alibiForm = document.querySelector('#alibi-controls');
const t5Form = document.querySelector('#t5-controls');

function updateAlibi() {
  const f = new FormData(alibiForm);
  const alibi = document.querySelector('#alibi');
  alibi.setAttribute('heads', String(f.get('heads')));
  alibi.setAttribute('length', String(f.get('length')));
  alibi.toggleAttribute('causal', f.get('causal') === 'on');
  alibi.setAttribute('scale', f.get('shared') === 'on' ? 'shared' : 'per-head');
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
await mountRelativeVectors(pe, document.querySelector('#relative-vectors'));
document.documentElement.dataset.ready = 'true';
