// The values of the large BF16 tables stored_tables.test.mjs writes: BF16 codes from each cell's row and column, spread
// over about four octaves with both signs (rows repeat every 509), and their float32 values.
export const patternCode = (row, column) => (((row * 131 + column * 17) % 509) + 0x3e00) | (((row + column) % 3 === 0) ? 0x8000 : 0);
const widened = new Float32Array(1);
const bits = new Uint32Array(widened.buffer);
export const patternValue = (row, column) => {
  bits[0] = patternCode(row, column) << 16;
  return widened[0];
};
