// The tutorials' toy vocabulary of 20 tokens, for list expressions such as Max(1,6,2): padding (id 0), end (1),
// the digits 0–9 (ids 2–11), five operations (12–16, Max = 15) and the syntax tokens ( ) , (17–19).
// Max(1,6,2) → [15, 17, 3, 19, 8, 19, 4, 18].
export const TOY_VOCABULARY = Object.freeze(['<pad>', '<end>', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9',
  'First', 'Last', 'Min', 'Max', 'Sum', '(', ')', ',']);
export const TOY_PADDING = 0;
export const TOY_END = 1;

const PIECES = /First|Last|Min|Max|Sum|\d|[(),]|\s+|./g;

// Text → token strings (spaces between tokens are ignored); a RangeError names the first symbol not in the vocabulary.
export function toyTokens(text) {
  const tokens = [];
  for (const [piece] of String(text).matchAll(PIECES)) {
    if (/^\s+$/.test(piece)) continue;
    if (!TOY_VOCABULARY.includes(piece)) {
      throw new RangeError(`'${piece}' is not in the toy vocabulary (${TOY_VOCABULARY.slice(2).join(' ')})`);
    }
    tokens.push(piece);
  }
  return tokens;
}

export const toyIds = (tokens) => Int32Array.from(tokens, (token) => TOY_VOCABULARY.indexOf(token));
