// A drawn figure as a file: its title, plot (axes, marks and the heatmap's cells as one image), colour bar or legend,
// and caption, read off the figure as the reader sees it into one list of shapes, then written as SVG text or painted
// on a canvas for PNG. Painting draws the shapes itself (no <img> of the SVG), so it works under a strict
// Content-Security-Policy too.

import { SCHEME_ATTRIBUTE, cssColour, schemeFor } from './scheme.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const GAP = 8;

const escape = (text) => String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

// The SVG shapes under `root` (an <svg> in the page), in page coordinates relative to `origin`, with the colours the
// page's CSS gives them.
function svgShapes(root, origin) {
  const shapes = [];
  const rootBox = root.getBoundingClientRect();
  const offset = { x: rootBox.left - origin.left, y: rootBox.top - origin.top };
  for (const node of root.querySelectorAll('line, path, rect, circle, text')) {
    // The reader's cursor is not part of the picture.
    if (node.closest('defs') || node.matches('.pe-cursor, .pe-cursor-halo')) continue;
    const style = getComputedStyle(node);
    if (style.display === 'none' || style.visibility === 'hidden') continue;
    const m = node.getCTM();
    if (!m) continue;
    const transform = [m.a, m.b, m.c, m.d, m.e + offset.x, m.f + offset.y];
    const paint = {
      fill: style.fill, stroke: style.stroke, strokeWidth: parseFloat(style.strokeWidth) || 1,
      dash: style.strokeDasharray !== 'none' ? style.strokeDasharray : null, opacity: Number(style.opacity),
    };
    if (node.tagName === 'text') {
      if (!node.textContent) continue;
      const box = node.getBBox();
      shapes.push({ kind: 'text', transform, x: box.x, y: box.y, height: box.height, text: node.textContent, font: `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`,
        fill: style.fill, haloStroke: style.paintOrder.startsWith('stroke') ? style.stroke : null, haloWidth: paint.strokeWidth });
      continue;
    }
    const d = node.tagName === 'path' ? node.getAttribute('d')
      : node.tagName === 'line' ? `M${node.x1.baseVal.value},${node.y1.baseVal.value}L${node.x2.baseVal.value},${node.y2.baseVal.value}`
        : node.tagName === 'rect' ? rectPath(node) : circlePath(node);
    if (!d) continue;
    const gradient = node.getAttribute('fill')?.match(/^url\(#(.+)\)$/);
    shapes.push({ kind: 'path', transform, d, ...paint, ...(gradient ? { gradient: gradientStops(root, gradient[1]) } : {}), box: gradient ? node.getBBox() : null });
  }
  return shapes;
}

function rectPath(node) {
  const [x, y, w, h] = ['x', 'y', 'width', 'height'].map((k) => node[k].baseVal.value);
  return w > 0 && h > 0 ? `M${x},${y}h${w}v${h}h${-w}Z` : '';
}

function circlePath(node) {
  const [cx, cy, r] = ['cx', 'cy', 'r'].map((k) => node[k].baseVal.value);
  return `M${cx - r},${cy}a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0`;
}

function gradientStops(root, id) {
  return [...root.querySelectorAll(`[id="${id}"] stop`)].map((stop) => ({ offset: parseFloat(stop.getAttribute('offset')) / 100, colour: stop.getAttribute('stop-color') }));
}

let measurer = null;
function textWidth(text, font) {
  measurer ??= new OffscreenCanvas(1, 1).getContext('2d');
  measurer.font = font;
  return measurer.measureText(text).width;
}

// Caption-like text wrapped to `width` px: lines of words, measured with the page's font.
function wrap(text, font, width) {
  const lines = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    if (line && textWidth(next, font) > width) {
      lines.push(line);
      line = word;
    } else {
      line = next;
    }
  }
  if (line) lines.push(line);
  return lines;
}

// Every shape of the figure element `figure` (a <figure class="pe-figure">), relative to `origin` (a DOMRect; the
// figure's own by default), and how far down it reaches: { right, bottom, shapes }.
export function figureShapes(figure, origin = figure.getBoundingClientRect()) {
  const shapes = [];
  let bottom = 0;
  const styleOf = (el) => getComputedStyle(el);
  const addText = (el) => {
    if (!el || el.hidden || !el.textContent.trim()) return;
    const box = el.getBoundingClientRect();
    const style = styleOf(el);
    const font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const size = parseFloat(style.fontSize);
    const lineHeight = parseFloat(style.lineHeight) || size * 1.3;
    wrap(el.textContent.trim(), font, Math.max(box.width, 120)).forEach((text, i) => {
      shapes.push({ kind: 'text', transform: [1, 0, 0, 1, 0, 0], x: box.left - origin.left, y: box.top - origin.top + i * lineHeight, height: size, text, font, fill: style.color });
    });
    bottom = Math.max(bottom, box.bottom - origin.top);
  };
  addText(figure.querySelector('.pe-title'));
  const plot = figure.querySelector('.pe-plot');
  const canvas = plot?.querySelector('canvas');
  if (canvas && canvas.width > 0) {
    const box = canvas.getBoundingClientRect();
    shapes.push({ kind: 'image', canvas, x: box.left - origin.left, y: box.top - origin.top, width: box.width, height: box.height });
  }
  for (const svg of figure.querySelectorAll('svg')) {
    if (svg.closest('[hidden]')) continue;
    shapes.push(...svgShapes(svg, origin));
    bottom = Math.max(bottom, svg.getBoundingClientRect().bottom - origin.top);
  }
  // The legend's swatches and labels (HTML spans), and the colour bar's words.
  const legend = figure.querySelector('.pe-legend');
  if (legend && !legend.hidden) {
    for (const swatch of legend.querySelectorAll('.pe-swatch')) {
      const box = swatch.getBoundingClientRect();
      const style = styleOf(swatch);
      const line = swatch.classList.contains('line');
      shapes.push({ kind: 'path', transform: [1, 0, 0, 1, 0, 0], d: `M${box.left - origin.left},${box.top - origin.top}h${box.width}v${Math.max(box.height, 3)}h${-box.width}Z`,
        fill: line ? style.borderTopColor : style.backgroundColor, stroke: 'none', strokeWidth: 0, dash: null, opacity: 1 });
    }
    for (const label of legend.querySelectorAll(':scope > span, .pe-colourbar > span')) {
      const textNode = [...label.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('').trim();
      if (!textNode) continue;
      const range = document.createRange();
      range.selectNodeContents(label);
      const box = range.getBoundingClientRect();
      const style = styleOf(label);
      const swatch = label.querySelector('.pe-swatch');
      const left = swatch ? swatch.getBoundingClientRect().right + 4 : box.left;
      shapes.push({ kind: 'text', transform: [1, 0, 0, 1, 0, 0], x: left - origin.left, y: box.top - origin.top, height: parseFloat(style.fontSize), text: textNode,
        font: `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`, fill: style.color });
      bottom = Math.max(bottom, box.bottom - origin.top);
    }
  }
  addText(figure.querySelector('figcaption'));
  // As wide as what is drawn: the widest picture or line of text.
  let right = 0;
  for (const svg of figure.querySelectorAll('svg')) if (!svg.closest('[hidden]')) right = Math.max(right, svg.getBoundingClientRect().right - origin.left);
  for (const shape of shapes) {
    if (shape.kind === 'image') right = Math.max(right, shape.x + shape.width);
    if (shape.kind === 'text' && shape.transform[0] === 1 && shape.transform[4] === 0) right = Math.max(right, shape.x + textWidth(shape.text, shape.font));
  }
  return { right, bottom, shapes };
}

// What a picture of the element leaves out: its controls, the reader's readouts and the element's own notes to its
// author (an unknown attribute, a status line).
const NOT_IN_PICTURES = 'button, input, select, textarea, label, .controls, .readout, .pe-readout, .pe-status, .unknown-attributes, [hidden], style';
const visible = (el) => !el.closest(NOT_IN_PICTURES) && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';

// The text of `node` (a text node) as shapes where it lies on the page: one line, or lines wrapped to its block's
// width as the page wraps them.
function textShapes(node, origin) {
  const text = node.textContent.replace(/\s+/g, ' ').trim();
  const parent = node.parentElement;
  if (!text || !visible(parent)) return [];
  const range = document.createRange();
  range.selectNodeContents(node);
  const lines = [...range.getClientRects()].filter((r) => r.width > 0);
  if (!lines.length) return [];
  const style = getComputedStyle(parent);
  const font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  const size = parseFloat(style.fontSize);
  const words = lines.length === 1 ? [text] : wrap(text, font, Math.max(120, parent.getBoundingClientRect().width));
  return words.map((line, i) => {
    const box = lines[Math.min(i, lines.length - 1)];
    return { kind: 'text', transform: [1, 0, 0, 1, 0, 0], x: (i < lines.length ? box.left : lines[0].left) - origin.left, y: box.top - origin.top + (i >= lines.length ? (i - lines.length + 1) * size * 1.3 : 0), height: size, text: line, font, fill: style.color };
  });
}

// A box the page paints (a token's chip): its background as a rectangle.
function boxShape(el, origin) {
  const colour = getComputedStyle(el).backgroundColor;
  if (cssColour(colour)[3] === 0 || !visible(el)) return [];
  const box = el.getBoundingClientRect();
  return [{ kind: 'path', transform: [1, 0, 0, 1, 0, 0], d: `M${box.left - origin.left},${box.top - origin.top}h${box.width}v${box.height}h${-box.width}Z`, fill: colour, stroke: 'none', strokeWidth: 0, dash: null, opacity: 1 }];
}

// Everything the element shows in its shadow root, in the page's order and places: its framed figures whole, its
// other pictures (the RoPE dials, a colour bar shared by several figures), and its text (titles, headings, captions,
// a summary, the lookup's token chips); not its controls or readouts.
export function elementShapes(root, host) {
  const origin = host.getBoundingClientRect();
  const parts = [];
  const add = (shapes, el) => {
    const box = el.getBoundingClientRect();
    parts.push({ right: box.right - origin.left, bottom: box.bottom - origin.top, shapes });
  };
  let figures = 0;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node;) {
    if (node.nodeType === Node.TEXT_NODE) {
      const shapes = textShapes(node, origin);
      if (shapes.length) add(shapes, node.parentElement);
      node = walker.nextNode();
      continue;
    }
    const skip = () => { node = walker.nextSibling() ?? nextAfter(walker); };
    if (node.matches(NOT_IN_PICTURES) || node.getClientRects().length === 0) {
      skip();
    } else if (node.matches('figure.pe-figure')) {
      if (node.querySelector('.pe-plot svg')) {
        const part = figureShapes(node, origin);
        parts.push(part);
        figures++;
      }
      skip();
    } else if (node.localName === 'svg') {
      add(svgShapes(node, origin), node);
      skip();
    } else {
      const box = boxShape(node, origin);
      if (box.length) parts.push({ right: 0, bottom: 0, shapes: box });
      node = walker.nextNode();
    }
  }
  if (!figures && !parts.some((p) => p.shapes.some((shape) => shape.kind !== 'text'))) {
    throw new Error(`<${host.localName}> has drawn nothing to export yet: wait for its 'render' event`);
  }
  return {
    width: Math.ceil(parts.reduce((widest, p) => Math.max(widest, p.right), 0)),
    height: Math.ceil(parts.reduce((lowest, p) => Math.max(lowest, p.bottom), 0) + GAP),
    shapes: parts.flatMap((p) => p.shapes),
  };
}

// The node after `walker`'s current one and its subtree.
function nextAfter(walker) {
  while (walker.parentNode()) {
    const next = walker.nextSibling();
    if (next) return next;
  }
  return null;
}

// The shapes as an SVG document: the cells one embedded PNG image, the rest vector.
export function shapesToSvg({ width, height, shapes }, background) {
  const parts = [`<svg xmlns="${SVG_NS}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`];
  if (background) parts.push(`<rect width="100%" height="100%" fill="${escape(background)}"/>`);
  let gradients = 0;
  for (const s of shapes) {
    const transform = `matrix(${s.transform?.join(' ') ?? '1 0 0 1 0 0'})`;
    if (s.kind === 'image') {
      parts.push(`<image x="${s.x}" y="${s.y}" width="${s.width}" height="${s.height}" preserveAspectRatio="none" style="image-rendering:pixelated" href="${s.canvas.toDataURL('image/png')}"/>`);
    } else if (s.kind === 'text') {
      const halo = s.haloStroke && s.haloStroke !== 'none' ? ` stroke="${escape(s.haloStroke)}" stroke-width="${s.haloWidth}" paint-order="stroke"` : '';
      parts.push(`<text transform="${transform}" x="${s.x}" y="${s.y + s.height * 0.8}" style="font:${escape(s.font)}" fill="${escape(s.fill)}"${halo}>${escape(s.text)}</text>`);
    } else {
      let fill = s.fill;
      if (s.gradient) {
        const id = `g${gradients++}`;
        parts.push(`<defs><linearGradient id="${id}">${s.gradient.map((g) => `<stop offset="${g.offset}" stop-color="${escape(g.colour)}"/>`).join('')}</linearGradient></defs>`);
        fill = `url(#${id})`;
      }
      const dash = s.dash ? ` stroke-dasharray="${escape(s.dash)}"` : '';
      parts.push(`<path transform="${transform}" d="${escape(s.d)}" fill="${escape(fill)}" stroke="${escape(s.stroke)}" stroke-width="${s.strokeWidth}"${dash} opacity="${s.opacity}"/>`);
    }
  }
  parts.push('</svg>');
  return parts.join('\n');
}

// The shapes painted on a canvas, `scale` device pixels per CSS pixel.
export function paintShapes({ width, height, shapes }, scale, background) {
  const canvas = new OffscreenCanvas(Math.ceil(width * scale), Math.ceil(height * scale));
  const ctx = canvas.getContext('2d');
  if (background) {
    ctx.fillStyle = background;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
  }
  for (const s of shapes) {
    ctx.save();
    ctx.scale(scale, scale);
    if (s.kind === 'image') {
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(s.canvas, s.x, s.y, s.width, s.height);
    } else if (s.kind === 'text') {
      ctx.transform(...s.transform);
      ctx.font = s.font;
      ctx.textBaseline = 'alphabetic';
      if (s.haloStroke && s.haloStroke !== 'none') {
        ctx.strokeStyle = s.haloStroke;
        ctx.lineWidth = s.haloWidth;
        ctx.strokeText(s.text, s.x, s.y + s.height * 0.8);
      }
      ctx.fillStyle = s.fill;
      ctx.fillText(s.text, s.x, s.y + s.height * 0.8);
    } else {
      ctx.transform(...s.transform);
      ctx.globalAlpha = Number.isFinite(s.opacity) ? s.opacity : 1;
      const path = new Path2D(s.d);
      if (s.gradient && s.box) {
        const gradient = ctx.createLinearGradient(s.box.x, 0, s.box.x + s.box.width, 0);
        for (const stop of s.gradient) gradient.addColorStop(stop.offset, stop.colour);
        ctx.fillStyle = gradient;
        ctx.fill(path);
      } else if (s.fill && s.fill !== 'none') {
        ctx.fillStyle = s.fill;
        ctx.fill(path);
      }
      if (s.stroke && s.stroke !== 'none' && s.strokeWidth > 0) {
        ctx.strokeStyle = s.stroke;
        ctx.lineWidth = s.strokeWidth;
        if (s.dash) ctx.setLineDash(s.dash.split(/[\s,]+/).map(parseFloat));
        ctx.stroke(path);
      }
    }
    ctx.restore();
  }
  return canvas;
}

// An element's figures → a Blob of type 'image/svg+xml' or 'image/png' (scale: pixels per CSS pixel; background: a
// CSS colour behind it, transparent by default; theme: 'light' or 'dark', by default the one whose ink reads on the
// background given, else the one on screen).
export async function elementBlob(root, host, { type = 'image/svg+xml', scale = 2, background, theme } = {}) {
  if (type !== 'image/svg+xml' && type !== 'image/png') throw new RangeError(`type must be "image/svg+xml" or "image/png", got ${JSON.stringify(type)}`);
  if (!(typeof scale === 'number' && scale > 0 && scale <= 8)) throw new RangeError(`scale must be a number in (0, 8], got ${JSON.stringify(scale)}`);
  if (background !== undefined && !(typeof background === 'string' && CSS.supports('color', background))) {
    throw new RangeError(`background must be a CSS colour, got ${JSON.stringify(background)}`);
  }
  if (theme !== undefined && theme !== 'light' && theme !== 'dark') throw new RangeError(`theme must be "light" or "dark", got ${JSON.stringify(theme)}`);
  // The colours are read off the figure: it takes the file's scheme for as long as they are read (no frame is
  // painted in between, so the page does not flicker).
  const scheme = theme ?? (background ? schemeFor(background) : null);
  const onScreen = host.getAttribute(SCHEME_ATTRIBUTE);
  if (scheme) host.setAttribute(SCHEME_ATTRIBUTE, scheme);
  let shapes;
  try {
    shapes = elementShapes(root, host);
  } finally {
    if (onScreen === null) host.removeAttribute(SCHEME_ATTRIBUTE);
    else host.setAttribute(SCHEME_ATTRIBUTE, onScreen);
  }
  if (type === 'image/svg+xml') return new Blob([shapesToSvg(shapes, background)], { type });
  return paintShapes(shapes, scale, background).convertToBlob({ type: 'image/png' });
}
