// The figure layer's scenes. A figure is laid out once per render into a scene, plain data with no DOM: its frame
// (scales, axes, colour bar or legend, title, caption) and its marks (cells, lines, points, bars, rules, labels).
// Three renderers draw the same scene: the live view (components/figure.js), and the writers here, which turn it
// into shapes for an SVG file (shapesToSvg: elements' toBlob and the command line) or a PNG (components/export.js
// paints them in a page; the command line rasterises the SVG).
//
// A scene: { kind, width, height (the plot's box, margins included), margin, marks, cells (where a heatmap's
// cells lie, or null), legend (colourBarScene's or { swatches }, or null), title, caption, scales }.
// Marks, in px of the plot's box:
//   { kind: 'line', x1, y1, x2, y2, stroke, strokeWidth, dash }       { kind: 'rect', x, y, width, height, fill, stroke, gradient }
//   { kind: 'circle', cx, cy, r, fill }                                { kind: 'path', d, fill, stroke, strokeWidth }
//   { kind: 'text', x, y, dx, dy, rotate, anchor, text, size, fill, halo }: at (dx, dy) (dy: the baseline) in a
//     frame moved to (x, y) and turned by `rotate` degrees
//   { kind: 'group', marks }                                           (each may carry a className for the live view)
//   Lines, rects, circles and paths may carry strokeWidth, dash, cap ('round') and opacity.
// A picture is marks with no frame, { width, height, marks, label }: a drawing beside the figures (a colour bar shared
// by several, the RoPE element's dials and dimension strip), drawn live and written to files from the same marks.
// Colours are CSS; the theme's are var(--pe-theme-…), which each renderer resolves for the scheme it draws in.
import { line, scaleBand, scaleLinear, scaleLog, ticks } from './vendor/plotting.js';
import { MASKED, colourWords, valueRange } from './colormap.js';

export const INK = 'var(--pe-theme-ink)';
export const MUTED = 'var(--pe-theme-muted)';
export const BORDER = 'var(--pe-theme-border)';
export const SURFACE = 'var(--pe-theme-button)';
export const CURSOR = 'var(--pe-theme-cursor)';
export const CURSOR_HALO = 'var(--pe-theme-cursor-halo)';
// Told apart by hue and by lightness (and readable on white).
export const SERIES_COLOURS = ['#1f5fbf', '#d1495b', '#2a9d8f', '#e08a00', '#6a4c93', '#5b6672', '#7a9a3a', '#8c564b', '#b5446e', '#9c7c00'];
const PATH_COLOUR = '#aab2bb';
const LEADER_COLOUR = '#9aa3ad';
const BAR_OUTLINE = '#0004';

// At the page's 12 px; a figure drawn larger (the command line's) scales every length that holds text with it.
const BASE_SIZE = 12;
const AXIS_MARGIN = { top: 10, right: 16, bottom: 42, left: 58 };
const BARE_MARGIN = { top: 2, right: 2, bottom: 2, left: 2 };
export const MAX_HEIGHT = 420;
const MAX_CELL = 40;
const CHARACTER_WIDTH = 7;  // px of an 11-px tick label's character, for spacing category labels
const FEW_ROWS = 40;         // a heatmap of at most this many named rows (tokens) gives each a line's height
const MIN_ROW_HEIGHT = 13;
const TICK_LENGTH = 6;
const TICK_GAP = 3;

export function formatValue(value) {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'missing' : String(value).replace('Infinity', '∞');
  if (Number.isInteger(value)) return String(value);
  const magnitude = Math.abs(value);
  return magnitude !== 0 && (magnitude < 1e-3 || magnitude >= 1e6) ? value.toExponential(3) : value.toFixed(4);
}

const SUPERSCRIPTS = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };

// A number in a sentence (a caption, a verdict): an integer in full, with thousands separated; others to `digits`
// significant digits, and a tiny or huge one as m × 10ⁿ; exact zero as 0. Readouts keep formatValue's fixed decimals.
export function proseNumber(value, digits = 3) {
  if (!Number.isFinite(value)) return formatValue(value);
  if (value === 0) return '0';  // -0 too
  const magnitude = Math.abs(value);
  if (Number.isInteger(value) || (magnitude >= 1e-3 && magnitude < 1e6)) {
    return value.toLocaleString('en', Number.isInteger(value) ? {} : { maximumSignificantDigits: digits }).replace('-', '−');
  }
  const [mantissa, exponent] = value.toExponential(digits - 1).split('e');
  return `${mantissa.replace('-', '−')} × 10${[...exponent.replace('+', '')].map((c) => SUPERSCRIPTS[c]).join('')}`;
}

