// The README's table of every op's options, made from the option registry as built (dist/op_schemas.js, its bounds
// the C++ core's): `node scripts/option-table.mjs --write` rewrites the README between its options markers (after
// a build); a test checks they agree.
import { section, writeReadmeSection } from './readme-sections.mjs';
import { mayBeLeftOut } from './op-types.mjs';

const { resolvedSchemas } = await import(new URL('../dist/op_schemas.js', import.meta.url).href);

const cell = (text) => String(text).replaceAll('|', '\\|');

function allowed(spec) {
  if (spec.type === 'enum') return spec.values.map((v) => `\`'${v}'\``).join(', ');
  if (spec.type === 'boolean') return 'true or false';
  if (spec.type === 'integer' || spec.type === 'number') {
    const bound = (value) => value.toLocaleString('en', { maximumFractionDigits: 20 });
    return `${spec.type === 'number' ? 'number' : spec.even ? 'even integer' : 'integer'} in ${spec.exclusiveMin ? '(' : '['}${bound(spec.min)}, ${bound(spec.max)}]`;
  }
  return `\`${cell(spec.ts)}\``;
}

function defaultOf(spec) {
  if (spec.default !== undefined) return `\`${typeof spec.default === 'string' ? `'${spec.default}'` : spec.default}\``;
  if (spec.unless) return `required without \`${spec.unless}\``;
  return mayBeLeftOut(spec) ? 'optional' : 'required';
}

export function optionTable() {
  const rows = [];
  for (const [op, schema] of Object.entries(resolvedSchemas())) {
    const entries = [...Object.entries(schema.arguments ?? {}).map(([name, spec]) => [name, { ...spec, argument: true }]), ...Object.entries(schema.options)];
    entries.forEach(([name, spec], i) => rows.push(`| ${i === 0 ? `\`${op}\`` : ''} | \`${name}\`${spec.argument ? ' (argument)' : ''} | ${allowed(spec)} | ${defaultOf(spec)} | ${cell(spec.doc ?? '')} |`));
  }
  return section('options', [
    '<details><summary>Every op\'s options: what each allows, its default (made from the option registry, <code>web/lib/op_schemas.js</code>, with the C++ core\'s limits and its table of ops, by <code>scripts/option-table.mjs</code>)</summary>',
    '',
    '| op | option | allowed | default | what |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
    '</details>',
  ].join('\n'));
}

if (process.argv[1] === new URL(import.meta.url).pathname && process.argv.includes('--write')) {
  writeReadmeSection('options', optionTable(), 'the option registry');
}
