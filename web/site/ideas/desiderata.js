// What a positional encoding should do, checked: each property measured on each encoding by the package, at twice
// a training length, with the number that decides it.
import { onHost } from 'posembed/components';

const TRAINED = 32;
const LENGTH = 2 * TRAINED;
const D = 16;
const HEADS = 8;
const BUCKETS = 16;

// The largest |a − b| over pairs the caller lists.
const largest = (pairs) => pairs.reduce((most, [a, b]) => Math.max(most, Math.abs(a - b)), 0);

// Over p, how far PE(p)·PE(p + k) strays from PE(0)·PE(k), for every k: 0 when dot products depend on distance only.
function distanceSpread(dots, n) {
  const pairs = [];
  for (let k = 1; k < n; k++) for (let p = 1; p + k < n; p++) pairs.push([dots.data[p * n + p + k], dots.data[k]]);
  return largest(pairs);
}

// Whether a [n, n] matrix is the same along each diagonal (a function of key − query only), over its finite cells.
function diagonalSpread(data, n) {
  const pairs = [];
  for (let q = 1; q < n; q++) for (let k = 1; k < n; k++) if (Number.isFinite(data[q * n + k])) pairs.push([data[q * n + k], data[(q - 1) * n + k - 1]]);
  return largest(pairs);
}

// The distance between rows a and b from their dot products.
const rowDistance = (dots, n, a, b) => Math.sqrt(Math.max(0, dots.data[a * n + a] + dots.data[b * n + b] - 2 * dots.data[a * n + b]));

async function measure(pe) {
  const sinusoidal = await onHost(pe.sinusoidal({ length: LENGTH, dModel: D }));
  const sinusoidDots = await onHost(pe.similarity(sinusoidal, null, { metric: 'dot' }));
  const learned = pe.learnedPositions({ maxLength: TRAINED, dModel: D, init: { std: 1, seed: 0 } });
  const learnedDots = await onHost(pe.similarity(learned.weights, null, { metric: 'dot' }));
  let pastEnd;
  try {
    learned.lookup(LENGTH);  // the first LENGTH positions' rows
  } catch (error) {
    pastEnd = `${error.name}: ${error.message.split(':')[0]}`;
  } finally {
    learned.dispose();
  }
  const ones = { data: new Float32Array(LENGTH * D).fill(1), shape: [LENGTH, D] };
  const turned = await onHost(pe.applyRope(ones, {}));
  const turnedDots = await onHost(pe.similarity(turned, null, { metric: 'dot' }));
  let normDrift = 0;
  for (let p = 0; p < LENGTH; p++) normDrift = Math.max(normDrift, Math.abs(Math.sqrt(turnedDots.data[p * LENGTH + p]) - Math.sqrt(D)));
  const alibi = await onHost(pe.alibiBias({ numHeads: HEADS, keyLength: LENGTH, causal: true }));
  const firstHead = alibi.data.subarray(0, LENGTH * LENGTH);
  const buckets = await onHost(pe.t5Buckets({ queryLength: LENGTH, keyLength: LENGTH, numBuckets: BUCKETS, maxDistance: TRAINED, bidirectional: false }));
  const bucketAt = (distance) => buckets.data[(LENGTH - 1) * LENGTH + LENGTH - 1 - distance];
  return {
    sinusoidal: {
      bounded: [true, `every value within ±1 (largest |value| ${sinusoidal.data.reduce((m, v) => Math.max(m, Math.abs(v)), 0).toFixed(4)})`],
      past: [true, `rows at every position (here to ${LENGTH - 1})`],
      relative: [true, `PE(p)·PE(p + k) is PE(0)·PE(k) for every p (largest difference ${distanceSpread(sinusoidDots, LENGTH).toExponential(1)})`],
      free: [true, 'a formula: 0 parameters'],
      far: [true, `neighbours as far apart at the end as at the start (${rowDistance(sinusoidDots, LENGTH, 0, 1).toFixed(4)} for 0 and 1, `
        + `${rowDistance(sinusoidDots, LENGTH, LENGTH - 2, LENGTH - 1).toFixed(4)} for ${LENGTH - 2} and ${LENGTH - 1})`],
    },
    learned: {
      bounded: [true, 'its values are what training puts there'],
      past: [false, `no row past ${TRAINED - 1}: lookup(${LENGTH}) → ${pastEnd}`],
      relative: [false, `rows are independent: PE(p)·PE(p + k) strays by up to ${distanceSpread(learnedDots, TRAINED).toFixed(1)} from PE(0)·PE(k) (untrained)`],
      free: [false, `${TRAINED} × ${D} = ${TRAINED * D} parameters to learn`],
      far: [true, 'each row its own, near or far'],
    },
    rope: {
      bounded: [true, `turns, never stretches: every turned query keeps its length (largest change ${normDrift.toExponential(1)})`],
      past: [true, `turns at every position (here to ${LENGTH - 1})`],
      relative: [true, `the score of q at m and k at n depends on m − n only (largest difference ${distanceSpread(turnedDots, LENGTH).toExponential(1)})`],
      free: [true, 'a formula: 0 parameters'],
      far: [true, 'every distance its own angles'],
    },
    alibi: {
      bounded: [false, `grows with distance: head 1's bias at distance ${LENGTH - 1} is ${firstHead[(LENGTH - 1) * LENGTH].toFixed(1)}`],
      past: [true, 'a bias for any distance'],
      relative: [true, `the same along every diagonal (largest difference ${diagonalSpread(firstHead, LENGTH).toExponential(1)})`],
      free: [true, 'slopes fixed by the head count: 0 parameters'],
      far: [true, 'every distance its own bias'],
    },
    t5: {
      bounded: [true, `one learned number per bucket: ${BUCKETS} of them`],
      past: [true, 'every distance falls in some bucket'],
      relative: [true, `buckets of key − query only (largest difference along a diagonal ${diagonalSpread(buckets.data, LENGTH)})`],
      free: [false, `${BUCKETS} buckets × ${HEADS} heads = ${BUCKETS * HEADS} parameters to learn`],
      far: [false, `distances from ${TRAINED} on share one bucket (distance ${TRAINED}: bucket ${bucketAt(TRAINED)}, distance ${LENGTH - 1}: bucket ${bucketAt(LENGTH - 1)})`],
    },
  };
}

const PROPERTIES = [
  ['bounded', 'stays in a fixed range at any length'],
  ['past', 'gives something past the training length'],
  ['relative', 'depends on distance, not on where'],
  ['free', 'nothing to learn'],
  ['far', 'tells far distances apart as well as near ones'],
];
const NAMES = { sinusoidal: 'sinusoidal', learned: 'learned table', rope: 'RoPE', alibi: 'ALiBi', t5: 'T5 buckets' };

export async function mountDesiderata(pe, section) {
  const measured = await measure(pe);
  const table = section.querySelector('table');
  const head = table.createTHead().insertRow();
  for (const text of ['property', ...Object.values(NAMES)]) head.append(Object.assign(document.createElement('th'), { scope: 'col', textContent: text }));
  const body = table.createTBody();
  for (const [key, words] of PROPERTIES) {
    const row = body.insertRow();
    row.append(Object.assign(document.createElement('th'), { scope: 'row', textContent: words }));
    for (const encoding of Object.keys(NAMES)) {
      const [holds, evidence] = measured[encoding][key];
      const cell = row.insertCell();
      cell.dataset.encoding = encoding;
      cell.dataset.holds = String(holds);
      cell.append(Object.assign(document.createElement('strong'), { textContent: holds ? 'yes' : 'no' }), ` — ${evidence}`);
    }
  }
}