// The lengths of a figure whose text is `fontSize` px (axis titles; ticks a little smaller).
function metrics(fontSize = BASE_SIZE, axes = true) {
  const k = fontSize / BASE_SIZE;
  const scaled = (margin) => Object.fromEntries(Object.entries(margin).map(([side, px]) => [side, Math.round(px * k)]));
  return {
    k, label: fontSize, tick: Math.round(11 * k * 10) / 10, character: CHARACTER_WIDTH * k, rowHeight: MIN_ROW_HEIGHT * k,
    margin: axes ? scaled(AXIS_MARGIN) : BARE_MARGIN,
  };
}

// Index ticks for n categories drawn `length` px long: all of them when their labels fit (`across`: side by
// side, as on an x axis), else round ones.
function categoryTicks(n, length, name, across, m) {
  let widest = 1;
  for (let i = 0; i < n && across; i++) widest = Math.max(widest, String(name(i)).length);
  const room = across ? widest * m.character + 6 : 13 * m.k;
  if (n * room <= length) return Array.from({ length: n }, (_, i) => i);
  return ticks(0, n - 1, Math.max(2, Math.floor(length / Math.max(50, room * 2)))).filter((t) => Number.isInteger(t));
}

// A half-pixel offset keeps 1-px lines crisp on a screen of one device pixel per CSS pixel.
const lineOffset = () => (typeof devicePixelRatio !== 'undefined' && devicePixelRatio > 1 ? 0 : 0.5);

// An axis as marks: the domain line, a tick (its line and label) at each value, on the bottom (at y = `at`) or the
// left. values and format default to the scale's own (count: how many ticks to ask for); slanted: labels at 45°.
function axisMarks(scale, side, at, { count, values, format, slanted = false, room = [Infinity, Infinity] }, m) {
  const offset = lineOffset();
  const band = typeof scale.bandwidth === 'function';
  const position = band ? (d) => scale(d) + Math.max(0, scale.bandwidth() - offset * 2) / 2 : (d) => scale(d);
  const [start, end] = scale.range().map((v) => v + offset);
  // Along the bottom, as many of the scale's ticks as have room for their labels side by side (long labels of tiny
  // numbers on a phone's narrow colour bar would run into each other).
  let ticksAsked = count;
  const labelsFit = (n) => side !== 'bottom' || band || values
    || scale.ticks(n).map(scale.tickFormat(n)).reduce((sum, text) => sum + String(text).length * m.character + 6 * m.k, 0) <= Math.abs(end - start) + m.character * 4;
  while (ticksAsked > 2 && !labelsFit(ticksAsked)) ticksAsked--;
  const shown = values ?? (band ? scale.domain() : scale.ticks(ticksAsked));
  const label = format ?? (band ? String : scale.tickFormat(ticksAsked));
  const tick = TICK_LENGTH * m.k;
  const gap = tick + TICK_GAP * m.k;
  const bottom = side === 'bottom';
  const marks = [{
    kind: 'path', className: 'domain', fill: 'none', stroke: INK, strokeWidth: 1,
    d: bottom ? `M${start},${at + tick}V${at + offset}H${end}V${at + tick}` : `M${-tick},${Math.min(start, end)}H${offset}V${Math.max(start, end)}H${-tick}`,
  }];
  for (const value of shown) {
    const p = position(value) + offset;
    const text = String(label(value));
    // A bottom label centred on its tick, unless that would run past the room beside the axis: then it starts or
    // ends at the tick.
    const half = (text.length * m.character) / 2;
    const anchor = p - start - half < -room[0] ? 'start' : p - end + half > room[1] ? 'end' : 'middle';
    const mark = bottom
      ? { kind: 'text', x: p, y: at, dy: gap + 0.71 * m.tick, anchor, text, size: m.tick, fill: INK }
      : { kind: 'text', x: 0, y: p, dx: -gap, dy: 0.32 * m.tick, anchor: 'end', text, size: m.tick, fill: INK };
    if (bottom && slanted) Object.assign(mark, { dx: -0.5 * m.tick, dy: gap + 0.2 * m.tick, anchor: 'end', rotate: -45 });
    marks.push({
      kind: 'group', className: 'tick', marks: [
        bottom ? { kind: 'line', x1: p, y1: at, x2: p, y2: at + tick, stroke: INK } : { kind: 'line', x1: 0, y1: p, x2: -tick, y2: p, stroke: INK },
        mark,
      ],
    });
  }
  return marks;
}

// Both axes and their titles, for a plot of width × height inside `margin`.
function frameMarks(x, y, width, height, margin, axes, m) {
  const { x: xAxis = {}, y: yAxis = {} } = axes;
  return [{
    kind: 'group', className: 'x-axis', marks: axisMarks(x, 'bottom', height, { count: Math.max(2, Math.floor(width / 70)), ...xAxis }, m),
  }, {
    kind: 'group', className: 'y-axis', marks: axisMarks(y, 'left', 0, { count: Math.max(2, Math.floor(height / 40)), ...yAxis }, m),
  },
  { kind: 'text', className: 'pe-axis-label', x: width / 2, y: height + margin.bottom - 6 * m.k, anchor: 'middle', text: xAxis.label ?? '', size: m.label, fill: INK },
  { kind: 'text', className: 'pe-axis-label', x: -margin.left + 12 * m.k, y: height / 2, rotate: -90, anchor: 'middle', text: yAxis.label ?? '', size: m.label, fill: INK }];
}

