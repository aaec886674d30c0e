// The state's source line in the page's language. The state keeps its source in English (a state
// is the same in every language: links, saved files and getState() do not depend on it); the
// built-in presets' and generated states' sources are recognised here and worded from the string
// table. Any other source (an imported file, a link, the API) is data: shown as it is, with
// translate="no".
import { t } from '../i18n/i18n.js';
import { dataSpan, tData } from './format.js';
import { LESSON_PRESETS, REAL_DATASETS } from '../presets/presets.js';

/** Lesson presets whose source is one fixed sentence, worded by the table key app.src.<id>. */
const FIXED = ['example1', 'example2', 'selfattention', 'multihead', 'lessonSweep'];
let fixedIds = null; // the presets' sources -> id, made on first use
/** The id of the lesson preset whose source this is, else undefined. It is compared with the
 * presets' own sources, not with the English table: the release loads only the page's language. */
function fixedId(source) {
  fixedIds ??= new Map(FIXED.map((id) => [LESSON_PRESETS[id].make().source, id]));
  return fixedIds.get(source);
}

/** Bundled real datasets: id -> key of its description (and whether it quotes an input text). */
export const DATASET_KEYS = {
  'gpt2-small_L0_nlp-sentence': 'gpt2L0',
  'gpt2-small_L5H5_induction_random-repeated': 'gpt2L5H5',
  'gpt2-small_induction-heads_repeated-sentence': 'gpt2Induction',
  't5-small_encoder_L0_bidirectional': 't5Encoder',
};

const PATTERNS = [
  [/^Edited from: ([\s\S]*)$/, (m) => tData('app.src.edited', { source: sourceNodes(m[1]) })],
  [
    /^Random layer \(mulberry32 seed (-?\d+)\) on the tokens of: ([\s\S]*)$/,
    (m) => tData('app.src.randomLayerOn', { seed: m[1], source: sourceNodes(m[2]) }, ['source']),
  ],
  [
    /^Random layer \(mulberry32 seed (-?\d+)\): X in \[-2, 2\], W in \[-1, 1\], quarter steps\.$/,
    (m) => [t('app.src.randomLayer', { seed: m[1] })],
  ],
  [
    /^Generated: (\d+) tokens, d_k = 16 \(8 random content \+ 8 position dimensions, seed 512\), causal; V = key position\.$/,
    (m) => [t('app.src.long', { n: m[1] })],
  ],
  [
    /^([\s\S]*), head (\S+); real weights from (web\/data\/real\/(\S+)) \(MIT, TransformerLens notebooks\)\. V = key position, so the output is the mean attended position\.$/,
    (m) => {
      const info = REAL_DATASETS[m[4]];
      const key = DATASET_KEYS[m[4]];
      if (!info || !key || info.text !== m[1]) return null;
      const input = / on (".*")$/.exec(info.text)?.[1];
      const text = tData(`app.src.text.${key}`, input ? { input } : {});
      return tData('app.src.real', { text, head: m[2], path: m[3] });
    },
  ],
];

/**
 * The source line as nodes: translated when it is one the page wrote, else the text as data.
 * @param {string} source
 * @returns {(string|Node|Array)[]}
 */
export function sourceNodes(source) {
  const id = fixedId(source);
  if (id) return [t(`app.src.${id}`)];
  for (const [re, word] of PATTERNS) {
    const m = re.exec(source);
    const nodes = m && word(m);
    if (nodes) return nodes;
  }
  return [dataSpan(source)];
}

/**
 * The source line as plain text in the page's language (sourceNodes flattened): for the exported
 * figure and page, which are text, not the page's nodes.
 * @param {string} source
 * @returns {string}
 */
export function sourceText(source) {
  const flat = (x) => (Array.isArray(x) ? x.map(flat).join('') : typeof x === 'string' ? x : (x?.textContent ?? String(x)));
  return flat(sourceNodes(source));
}
