// The README's generated sections: each lies between <!-- name:start --> and <!-- name:end -->, is made by a script
// from the table it describes, and is checked by a test to be what that script makes.
import { readFileSync, writeFileSync } from 'node:fs';

const README = new URL('../README.md', import.meta.url);
const markers = (name) => [`<!-- ${name}:start -->`, `<!-- ${name}:end -->`];

// The section as the README has it (markers included), or null.
export function readmeSection(name, text = readFileSync(README, 'utf8')) {
  const [start, end] = markers(name);
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  return from < 0 || to < 0 ? null : text.slice(from, to + end.length);
}

// `body` between the section's markers, as the README's section is written.
export const section = (name, body) => [markers(name)[0], body, markers(name)[1]].join('\n');

// Rewrites the README's section `name` with `made` (section()'s text).
export function writeReadmeSection(name, made, source) {
  const text = readFileSync(README, 'utf8');
  const current = readmeSection(name, text);
  if (!current) throw new Error(`README.md has no ${markers(name).join(' … ')} section to write`);
  writeFileSync(README, text.replace(current, made));
  console.log(`README.md: the ${name} section rewritten from ${source}`);
}