// Moves marks by (dx, dy): the plot's marks are laid out from its top-left corner, inside the margins.
const moved = (marks, dx, dy) => [{ kind: 'group', transform: [dx, dy], marks }];

// A colour bar for a colormap over its range, `width` px long: its gradient, ticks and the colours in words.
// colour: { label, missing: what a NaN cell means (default 'masked') }; hasMissing adds "grey = …".
export function colourBarScene(map, name, width, { label, missing = 'masked' } = {}, hasMissing = false, fontSize = BASE_SIZE) {
  const m = metrics(fontSize);
  const barHeight = Math.round(12 * m.k);
  const scale = scaleLinear().domain([map.low, map.low + map.span]).range([0, width]);
  const stops = Array.from({ length: 17 }, (_, i) => map.css(map.low + (map.span * i) / 16));
  const marks = [
    { kind: 'rect', x: 0, y: 0, width, height: barHeight, gradient: stops, stroke: BAR_OUTLINE },
    ...axisMarks(scale, 'bottom', barHeight, { count: Math.max(2, Math.floor(width / 60)), room: [12 * m.k, 12 * m.k] }, m),
  ];
  return {
    kind: 'colour-bar', width: width + 24 * m.k, height: Math.round(34 * m.k), marks: moved(marks, 12 * m.k, 0),
    words: `${label ? `${label}: ` : ''}${colourWords(name)}${hasMissing ? `; ${MASKED.word} = ${missing}` : ''}`,
    description: `Colour scale from ${formatValue(map.low)} to ${formatValue(map.low + map.span)}: ${colourWords(name)}`,
  };
}

const namesOf = (names) => (typeof names === 'function' ? names : names ? (i) => names[i] : (i) => String(i));

// layout: { available (px the figure may take across), maxHeight, axes, legend, fontSize, cell (px a cell, instead
// of fitting the cells to `available`) }.
function layoutOf({ available = 640, maxHeight = MAX_HEIGHT, axes = true, legend = true, fontSize = BASE_SIZE, cell, pixelRatio = 1 } = {}) {
  return { available, maxHeight, axes, legend, cell, pixelRatio, m: metrics(fontSize, axes) };
}

// A cell's size cut down to whole device pixels (`pixelRatio` of them per CSS pixel) where it spans two or more:
// cells of one size, where 6.56 px cells would be drawn 6 and 7 pixels wide by turns, a pattern of seams the data
// does not have.
const wholePixels = (size, pixelRatio) => (size * pixelRatio >= 2 ? Math.floor(size * pixelRatio) / pixelRatio : size);

// A heatmap of rows × columns cells. options: { x: { label, names }, y: { label, names }, rowRule: { row, label },
// colormap: the name of a colormap, map: its colours over the range, colour: { label, missing }, missing (some cells
// are NaN) }.
export function heatmapScene(rows, columns, options, layoutOptions) {
  const { available, maxHeight, axes, legend, cell: fixedCell, pixelRatio, m } = layoutOf(layoutOptions);
  const xName = namesOf(options.x?.names);
  const yName = namesOf(options.y?.names);
  let widestRow = 0;
  for (let r = 0; r < Math.min(rows, FEW_ROWS); r++) widestRow = Math.max(widestRow, String(yName(r)).length);
  const margin = axes ? { ...m.margin, left: Math.max(m.margin.left, Math.ceil(widestRow * m.character) + Math.round(30 * m.k)) } : m.margin;
  let width;
  let height;
  if (fixedCell) {
    [width, height] = [columns * fixedCell, rows * fixedCell];
  } else {
    const plotWidth = Math.max(60, available - margin.left - margin.right);
    // Square cells, unless the table is so tall that they would leave most of the width empty: then the
    // cells are stretched across it.
    const cell = wholePixels(Math.min(plotWidth / columns, maxHeight / rows, MAX_CELL), pixelRatio);
    const fill = maxHeight / rows < plotWidth / columns && cell * columns < plotWidth / 3;
    width = fill ? wholePixels(plotWidth / columns, pixelRatio) * columns : cell * columns;
    // Rows named in words (tokens, heads) are never thinner than a line of text; numbered rows keep square cells.
    const lineHigh = options.y?.names && rows <= FEW_ROWS;
    height = fill ? wholePixels(Math.min(maxHeight, Math.max(80, rows * cell)) / rows, pixelRatio) * rows : Math.max(cell * rows, lineHigh ? rows * m.rowHeight : 0);
  }
  const x = scaleBand().domain(Array.from({ length: columns }, (_, i) => i)).range([0, width]);
  const y = scaleBand().domain(Array.from({ length: rows }, (_, i) => i)).range([0, height]);
  const marks = axes ? frameMarks(x, y, width, height, margin, {
    x: { label: options.x?.label, format: xName, values: categoryTicks(columns, width, xName, true, m) },
    y: { label: options.y?.label, format: yName, values: categoryTicks(rows, height, yName, false, m) },
  }, m) : [];
  if (options.rowRule) {
    const at = y(options.rowRule.row) ?? height;
    marks.push(
      { kind: 'line', x1: 0, x2: width, y1: at, y2: at, stroke: CURSOR_HALO, strokeWidth: 4 },
      { kind: 'line', x1: 0, x2: width, y1: at, y2: at, stroke: CURSOR, strokeWidth: 2, dash: '6 3' },
      { kind: 'text', x: width - 4, y: at - 4, anchor: 'end', size: m.label, text: options.rowRule.label, fill: INK, halo: { colour: CURSOR_HALO, width: 3 } },
    );
  }
  return {
    kind: 'heatmap', width: width + margin.left + margin.right, height: height + margin.top + margin.bottom, margin,
    plot: { width, height }, marks: moved(marks, margin.left, margin.top), cells: { x: margin.left, y: margin.top, width, height },
    legend: legend ? colourBarScene(options.map, options.colormap, Math.min(width, 320 * m.k), options.colour, options.missing, m.label) : null,
    scales: { x, y, xName, yName },
  };
}

