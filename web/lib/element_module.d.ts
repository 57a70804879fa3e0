// posembed/elements/<name> (heatmap, lookup, rope, bias, train, model, tokens): one element's module, which defines
// <posembed-<name>> as it is imported. It exports nothing; the element's types are in posembed/jsx-react,
// posembed/vue and posembed/svelte.
export {};
