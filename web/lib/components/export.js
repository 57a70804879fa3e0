// An element as a file: each of its figures drawn from the figure's scene (scene.js: title, plot with its axes, marks
// and the heatmap's cells as one image, colour bar or legend, caption), its other pictures from their marks (the RoPE
// dials and dimension strip, the lookup's token chips, a colour bar shared by several figures), and its prose
// (headings, notes, a summary) where the page lays it out, into one list of shapes, then
// written as SVG text or painted on a canvas for PNG. Painting draws the shapes itself (no <img> of the SVG), so it
// works under a strict Content-Security-Policy too.

import { cssFont, movedShapes, pictureShapes, sceneShapes, shapesToSvg, translation, wrapWords } from '../scene.js';
import { figureOf, pictureOf, textWidth } from './figure.js';
import { SCHEME_ATTRIBUTE, cssColour, schemeFor } from './scheme.js';

const GAP = 8;
// A colour as the page's computed colours are written.
const rgbText = ([r, g, b, a]) => (a === 1 ? `rgb(${r}, ${g}, ${b})` : `rgba(${r}, ${g}, ${b}, ${Math.round(a * 1000) / 1000})`);
const fontOf = (style) => ({ family: style.fontFamily, size: parseFloat(style.fontSize), weight: style.fontWeight });

// How the writers draw marks in `element`'s place: the theme's colours and the font the page gives it now.
function drawingStyle(element) {
  const style = getComputedStyle(element);
  return {
    colour: (css) => (css === 'none' ? css : rgbText(cssColour(css.startsWith('var(') ? style.getPropertyValue(css.slice(4, -1).trim()).trim() : css))),
    family: style.fontFamily,
    measure: (text, font) => textWidth(text, cssFont(font)),
  };
}

// A figure drawn from its scene, at its place relative to `origin`, in the colours and fonts the page gives it now.
function figureShapes(figure, origin) {
  const scene = figureOf(figure)?.scene;
  const sizeOf = (selector, fallback) => parseFloat(getComputedStyle(figure.querySelector(selector) ?? figure).fontSize) || fallback;
  const canvas = figure.querySelector('.pe-plot canvas');
  const { width, height, shapes } = sceneShapes(scene, {
    ...drawingStyle(figure),
    cells: canvas?.width > 0 ? { canvas } : null,
    sizes: { title: sizeOf('.pe-title', 14), legend: sizeOf('.pe-legend', 13), caption: sizeOf('figcaption', 14) },
  });
  const box = figure.getBoundingClientRect();
  return { top: box.top - origin.top, liveBottom: box.bottom - origin.top, right: box.left - origin.left + width, bottom: box.top - origin.top + height,
    shapes: movedShapes(shapes, box.left - origin.left, box.top - origin.top) };
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
  const font = fontOf(style);
  const { size } = font;
  const words = lines.length === 1 ? [text] : wrapWords(text, Math.max(120, parent.getBoundingClientRect().width), (line) => textWidth(line, cssFont(font)));
  return words.map((line, i) => {
    const box = lines[Math.min(i, lines.length - 1)];
    const top = box.top - origin.top + (i >= lines.length ? (i - lines.length + 1) * size * 1.3 : 0);
    return { kind: 'text', transform: translation((i < lines.length ? box.left : lines[0].left) - origin.left, top + size * 0.8), x: 0, y: 0, anchor: 'start', text: line, font, fill: style.color, halo: null };
  });
}

// A picture (an <svg> drawn by drawPicture) from its marks, at its place and size relative to `origin`.
function svgPictureShapes(svg, origin) {
  const picture = pictureOf(svg);
  if (!picture) throw new Error(`an <svg class="${svg.getAttribute('class') ?? ''}"> was drawn without a picture, so it cannot be exported`);
  const box = svg.getBoundingClientRect();
  return pictureShapes(picture, drawingStyle(svg), { x: box.left - origin.left, y: box.top - origin.top, scale: picture.width > 0 ? box.width / picture.width : 1 });
}

// Everything the element shows in its shadow root, in the page's order and places: its framed figures whole (each
// drawn from its scene), its other pictures (the RoPE dials, the lookup's token chips, a colour bar shared by several
// figures), and its prose (headings, notes, a summary); not its controls or readouts. A figure whose file form
// is taller than the page's (its legend and caption laid out by the writer) moves what lies below it down as much.
export function elementShapes(root, host) {
  const origin = host.getBoundingClientRect();
  const parts = [];
  const add = (shapes, el) => {
    const box = el.getBoundingClientRect();
    parts.push({ top: box.top - origin.top, right: box.right - origin.left, bottom: box.bottom - origin.top, shapes });
  };
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
      if (figureOf(node)?.scene) parts.push({ ...figureShapes(node, origin), figure: true });
      skip();
    } else if (node.localName === 'svg') {
      add(svgPictureShapes(node, origin), node);
      skip();
    } else {
      node = walker.nextNode();
    }
  }
  if (!parts.some((p) => p.figure) && !parts.some((p) => p.shapes.some((shape) => shape.kind !== 'text'))) {
    throw new Error(`<${host.localName}> has drawn nothing to export yet: wait for its 'render' event`);
  }
  // What lies below a figure (on the page) moves down by as much as the figures above it grew.
  const figures = [];
  const shiftAt = (top) => figures.reduce((most, f) => (f.liveBottom <= top + 1 ? Math.max(most, f.shift + f.bottom - f.liveBottom) : most), 0);
  for (const part of parts) {
    part.shift = shiftAt(part.top);
    if (part.figure) figures.push(part);
  }
  return {
    width: Math.ceil(parts.reduce((widest, p) => Math.max(widest, p.right), 0)),
    height: Math.ceil(parts.reduce((lowest, p) => Math.max(lowest, p.bottom + p.shift), 0) + GAP),
    shapes: parts.flatMap((p) => movedShapes(p.shapes, 0, p.shift)),
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

// The shapes painted on a canvas, `pixelRatio` device pixels per CSS pixel.
export function paintShapes({ width, height, shapes }, pixelRatio, background) {
  const canvas = new OffscreenCanvas(Math.ceil(width * pixelRatio), Math.ceil(height * pixelRatio));
  const ctx = canvas.getContext('2d');
  if (background) {
    ctx.fillStyle = background;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
  }
  for (const s of shapes) {
    ctx.save();
    ctx.scale(pixelRatio, pixelRatio);
    if (s.kind === 'image') {
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(s.canvas, s.x, s.y, s.width, s.height);
    } else if (s.kind === 'text') {
      ctx.transform(...s.transform);
      ctx.font = cssFont(s.font);
      ctx.textBaseline = 'alphabetic';
      ctx.textAlign = s.anchor === 'middle' ? 'center' : s.anchor;
      if (s.halo) {
        ctx.strokeStyle = s.halo.colour;
        ctx.lineWidth = s.halo.width;
        ctx.strokeText(s.text, s.x, s.y);
      }
      ctx.fillStyle = s.fill;
      ctx.fillText(s.text, s.x, s.y);
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
        if (s.cap) ctx.lineCap = s.cap;
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
