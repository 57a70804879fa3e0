// The sinusoidal explorer: controls → pe.sinusoidal → heatmap, plus a readout of the cell under the cursor
// with its formula, the numbers substituted.
import { drawGpuHeatmap, drawHeatmap } from 'posembed/components';

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

export function mountExplorer(pe, root) {
  const form = root.querySelector('#controls');
  const canvas = root.querySelector('#heatmap');
  const cursorBox = root.querySelector('#cursor');
  const readout = root.querySelector('#readout');
  const errorBox = root.querySelector('#encoding-error');
  const legend = root.querySelector('#legend');
  let params = null;
  let tensor = null;  // the values on the host; on the webgpu backend read only once the readout asks
  let onGpu = null;   // the GpuTensor drawn last, kept for that read until the next table replaces it
  let readFor = 0;    // the generation whose GpuTensor is being (or was) read
  let cell = 1;
  let cursor = { row: 0, column: 0 };
  let generation = 0;

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

  function render() {
    const next = readParams();
    let result;
    try {
      result = pe.sinusoidal(next);
    } catch (error) {
      errorBox.textContent = error.message;
      errorBox.hidden = false;
      return;
    }
    errorBox.hidden = true;
    params = next;
    const current = ++generation;
    onGpu?.dispose();
    onGpu = null;
    if (result.buffer) {
      onGpu = result;  // a GpuTensor: drawn by the render pipeline where it lies
      tensor = null;
      drawGpuHeatmap(canvas, result, pe, { colormap: 'RdBu', range: LIMIT }).then((map) => {
        if (current === generation) frame(map);
      }).catch((error) => {
        if (current !== generation) return;
        errorBox.textContent = error.message;
        errorBox.hidden = false;
      });
    } else if (result.data) {
      draw(result);
    } else {
      // After a WebGPU device loss: the wasm result, behind read().
      result.read().then((read) => {
        if (current === generation) draw(read);
      });
    }
  }

  // Reads the GpuTensor on screen once, for the readout's stored values.
  function readValues() {
    if (tensor || !onGpu || readFor === generation) return;
    const current = readFor = generation;
    onGpu.read().then((read) => {
      if (current !== generation) return;
      tensor = read;
      showCell(cursor.row, cursor.column, false);
    }).catch((error) => {
      if (current !== generation) return;  // replaced (and disposed) while being read
      errorBox.textContent = error.message;
      errorBox.hidden = false;
    });
  }

  function draw(next) {
    tensor = next;
    frame(drawHeatmap(canvas, next, { colormap: 'RdBu', range: LIMIT }));
  }

  // Sizes the drawn heatmap, its legend and the cursor.
  function frame(map) {
    const available = canvas.parentElement.parentElement.parentElement.clientWidth || 800;
    cell = Math.max(1, Math.min(12, Math.floor(available / params.dModel)));
    canvas.style.width = `${params.dModel * cell}px`;
    canvas.style.height = `${params.length * cell}px`;
    canvas.dataset.cell = String(cell);
    legend.innerHTML = '';
    const bar = document.createElement('canvas');
    bar.className = 'bar';
    drawHeatmap(bar, { data: Float32Array.from({ length: 101 }, (_, i) => -1 + i / 50), shape: [1, 101] }, { colormap: 'RdBu', range: LIMIT });
    legend.append('−1', bar, '+1', ` (${map.css(0)} at 0)`);
    cursor = { row: Math.min(cursor.row, params.length - 1), column: Math.min(cursor.column, params.dModel - 1) };
    showCell(cursor.row, cursor.column, false);
  }

  function showCell(row, column, visible = true) {
    if (!params) return;
    cursor = { row, column };
    const formula = cellFormula(params, row, column);
    const stored = tensor ? tensor.data[row * params.dModel + column].toFixed(6) : '(reading from the GPU)';
    if (visible || !cursorBox.hidden) readValues();  // only once someone looks at a cell
    readout.textContent = `${formula.text}\n  table value (float32): ${stored}`;
    readout.dataset.row = String(row);
    readout.dataset.column = String(column);
    Object.assign(cursorBox.style, { left: `${column * cell}px`, top: `${row * cell}px`, width: `${cell}px`, height: `${cell}px` });
    if (visible) cursorBox.hidden = false;
  }

  canvas.addEventListener('mousemove', (event) => {
    if (!params) return;
    const rect = canvas.getBoundingClientRect();
    const column = Math.floor(((event.clientX - rect.left) / rect.width) * params.dModel);
    const row = Math.floor(((event.clientY - rect.top) / rect.height) * params.length);
    if (row >= 0 && row < params.length && column >= 0 && column < params.dModel) showCell(row, column);
  });
  canvas.addEventListener('keydown', (event) => {
    if (!params) return;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1], Home: [0, -Infinity], End: [0, Infinity] };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault();
    const row = Math.max(0, Math.min(params.length - 1, cursor.row + move[0]));
    const column = Math.max(0, Math.min(params.dModel - 1, cursor.column + move[1]));
    showCell(row, column);
  });
  canvas.addEventListener('focus', () => showCell(cursor.row, cursor.column));
  form.addEventListener('input', render);
  form.addEventListener('submit', (event) => event.preventDefault());
  render();
  // The parameters of the last valid table, for the views that follow it.
  return { params: () => params };
}
