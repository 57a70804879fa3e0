// The tables the heatmaps show (site components and the command line alike): each encoding as a
// [rows, columns] host tensor, with a caption and the value range its colormap spans.

export const ENCODINGS = ['sinusoidal', 'alibi', 't5', 'sincos2d'];

// A CPU tensor from either backend's result (a GpuTensor is read, then freed).
export async function onHost(result) {
  if (result.data) return result;
  try {
    return await result.read();
  } finally {
    result.dispose();
  }
}

// o: { length = 64, dModel, base, layout, timescale, offset, heads, head, causal, buckets, maxDistance,
// bidirectional, gridH, gridW }. Masked attention cells come back as NaN.
export async function encodingFigure(pe, encoding, o = {}) {
  const length = o.length ?? 64;
  if (encoding === 'sinusoidal') {
    const options = { length, dModel: o.dModel ?? 128, base: o.base ?? 10000, layout: o.layout ?? 'interleaved', timescale: o.timescale ?? 'standard', offset: o.offset ?? 0 };
    return { tensor: await onHost(pe.sinusoidal(options)), caption: `sinusoidal PE [${length} × ${options.dModel}], ${options.layout}, ${options.timescale}`, range: { min: -1, max: 1 }, colormap: 'RdBu' };
  }
  if (encoding === 'alibi') {
    const heads = o.heads ?? 8;
    const head = o.head ?? 0;
    if (!Number.isInteger(head) || head < 0 || head >= heads) throw new RangeError(`head must be an integer in [0, ${heads - 1}], got ${head}`);
    const bias = await onHost(pe.alibiBias({ numHeads: heads, keyLength: length, causal: o.causal ?? false }));
    const data = bias.data.slice(head * length * length, (head + 1) * length * length).map((v) => (v === -Infinity ? NaN : v));
    return { tensor: { data, shape: [length, length] }, caption: `ALiBi bias, head ${head} of ${heads}${o.causal ? ', causal' : ''} (query × key)`, colormap: 'viridis' };
  }
  if (encoding === 't5') {
    const options = { queryLength: length, keyLength: length, numBuckets: o.buckets ?? 32, maxDistance: o.maxDistance ?? 128, bidirectional: o.bidirectional ?? true };
    const buckets = await onHost(pe.t5Buckets(options));
    return { tensor: { data: Float32Array.from(buckets.data), shape: buckets.shape }, caption: `T5 buckets of key − query, ${options.numBuckets} buckets (query × key)`, colormap: 'viridis' };
  }
  if (encoding === 'sincos2d') {
    const options = { gridH: o.gridH ?? 8, gridW: o.gridW ?? 8, dModel: o.dModel ?? 64, base: o.base ?? 10000 };
    return { tensor: await onHost(pe.sincos2d(options)), caption: `2-D sin-cos [${options.gridH}·${options.gridW} patches × ${options.dModel}]`, range: { min: -1, max: 1 }, colormap: 'RdBu' };
  }
  throw new RangeError(`encoding must be one of ${ENCODINGS.map((e) => `'${e}'`).join(', ')}, got '${encoding}'`);
}
