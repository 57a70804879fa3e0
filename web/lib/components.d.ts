// Types of posembed/components: the elements it defines and the figure layer they draw with.
import type { GpuTensor, Tensor } from './index.js';

/** How a heatmap's values map to colours: what drawHeatmap and drawGpuHeatmap return. */
export interface Colormap {
  rgb: Uint8Array;
  low: number;
  span: number;
  steps: number;
  /** The index of a value's colour in rgb (clamped to the range). */
  index(value: number): number;
  /** The CSS colour of a value. */
  css(value: number): string;
}

export interface HeatmapOptions {
  /** 'RdBu' (diverging: zero is white, ±the largest magnitude of the range at the ends) or 'viridis'. */
  colormap?: 'RdBu' | 'viridis';
  range?: { min: number; max: number };
  /** Canvas pixels along a cell's side (default 1: CSS scales the canvas). */
  cellSize?: number;
}

/** Paints a host tensor [rows, columns] onto a canvas with canvas 2D, one pixel per cell. */
export function drawHeatmap(canvas: HTMLCanvasElement, tensor: Tensor, options?: HeatmapOptions): Colormap;
/** Puts RGBA pixels [height, width] (a heatmap made off the page's thread, say) onto a canvas, one pixel per cell, as drawHeatmap does. */
export function paintPixels(canvas: HTMLCanvasElement, pixels: { pixels: Uint8Array | Uint8ClampedArray; width: number; height: number }): HTMLCanvasElement;
/** Draws matrix `index` of a GpuTensor with the webgpu backend's render pipeline; where the GPU cannot draw,
 *  the backend goes on on wasm and the values are painted with canvas 2D instead. */
export function drawGpuHeatmap(canvas: HTMLCanvasElement, tensor: GpuTensor, backend: object,
  options: { colormap?: 'RdBu' | 'viridis'; range: { min: number; max: number }; index?: number }): Promise<Colormap>;
/** The range of the finite values, without copying or spreading the array (any length works); { min: Infinity, max: -Infinity } where none is finite. */
export function valueRange(data: ArrayLike<number>): { min: number; max: number };
/** A host tensor from either backend's result (a GpuTensor is read, then disposed). */
export function onHost(result: Tensor | GpuTensor): Promise<Tensor>;
/** Resolves in a task of its own (a timeout of 0): awaited between pieces of long work, it lets the page answer
 *  input and paint. */
export function nextTask(): Promise<void>;
/** Mounts the token-lookup walkthrough into root (a document or shadow root holding #lookup-controls,
 *  #lookup-error and #lookup-steps). */
export function mountLookup(pe: object, root: ParentNode, options?: { axes?: boolean; legend?: boolean }):
  { ready: Promise<void>; render(): Promise<void>; unmount(): void; holdsTable(): boolean };
/** The lookup walkthrough's figures in container; update() draws them for new inputs (RangeError naming the input). */
export function createLookup(pe: object, container: ParentNode, options?: { axes?: boolean; legend?: boolean }): {
  update(inputs: { text: string; dModel: number; padTo: number; seed: number; scale?: 'sqrt' | 'none' }): Promise<void>;
  holdsTable(): boolean;
  dispose(): void;
};

export interface Axis {
  label?: string;
  /** Category names (heatmaps): an array or a function of the index. */
  names?: string[] | ((index: number) => string);
  /** Line plots: a log scale. */
  log?: boolean;
  domain?: [number, number];
}

/** The figure layer: axes, a colour bar saying which colour is negative, legend swatches, a caption, an accessible
 *  name and a keyboard readout, around a heatmap, lines, points or bars. Each draw replaces the last. */
export class Figure {
  constructor(parent: ParentNode, options?: { label: string; title?: string; caption?: string; axes?: boolean; legend?: boolean; maxHeight?: number;
    /** An element of the page to write the readout into, instead of the figure's own. */ readout?: HTMLElement });
  readonly element: HTMLElement;
  readonly readout: HTMLElement;
  label: string;
  axes: boolean;
  legend: boolean;
  caption: string;
  title: string;
  readonly cursor: number;
  moveCursorTo(index: number): void;
  /** Dims the figure, busy (aria-busy), with a note over it ('Computing…' unless told what it computes) until the next draw. */
  stale(on?: boolean, message?: string): void;
  /** Dims the figure with why it waits on the reader ('press Start') over it, not busy, until the next draw. */
  waiting(message: string): void;
  error(message: string): void;
  heatmap(tensor: Tensor, options?: HeatmapOptions & { x?: Axis; y?: Axis; colour?: { label?: string; missing?: string };
    rowRule?: { row: number; label: string };
    describe?(row: number, column: number, value: number, byReader: boolean): string }): Colormap;
  /** Frames a canvas already painted one pixel per cell (or sampled); value(index) feeds the readout. */
  frame(canvas: HTMLCanvasElement, options: { shape: [number, number]; range: { min: number; max: number }; value(index: number): number | undefined;
    colormap?: "RdBu" | "viridis"; missing?: boolean; x?: Axis; y?: Axis; colour?: { label?: string; missing?: string }; rowRule?: { row: number; label: string };
    describe?(row: number, column: number, value: number | undefined, byReader: boolean): string }): Colormap;
  lines(series: { label: string; x: ArrayLike<number>; y: ArrayLike<number>; colour?: string; dashed?: boolean; width?: number }[],
    options?: { x?: Axis; y?: Axis; rules?: { x: number; label: string }[]; describe?(index: number): string;
      /** Series that grow: the cursor stays on the newest point unless the reader has put it elsewhere. */
      follow?: boolean }): void;
  points(points: { x: number; y: number; label: string; group?: string }[],
    options?: { groups?: { name: string; colour: string }[]; x?: Axis; y?: Axis; describe?(index: number): string;
      /** A thin line through these points in this order, named in the legend. */
      path?: { indices: number[]; label: string } }): void;
  bars(bars: { label: string; value: number; colour?: string; group?: string }[],
    options?: { groups?: { name: string; colour: string }[]; x?: Axis; y?: Axis; describe?(index: number): string }): void;
}
export const SERIES_COLOURS: readonly string[];
/** A colour bar (an element) for a colormap over its range, `width` px long, with ticks and the colours in words;
 *  hasMissing adds "black = " colour.missing (default 'masked'). */
