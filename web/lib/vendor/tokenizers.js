// The tokenizer pipelines of openTokenizer (@huggingface/tokenizers), bundled like colors.js into dist/vendor/tokenizers.js.
export { Tokenizer } from '@huggingface/tokenizers';
