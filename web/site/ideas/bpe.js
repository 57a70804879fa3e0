// Byte-pair encoding learned in the page, and the trade-off its vocabulary size sets: BPE starts from single
// characters and merges the most frequent neighbouring pair again and again, each merge one more entry in the
// vocabulary (one more row in the table) and shorter texts. Learned on the page's own prose, so that the reader
// sees it happen; real tokenizers learn theirs on billions of words.
import { figures, integerField, mountIdea, nextTask } from './idea.js';

const MAX_MERGES = 400;
const SLICE_MS = 25;  // learning gives the page its thread back this often

// Words as the learner sees them: each word with the space before it, as GPT-2's BPE keeps it.
const words = (text) => text.match(/ ?[^\s]+/g) ?? [];

// The merges of `text`, most frequent pair first (ties: the pair met first), at most `limit`; learned in slices
// of the page's time, so the page answers while it learns.
async function learnMerges(text, limit) {
  const counts = new Map();
  for (const word of words(text)) counts.set(word, (counts.get(word) ?? 0) + 1);
  const pieces = [...counts].map(([word, count]) => ({ symbols: [...word], count }));
  const merges = [];
  let sliceStart = performance.now();
  while (merges.length < limit) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await nextTask();
      sliceStart = performance.now();
    }
    const pairs = new Map();
    for (const { symbols, count } of pieces) {
      for (let i = 0; i + 1 < symbols.length; i++) {
        const pair = `${symbols[i]}\u0000${symbols[i + 1]}`;
        pairs.set(pair, (pairs.get(pair) ?? 0) + count);
      }
    }
    // A pair met once is not a pattern, only this text: learning stops there.
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
function applyMerges(text, merges, count) {
  return words(text).flatMap((word) => merges.slice(0, count).reduce((symbols, [left, right]) => mergedSymbols(symbols, left, right), [...word]));
}

// How many tokens `text` is after each number of merges, 0 … all: the merges applied one after another.
function tokenCounts(text, merges) {
  let pieces = words(text).map((word) => [...word]);
  const counts = [pieces.reduce((sum, symbols) => sum + symbols.length, 0)];
  for (const [left, right] of merges) {
    pieces = pieces.map((symbols) => mergedSymbols(symbols, left, right));
    counts.push(pieces.reduce((sum, symbols) => sum + symbols.length, 0));
  }
  return counts;
}

export function mountBpe(section, { corpus, sentence }) {
  const [lengths] = figures(section, [
    { label: 'Tokens in the sentence against the size of the vocabulary, as merges are learned', title: 'More rows, fewer tokens' },
  ]);
  const chips = section.querySelector('.bpe-pieces');
  let learning = null;
  let counted = { text: null, counts: [] };
  return mountIdea(section, [lengths], async (form, superseded) => {
    if (!learning) {
      learning = (async () => {
        const text = corpus();
        // The vocabulary before any merge: the corpus's characters, the space among them.
        return { merges: await learnMerges(text, MAX_MERGES), alphabet: new Set([...text.replace(/\s+/g, ' ')]).size };
      })();
      learning.catch(() => { learning = null; });  // tried again at the next drawing
    }
    const learned = await learning;
    if (superseded()) return;
    // (A short text allows fewer merges than the slider offers: it stops at the last.)
    const merges = Math.min(integerField(form, 'merges', 0, MAX_MERGES, 'merges'), learned.merges.length);
    const text = sentence();
    if (counted.text !== text) counted = { text, counts: tokenCounts(text, learned.merges) };
    const { alphabet } = learned;
    const { counts } = counted;
    lengths.lines([{ label: 'tokens in the sentence', x: counts.map((_, n) => alphabet + n), y: counts, width: 3 }],
      { x: { label: 'vocabulary: rows in the token table' }, y: { label: 'tokens in the sentence', domain: [0, counts[0]] } });
    lengths.moveCursorTo(merges);
    const pieces = applyMerges(text, learned.merges, merges);
    chips.replaceChildren(...pieces.map((piece) => Object.assign(document.createElement('span'), { className: 'token', textContent: piece.replace(/ /g, '␣') })));
    lengths.caption = `With ${merges} merges the vocabulary has ${alphabet + merges} entries and the sentence is ${pieces.length} tokens (${counts[0]} single characters, `
      + `${counts.at(-1)} after all ${learned.merges.length} merges this page's text allows). No merge lengthens a text, and many shorten the texts the model must read (attention's cost grows with the square of `
      + 'their length, and a context window holds more words); each adds a row to the token table, whose input row is updated only when its piece occurs: rare pieces learn little. '
      + 'Real vocabularies settle between about 30,000 and 260,000 entries.';
    section.dataset.tokens = String(pieces.length);
  });
}
