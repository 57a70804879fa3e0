// Byte-pair encoding learned in the page, and the trade-off its vocabulary size sets: BPE starts from single
// characters and merges the most frequent neighbouring pair again and again, each merge one more entry in the
// vocabulary (one more row in the table) and shorter texts. Learned on the page's own prose, so that the reader
// sees it happen; real tokenizers learn theirs on billions of words.
import { figures, integerField, mountIdea } from './idea.js';

const MAX_MERGES = 400;

// Words as the learner sees them: each word with the space before it, as GPT-2's BPE keeps it.
const words = (text) => text.match(/ ?[^\s]+/g) ?? [];

// The merges of `text`, most frequent pair first (ties: the pair met first), at most `limit`.
export function learnMerges(text, limit) {
  const counts = new Map();
  for (const word of words(text)) counts.set(word, (counts.get(word) ?? 0) + 1);
  const pieces = [...counts].map(([word, count]) => ({ symbols: [...word], count }));
  const merges = [];
  while (merges.length < limit) {
    const pairs = new Map();
    for (const { symbols, count } of pieces) {
      for (let i = 0; i + 1 < symbols.length; i++) {
        const pair = `${symbols[i]}\u0000${symbols[i + 1]}`;
        pairs.set(pair, (pairs.get(pair) ?? 0) + count);
      }
    }
    let best = null;
    for (const [pair, count] of pairs) if (count > 1 && (!best || count > best.count)) best = { pair, count };
    if (!best) break;
    const [left, right] = best.pair.split('\u0000');
    merges.push([left, right]);
    for (const piece of pieces) piece.symbols = mergedSymbols(piece.symbols, left, right);
  }
  return merges;
}

function mergedSymbols(symbols, left, right) {
  const out = [];
  for (let i = 0; i < symbols.length; i++) {
    if (i + 1 < symbols.length && symbols[i] === left && symbols[i + 1] === right) {
      out.push(left + right);
      i++;
    } else {
      out.push(symbols[i]);
    }
  }
  return out;
}

// `text` cut by the first `count` merges, in the order they were learned.
export function applyMerges(text, merges, count) {
  return words(text).flatMap((word) => merges.slice(0, count).reduce((symbols, [left, right]) => mergedSymbols(symbols, left, right), [...word]));
}

export function mountBpe(section, { corpus, sentence }) {
  const [lengths] = figures(section, [
    { label: 'Tokens in the sentence against the size of the vocabulary, as merges are learned', title: 'More rows, fewer tokens' },
  ]);
  const chips = section.querySelector('.bpe-pieces');
  let learned = null;
  return mountIdea(section, [lengths], async (form) => {
    learned ??= learnMerges(corpus(), MAX_MERGES);
    // (A short text allows fewer merges than the slider offers: it stops at the last.)
    const merges = Math.min(integerField(form, 'merges', 0, MAX_MERGES, 'merges'), learned.length);
    const text = sentence();
    const alphabet = new Set([...corpus(), ...text].filter((c) => !/\s/.test(c))).size + 1;  // + the space
    const steps = Array.from({ length: learned.length + 1 }, (_, n) => n);
    const tokenCounts = steps.map((n) => applyMerges(text, learned, n).length);
    lengths.lines([{ label: 'tokens in the sentence', x: steps.map((n) => alphabet + n), y: tokenCounts, width: 3 }],
      { x: { label: 'vocabulary: rows in the token table' }, y: { label: 'tokens in the sentence', domain: [0, tokenCounts[0]] } });
    lengths.moveCursorTo(merges);
    const pieces = applyMerges(text, learned, merges);
    chips.replaceChildren(...pieces.map((piece) => Object.assign(document.createElement('span'), { className: 'token', textContent: piece.replace(/ /g, '␣') })));
    lengths.caption = `With ${merges} merges the vocabulary has ${alphabet + merges} entries and the sentence is ${pieces.length} tokens (${tokenCounts[0]} single characters, `
      + `${tokenCounts.at(-1)} after all ${learned.length} merges this text allows). Every merge shortens the texts the model must read (attention's cost grows with the square of `
      + 'their length, and a context window holds more words) and adds a row to the token table, a row that is trained only as often as its piece occurs: rare pieces learn little. '
      + 'Real vocabularies settle between about 30,000 and 260,000 entries.';
    section.dataset.tokens = String(pieces.length);
  });
}
