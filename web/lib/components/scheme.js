// Which colour scheme a figure takes: the page's, not the reader's operating system's. A light blog read on a dark
// OS stays light; a docs site's own dark toggle (a class or a data attribute on <html>, as VitePress, Starlight and
// Docusaurus do it) turns the figures dark with it, with no mapping by the author. The page is read where the figure
// sits: the first background behind it that is mostly opaque, else the canvas its `color-scheme` gives.
// The scheme is written as data-posembed-scheme on the themed element, which theme.js's styles key on.

export const SCHEME_ATTRIBUTE = 'data-posembed-scheme';

// A background at least this opaque decides; a fainter one lets the one behind it show through.
const OPAQUE_ENOUGH = 0.5;
// The relative luminance at which dark and light ink contrast equally with the background (WCAG's formula).
const EQUAL_CONTRAST_LUMINANCE = 0.179;

let probe = null;
// A CSS colour as [r, g, b, a] (0–255, alpha 0–1): computed colours are rgb()/rgba() in most browsers; any other
// syntax (oklch(), color()) is resolved by painting it.
export function cssColour(text) {
  const rgb = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)(?:[\s,/]+([\d.]+)(%?))?\s*\)$/.exec(text);
  if (rgb) {
    const alpha = rgb[4] === undefined ? 1 : Number(rgb[4]) / (rgb[5] ? 100 : 1);
    return [Number(rgb[1]), Number(rgb[2]), Number(rgb[3]), alpha];
  }
  if (text === 'transparent' || !text) return [0, 0, 0, 0];
  probe ??= new OffscreenCanvas(1, 1).getContext('2d', { willReadFrequently: true });
  probe.clearRect(0, 0, 1, 1);
  probe.fillStyle = text;
  probe.fillRect(0, 0, 1, 1);
  const [r, g, b, a] = probe.getImageData(0, 0, 1, 1).data;
  return [r, g, b, a / 255];
}

function luminance([r, g, b]) {
  const linear = (c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

// The scheme whose ink reads best on a colour ([r, g, b, …]): 'light' (dark ink) or 'dark' (light ink).
const schemeOn = (rgb) => (luminance(rgb) < EQUAL_CONTRAST_LUMINANCE ? 'dark' : 'light');

// The same for a CSS colour.
export const schemeFor = (colour) => schemeOn(cssColour(colour));

// The element a node is drawn over: its slot where it is slotted, its parent, or its shadow root's host.
const behind = (node) => node.assignedSlot ?? node.parentElement ?? node.getRootNode()?.host ?? null;

// The page's scheme at `element`: 'light' or 'dark'.
export function pageScheme(element) {
  for (let node = element; node; node = behind(node)) {
    const colour = cssColour(getComputedStyle(node).backgroundColor);
    if (colour[3] >= OPAQUE_ENOUGH) return schemeOn(colour);
  }
  // Nothing painted behind it: the canvas, light unless the page's color-scheme asks for dark (alone, or first
  // among those it allows when the reader prefers dark).
  const allowed = getComputedStyle(element).colorScheme.split(/\s+/);
  if (!allowed.includes('dark')) return 'light';
  if (!allowed.includes('light')) return 'dark';
  return globalThis.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

// Sets `target`'s scheme: the one its theme attribute names ("light", "dark"), else the page's.
export function applyScheme(target, theme = target.getAttribute('theme')) {
  const scheme = theme === 'light' || theme === 'dark' ? theme : pageScheme(target);
  if (target.getAttribute(SCHEME_ATTRIBUTE) !== scheme) target.setAttribute(SCHEME_ATTRIBUTE, scheme);
  return scheme;
}

// The elements following the page, each looked at again when the page may have changed its colours: an attribute of
// <html> or <body> (the docs themes' toggles), the reader's preference (pages that allow both schemes), a
// background that has finished its transition, the page's stylesheets having loaded.
const following = new Set();
let refreshQueued = false;

function refreshSoon() {
  if (refreshQueued) return;
  refreshQueued = true;
  requestAnimationFrame(() => {
    refreshQueued = false;
    for (const target of following) if (target.isConnected) applyScheme(target);
  });
}

let watching = false;
function watchPage() {
  if (watching) return;
  watching = true;
  const observer = new MutationObserver(refreshSoon);
  observer.observe(document.documentElement, { attributes: true });
  const observeBody = () => { if (document.body) observer.observe(document.body, { attributes: true }); };
  observeBody();
  document.addEventListener('DOMContentLoaded', observeBody, { once: true });
  globalThis.addEventListener('load', refreshSoon, { once: true });
  globalThis.matchMedia?.('(prefers-color-scheme: dark)').addEventListener?.('change', refreshSoon);
  document.addEventListener('transitionend', (event) => {
    if (event.propertyName === 'background-color' || event.propertyName === 'background') refreshSoon();
  }, true);
}

// Keeps `target` in the page's scheme until the returned function is called.
export function followPageScheme(target) {
  watchPage();
  following.add(target);
  applyScheme(target);
  return () => following.delete(target);
}
