// The colours every figure and element uses, each from a documented custom property an author may set
// (--posembed-ink, …), else a default for the scheme the element takes from its page (scheme.js writes it as
// data-posembed-scheme: the page's background or color-scheme, or the element's theme attribute). Printing is light.
// The figure layer and the elements read them as --pe-theme-*; the same block themes a page's own figures (:root,
// and a figure following a dark page) and an element's shadow root (:host).
import { SCHEME_ATTRIBUTE } from './scheme.js';

export const THEME_PROPERTIES = {
  ink: ['#1d232a', '#e3e7ec', 'text, axes and ticks'],
  muted: ['#5b6672', '#a9b2bc', 'captions and secondary text'],
  accent: ['#1f5fbf', '#8ab4ff', 'focus rings and links'],
  surface: ['transparent', 'transparent', 'the element\'s background'],
  'surface-strong': ['#fffbe6', '#3b3420', 'the background of "Computing…" and "Nothing yet" notes'],
  'status-border': ['#e0c860', '#8f7b2e', 'their border'],
  border: ['#d4d9df', '#4b535d', 'borders of buttons, fields and tokens'],
  button: ['#ffffff', '#262c33', 'buttons\' background'],
  'button-ink': ['#1d232a', '#e3e7ec', 'buttons\' text'],
  error: ['#a4161a', '#ff8f8f', 'error messages'],
  cursor: ['#000000', '#ffffff', 'the figure cursor'],
  'cursor-halo': ['#ffffff', '#000000', 'the halo around it'],
};

const block = (scheme) => Object.entries(THEME_PROPERTIES)
  .map(([name, defaults]) => `--pe-theme-${name}: var(--posembed-${name}, ${defaults[scheme]});`).join(' ');

export const THEME_STYLE = `
  :root, :host { ${block(0)} }
  [${SCHEME_ATTRIBUTE}="dark"], :host([${SCHEME_ATTRIBUTE}="dark"]) { ${block(1)} }
  @media print { [${SCHEME_ATTRIBUTE}], :host([${SCHEME_ATTRIBUTE}]) { ${block(0)} } }
`;
