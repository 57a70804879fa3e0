// Made at build time from the elements' attribute schema (element_schemas.js as built in dist/, whose bounds are
// the core's): custom-elements.json (the Custom Elements Manifest that editors and documentation tools read) and the
// elements' TypeScript types
// (dist/elements.d.ts: HTMLElementTagNameMap entries and JSX intrinsic elements with each element's attributes;
// dist/jsx-react.d.ts, jsx-preact.d.ts, vue.d.ts and svelte.d.ts: the same elements for those frameworks, opted
// into by `import type {} from 'posembed/jsx-react'` and so on).
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

export function customElementsManifest(schemas) {
  return {
    schemaVersion: '1.0.0',
    readme: 'README.md',
    modules: [{
      kind: 'javascript-module',
      path: 'dist/components.js',
      declarations: Object.entries(schemas).map(([tag, schema]) => ({
        kind: 'class', name: className(tag), tagName: tag, customElement: true, description: schema.summary,
        attributes: Object.entries(schema.attributes).map(([name, spec]) => ({
          name, description: describeSpec(spec), type: { text: typeText(spec) },
          ...(spec.default !== undefined ? { default: JSON.stringify(spec.default) } : {}),
        })),
        events: [{ name: 'render', description: 'Once a picture is on screen; detail: what was drawn.' },
          { name: 'change', description: 'When the reader changes a control or the training state; detail: what changed.' },
          { name: 'cursor', description: 'Where the reader points, in the data\'s terms; detail: { row, column, value, figure } of a heatmap, { index, x, … } of lines.' }],
      })),
      exports: Object.keys(schemas).map((tag) => ({ kind: 'custom-element-definition', name: tag, declaration: { name: className(tag), module: 'dist/components.js' } })),
    }],
  };
}

// What elements take as properties beyond (or in place of) their attributes, set from script or by a framework's
// property binding: { name: [doc, type] }.
const PROPERTIES = {
  'posembed-heatmap': { data: ['The author\'s own matrix, drawn in place of an encoding.', "import('./components.js').PosembedHeatmapElement['data']"] },
  'posembed-model': { config: ['A preset\'s name or a config.json URL (the attribute), or a parsed config.json.', 'string | Record<string, unknown> | null'] },
  'posembed-bias': { table: ['kind="t5": a trained [buckets, heads] table, drawn in place of the seeded random one.', "import('./components.js').PosembedBiasElement['table']"] },
};
const elementType = (tag) => ({ 'posembed-model': 'PosembedModelElement', 'posembed-heatmap': 'PosembedHeatmapElement', 'posembed-bias': 'PosembedBiasElement' })[tag] ?? 'PosembedElement';

export function elementTypes(schemas) {
  const lines = ['// Made from the elements\' attribute schema (dist/element_schemas.js) by scripts/element-types.mjs.', ''];
  for (const [tag, schema] of Object.entries(schemas)) {
    lines.push(`/** <${tag}>: ${schema.summary}. */`, `export interface ${className(tag)}Attributes {`);
    const properties = PROPERTIES[tag] ?? {};
    for (const [name, spec] of Object.entries(schema.attributes)) {
      if (name in properties) continue;
      const value = typeText(spec);
      // In HTML every value is text: numbers may be given as strings, booleans as "true" / "false" (a flag: present).
      const written = value === 'number' ? 'number | `${number}`' : value === 'boolean' ? (spec.type === 'flag' ? 'boolean | ""' : 'boolean | "" | "true" | "false"') : value;
      lines.push(`  /** ${describeSpec(spec)} */`, `  '${name}'?: ${written};`);
    }
    for (const [name, [doc, type]] of Object.entries(properties)) lines.push(`  /** ${doc} */`, `  ${name}?: ${type};`);
    lines.push('  /** The chrome\'s words (buttons, labels, headings), replacing the English ones it names. */', '  strings?: Record<string, string>;');
    lines.push('}', '');
  }
  lines.push('/** The elements\' events as handler attributes (React 19, Preact, Svelte 5 and plain JSX listen to on<name>). */',
    'export interface PosembedEvents {',
    '  /** Once a picture is on screen; detail: what was drawn. */', '  onrender?: (event: CustomEvent) => void;',
    '  /** When the reader changes a control or the training state; detail: what changed. */', '  onchange?: (event: CustomEvent) => void;',
    '  /** Where the reader points, in the data\'s terms; detail: { row, column, value, figure } of a heatmap, { index, x, … } of lines. */', '  oncursor?: (event: CustomEvent) => void;',
    '}', '');
  const html = 'id?: string; class?: string; className?: string; style?: string | Record<string, string | number>; slot?: string; hidden?: boolean; '
    + 'title?: string; lang?: string; dir?: \'ltr\' | \'rtl\' | \'auto\'; tabIndex?: number; tabindex?: number | `${number}`; role?: string; part?: string; '
    + '[aria: `aria-${string}`]: string | number | boolean | undefined; [data: `data-${string}`]: string | number | boolean | undefined; '
    + 'children?: unknown; key?: string | number; ref?: unknown';
  lines.push('/** The attributes every element also takes as an HTML element (and the keys frameworks add). */', `export interface PosembedHtmlAttributes { ${html}; }`, '');
  lines.push('declare global {', '  interface HTMLElementTagNameMap {');
  for (const tag of Object.keys(schemas)) lines.push(`    '${tag}': import('./components.js').${elementType(tag)};`);
  lines.push('  }', '  namespace JSX {', '    interface IntrinsicElements {');
  for (const tag of Object.keys(schemas)) lines.push(`      '${tag}': ${className(tag)}Attributes & PosembedEvents & PosembedHtmlAttributes;`);
  lines.push('    }', '  }', '}', '');
  return lines.join('\n');
}

