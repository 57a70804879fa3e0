// A row of the 2-D table: zeros for the class token's row, then for each patch (row-major) the 1-D encoding of its
// column in the first dModel / 2 columns and of its row in the rest, read from the core's exact 1-D table (input:
// positions 0 … max(gridH, gridW) − 1, split layout, dModel / 2 columns), so the GPU's values are the core's.
fn element(row: u32, column: u32) -> f32 {
  let first_patch = u32(options.clsToken);
  if (row < first_patch) {
    return 0.0;
  }
  let cell = row - first_patch;
  let half = u32(options.dModel) / 2u;
  let grid_w = u32(options.gridW);
  let coordinate = select(cell % grid_w, cell / grid_w, column >= half);
  return input[coordinate * half + column % half];
}
