// The sinusoidal explorer: controls → pe.sinusoidal → heatmap (then onDrawn, for the views that follow it), plus a readout of the cell under the cursor
// with its formula, the numbers substituted.
import { Figure, drawGpuHeatmap, drawHeatmap, onHost, paintPixels } from 'posembed/components';
import { compute } from './compute.js';
import { redrawOnChange } from './controls.js';

const LIMIT = { min: -1, max: 1 };

function formatNumber(x, digits = 4) {
  return Number.isInteger(x) ? String(x) : x.toFixed(digits);
}

// The formula of one cell, with the numbers of this table put in (evaluated in double precision).
export function cellFormula({ base, dModel, layout, timescale, offset }, row, column) {
  const half = dModel / 2;
  const pair = layout === 'interleaved' ? Math.floor(column / 2) : column % half;
  const isCosine = layout === 'interleaved' ? column % 2 === 1 : column >= half;
  const fn = isCosine ? 'cos' : 'sin';
  const position = offset + row;
  const [numerator, denominator] = timescale === 't2t' ? [pair, Math.max(half - 1, 1)] : [2 * pair, dModel];
  const wavelength = base ** (numerator / denominator);
  const angle = position / wavelength;
  const value = isCosine ? Math.cos(angle) : Math.sin(angle);
  const symbolic = timescale === 't2t'
    ? `${fn}(p / base^(i/(d/2−1)))` : `${fn}(p / base^(2i/d))`;
  return {
    position, pair, fn, wavelength, angle, value,
    text: `PE(p=${position}, dim ${column}) = ${symbolic}, i = ${pair}\n`
      + `  = ${fn}(${position} / ${base}^(${numerator}/${denominator})) = ${fn}(${position} / ${formatNumber(wavelength, 3)})`
      + ` = ${fn}(${formatNumber(angle)}) = ${value.toFixed(6)}`,
  };
}

// The heatmap with its axes, colour bar and readout (the formula of the cell under the cursor). Tables are
// computed in the compute worker, or on the GPU where the page has WebGPU (drawn there, read back only for the
// readout); the page's thread only copies pixels, so no value of the controls freezes it.
export function mountExplorer(pe, root, { onDrawn = () => {} } = {}) {
  const form = root.querySelector('#controls');
  const readout = root.querySelector('#readout');
  const errorBox = root.querySelector('#encoding-error');
  const figure = new Figure(root.querySelector('#encoding-figure'), { label: 'Heatmap of the sinusoidal encoding, position by dimension', readout });
  const canvas = document.createElement('canvas');
  canvas.id = 'heatmap';
  let params = null;
  let tensor = null;  // the values on the host; on the webgpu backend read back once drawn, for the readout
  let onGpu = null;   // the GpuTensor drawn last, kept for that read until the next table replaces it
  let readFor = 0;    // the generation whose GpuTensor is being (or was) read
  let generation = 0;
  let drawnNote = '';  // why the CPU drew what the GPU was asked to

  function readParams() {
    const f = new FormData(form);
    return {
      length: Number(f.get('length')),
      dModel: Number(f.get('dModel')),
      base: Number(f.get('base')),
      layout: f.get('layout'),
      timescale: f.get('timescale'),
      offset: Number(f.get('offset')),
    };
  }

  function showError(error) {
    errorBox.textContent = error.message;
    errorBox.hidden = false;
    figure.stale(true);
  }

  async function render() {
    const next = readParams();
    const current = ++generation;
    figure.stale(true);
    try {
      if (pe.backend === 'webgpu') {
        const result = pe.sinusoidal(next);
        onGpu?.dispose();
        onGpu = null;
        tensor = null;
        if (result.buffer) {
          onGpu = result;  // drawn by the render pipeline where it lies
          await drawGpuHeatmap(canvas, result, pe, { colormap: 'RdBu', range: LIMIT });
          // The reader is told what happened in words; the GPU's own message stays on the canvas (data-drawn-why)
          // for a developer to read.
          drawnNote = canvas.dataset.drawnBy === 'wasm' ? ' This browser\'s GPU did not draw it, so the CPU did: the same numbers.' : '';
        } else {
          tensor = await onHost(result);  // after a WebGPU device loss: the wasm result
          drawHeatmap(canvas, tensor, { colormap: 'RdBu', range: LIMIT });
          drawnNote = '';
        }
      } else {
        const result = await compute('sinusoidal', { params: next });
        if (current !== generation) return;
        tensor = result.tensor;
        paintPixels(canvas, result);
        drawnNote = '';
      }
    } catch (error) {
      if (current === generation) showError(error);
      return;
    }
    if (current !== generation) return;
    errorBox.hidden = true;
    params = next;
    frame();
    readValues();  // the readout's stored values, read back from the GPU while the reader looks at the picture
    await onDrawn();
  }

  // Reads the GpuTensor on screen once, for the readout's stored values.
  function readValues() {
    if (tensor || !onGpu || readFor === generation) return;
    const current = readFor = generation;
    onGpu.read().then((read) => {
      if (current !== generation) return;
      tensor = read;
      figure.moveCursorTo(figure.cursor);
    }).catch((error) => {
      if (current === generation) showError(error);  // unless replaced (and disposed) while being read
    });
  }

  function frame() {
    const { length, dModel, offset } = params;
    figure.frame(canvas, {
      shape: [length, dModel], colormap: 'RdBu', range: LIMIT, x: { label: 'dimension' },
      y: { label: 'position', names: (row) => String(offset + row) }, colour: { label: 'value' },
      value: (index) => tensor?.data[index],
      describe: (row, column, value, byReader) => {
        if (byReader) readValues();  // a GpuTensor is read back only once someone looks at a cell
        const formula = cellFormula(params, row, column);
        const stored = tensor ? tensor.data[row * dModel + column].toFixed(6) : '(reading from the GPU)';
        readout.dataset.row = String(row);
        readout.dataset.column = String(column);
        return `${formula.text}\n  table value (float32): ${stored}`;
      },
    });
    figure.caption = `Positions ${offset}–${offset + length - 1} (rows) by the ${dModel} dimensions (columns). The left columns turn fastest, `
      + `the right ones slowest; no two rows are the same.${drawnNote}`;
  }

  redrawOnChange(form, render, { onChange: () => figure.stale(true) });
  form.addEventListener('submit', (event) => event.preventDefault());
  const first = render();
  return {
    // The parameters of the last valid table, for the views that follow it.
    params: () => params,
    ready: first,
  };
}