// series: [{ label, x: number[], y: number[] (NaN leaves a gap), colour, dashed, width }]. options: { x: { label, log,
// domain }, y: { label, domain }, rules: [{ x, label }] (vertical marks, such as a training length) }.
export function linesScene(series, options, layoutOptions) {
  const { available, maxHeight, axes, legend, m } = layoutOf(layoutOptions);
  const { margin } = m;
  const width = Math.max(120, Math.min(available, 760) - margin.left - margin.right);
  const height = Math.min(maxHeight, Math.max(200, Math.round(width * 0.45)));
  const xs = valueRange(series.flatMap((s) => Array.from(s.x)));
  const ys = valueRange(series.flatMap((s) => Array.from(s.y)));
  const x = (options.x?.log ? scaleLog() : scaleLinear()).domain(options.x?.domain ?? [xs.min, xs.max]).range([0, width]);
  const yDomain = options.y?.domain ?? (ys.min === ys.max ? [ys.min - 1, ys.max + 1] : [ys.min, ys.max]);
  const y = scaleLinear().domain(yDomain).range([height, 0]).nice();
  const marks = axes ? frameMarks(x, y, width, height, margin, { x: { label: options.x?.label }, y: { label: options.y?.label } }, m) : [];
  // Each rule's label beside it, on its left where the right would run past the plot (a phone's width), each
  // a line lower than the one before it where they would meet.
  let lastEnd = -Infinity;
  let row = 0;
  for (const rule of options.rules ?? []) {
    const at = x(rule.x);
    marks.push({ kind: 'line', x1: at, x2: at, y1: 0, y2: height, stroke: MUTED, dash: '4 3' });
    const labelWidth = rule.label.length * m.character;
    const onLeft = at + 4 + labelWidth > width;
    const start = onLeft ? at - 4 - labelWidth : at + 4;
    row = start < lastEnd + 4 ? row + 1 : 0;
    lastEnd = start + labelWidth;
    marks.push({ kind: 'text', x: onLeft ? at - 4 : at + 4, y: (12 + row * 13) * m.k, anchor: onLeft ? 'end' : 'start', size: m.tick, text: rule.label, fill: INK });
  }
  const colourOf = (s, i) => s.colour ?? SERIES_COLOURS[i % SERIES_COLOURS.length];
  series.forEach((s, i) => {
    const path = line().defined((_, j) => Number.isFinite(s.y[j]) && Number.isFinite(s.x[j])).x((_, j) => x(s.x[j])).y((_, j) => y(s.y[j]));
    marks.push({ kind: 'path', fill: 'none', stroke: colourOf(s, i), strokeWidth: s.width ?? 2, dash: s.dashed ? '6 4' : null, d: path(Array.from(s.x)) ?? '' });
  });
  return {
    kind: 'lines', width: width + margin.left + margin.right, height: height + margin.top + margin.bottom, margin, plot: { width, height },
    marks: moved(marks, margin.left, margin.top), cells: null,
    legend: legend ? { swatches: series.map((s, i) => ({ label: s.label, colour: colourOf(s, i), line: true, dashed: s.dashed })) } : null,
    scales: { x, y },
  };
}

