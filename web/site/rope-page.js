// The RoPE page's scaling view: pe.ropeInvFreq for each scaling rule, plotted (log10 ω by pair) and tabulated.
import { load } from 'posembed';
import { valueRange } from 'posembed/components';

const COLOURS = { default: '#1d232a', linear: '#1f5fbf', dynamic: '#1b7837', llama3: '#b2182b', yarn: '#e08214' };
const pe = await load({ backend: 'auto' });
const form = document.querySelector('#scaling-controls');

export function scalings(f) {
  const number = (name) => Number(f.get(name));
  const common = { factor: number('factor'), originalMaxPositions: number('originalMaxPositions') };
  return {
    default: { type: 'default' },
    linear: { type: 'linear', factor: common.factor },
    dynamic: { type: 'dynamic', ...common, sequenceLength: number('sequenceLength') },
    llama3: { type: 'llama3', ...common, lowFreqFactor: number('lowFreqFactor'), highFreqFactor: number('highFreqFactor') },
    yarn: { type: 'yarn', ...common, betaFast: number('betaFast'), betaSlow: number('betaSlow') },
  };
}

function render() {
  const f = new FormData(form);
  const errorBox = document.querySelector('#scaling-error');
  let curves;
  try {
    const headDim = Number(f.get('headDim'));
    const base = Number(f.get('base'));
    curves = Object.entries(scalings(f)).map(([name, scaling]) => [name, pe.ropeInvFreq({ headDim, base, scaling })]);
  } catch (error) {
    errorBox.textContent = error.message;
    errorBox.hidden = false;
    return;
  }
  errorBox.hidden = true;
  const canvas = document.querySelector('#scaling-plot');
  const context = canvas.getContext('2d');
  context.clearRect(0, 0, canvas.width, canvas.height);
  const all = curves.flatMap(([, { invFreq }]) => Array.from(invFreq.data, Math.log10));
  const { min: low, max: high } = valueRange(all);
  const half = curves[0][1].invFreq.data.length;
  const x = (i) => 40 + (i / Math.max(half - 1, 1)) * (canvas.width - 150);
  const y = (v) => 10 + ((high - v) / (high - low || 1)) * (canvas.height - 30);
  context.font = '12px system-ui, sans-serif';
  curves.forEach(([name, { invFreq }], k) => {
    context.strokeStyle = COLOURS[name];
    context.lineWidth = 2;
    context.beginPath();
    invFreq.data.forEach((w, i) => (i ? context.lineTo(x(i), y(Math.log10(w))) : context.moveTo(x(i), y(Math.log10(w)))));
    context.stroke();
    context.fillStyle = COLOURS[name];
    context.fillText(name, canvas.width - 100, 20 + 16 * k);
  });
  const rows = curves.map(([name, { invFreq, attentionFactor }]) => `<tr data-scaling="${name}"><td>${name}</td><td>${invFreq.data[0].toExponential(5)}</td>`
    + `<td>${invFreq.data[half - 1].toExponential(5)}</td><td>${attentionFactor.toFixed(5)}</td></tr>`);
  document.querySelector('#scaling-table').innerHTML = `<thead><tr><th>scaling</th><th>ω<sub>0</sub></th><th>ω<sub>${half - 1}</sub></th><th>attention factor</th></tr></thead><tbody>${rows.join('')}</tbody>`;
  document.documentElement.dataset.ready = 'true';
}

// Each factor's field allows what the scaling accepts beside its partner's value (lowFreqFactor < highFreqFactor,
// betaSlow < betaFast), so the fields' limits are always valid settings.
function linkRanges() {
  for (const [low, high] of [['lowFreqFactor', 'highFreqFactor'], ['betaSlow', 'betaFast']]) {
    form.elements[low].max = String(Number(form.elements[high].value) - 0.01);
    form.elements[high].min = String(Number(form.elements[low].value) + 0.01);
  }
}

form.addEventListener('input', () => {
  linkRanges();
  render();
});
form.addEventListener('submit', (event) => event.preventDefault());
linkRanges();
render();
