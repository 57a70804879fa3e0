// Types of posembed/colormap: the colour schemes and the heatmap pixels the figures, the command line and
// workers share (no DOM needed).
import type { Tensor } from './index.js';
import type { Colormap } from './components.js';

export const COLORMAPS: Record<'RdBu' | 'viridis', { diverging: boolean; ends: [string, string]; interpolate(t: number): string }>;
/** The colour of masked (non-finite) cells, and its name in colour bars. */
export const MASKED: { rgb: [number, number, number]; word: string };
export function colormap(name: 'RdBu' | 'viridis', range: { min: number; max: number }): Colormap;
/** The range of the finite values, without copying or spreading the array (any length works); { min: Infinity, max: -Infinity } where none is finite. */
export function valueRange(data: ArrayLike<number>): { min: number; max: number };
/** RGBA pixels of a [rows, columns] tensor, one pixel (or cellSize × cellSize) per cell; NaN cells black. */
export function heatmapPixels(tensor: Tensor, options?: { colormap?: 'RdBu' | 'viridis'; range?: { min: number; max: number }; cellSize?: number }):
  { pixels: Uint8ClampedArray; width: number; height: number; map: Colormap };