// Where each point's label goes: beside it, or, where labels would overprint (points close together), a line or
// more above or below, or on its left, with a leader line back to the point. Greedy, from the top of the plot.
const LABEL_HEIGHT = 15;  // a 12 px label's box, descenders included
const LABEL_CHARACTER_WIDTH = 7.5;
const LABEL_SHIFTS = [0, 1, -1, 2, -2, 3, -3, 4, -4];
function placeLabels(points) {
  const placed = [];
  const overlaps = (box) => placed.some((other) => box.left < other.right && other.left < box.right && box.top < other.bottom && other.top < box.bottom);
  return [...points].sort((a, b) => a.y - b.y).map((point) => {
    const width = point.label.length * LABEL_CHARACTER_WIDTH;
    let best = null;
    for (const anchor of ['start', 'end']) {
      for (const shift of LABEL_SHIFTS) {
        const labelX = anchor === 'start' ? point.x + 6 : point.x - 6;
        const labelY = point.y + 4 + shift * LABEL_HEIGHT;
        const left = anchor === 'start' ? labelX : labelX - width;
        const box = { left, right: left + width, top: labelY - LABEL_HEIGHT + 3, bottom: labelY + 3 };
        if (!overlaps(box)) {
          best = { point, labelX, labelY, anchor, moved: shift !== 0, box };
          break;
        }
      }
      if (best) break;
    }
    best ??= { point, labelX: point.x + 6, labelY: point.y + 4, anchor: 'start', moved: false, box: null };
    if (best.box) placed.push(best.box);
    return best;
  });
}

// points: [{ x, y, label, group }]; options: { groups: [{ name, colour }], x: { label, domain }, y: { label, domain },
// path: { indices, label } (a thin line through those points in that order, named in the legend) }.
export function pointsScene(points, options, layoutOptions) {
  const { available, axes, legend, m } = layoutOf(layoutOptions);
  const { margin } = m;
  const side = Math.max(160, Math.min(available - margin.left - margin.right, 460));
  const span = (values) => {
    const { min, max } = valueRange(values);
    const pad = (max - min || 1) * 0.08;
    return [min - pad, max + pad];
  };
  const x = scaleLinear().domain(options.x?.domain ?? span(points.map((p) => p.x))).range([0, side]);
  const y = scaleLinear().domain(options.y?.domain ?? span(points.map((p) => p.y))).range([side, 0]);
  const marks = axes ? frameMarks(x, y, side, side, margin, { x: { label: options.x?.label }, y: { label: options.y?.label } }, m) : [];
  const groups = options.groups ?? [];
  const colourOf = (p) => groups.find((group) => group.name === p.group)?.colour ?? SERIES_COLOURS[0];
  if (options.path) {
    marks.push({ kind: 'path', className: 'pe-path', fill: 'none', stroke: PATH_COLOUR, strokeWidth: 1.5, d: line()(options.path.indices.map((i) => [x(points[i].x), y(points[i].y)])) ?? '' });
  }
  for (const p of points) marks.push({ kind: 'circle', cx: x(p.x), cy: y(p.y), r: 4, fill: colourOf(p) });
  for (const { point, labelX, labelY, anchor, moved: away } of placeLabels(points.map((p) => ({ x: x(p.x), y: y(p.y), label: p.label })))) {
    if (away) marks.push({ kind: 'line', x1: point.x, y1: point.y, x2: anchor === 'start' ? labelX - 2 : labelX + 2, y2: labelY - 4, stroke: LEADER_COLOUR });
    marks.push({ kind: 'text', x: labelX, y: labelY, anchor, size: m.label, text: point.label, fill: INK });
  }
  return {
    kind: 'points', width: side + margin.left + margin.right, height: side + margin.top + margin.bottom, margin, plot: { width: side, height: side },
    marks: moved(marks, margin.left, margin.top), cells: null,
    legend: legend ? { swatches: [...groups.map((group) => ({ label: group.name, colour: group.colour })), ...(options.path ? [{ label: options.path.label, colour: PATH_COLOUR, line: true }] : [])] } : null,
    scales: { x, y },
  };
}

