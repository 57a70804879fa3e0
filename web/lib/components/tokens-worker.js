// <posembed-tokens>'s worker: the model's tokenizer and its token table (streamed here from the Hub by HTTP Range,
// kept in its own dtype on this worker's heap: a vocabulary's table never reaches the page), and the ops on them.
// Messages: { id, task, args } in; { id, progress } while a table streams, then { id, result } or { id, error }.
import { acceptPackageFiles } from '../wasm.js';
import { load } from '../index.js';
import { namedIds, tokenLabel, vocabularyGrid } from '../vocabulary_map.js';
import { serveTasks } from '../task_worker.js';

// The page's URLs of the wasm files, before any other message (a site's bundler copies them for the page).
acceptPackageFiles();

let model = null;      // { url, tokenizer, table, projected }: the model open now
const labels = (ids) => Array.from(ids, (id) => tokenLabel(model.tokenizer, id));

function open() {
  if (!model) throw new RangeError('no model is open');
  return model;
}

// A word of a − b + c as one token of the model's vocabulary: as a word inside a sentence (with its leading space,
// GPT-2's "Ġking"), else as written alone (SentencePiece's "▁king"); else named with the pieces it cuts into.
function oneToken(word) {
  const { tokenizer } = open();
  const bare = word.trim();
  for (const form of [` ${bare}`, bare]) {
    const ids = tokenizer.encode(form);
    if (ids.length === 1) return ids[0];
  }
  const ids = tokenizer.encode(bare);
  throw new RangeError(`"${bare}" is ${ids.length} tokens for this model (${labels(ids).map((l) => JSON.stringify(l)).join(' ')}), not one: a − b + c takes words the vocabulary holds whole`);
}

const TASKS = {
  // Opens the model at url (config, tokenizer, checkpoint headers) and streams its token table, reporting progress.
  async open(pe, { url }, progress) {
    if (model?.url === url) return { result: model.summary };
    const opened = await pe.openModel(url);
    const table = await opened.tokenEmbedding({ onProgress: progress });
    model?.table.dispose();
    model = {
      url, tokenizer: opened.tokenizer, table, projected: null,
      summary: { modelType: opened.config.model_type ?? null, vocabSize: table.vocabSize, dModel: table.dModel, dtype: table.dtype, storedDtype: table.storedDtype },
    };
    return { result: model.summary };
  },

  // The text's ids and pieces, their rows, and the k rows nearest the selected one's.
  tokens(pe, { text, selected, k }) {
    const { tokenizer, table } = open();
    const ids = Array.from(tokenizer.encode(text));
    if (ids.length === 0) throw new RangeError('the text gives no tokens: type some text');
    if (ids.length > 256) throw new RangeError(`at most 256 tokens are drawn, the text gives ${ids.length}`);
    const chosen = Math.min(selected, ids.length - 1);
    const rows = table.lookup(Int32Array.from(ids));
    const d = table.dModel;
    const near = table.nearest(rows.data.slice(chosen * d, (chosen + 1) * d), { k, metric: 'cosine' });
    const nearest = Array.from(near.indices, (id, i) => ({ id, label: tokenLabel(tokenizer, id), score: near.scores[i] }));
    return { result: { ids, labels: labels(ids), selected: chosen, rows, nearest }, transfer: [rows.data.buffer] };
  },

  // The whole table by its two principal axes (computed once per model), as counts on a grid, with the names the
  // map shows.
  vocabulary(pe, { ids }) {
    const current = open();
    current.projected ??= current.table.pca({ components: 2 }).data;
    const grid = vocabularyGrid(current.projected, { ids });
    return { result: { ...grid, names: Object.fromEntries(namedIds(grid).map((id) => [id, tokenLabel(current.tokenizer, id)])) }, transfer: [grid.counts.buffer, grid.example.buffer] };
  },

  // The k rows nearest a − b + c (words of one token each), by cosine, a, b and c left out.
  analogy(pe, { words, k }) {
    const [a, b, c] = words.map(oneToken);
    const found = open().table.analogy(a, b, c, { k });
    return { result: Array.from(found.indices, (id, i) => ({ id, label: tokenLabel(model.tokenizer, id), score: found.scores[i] })) };
  },
};

serveTasks(TASKS, load);
