// The RoPE page's scaling view: pe.ropeInvFreq for each scaling rule, plotted (log10 ω by pair) and tabulated,
// and the chosen rule's dials (its parameters set on <posembed-rope id="rope-scaled">).
import { load } from 'posembed';
import { Figure } from 'posembed/components';

const pe = await load({ backend: 'auto' });
const form = document.querySelector('#scaling-controls');
const figure = new Figure(document.querySelector('#scaling-figure'), { label: 'log10 of each pair\'s rate under every scaling rule' });
const dials = document.querySelector('#rope-scaled');

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
  const half = curves[0][1].invFreq.data.length;
  const pairs = Array.from({ length: half }, (_, i) => i);
  figure.lines(curves.map(([name, { invFreq }]) => ({ label: name, x: pairs, y: Array.from(invFreq.data, Math.log10), dashed: name === 'default' })), {
    x: { label: 'pair i' }, y: { label: 'log10 ω (radians per position)' },
    describe: (i) => `pair ${i}: ${curves.map(([name, { invFreq }]) => `${name} ${invFreq.data[i].toExponential(3)}`).join(', ')}`,
  });
  figure.caption = 'Linear lowers every rate by the same step (on this log scale); dynamic bends the slow end most; llama3 and yarn leave the fast pairs (left) alone and lower only the slow ones (right).';
  const shown = f.get('shown');
  const scaling = curves.find(([name]) => name === shown)[1];
  // Four dials, or one per pair where the head has fewer (the element refuses more dials than pairs).
  for (const [attribute, value] of [['head-dim', f.get('headDim')], ['pairs', Math.min(4, Number(f.get('headDim')) / 2)], ['base', f.get('base')], ['scaling', shown], ['factor', f.get('factor')],
    ['original-max-positions', f.get('originalMaxPositions')], ['sequence-length', f.get('sequenceLength')], ['low-freq-factor', f.get('lowFreqFactor')],
    ['high-freq-factor', f.get('highFreqFactor')], ['beta-fast', f.get('betaFast')], ['beta-slow', f.get('betaSlow')]]) dials.setAttribute(attribute, String(value));
  dials.dataset.attentionFactor = String(scaling.attentionFactor);
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
