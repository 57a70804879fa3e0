/** A whole vocabulary by its two principal axes, as counts on a grid of `cells` a side. */
export interface VocabularyGrid {
  /** How many rows fall in each cell, [cells * cells], row 0 the top. */
  counts: Float32Array;
  /** Per cell, the row nearest its centre (-1: none). */
  example: Int32Array;
  cells: number;
  /** Each axis's range. */
  xs: [number, number];
  ys: [number, number];
  rows: number;
  /** Where the given ids fall. */
  places: { id: number; x: number; y: number; cell: number }[];
}
/** projected: a table's pca({ components: 2 }).data ([rows, 2]). */
export function vocabularyGrid(projected: Float32Array, options?: { ids?: number[]; cells?: number }): VocabularyGrid;
/** An id's text by the tokenizer; a piece that is part of a character's bytes is shown as the vocabulary stores it. */
export function tokenLabel(tokenizer: { decode(ids: number[]): string; piece(id: number): string }, id: number): string;
/** The ids a drawn map names: each cell's example and the placed ones. */
export function namedIds(grid: VocabularyGrid): number[];
/** The map drawn on a Figure (posembed/components): log counts per cell, the cursor on the selected token; where it lies, or null. */
export function drawVocabularyMap(figure: unknown, grid: VocabularyGrid, options: { tokenName(id: number): string; selectedId?: number | null }): { id: number; x: number; y: number; cell: number } | null;