// bars: [{ label, value, colour, group }]; options: { groups: [{ name, colour }], x: { label, ticks (the bars whose
// labels are written; all that fit by default) }, y: { label, domain, log } }.
export function barsScene(bars, options, layoutOptions) {
  const { available, maxHeight, axes, legend, m } = layoutOf(layoutOptions);
  const width = Math.max(120, Math.min(available, 760) - m.margin.left - m.margin.right);
  // Labels too wide to stand side by side are slanted, every one kept, where each bar still has a line's room.
  const longest = bars.reduce((most, b) => Math.max(most, String(b.label).length), 1);
  const slanted = !options.x?.ticks && bars.length * (longest * m.character + 6) > width && width / bars.length >= 14;
  const margin = { ...m.margin, bottom: m.margin.bottom + (slanted && axes ? Math.max(0, Math.ceil(longest * m.character * Math.SQRT1_2) - 8) : 0) };
  const height = Math.min(maxHeight, Math.max(200, Math.round(width * 0.4)));
  const x = scaleBand().domain(bars.map((_, i) => i)).range([0, width]).padding(0.15);
  const { min, max } = valueRange(bars.map((b) => b.value));
  const y = options.y?.log
    ? scaleLog().domain(options.y?.domain ?? [min / 2, max * 2]).range([height, 0]).nice()
    : scaleLinear().domain(options.y?.domain ?? [Math.min(0, min), Math.max(0, max) || 1]).range([height, 0]).nice();
  const baseline = options.y?.log ? height : y(0);
  const every = Array.from({ length: bars.length }, (_, i) => i);
  const label = (i) => bars[i].label;
  const marks = axes ? frameMarks(x, y, width, height, margin, {
    x: { label: options.x?.label, slanted, format: label, values: options.x?.ticks ?? (slanted ? every : categoryTicks(bars.length, width, label, true, m)) },
    y: { label: options.y?.label },
  }, m) : [];
  const groups = options.groups ?? [];
  bars.forEach((b, i) => {
    const top = y(b.value);
    marks.push({ kind: 'rect', x: x(i), width: x.bandwidth(), y: Math.min(top, baseline), height: Math.abs(baseline - top),
      fill: b.colour ?? groups.find((group) => group.name === b.group)?.colour ?? SERIES_COLOURS[0] });
  });
  return {
    kind: 'bars', width: width + margin.left + margin.right, height: height + margin.top + margin.bottom, margin, plot: { width, height },
    marks: moved(marks, margin.left, margin.top), cells: null,
    legend: legend ? { swatches: groups.map((group) => ({ label: group.name, colour: group.colour })) } : null,
    scales: { x, y, baseline },
  };
}

// ---- The writers: a scene as shapes, and shapes as SVG text --------------------------------------------------

// Shapes, the writers' common form, in px of the file: { kind: 'text', transform, x, y (baseline), anchor, text,
// font: { family, size, weight }, fill, halo }, { kind: 'path', transform, d, fill, stroke, strokeWidth, dash, opacity, gradient: [{ offset,
// colour }], box }, { kind: 'image', x, y, width, height, canvas or href }. transform: [a, b, c, d, e, f].

const GAP = 8;
// A generous width of one character, as a fraction of the font size, where no font can be measured (Node).
const CHARACTER_EM = 0.6;
export const estimatedWidth = (text, { size }) => text.length * size * CHARACTER_EM;

// A shape's font as CSS.
export const cssFont = ({ family, size, weight }) => `${weight} ${size}px ${family}`;

// Words wrapped to `width` px, measured by measure(text).
export function wrapWords(text, width, measure) {
  const lines = [];
  let current = '';
  for (const word of String(text).split(/\s+/).filter(Boolean)) {
    const next = current ? `${current} ${word}` : word;
    if (current && measure(next) > width) {
      lines.push(current);
      current = word;
    } else {
      current = next;
    }
  }
  return current ? [...lines, current] : lines;
}

const multiply = ([a, b, c, d, e, f], [a2, b2, c2, d2, e2, f2]) => [a * a2 + c * b2, b * a2 + d * b2, a * c2 + c * d2, b * c2 + d * d2, a * e2 + c * f2 + e, b * e2 + d * f2 + f];
export const translation = (dx, dy) => [1, 0, 0, 1, dx, dy];

// Shapes moved by (dx, dy).
export const movedShapes = (shapes, dx, dy) => shapes.map((shape) => (shape.kind === 'image' ? { ...shape, x: shape.x + dx, y: shape.y + dy }
  : { ...shape, transform: [...shape.transform.slice(0, 4), shape.transform[4] + dx, shape.transform[5] + dy] }));
function rotation(degrees) {
  const r = (degrees * Math.PI) / 180;
  return [Math.cos(r), Math.sin(r), -Math.sin(r), Math.cos(r), 0, 0];
}

