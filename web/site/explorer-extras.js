// The explorer's further views, all read from the package's tensors: waves of chosen dimensions, the
// frequency of each pair, the position-by-position similarity, and the relative-offset rotation.
import { drawHeatmap, onHost, valueRange } from 'posembed/components';

// ω of each pair from the table: the angle its (sin, cos) has turned by at position 1.
export async function frequencies(pe, { dModel, base, layout, timescale }) {
  const row = await onHost(pe.sinusoidal({ positions: [1], dModel, base, layout, timescale }));
  const half = dModel / 2;
  return Array.from({ length: half }, (_, i) => {
    const [s, c] = layout === 'interleaved' ? [row.data[2 * i], row.data[2 * i + 1]] : [row.data[i], row.data[half + i]];
    return Math.atan2(s, c);
  });
}

function plotWaves(canvas, tensor, dimensions) {
  const [length, dModel] = tensor.shape;
  const context = canvas.getContext('2d');
  context.clearRect(0, 0, canvas.width, canvas.height);
  const x = (p) => 30 + (p / Math.max(length - 1, 1)) * (canvas.width - 40);
  const y = (v) => canvas.height / 2 - v * (canvas.height / 2 - 12);
  context.strokeStyle = '#d4d9df';
  context.beginPath();
  context.moveTo(30, y(0));
  context.lineTo(canvas.width - 10, y(0));
  context.stroke();
  const colours = ['#1f5fbf', '#b2182b', '#1b7837', '#762a83', '#e08214'];
  dimensions.forEach((d, k) => {
    context.strokeStyle = colours[k % colours.length];
    context.lineWidth = 2;
    context.beginPath();
    for (let p = 0; p < length; p++) {
      const v = tensor.data[p * dModel + d];
      if (p === 0) context.moveTo(x(p), y(v));
      else context.lineTo(x(p), y(v));
    }
    context.stroke();
  });
  return colours;
}

export function mountExtras(pe, root, getParams) {
  const waveForm = root.querySelector('#wave-controls');
  const offsetForm = root.querySelector('#offset-controls');

  async function render() {
    const params = getParams();
    if (!params) return;
    const table = await onHost(pe.sinusoidal(params));
    // Waves
    const dimensions = String(new FormData(waveForm).get('dimensions')).split(',').map((d) => Number(d.trim()))
      .filter((d) => Number.isInteger(d) && d >= 0 && d < params.dModel).slice(0, 5);
    const colours = plotWaves(root.querySelector('#waves'), table, dimensions);
    root.querySelector('#wave-legend').textContent = dimensions.map((d, k) => `dim ${d} (${colours[k]})`).join(' · ');
    // Frequencies
    const omega = await frequencies(pe, params);
    const rows = omega.map((w, i) => `<tr><td>${i}</td><td>${w.toExponential(4)}</td><td>${(2 * Math.PI / w).toPrecision(6)}</td></tr>`);
    root.querySelector('#frequencies').innerHTML = `<thead><tr><th>pair i</th><th>ω<sub>i</sub> (rad / position)</th><th>wavelength 2π/ω<sub>i</sub></th></tr></thead><tbody>${rows.join('')}</tbody>`;
    // Similarity of every pair of positions
    const similarity = await onHost(pe.similarity(table));
    const canvas = root.querySelector('#similarity');
    drawHeatmap(canvas, similarity, { colormap: 'viridis', range: valueRange(similarity.data) });
    const cell = Math.max(1, Math.floor(360 / params.length));
    canvas.style.width = `${params.length * cell}px`;
    canvas.style.height = `${params.length * cell}px`;
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
