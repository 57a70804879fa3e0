// The ALiBi and T5 page's controls: they set the components' attributes, and plot the T5 bucket function.
import { load } from 'posembed';

const pe = await load({ backend: 'auto' });
const alibiForm = document.querySelector('#alibi-controls');
const t5Form = document.querySelector('#t5-controls');

function updateAlibi() {
  const f = new FormData(alibiForm);
  const alibi = document.querySelector('#alibi');
  alibi.setAttribute('heads', String(f.get('heads')));
  alibi.setAttribute('length', String(f.get('length')));
  alibi.toggleAttribute('causal', f.get('causal') === 'on');
  alibi.toggleAttribute('shared-scale', f.get('shared') === 'on');
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
  const canvas = document.querySelector('#t5-plot');
  const context = canvas.getContext('2d');
  context.clearRect(0, 0, canvas.width, canvas.height);
  const x = (r) => 40 + ((r + span) / (2 * span)) * (canvas.width - 60);
  const y = (b) => canvas.height - 30 - (b / Math.max(options.numBuckets - 1, 1)) * (canvas.height - 50);
  context.strokeStyle = '#d4d9df';
  context.beginPath();
  context.moveTo(x(0), 10);
  context.lineTo(x(0), canvas.height - 30);
  context.stroke();
  context.strokeStyle = '#1f5fbf';
  context.lineWidth = 2;
  context.beginPath();
  buckets.forEach((b, i) => (i ? context.lineTo(x(i - span), y(b)) : context.moveTo(x(-span), y(b))));
  context.stroke();
  context.fillStyle = '#1d232a';
  context.font = '12px system-ui, sans-serif';
  context.fillText(`key − query = −${span}`, 40, canvas.height - 10);
  context.fillText(`+${span}`, canvas.width - 50, canvas.height - 10);
  document.querySelector('#t5-readout').textContent = `bucket(−1) = ${buckets[span - 1]}, bucket(0) = ${buckets[span]}, bucket(+1) = ${buckets[span + 1]}, `
    + `bucket(±${span}) = ${buckets[0]}, ${buckets[2 * span]}`;
  const matrix = document.querySelector('#t5-buckets');
  matrix.setAttribute('buckets', String(options.numBuckets));
  matrix.setAttribute('max-distance', String(options.maxDistance));
  matrix.setAttribute('bidirectional', String(options.bidirectional));
  document.documentElement.dataset.ready = 'true';
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