// Marks as shapes under `transform`, in sceneShapes' style.
function markShapes(marks, transform, style, shapes) {
  for (const mark of marks) {
    const paint = { fill: 'none', stroke: 'none', strokeWidth: mark.strokeWidth ?? 1, dash: mark.dash ?? null, cap: mark.cap ?? null, opacity: mark.opacity ?? 1 };
    if (mark.kind === 'group') {
      markShapes(mark.marks, mark.transform ? multiply(transform, translation(...mark.transform)) : transform, style, shapes);
    } else if (mark.kind === 'text') {
      if (!mark.text) continue;
      const at = multiply(multiply(transform, translation(mark.x, mark.y)), rotation(mark.rotate ?? 0));
      shapes.push({ kind: 'text', transform: at, x: mark.dx ?? 0, y: mark.dy ?? 0, anchor: mark.anchor ?? 'start', text: mark.text,
        font: { family: style.family, size: mark.size, weight: mark.weight ?? 400 }, fill: style.colour(mark.fill ?? INK), halo: mark.halo ? { colour: style.colour(mark.halo.colour), width: mark.halo.width } : null });
    } else if (mark.kind === 'line') {
      shapes.push({ kind: 'path', transform, d: `M${mark.x1},${mark.y1}L${mark.x2},${mark.y2}`, ...paint, stroke: style.colour(mark.stroke) });
    } else if (mark.kind === 'rect') {
      if (!(mark.width > 0 && mark.height > 0)) continue;
      shapes.push({ kind: 'path', transform, d: `M${mark.x},${mark.y}h${mark.width}v${mark.height}h${-mark.width}Z`, ...paint,
        fill: mark.gradient ? 'none' : style.colour(mark.fill ?? 'none'), stroke: style.colour(mark.stroke ?? 'none'),
        ...(mark.gradient ? { gradient: mark.gradient.map((colour, i, all) => ({ offset: i / (all.length - 1), colour })), box: { x: mark.x, width: mark.width } } : {}) });
    } else if (mark.kind === 'circle') {
      const { cx, cy, r } = mark;
      shapes.push({ kind: 'path', transform, d: `M${cx - r},${cy}a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0`, ...paint,
        fill: style.colour(mark.fill ?? 'none'), stroke: style.colour(mark.stroke ?? 'none') });
    } else if (mark.kind === 'path') {
      if (!mark.d) continue;
      shapes.push({ kind: 'path', transform, d: mark.d, ...paint, fill: style.colour(mark.fill ?? 'none'), stroke: style.colour(mark.stroke ?? 'none') });
    }
  }
}

// A legend's swatches and words, in rows that wrap at `width`, from `top`: the shapes and how far down they reach.
function legendShapes(legend, top, width, style, size, shapes) {
  const font = { family: style.family, size, weight: 400 };
  const measure = (text) => style.measure(text, font);
  const lineHeight = Math.round(size * 1.5);
  if (legend.kind === 'colour-bar') {
    markShapes(legend.marks, translation(0, top), style, shapes);
    // The words beside the bar where they fit, else on one line below it (the file grows to hold them).
    const beside = legend.width + GAP + measure(legend.words) <= width;
    const wordsTop = beside ? top : top + legend.height;
    shapes.push({ kind: 'text', transform: translation(beside ? legend.width + GAP : 0, wordsTop + size), x: 0, y: 0, anchor: 'start', text: legend.words, font, fill: style.colour(INK), halo: null });
    return Math.max(top + legend.height, wordsTop + lineHeight);
  }
  let x = 0;
  let row = top;
  for (const swatch of legend.swatches) {
    const room = size * 1.9 + measure(swatch.label);
    if (x > 0 && x + room > width) {
      x = 0;
      row += lineHeight;
    }
    const [swatchHeight, swatchTop] = swatch.line ? [3, row + size * 0.55] : [size * 0.8, row + size * 0.3];
    shapes.push({ kind: 'path', transform: translation(0, 0), d: `M${x},${swatchTop}h${size * 1.4}v${swatchHeight}h${-size * 1.4}Z`,
      fill: style.colour(swatch.colour), stroke: 'none', strokeWidth: 0, dash: null, opacity: 1 });
    shapes.push({ kind: 'text', transform: translation(x + size * 1.75, row + size), x: 0, y: 0, anchor: 'start', text: swatch.label, font, fill: style.colour(INK), halo: null });
    x += room + size;
  }
  return legend.swatches.length ? row + lineHeight : top;
}

// A picture as shapes, drawn `scale` times its size with its top-left corner at (x, y); style as sceneShapes'.
export function pictureShapes(picture, style, { x = 0, y = 0, scale = 1 } = {}) {
  const shapes = [];
  markShapes(picture.marks, [scale, 0, 0, scale, x, y], style, shapes);
  return shapes;
}

