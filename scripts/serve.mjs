// Serves the built site (build/site) on http://127.0.0.1:8080 (HOST and PORT override; PORT=0 picks a free
// port; SITE_ROOT serves another folder), with the strict Content-Security-Policy posembed works under, and
// cross-origin isolated (COOP/COEP), which gives pages SharedArrayBuffer and so posembed's threaded module;
// ISOLATED=0 serves without isolation, as most hosts do, where posembed runs on one thread.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(process.env.SITE_ROOT ?? fileURLToPath(new URL('../build/site', import.meta.url)));
const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT ?? 8080);

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};
// connect-src: the tokens page reads a model's files from the Hub (https:) or a model server on this machine.
const HEADERS = {
  'Content-Security-Policy': "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self' https: http://127.0.0.1:* http://localhost:*",
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-cache',
  ...(process.env.ISOLATED === '0' ? {} : { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' }),
};

async function resolvePath(urlPath) {
  const relative = normalize(decodeURIComponent(urlPath)).replace(/^([/\\])+/, '');
  const path = join(root, relative);
  if (!path.startsWith(root)) return null;
  const info = await stat(path).catch(() => null);
  if (info?.isDirectory()) return join(path, 'index.html');
  return info ? path : null;
}

const server = createServer(async (request, response) => {
  try {
    const path = await resolvePath(new URL(request.url, 'http://localhost').pathname);
    const body = path && (await readFile(path).catch(() => null));
    if (!body && request.url === '/favicon.ico') {
      response.writeHead(204, HEADERS).end();  // browsers ask for it on every page; an absent icon is no error
      return;
    }
    if (!body) {
      response.writeHead(404, { ...HEADERS, 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    response.writeHead(200, { ...HEADERS, 'Content-Type': TYPES[extname(path)] ?? 'application/octet-stream' }).end(body);
  } catch (error) {
    response.writeHead(500, { 'Content-Type': 'text/plain' }).end(String(error));
  }
});

server.on('error', (error) => {
  console.error(`posembed: cannot serve on ${host}:${port}: ${error.message}${error.code === 'EADDRINUSE' ? ' (set PORT to another port)' : ''}`);
  process.exit(1);
});
server.listen(port, host, () => {
  const { port: actual } = server.address();
  console.log(`posembed site: http://${host}:${actual}/`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
