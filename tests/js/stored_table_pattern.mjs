// The large BF16 tables the tests stream (stored_tables.test.mjs in Node, tables.test.mjs in Chromium), written to a
// file a block of rows at a time. Their values: BF16 codes from each cell's row and column, spread
// over about four octaves with both signs (rows repeat every 509), and their float32 values.
import { closeSync, openSync, writeSync } from 'node:fs';

export const patternCode = (row, column) => (((row * 131 + column * 17) % 509) + 0x3e00) | (((row + column) % 3 === 0) ? 0x8000 : 0);
const widened = new Float32Array(1);
const bits = new Uint32Array(widened.buffer);
export const patternValue = (row, column) => {
  bits[0] = patternCode(row, column) << 16;
  return widened[0];
};

export const TABLE_NAME = 'model.embed_tokens.weight';

// A BF16 safetensors file of the pattern table at path, written a block of rows at a time (no copy of it in memory);
// → the table's bytes.
export function writePatternTable(path, rows, columns) {
  let text = JSON.stringify({ [TABLE_NAME]: { dtype: 'BF16', shape: [rows, columns], data_offsets: [0, rows * columns * 2] } });
  text += ' '.repeat((8 - (text.length % 8)) % 8);
  const size = Buffer.alloc(8);
  size.writeBigUInt64LE(BigInt(text.length));
  const fd = openSync(path, 'w');
  writeSync(fd, Buffer.concat([size, Buffer.from(text)]));
  const perBlock = 1024;
  const block = Buffer.alloc(perBlock * columns * 2);
  for (let first = 0; first < rows; first += perBlock) {
    const count = Math.min(perBlock, rows - first);
    const codes = new Uint16Array(block.buffer, block.byteOffset, count * columns);
    for (let r = 0; r < count; r++) for (let c = 0; c < columns; c++) codes[r * columns + c] = patternCode(first + r, c);
    writeSync(fd, block, 0, count * columns * 2);
  }
  closeSync(fd);
  return rows * columns * 2;
}
