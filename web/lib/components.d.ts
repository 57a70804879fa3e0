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
  /** Canvas pixels per cell (default 1: CSS scales the canvas). */
  scale?: number;
}

/** Paints a host tensor [rows, columns] onto a canvas with canvas 2D, one pixel per cell. */
export function drawHeatmap(canvas: HTMLCanvasElement, tensor: Tensor, options?: HeatmapOptions): Colormap;
/** Draws matrix `index` of a GpuTensor with the webgpu backend's render pipeline; where the GPU cannot draw,
 *  the backend goes on on wasm and the values are painted with canvas 2D instead. */
export function drawGpuHeatmap(canvas: HTMLCanvasElement, tensor: GpuTensor, backend: object,
  options: { colormap?: 'RdBu' | 'viridis'; range: { min: number; max: number }; index?: number }): Promise<Colormap>;
/** The smallest and largest value (without spreading the array into a call, so any length works). */
export function valueRange(data: ArrayLike<number> & Iterable<number>): { min: number; max: number };
/** A host tensor from either backend's result (a GpuTensor is read, then disposed). */
export function onHost(result: Tensor | GpuTensor): Promise<Tensor>;
/** Mounts the token-lookup walkthrough into root (a document or shadow root holding its controls). */
export function mountLookup(pe: object, root: ParentNode): unknown;

declare global {
  interface HTMLElementTagNameMap {
    'posembed-heatmap': HTMLElement;
    'posembed-lookup': HTMLElement;
    'posembed-rope': HTMLElement;
    'posembed-bias': HTMLElement;
  }
}
