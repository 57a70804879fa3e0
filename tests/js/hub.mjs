// A pair of local servers that behave as the Hugging Face Hub does for a model's files: the hub answers every
// URL with a 302 to a CDN on another origin, which serves the files with byte ranges (206 and Content-Range) and
// CORS headers; a path holding /missing/ answers 404. And the safetensors files the tests serve from it.
import { createServer } from 'node:http';

const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));

// A CDN's answer to a request for `body` with the Range header `range` (or none): the whole file, or the bytes asked
// for, with the headers that let any page read them.
export const CORS = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'content-range, content-length' };
export function rangeAnswer(body, range) {
  const asked = range?.match(/^bytes=(\d+)-(\d*)$/);
  if (!asked) return { status: 200, headers: CORS, body };
  const [start, end] = [Number(asked[1]), Math.min(asked[2] ? Number(asked[2]) : Infinity, body.length - 1)];
  return { status: 206, headers: { ...CORS, 'content-range': `bytes ${start}-${end}/${body.length}` }, body: body.subarray(start, end + 1) };
}

// files: { [file name]: Buffer }, served under any folder. → { folder(repo), close() }
export async function hubLike(files) {
  const cdn = createServer((request, response) => {
    const body = request.url.includes('/missing/') ? undefined : files[request.url.split('/').pop()];
    if (!body) { response.writeHead(404, CORS).end(); return; }
    const answer = rangeAnswer(body, request.headers.range);
    response.writeHead(answer.status, answer.headers).end(answer.body);
  });
  await listen(cdn);
  const hub = createServer((request, response) => response.writeHead(302, { ...CORS, location: `http://127.0.0.1:${cdn.address().port}/cdn${request.url}` }).end());
  await listen(hub);
  return {
    folder: (repo) => `http://127.0.0.1:${hub.address().port}/${repo}/resolve/main/`,
    close: () => { cdn.close(); hub.close(); },
  };
}

// BF16 of a float32 (round to nearest even) and back: the values a BF16 table holds.
export const bf16Bits = (x) => {
  const bits = new Uint32Array(new Float32Array([x]).buffer)[0];
  return (bits + 0x7fff + ((bits >> 16) & 1)) >>> 16;
};
export const fromBf16 = (bits) => new Float32Array(new Uint32Array([bits << 16]).buffer)[0];

// A .safetensors file of tensors { name: { dtype, shape, bytes } } (bytes: their stored elements), as the format lays
// it out.
export function safetensorsFile(tensors) {
  let offset = 0;
  const header = {};
  for (const [name, { dtype, shape, bytes }] of Object.entries(tensors)) {
    header[name] = { dtype, shape, data_offsets: [offset, offset + bytes.length] };
    offset += bytes.length;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const size = Buffer.alloc(8);
  size.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([size, Buffer.from(json), ...Object.values(tensors).map((tensor) => tensor.bytes)]);
}

// A .safetensors file of BF16 tensors { name: { values: Float32Array, shape } }.
export function bf16Safetensors(tensors) {
  return safetensorsFile(Object.fromEntries(Object.entries(tensors).map(([name, { values, shape }]) => {
    const bytes = Buffer.alloc(values.length * 2);
    values.forEach((v, i) => bytes.writeUInt16LE(bf16Bits(v), 2 * i));
    return [name, { dtype: 'BF16', shape, bytes }];
  })));
}
