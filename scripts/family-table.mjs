// The README's table of model families, made from the table in web/lib/model_families.js (as built in dist/): `node
// scripts/family-table.mjs --write` rewrites the README between its families markers; a test checks they agree.
import { FAMILIES, NOT_READ, NO_POSITIONS, WRAPPERS } from '../dist/model_families.js';
import { section, writeReadmeSection } from './readme-sections.mjs';

const code = (names) => names.map((name) => `\`${name}\``).join(', ');

// What a family's entry says, in words: its positions, and where it differs from Llama's reading.
function describeFamily(f) {
  if (f.kind === 'learned') return `learned table${f.offset === 'padding' ? ', positions from pad_token_id + 1' : f.offset ? `, offset ${f.offset}` : ''}${f.scores?.value === 1 ? '; scores unscaled' : ''}`;
  if (f.kind === 'sinusoidal') return `sinusoidal (${f.timescale === 't2t' ? 'fairseq timescale' : 'base^(−2i/d)'}, sines then cosines)${f.offset === 'padding' ? ', positions from pad_token_id + 1' : f.offset ? `, offset ${f.offset}` : ''}`;
  if (f.kind === 'alibi') return `ALiBi, ${f.slopes === 'mpt' ? 'MPT\'s slopes' : 'the paper\'s slopes'}`;
  if (f.kind === 't5') return f.decoderOnly ? 'T5 buckets (a decoder: one-directional)' : 'T5 buckets (encoder bidirectional, decoder not)';
  if (f.kind === 'none') return 'none (attention without positions)';
  const parts = [`RoPE, ${f.layout}`];
  if (f.rotary) parts.push(`partial (${f.rotary})`);
  if (f.head === 'qk_rope_head_dim') parts.push('on qk_rope_head_dim');
  if (f.mrope) parts.push(`mRoPE ${f.mrope.interleaved ? 'interleaved' : 'in blocks'}`);
  if (f.fixedRope) parts.push('fixed base, no scaling');
  const layers = f.layers;
  if (layers?.none?.length) parts.push(`no positions on ${layers.none.join('/')} layers${layers.enabledBy ? ` (and on all without ${Object.entries(layers.enabledBy).map(([k, v]) => `${k}: ${v}`).join(', ')})` : ''}`);
  if (layers?.local) parts.push(`${layers.local.join('/')} layers ${layers.localTheta ? `on ${layers.localTheta}` : 'on the same base'}, unscaled`);
  if (f.scores === 'mla') parts.push('scores × mscale²');
  else if (f.scores?.key) parts.push(`scores × ${f.scores.key}${f.scores.power ? `^${f.scores.power}` : ''}`);
  else if (f.scores?.value !== undefined) parts.push(`scores × ${f.scores.value}`);
  else if (f.scores?.keyMultiplier) parts.push(`scores × ${f.scores.keyMultiplier}`);
  if (f.cache && f.cache !== 'cast') parts.push(`cache kept ${f.cache === 'complex64' ? 'complex float32' : 'float32'}`);
  if (f.rotation === 'reversed') parts.push('turns by −angle');
  if (f.alibiKey) parts.push(`ALiBi with ${f.alibiKey}: true`);
  return parts.join(', ');
}

export function familyTable() {
  const groups = new Map();
  for (const [type, family] of Object.entries(FAMILIES)) {
    const words = describeFamily(family);
    groups.set(words, [...(groups.get(words) ?? []), type]);
  }
  const read = Object.keys(FAMILIES).length + Object.keys(WRAPPERS).length;
  const lines = [
    `${read} model types read (${Object.keys(FAMILIES).length} families and ${Object.keys(WRAPPERS).length} multimodal or composite configs whose text model is one of them), of the ${read + Object.keys(NOT_READ).length} model types of HF transformers' main branch (November 2026) whose config carries a text model's positions; ${Object.keys(NOT_READ).length} read and refused, each with why (one table of positions cannot describe it, or its sources disagree); ${Object.keys(NO_POSITIONS).length} without attention (${code(Object.keys(NO_POSITIONS))}) refused as having no positions.`,
    '',
    '| positions (as HF reads them) | model_type |',
    '| --- | --- |',
    ...[...groups].map(([words, types]) => `| ${words} | ${code(types)} |`),
    `| the text model of a composite config (\`text_config\`, \`thinker_config.text_config\`, \`vlm_config.text_config\`) | ${Object.entries(WRAPPERS).map(([type, w]) => `\`${type}\` → ${w.text ?? 'any (by its model_type)'}`).join(', ')} |`,
    '',
    'Refused, and why (each with these words rather than read as a family it resembles):',
    '',
    ...Object.entries(NOT_READ).map(([type, reason]) => `- \`${type}\`: ${reason}`),
  ];
  return section('families', lines.join('\n'));
}

if (process.argv[1] === new URL(import.meta.url).pathname && process.argv.includes('--write')) {
  writeReadmeSection('families', familyTable(), 'web/lib/model_families.js');
}
