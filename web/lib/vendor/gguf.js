// The GGUF header parser of the GGUF checker (@huggingface/gguf), bundled like colors.js into dist/vendor/gguf.js.
export { gguf } from '@huggingface/gguf';
