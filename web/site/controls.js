// The site's controls: continuous ones as sliders, and figures drawn again as they move.
//
// Every number box marked data-slider ("linear", or "log" for a base or a factor spanning decades; a linear range too
// wide to aim at is made logarithmic) gets a slider beside it. Dragging writes the box and fires its input event, so each page's form sees one control; typing in
// the box moves the slider. The box stays for exact values.
const LOG_STEPS = 1000;  // a log slider's positions
// A linear slider of more values than this, whose range spans two decades or more, puts them too close to aim at
// one (2 to 4096 on a 200-px slider: 20 a pixel): it is logarithmic instead, as a base's is.
const AIMABLE_STEPS = 300;

function logarithmic(box) {
  if (box.dataset.slider === 'log') return true;
  const [min, max] = [Number(box.min), Number(box.max)];
  const step = box.step === 'any' ? 1 : Number(box.step || 1);
  return min > 0 && max / min >= 100 && (max - min) / step > AIMABLE_STEPS;
}

// The slider position of a box value, and the box value of a slider position.
function scaleOf(box) {
  const min = Number(box.min);
  const max = Number(box.max);
  const step = box.step === 'any' ? 0 : Number(box.step || 1);
  if (!logarithmic(box)) {
    return { min, max, step: step || 'any', toSlider: (v) => v, toBox: (p) => String(p) };
  }
  const [low, high] = [Math.log(min), Math.log(max)];
  return {
    min: 0,
    max: LOG_STEPS,
    step: 1,
    toSlider: (v) => Math.round(((Math.log(v) - low) / (high - low)) * LOG_STEPS),
    // Three significant figures: a slider picks a magnitude; the box is there for exact values.
    toBox: (p) => {
      const value = Math.exp(low + (p / LOG_STEPS) * (high - low));
      const rounded = Number(value.toPrecision(3));
      const stepped = step ? Math.round(rounded / step) * step : rounded;
      return String(Math.min(max, Math.max(min, stepped)));
    },
  };
}

export function addSliders(root = document) {
  for (const box of root.querySelectorAll('input[type="number"][data-slider]')) {
    const scale = scaleOf(box);
    const label = box.closest('label');
    const slider = Object.assign(document.createElement('input'), { type: 'range', min: String(scale.min), max: String(scale.max), step: String(scale.step) });
    slider.className = 'slider';
    slider.setAttribute('aria-label', `${label?.firstChild?.textContent.trim() || box.name} (slider${logarithmic(box) ? ', logarithmic' : ''})`);
    const follow = () => {
      const value = Number(box.value);
      if (box.value !== '' && Number.isFinite(value) && value >= Number(box.min) && value <= Number(box.max)) slider.value = String(scale.toSlider(value));
    };
    follow();
    slider.addEventListener('input', (event) => {
      event.stopPropagation();  // the form hears the box, once
      box.value = scale.toBox(Number(slider.value));
      box.dispatchEvent(new Event('input', { bubbles: true }));
    });
    box.addEventListener('input', (event) => { if (event.isTrusted) follow(); });
    // A box whose range follows another control's value takes its slider's range with it.
    new MutationObserver(() => {
      const moved = scaleOf(box);
      Object.assign(slider, { min: String(moved.min), max: String(moved.max) });
      Object.assign(scale, moved);
      follow();
    }).observe(box, { attributes: true, attributeFilter: ['min', 'max'] });
    box.after(slider);
  }
}

// A drawing for controls that change many times a second (a slider dragged): every change is drawn, but never two
// drawings at once and none for values already passed: while one runs, only the latest change waits for it.
export function latestOnly(draw) {
  let running = null;
  let waiting = false;
  const request = () => {
    if (running) {
      waiting = true;
      return running;
    }
    running = (async () => {
      await new Promise((resolve) => { requestAnimationFrame(resolve); });  // the changes of one frame, drawn once
      try {
        await draw();
      } finally {
        running = null;
        if (waiting) {
          waiting = false;
          request();
        }
      }
    })();
    return running;
  };
  return request;
}

// Draws again on every change of form's controls: at once while a slider, checkbox or menu moves; a moment after
// the last keystroke while a value is typed into a box (no drawing, or error, for a half-typed number).
// onChange runs at every change (to mark the figures stale).
export function redrawOnChange(form, draw, { onChange = () => {}, typingMs = 150 } = {}) {
  const redraw = latestOnly(draw);
  let timer = 0;
  form.addEventListener('input', (event) => {
    onChange();
    clearTimeout(timer);
    const typed = event.isTrusted && (event.target.type === 'text' || event.target.type === 'number');
    if (typed) timer = setTimeout(redraw, typingMs);
    else redraw();
  });
  return redraw;
}