export function colourBar(map: Colormap, colormap: 'RdBu' | 'viridis', width: number, colour?: { label?: string; missing?: string }, hasMissing?: boolean): HTMLElement;
/** "red = negative, white = 0, blue = positive" for RdBu; "dark purple = low, yellow = high" for viridis. */
export function colourWords(colormap: 'RdBu' | 'viridis'): string;
export function formatValue(value: number): string;
/** A number in a sentence: an integer in full (thousands separated), others to `digits` (default 3) significant digits, tiny or huge ones as m × 10ⁿ. */
export function proseNumber(value: number, digits?: number): string;

/** The heatmaps the components and the command line draw: each encoding's table with its caption and axes. */
export const ENCODINGS: readonly string[];
export function encodingFigure(pe: object, encoding: string, options?: Record<string, unknown>): Promise<{
  tensor: Tensor; caption: string; range?: { min: number; max: number }; colormap: 'RdBu' | 'viridis';
  x: Axis; y: Axis; colour?: { label?: string } }>;

/** The tutorials' toy vocabulary: <pad> (0), <end> (1), digits 0–9 (2–11), First Last Min Max Sum (12–16), ( ) , (17–19). */
export const TOY_VOCABULARY: readonly string[];
export const TOY_PADDING: 0;
export const TOY_END: 1;
export function toyTokens(text: string): string[];
export function toyIds(tokens: string[]): Int32Array;

export * from './elements.js';

/**
 * Defines the elements `root` (a document or a shadow root of yours) holds, and from then on those added to it
 * (the module does so for the document itself); with no root, all six now. Resolves once they are defined.
 */
export function defineElements(root?: Document | ShadowRoot): Promise<unknown>;

/** Every <posembed-…> element: its figures as a framed file, and its 'render' and 'change' events. */
export interface PosembedElement extends HTMLElement {
  /** The figures as drawn, with title, axes, colour bar or legend and caption: SVG (cells as one image) or PNG at `scale` (2). */
  toBlob(options?: { type?: 'image/svg+xml' | 'image/png'; scale?: number; background?: string; theme?: 'light' | 'dark' }): Promise<Blob>;
  /** The chrome's words (buttons, labels, headings, status notes): reading gives them all; setting replaces those named. */
  strings: Record<string, string>;
  /** Where the reader's cursor is, in the data's terms ({ row, column, value, figure } of a heatmap; { index, x, … }), or null; set it to show one. */
  cursor: ({ figure: number; [term: string]: unknown }) | null;
}

/** <posembed-heatmap>: `data` draws the author's own matrix in place of an encoding. */
export interface PosembedHeatmapElement extends PosembedElement {
  data: { data: ArrayLike<number>; shape: [number, number]; range?: { min: number; max: number }; caption?: string; x?: { label: string }; y?: { label: string } } | null;
}

/** <posembed-bias kind="t5">: `table` takes a trained [buckets, heads] table (its buckets and heads then the table's; `name` says whose in the caption). */
export interface PosembedBiasElement extends PosembedElement {
  table: { data: ArrayLike<number>; shape: [number, number]; name?: string } | null;
}

/** <posembed-model config="preset | URL" layer="i">: a real model's positional layer; `config` also takes a parsed config.json. */
export interface PosembedModelElement extends PosembedElement {
  config: Record<string, unknown> | null;
}

/** The kinds <posembed-train> colours the toy tokens by: digits, operations, syntax, padding and end. */
export const TOKEN_KINDS: readonly { name: string; colour: string; test(token: string): boolean }[];
export function tokenKind(token: string): string;
/** The axes of the training worker's 2-D pictures of rows: their principal plane, turned frame to frame to follow the one before. */
export const PLANE_AXES: { x: { label: string }; y: { label: string } };
/** A sentence saying so, for captions. */
export const PLANE_NOTE: string;
/**
 * A module worker that trains, as <posembed-train> does: post { type: 'configure', kind: 'trainer' | 'words', options,
 * steps, words? }, then { type: 'run' } / { type: 'pause' } / { type: 'predict', prompt } / { type: 'nearest', word, k } /
 * { type: 'extrapolate', minItems, maxItems } / { type: 'save', format: 'safetensors' | 'npy', name? }; it answers
 * { type: 'snapshot', step, loss, accuracy, running, ... } after each slice of training, and the reply of each request.
 */
export function trainingWorker(): Worker;
