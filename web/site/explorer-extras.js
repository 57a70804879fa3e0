// The explorer's further views, all read from the package's tensors: waves of chosen dimensions, the
// frequency of each pair, the position-by-position similarity, and the relative-offset rotation.
import { Figure, onHost, paintPixels } from 'posembed/components';
import { compute } from './compute.js';

// ω of each pair from the table: the angle its (sin, cos) has turned by at position 1.
export async function frequencies(pe, { dModel, base, layout, timescale }) {
  const row = await onHost(pe.sinusoidal({ positions: [1], dModel, base, layout, timescale }));
  const half = dModel / 2;
  return Array.from({ length: half }, (_, i) => {
    const [s, c] = layout === 'interleaved' ? [row.data[2 * i], row.data[2 * i + 1]] : [row.data[i], row.data[half + i]];
    return Math.atan2(s, c);
  });
}

// The dimensions typed in the waves box (one to five non-negative integers), split into those the table has
// and those past its d_model (left out, and said so: narrowing d_model is not the box's mistake).
export function waveDimensions(text, dModel) {
  const typed = String(text).split(',').map((d) => d.trim()).filter(Boolean).map(Number);
  for (const d of typed) {
    if (!Number.isInteger(d) || d < 0) throw new RangeError(`dimensions must be integers from 0, separated by commas, got ${d}`);
  }
  if (typed.length === 0 || typed.length > 5) throw new RangeError(`dimensions: give one to five, got ${typed.length}`);
  const shown = typed.filter((d) => d < dModel);
  if (shown.length === 0) throw new RangeError(`dimensions: the table has dimensions 0–${dModel - 1}, got ${typed.join(', ')}`);
  return { shown, past: typed.filter((d) => d >= dModel) };
}

export function mountExtras(pe, root, getParams) {
  const waveForm = root.querySelector('#wave-controls');
  const offsetForm = root.querySelector('#offset-controls');
  const wavesError = root.querySelector('#waves-error');
  const waves = new Figure(root.querySelector('#waves-figure'), { label: 'The chosen dimensions of the encoding over the positions' });
  const similarity = new Figure(root.querySelector('#similarity-figure'), { label: 'Dot products of the encodings of every pair of positions' });
  const rates = new Figure(root.querySelector('#frequencies-figure'), { label: 'The turn per position of every pair, read from the table' });
  const similarityCanvas = document.createElement('canvas');
  similarityCanvas.id = 'similarity';

  async function render() {
    const params = getParams();
    if (!params) return;
    // Waves
    try {
      const { shown: dimensions, past } = waveDimensions(new FormData(waveForm).get('dimensions'), params.dModel);
      const table = await onHost(pe.sinusoidal(params));
      const x = Array.from({ length: params.length }, (_, p) => params.offset + p);
      waves.lines(dimensions.map((d) => ({ label: `dimension ${d}`, x, y: x.map((_, p) => table.data[p * params.dModel + d]) })),
        { x: { label: 'position' }, y: { label: 'value', domain: [-1, 1] } });
      waves.caption = 'Each column is one wave: low dimensions cycle fast, high ones slowly. Sine and cosine of a pair are a quarter-turn apart.'
        + (past.length ? ` Dimension${past.length > 1 ? 's' : ''} ${past.join(', ')} left out: the table has ${params.dModel} (0–${params.dModel - 1}).` : '');
      wavesError.hidden = true;
    } catch (error) {
      wavesError.textContent = error.message;
      wavesError.hidden = false;
    }
    // Frequencies
    const omega = await frequencies(pe, params);
    const pairs = omega.map((_, i) => i);
    rates.lines([{ label: 'log10 ω (radians per position)', x: pairs, y: omega.map(Math.log10) }], {
      x: { label: 'pair i' }, y: { label: 'log10 ω' },
      describe: (i) => `pair ${i}: ω = ${omega[i].toExponential(4)} rad per position, wavelength 2π/ω = ${(2 * Math.PI / omega[i]).toPrecision(6)} positions`,
    });
    rates.caption = `Read from row 1 of the table. ω falls geometrically from 1 (pair 0) to ${omega.at(-1).toExponential(2)} (pair ${omega.length - 1}): a straight line on this log scale. Focus the plot and use the arrow keys for each pair's numbers.`;
    // Similarity of every pair of positions, in the worker (length² dot products)
    similarity.stale(true);
    const dots = await compute('similarity', { params });
    if (getParams() !== params) return;
    paintPixels(similarityCanvas, dots);
    similarity.frame(similarityCanvas, {
      shape: dots.tensor.shape, colormap: 'RdBu', range: dots.range, value: (index) => dots.tensor.data[index],
      x: { label: 'position q', names: (q) => String(params.offset + q) }, y: { label: 'position p', names: (p) => String(params.offset + p) },
      colour: { label: 'PE(p)·PE(q)' },
    });
    similarity.caption = `Largest (${params.dModel / 2}, the squared length of a row) on the diagonal, falling as p and q move apart, and the same along every diagonal: the dot product depends only on q − p.`;
    // Relative offset: R_k from the encoding at position k, applied to PE(p), against PE(p + k)
    const f = new FormData(offsetForm);
    const p = Math.max(0, Math.floor(Number(f.get('p'))));
    const k = Math.max(0, Math.floor(Number(f.get('k'))));
    const at = await onHost(pe.sinusoidal({ positions: [p, k, p + k], dModel: params.dModel, base: params.base, layout: params.layout, timescale: params.timescale }));
    const d = params.dModel;
    const half = d / 2;
    const columns = (i) => (params.layout === 'interleaved' ? [2 * i, 2 * i + 1] : [i, half + i]);
    let worst = 0;
    const blocks = [];
    for (let i = 0; i < half; i++) {
      const [si, ci] = columns(i);
      const [sk, ck] = [at.data[d + si], at.data[d + ci]];
      const [sp, cp] = [at.data[si], at.data[ci]];
      const rotated = [sp * ck + cp * sk, cp * ck - sp * sk];  // R_k · (sin, cos)(p)
      worst = Math.max(worst, Math.abs(rotated[0] - at.data[2 * d + si]), Math.abs(rotated[1] - at.data[2 * d + ci]));
      if (i < 3) blocks.push(`pair ${i}: R = [[${ck.toFixed(4)}, ${sk.toFixed(4)}], [${(-sk).toFixed(4)}, ${ck.toFixed(4)}]]`);
    }
    const output = root.querySelector('#offset');
    output.textContent = `${blocks.join('\n')}\n…\nmax |R_${k} · PE(${p}) − PE(${p + k})| over all ${half} pairs = ${worst.toExponential(2)}`;
    output.dataset.error = String(worst);
  }

  // Failures show under the offset view; the rest of the page keeps working.
  const rerender = () => render().catch((error) => { root.querySelector('#offset').textContent = `${error.name}: ${error.message}`; });
  waveForm.addEventListener('input', rerender);
  offsetForm.addEventListener('input', rerender);
  for (const form of [waveForm, offsetForm]) form.addEventListener('submit', (event) => event.preventDefault());
  return rerender;
}