// The elements in a framework's templates or JSX, each with its attributes, events and the framework's own HTML
// attributes: React 19's and Preact's JSX, Vue's global components, Svelte 5's elements.
const FRAMEWORKS = {
  react: {
    file: 'jsx-react.d.ts',
    name: 'React', module: 'react', head: [],
    element: (tag, attributes) => `${attributes} & PosembedEvents & { class?: string } & DetailedHTMLProps<HTMLAttributes<${elementType(tag)}>, ${elementType(tag)}>`,
    wrap: (entries) => ['  namespace JSX {', '    interface IntrinsicElements {', ...entries, '    }', '  }'],
  },
  preact: {
    file: 'jsx-preact.d.ts',
    name: 'Preact', module: 'preact', head: ["import type { HTMLAttributes } from 'preact';"],
    element: (tag, attributes) => `${attributes} & PosembedEvents & HTMLAttributes<${elementType(tag)}>`,
    wrap: (entries) => ['  namespace JSX {', '    interface IntrinsicElements {', ...entries, '    }', '  }'],
  },
  vue: {
    file: 'vue.d.ts',
    name: 'Vue', module: 'vue', head: ["import type { DefineComponent } from 'vue';"],
    element: (tag, attributes) => `DefineComponent<${attributes} & PosembedEvents>`,
    wrap: (entries) => ['  interface GlobalComponents {', ...entries, '  }'],
  },
  svelte: {
    file: 'svelte.d.ts',
    name: 'Svelte', module: 'svelte/elements', head: ["import type { HTMLAttributes } from 'svelte/elements';"],
    element: (tag, attributes) => `${attributes} & Omit<HTMLAttributes<${elementType(tag)}>, 'onchange'> & PosembedEvents`,
    wrap: (entries) => ['  interface SvelteHTMLElements {', ...entries, '  }'],
  },
};
// Each framework's declarations: [[file name in dist/, text]].
export function frameworkTypes(schemas) {
  return Object.values(FRAMEWORKS).map((framework) => [framework.file, frameworkDeclarations(framework, Object.keys(schemas))]);
}

function frameworkDeclarations({ name, module, head, element, wrap }, tags) {
  const elementTypes = [...new Set(tags.map(elementType))];
  return [
    `// Made from the elements' attribute schema by scripts/element-types.mjs: <posembed-…> in ${name}'s types.`,
    ...head,
    `import type { ${tags.map((tag) => `${className(tag)}Attributes`).join(', ')}, PosembedEvents } from './elements.js';`,
    `import type { ${elementTypes.join(', ')} } from './components.js';`,
    '',
    `declare module '${module}' {`,
    ...wrap(tags.map((tag) => `      '${tag}': ${element(tag, `${className(tag)}Attributes`)};`)),
    '}', '', 'export {};', '',
  ].join('\n');
}
