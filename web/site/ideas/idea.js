// What every idea on the tour shares: its form's values (checked, each error naming its control), drawn again as
// they change (controls.js), with the figures marked stale meanwhile and an error beside the form.
import { Figure, nextTask } from 'posembed/components';
import { redrawOnChange } from '../controls.js';

// An integer control's value, or a RangeError naming the control and its range.
export function integerField(values, name, low, high, label = name) {
  const value = Number(values[name]);
  if (values[name] === '' || !Number.isInteger(value) || value < low || value > high) {
    throw new RangeError(`${label} must be an integer in [${low}, ${high}], got ${values[name] === '' ? 'nothing' : values[name]}`);
  }
  return value;
}

export function numberField(values, name, low, high, label = name) {
  const value = Number(values[name]);
  if (values[name] === '' || !Number.isFinite(value) || value < low || value > high) {
    throw new RangeError(`${label} must be a number in [${low}, ${high}], got ${values[name] === '' ? 'nothing' : values[name]}`);
  }
  return value;
}

// Figures for a section, in the element with the given selector (the section itself by default).
export function figures(section, specs) {
  return specs.map((spec) => new Figure(section.querySelector(spec.in ?? '.figures') ?? section, spec));
}

// A task of its own (the elements' own, from posembed/components): ideas mounted together on load draw one after
// another, the page answering in between, and a long computation, awaiting it now and then, lets the page answer.
export { nextTask };

// Draws the idea now and after every change of its form (debounced). draw(values) gets the form's values
// (checkboxes as booleans); a throw shows beside the form. Resolves once the first drawing is done.
export function mountIdea(section, shown, draw) {
  const form = section.querySelector('form');
  const errorLine = section.querySelector('.idea-error');
  let generation = 0;
  const values = () => {
    if (!form) return {};
    const result = Object.fromEntries(new FormData(form));
    for (const box of form.querySelectorAll('input[type="checkbox"]')) result[box.name] = box.checked;
    return result;
  };
  const run = async () => {
    const current = ++generation;
    for (const figure of shown) figure.stale(true);
    await nextTask();
    if (current !== generation) return;
    try {
      await draw(values(), () => current !== generation);
      if (current === generation) errorLine.hidden = true;
    } catch (error) {
      if (current !== generation) return;
      errorLine.textContent = error.message;
      errorLine.hidden = false;
    }
  };
  form?.addEventListener('submit', (event) => event.preventDefault());
  if (form) redrawOnChange(form, run, { onChange: () => { for (const figure of shown) figure.stale(true); } });
  return run();
}

export const rows = (tensor, r) => tensor.data.subarray(r * tensor.shape[1], (r + 1) * tensor.shape[1]);
export function dot(a, b) {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

// A seeded vector with entries in [-1, 1] (mulberry32), the same numbers on every visit.
export function seededVector(seed, n) {
  let state = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1;
  });
}
