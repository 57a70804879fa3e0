// Temporary folders for the tests: each is removed when its test process exits, passed or failed, so runs
// leave nothing behind in the system's temporary folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function tempFolder(name) {
  const dir = mkdtempSync(join(tmpdir(), `posembed-${name}-`));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