// A scene as shapes: its title, the plot (marks and cells), the legend and the caption wrapped below it.
// style: { colour(css) → a colour the file can hold, family (the font's), measure(text, font) → px, cells (the heatmap's
// picture: { canvas } or { href }), sizes: { title, legend, caption } (px) }.
export function sceneShapes(scene, style) {
  const shapes = [];
  const { sizes } = style;
  let top = 0;
  if (scene.title) {
    top = Math.round(sizes.title * 1.4);
    shapes.push({ kind: 'text', transform: translation(0, top - sizes.title * 0.3), x: 0, y: 0, anchor: 'start', text: scene.title, font: { family: style.family, size: sizes.title, weight: 600 }, fill: style.colour(INK), halo: null });
    top += 2;
  }
  if (scene.cells && style.cells) shapes.push({ kind: 'image', ...style.cells, x: scene.cells.x, y: top + scene.cells.y, width: scene.cells.width, height: scene.cells.height });
  markShapes(scene.marks, translation(0, top), style, shapes);
  top += scene.height;
  const width = Math.max(scene.width, 320);
  if (scene.legend) top = legendShapes(scene.legend, top + 4, width, style, sizes.legend, shapes);
  if (scene.caption) {
    const lineHeight = Math.round(sizes.caption * 1.45);
    const font = { family: style.family, size: sizes.caption, weight: 400 };
    // A readable measure: about 70 characters, as the page's caption.
    const lines = wrapWords(scene.caption, Math.max(width, Math.min(70 * sizes.caption * 0.5, 100 * sizes.caption)), (text) => style.measure(text, font));
    top += 4;
    lines.forEach((text, i) => shapes.push({ kind: 'text', transform: translation(0, top + sizes.caption + i * lineHeight), x: 0, y: 0, anchor: 'start', text, font, fill: style.colour(MUTED), halo: null }));
    top += lines.length * lineHeight;
  }
  // Text may reach past the plot's box (a long axis title beside a short plot): the file holds all of it.
  const box = { left: 0, top: 0, right: width, bottom: top + GAP };
  for (const shape of shapes) {
    if (shape.kind !== 'text') continue;
    const length = style.measure(shape.text, shape.font);
    const start = shape.x - (shape.anchor === 'middle' ? length / 2 : shape.anchor === 'end' ? length : 0);
    const [a, b, c, d, e, f] = shape.transform;
    const [above, below] = [shape.y - shape.font.size * 0.8, shape.y + shape.font.size * 0.25];
    for (const [x, y] of [[start, above], [start + length, above], [start, below], [start + length, below]]) {
      const [px, py] = [a * x + c * y + e, b * x + d * y + f];
      Object.assign(box, { left: Math.min(box.left, px), top: Math.min(box.top, py), right: Math.max(box.right, px), bottom: Math.max(box.bottom, py) });
    }
  }
  const [dx, dy] = [Math.ceil(-box.left), Math.ceil(-box.top)];
  return { width: Math.ceil(box.right + dx), height: Math.ceil(box.bottom + dy), shapes: dx || dy ? movedShapes(shapes, dx, dy) : shapes };
}

const escape = (text) => String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

// Shapes as an SVG document: a heatmap's cells one embedded PNG image (crisp at any size), the rest vector.
export function shapesToSvg({ width, height, shapes }, background) {
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`];
  if (background) parts.push(`<rect width="100%" height="100%" fill="${escape(background)}"/>`);
  let gradients = 0;
  for (const s of shapes) {
    const transform = `matrix(${(s.transform ?? [1, 0, 0, 1, 0, 0]).map((v) => Math.round(v * 1e4) / 1e4).join(' ')})`;
    if (s.kind === 'image') {
      parts.push(`<image x="${s.x}" y="${s.y}" width="${s.width}" height="${s.height}" preserveAspectRatio="none" style="image-rendering:pixelated" image-rendering="optimizeSpeed" href="${s.href ?? s.canvas.toDataURL('image/png')}"/>`);
    } else if (s.kind === 'text') {
      const halo = s.halo ? ` stroke="${escape(s.halo.colour)}" stroke-width="${s.halo.width}" paint-order="stroke"` : '';
      const anchor = s.anchor && s.anchor !== 'start' ? ` text-anchor="${s.anchor}"` : '';
      const { family, size, weight } = s.font;
      parts.push(`<text transform="${transform}" x="${s.x}" y="${s.y}"${anchor} font-family="${escape(family)}" font-size="${size}" font-weight="${weight}" fill="${escape(s.fill)}"${halo}>${escape(s.text)}</text>`);
    } else {
      let fill = s.fill;
      if (s.gradient) {
        const id = `g${gradients++}`;
        // Across the shape's own box, as the page draws it.
        const box = s.box ? ` gradientUnits="userSpaceOnUse" x1="${s.box.x}" x2="${s.box.x + s.box.width}" y1="0" y2="0"` : '';
        parts.push(`<defs><linearGradient id="${id}"${box}>${s.gradient.map((g) => `<stop offset="${g.offset}" stop-color="${escape(g.colour)}"/>`).join('')}</linearGradient></defs>`);
        fill = `url(#${id})`;
      }
      const dash = s.dash ? ` stroke-dasharray="${escape(s.dash)}"` : '';
      const cap = s.cap ? ` stroke-linecap="${escape(s.cap)}"` : '';
      parts.push(`<path transform="${transform}" d="${escape(s.d)}" fill="${escape(fill)}" stroke="${escape(s.stroke)}" stroke-width="${s.strokeWidth}"${dash}${cap} opacity="${s.opacity}"/>`);
    }
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
