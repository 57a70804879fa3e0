// Packs the package as `npm pack` makes it for users and installs the tarball into a fresh project.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scratchDir } from './scratch.mjs';

export const REPO = fileURLToPath(new URL('..', import.meta.url));

function npm(args, cwd) {
  return execFileSync('npm', [...args, '--loglevel=error', '--no-audit', '--no-fund'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

// Returns { project, files }: the scratch project's folder and the tarball's file list.
export function packAndInstall() {
  const project = scratchDir('user');
  const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', project], REPO));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'posembed-user', private: true, type: 'module' }));
  npm(['install', '--offline', join(project, packed.filename)], project);
  return { project, files: packed.files.map((f) => f.path) };
}

// The first fenced block of the given language in the README's Usage section: docs are tested as written.
export function readmeExample(language) {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const usage = readme.slice(readme.indexOf('## Usage'));
  const match = usage.match(new RegExp('```' + language + '\\n([\\s\\S]*?)```'));
  if (!match) throw new Error(`README.md has no \`\`\`${language} block under ## Usage`);
  return match[1];
}
