// Run by stored_tables.test.mjs in a process of its own, so that its peak memory is the stream's alone:
//   node stored_table_stream.mjs FILE ROWS COLUMNS [BELOW]
// (BELOW: a float32 table of that many MiB held on the heap first, so that the token table lies above it) streams FILE's token table (a BF16 .safetensors made by the test) to the heap, checks a few of its rows against the
// pattern the test wrote, and prints { baselineRss, peakRss, heapBytes, dtype, ... } as JSON.
import { openAsBlob } from 'node:fs';
import { load } from '../../dist/index.js';
import { patternValue } from './stored_table_pattern.mjs';

const [file, rows, columns, below] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5] ?? 0)];
const pe = await load({ simd: true, threads: 1 });
pe.tokenEmbedding({ vocabSize: 1, dModel: 1 }).dispose();  // the module's own start-up allocations, before the baseline
const baselineRss = process.memoryUsage().rss;
const held = below > 0 ? pe.tokenEmbedding({ vocabSize: below * 1024, dModel: 256, init: { std: 0 } }) : null;
const weights = await pe.openSafetensors(await openAsBlob(file));
const table = await weights.tokenEmbedding();
const peakRss = process.resourceUsage().maxRSS * 1024;
// The first, a middle and the last rows (the last lies past 2 GiB of the heap for the largest table).
const ids = [0, Math.floor(rows / 2), rows - 1];
const got = table.lookup(ids).data;
let wrong = 0;
ids.forEach((row, i) => { for (let c = 0; c < columns; c++) if (got[i * columns + c] !== patternValue(row, c)) wrong++; });
const query = Float32Array.from({ length: columns }, (_, c) => patternValue(rows - 1, c));
const nearest = table.nearest(query, { k: 1, metric: 'cosine' });
// The pattern repeats rows, so the nearest row is one equal to the last (the first such, on ties).
const nearestEqual = Array.from(query).every((v, c) => patternValue(nearest.indices[0], c) === v);
const { pointer } = table.stored();
console.log(JSON.stringify({ baselineRss, peakRss, heapBytes: pe.memory().heapBytes, tableEnd: pointer + rows * columns * 2, dtype: table.dtype, wrong, nearestEqual, nearestScore: nearest.scores[0] }));
table.dispose();
held?.dispose();
