// Made from the elements' attribute schema (web/lib/components/attributes.js) at build time: custom-elements.json
// (the Custom Elements Manifest that editors and documentation tools read) and the elements' TypeScript types
// (dist/elements.d.ts: HTMLElementTagNameMap entries and JSX intrinsic elements with each element's attributes;
// dist/jsx-react.d.ts and dist/jsx-preact.d.ts: the same elements for React's and Preact's JSX, opted into by
// `import type {} from 'posembed/jsx-react'`).
import { ELEMENT_SCHEMAS } from '../web/lib/components/attributes.js';

const className = (tag) => tag.split('-').map((part) => part[0].toUpperCase() + part.slice(1)).join('');

function typeText(spec) {
  if (spec.type === 'enum') return spec.values.map((v) => `"${v}"`).join(' | ');
  if (spec.type === 'flag' || spec.type === 'boolean') return 'boolean';
  return spec.type === 'text' ? 'string' : 'number';
}

function describeSpec(spec) {
  const range = spec.type === 'integer' || spec.type === 'number'
    ? ` ${spec.type === 'integer' ? (spec.even ? 'Even integer' : 'Integer') : 'Number'} in ${spec.exclusiveMin ? '(' : '['}${spec.min}, ${spec.max}].` : '';
  return `${spec.doc[0].toUpperCase()}${spec.doc.slice(1)}.${range}`;
}

export function customElementsManifest() {
  return {
    schemaVersion: '1.0.0',
    readme: 'README.md',
    modules: [{
      kind: 'javascript-module',
      path: 'dist/components.js',
      declarations: Object.entries(ELEMENT_SCHEMAS).map(([tag, schema]) => ({
        kind: 'class', name: className(tag), tagName: tag, customElement: true, description: schema.summary,
        attributes: Object.entries(schema.attributes).map(([name, spec]) => ({
          name, description: describeSpec(spec), type: { text: typeText(spec) },
          ...(spec.default !== undefined ? { default: JSON.stringify(spec.default) } : {}),
        })),
        events: [{ name: 'render', description: 'Once a picture is on screen; detail: what was drawn.' },
          { name: 'change', description: 'When the reader changes a control or the training state; detail: what changed.' }],
      })),
      exports: Object.keys(ELEMENT_SCHEMAS).map((tag) => ({ kind: 'custom-element-definition', name: tag, declaration: { name: className(tag), module: 'dist/components.js' } })),
    }],
  };
}

export function elementTypes() {
  const lines = ['// Made from the elements\' attribute schema (dist/components/attributes.js) by scripts/element-types.mjs.', ''];
  for (const [tag, schema] of Object.entries(ELEMENT_SCHEMAS)) {
    lines.push(`/** <${tag}>: ${schema.summary}. */`, `export interface ${className(tag)}Attributes {`);
    for (const [name, spec] of Object.entries(schema.attributes)) {
      const value = typeText(spec);
      // In HTML every value is text: numbers may be given as strings, booleans as "true" / "false" (a flag: present).
      const written = value === 'number' ? 'number | `${number}`' : value === 'boolean' ? (spec.type === 'flag' ? 'boolean | ""' : 'boolean | "true" | "false"') : value;
      lines.push(`  /** ${describeSpec(spec)} */`, `  '${name}'?: ${written};`);
    }
    lines.push('}', '');
  }
  const html = 'id?: string; class?: string; className?: string; style?: string | Record<string, string | number>; slot?: string; hidden?: boolean; children?: unknown; key?: string | number; ref?: unknown';
  lines.push('/** The attributes every element also takes as an HTML element (and the keys frameworks add). */', `export interface PosembedHtmlAttributes { ${html}; }`, '');
  lines.push('declare global {', '  interface HTMLElementTagNameMap {');
  for (const tag of Object.keys(ELEMENT_SCHEMAS)) lines.push(`    '${tag}': ${tag === 'posembed-model' ? 'import(\'./components.js\').PosembedModelElement' : tag === 'posembed-heatmap' ? 'import(\'./components.js\').PosembedHeatmapElement' : 'import(\'./components.js\').PosembedElement'};`);
  lines.push('  }', '  namespace JSX {', '    interface IntrinsicElements {');
  for (const tag of Object.keys(ELEMENT_SCHEMAS)) lines.push(`      '${tag}': ${className(tag)}Attributes & PosembedHtmlAttributes;`);
  lines.push('    }', '  }', '}', '');
  return lines.join('\n');
}

// The elements in a framework's JSX namespace (React 19's and Preact's are augmented the same way).
export function frameworkJsx(framework) {
  const tags = Object.keys(ELEMENT_SCHEMAS);
  return [
    `// Made from the elements' attribute schema by scripts/element-types.mjs: <posembed-…> in ${framework === 'react' ? 'React' : 'Preact'}'s JSX.`,
    `import type { ${tags.map((tag) => `${className(tag)}Attributes`).join(', ')}, PosembedHtmlAttributes } from './elements.js';`,
    '',
    `declare module '${framework}' {`, '  namespace JSX {', '    interface IntrinsicElements {',
    ...tags.map((tag) => `      '${tag}': ${className(tag)}Attributes & PosembedHtmlAttributes;`),
    '    }', '  }', '}', '', 'export {};', '',
  ].join('\n');
}
