// A weight file on a web server, read by HTTP Range: loaded by weight_files.js with the first URL it is given, so a
// page that reads no URL does not fetch this.
import { WeightFetchError, inMemory } from './weight_files.js';

const PROBE_BYTES = 64 << 10;          // the first request's range: a safetensors header usually fits
const WHOLE_FILE_LIMIT = 256 << 20;    // a server without Range support: read whole only up to this size

// The bytes of a web server's file by HTTP Range: one request for the first bytes (it tells the size), then one per
// range read; redirects followed (the Hub's resolve/ URLs answer with one to a CDN). A server that sends the whole
// file instead (no Range support) is read at once where the file is small, and named otherwise.
export async function urlSource(url, { fetch: fetchFn = globalThis.fetch, headers = {}, signal } = {}) {
  const get = async (start, end) => {
    let response;
    try {
      response = await fetchFn(url, { headers: { ...headers, Range: `bytes=${start}-${end - 1}` }, signal, redirect: 'follow' });
    } catch (error) {
      if (error?.name === 'AbortError') throw error;
      throw new WeightFetchError(`could not fetch ${url}: ${error?.message ?? error} (offline, or the server does not allow this page to read it: CORS)`, url);
    }
    if (!response.ok) throw new WeightFetchError(`${url} answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`, url, response.status);
    return response;
  };
  const first = await get(0, PROBE_BYTES);
  if (first.status !== 206) {
    const length = Number(first.headers.get('content-length'));
    if (Number.isFinite(length) && length > WHOLE_FILE_LIMIT) {
      await first.body?.cancel();
      throw new WeightFetchError(`${url} does not answer byte ranges (HTTP Range): reading one tensor would download all ${length} bytes`, url, first.status);
    }
    return inMemory(new Uint8Array(await first.arrayBuffer()));
  }
  const range = first.headers.get('content-range')?.match(/^bytes (\d+)-(\d+)\/(\d+)$/);
  if (!range || Number(range[1]) !== 0) throw new WeightFetchError(`${url} answered a range without a Content-Range the page can read (${first.headers.get('content-range') ?? 'none'}; a CORS server must expose it)`, url, 206);
  const size = Number(range[3]);
  const head = new Uint8Array(await first.arrayBuffer());
  const read = async (start, end, onProgress) => {
    if (end <= head.length) return head.slice(start, end);
    const response = await get(start, end);
    const given = response.headers.get('content-range')?.match(/^bytes (\d+)-/);
    if (response.status !== 206 || !given || Number(given[1]) !== start) {
      await response.body?.cancel();
      throw new WeightFetchError(`${url} did not answer the range ${start}-${end - 1} with those bytes (status ${response.status})`, url, response.status);
    }
    const bytes = new Uint8Array(end - start);
    const reader = response.body.getReader();
    for (let filled = 0; ;) {
      const { done, value } = await reader.read();
      if (done) {
        if (filled !== bytes.length) throw new WeightFetchError(`${url} ended the range ${start}-${end - 1} after ${filled} of ${bytes.length} bytes`, url, 206);
        return bytes;
      }
      if (filled + value.length > bytes.length) throw new WeightFetchError(`${url} sent more than the range ${start}-${end - 1}`, url, 206);
      bytes.set(value, filled);
      filled += value.length;
      onProgress?.(filled / bytes.length);
    }
  };
  return { size, owned: true, read };
}
