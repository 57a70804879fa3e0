// Packs the package as `npm pack` makes it for users and installs the tarball into a fresh project.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempFolder } from './temp_folders.mjs';

export const REPO = fileURLToPath(new URL('..', import.meta.url));

function npm(args, cwd) {
  return execFileSync('npm', [...args, '--loglevel=error', '--no-audit', '--no-fund'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

// Returns { project, files }: the scratch project's folder and the tarball's file list.
export function packAndInstall() {
  const project = tempFolder('user');
  const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', project], REPO));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'posembed-user', private: true, type: 'module' }));
  npm(['install', join(project, packed.filename)], project);
  return { project, files: packed.files.map((f) => f.path) };
}

// The fenced blocks of the given language in a README section (from its heading to the next heading of any
// level), in order: docs are tested as written. Usage's first block is the default.
export function readmeBlocks(language, heading = '## Usage') {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README.md has no section '${heading}'`);
  const rest = readme.slice(start + heading.length + 2);
  const next = rest.search(/^#{1,6} /m);
  const section = next < 0 ? rest : rest.slice(0, next);
  const blocks = [...section.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]);
  if (blocks.length === 0) throw new Error(`README.md has no \`\`\`${language} block under ${heading}`);
  return blocks;
}

export function readmeExample(language) {
  return readmeBlocks(language)[0];
}
