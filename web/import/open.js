// Opening one imported head in the playground: its values fetched from the worker, clipped to
// the playground's limits (tokens, token length, source text) and handed to the page as a
// version-1 state (weights, or logits with the causal mask when asked for).
import { tData } from '../views/format.js';
import { MAX_STATE_TOKENS, MAX_TOKEN_CHARS } from './view-state.js';
import { errDetail } from './text.js';

function clipToken(t) {
  const cps = [...t];
  return cps.length > MAX_TOKEN_CHARS ? `${cps.slice(0, MAX_TOKEN_CHARS - 1).join('')}…` : t;
}

/** @param {object} v the view (web/import/index.js): its store `ui`, `$`, and the other parts */
export function createOpen(v) {
  const { ui, $ } = v;

  /**
   * The state of imported head `index` as the playground would show it (version 1, weights, or
   * logits with the causal mask when asked for), or why it cannot be one.
   * @returns {Promise<{state: object}|{why: 'invalid'|'tooLarge'|'notProbabilities'|'values', detail?: string}>}
   */
  async function headState(index) {
    const r = ui.heads.find((x) => x.index === index);
    const s = ui.source;
    const { nQ, nK } = s.layout;
    if (r.verdict === 'invalid') return { why: 'invalid' };
    if (Math.max(nQ, nK) > MAX_STATE_TOKENS) return { why: 'tooLarge' };
    if (!r.computed && ui.reading !== 'logits') return { why: 'notProbabilities' };
    let values;
    try {
      values = await v.getWorker().request({ type: 'values', index });
    } catch (e) {
      return { why: 'values', detail: errDetail(e) };
    }
    const logits = ui.reading === 'logits';
    const matrix = Array.from({ length: nQ }, (_, i) =>
      Array.from(values.subarray(i * nK, (i + 1) * nK), (x) => (logits ? (x <= -1e30 ? null : x) : x)),
    );
    const queries = Array.from({ length: nQ }, (_, i) => clipToken(s.queryTokens[i] ?? String(i)));
    const keys = Array.from({ length: nK }, (_, j) => clipToken(s.keyTokens[j] ?? String(j)));
    return {
      state: {
        version: 1,
        mode: logits ? 'logits' : 'weights',
        heads: [
          { name: `L${r.layer} H${r.head}`, Q: null, K: null, V: null, logits: logits ? matrix : null, weights: logits ? null : matrix },
        ],
        head: 0,
        tokens: { queries, keys },
        mask: { causal: logits && $('import-causal').checked && nQ === nK, window: 0, padding: new Array(nK).fill(false), allow: null },
        tau: 1,
        scale: 'auto',
        topK: 2,
        row: Math.min(nQ - 1, Math.max(0, nQ - 1)),
        view: { panel: 'weights', preset: 'import', numbers: 'auto' },
        source: clipSource(
          `${s.name}: layer ${r.layer}, head ${r.head} (${s.format}${s.dtype ? `, ${s.dtype}` : ''}; ${logits ? 'read as logits' : 'weights'})`,
        ),
      },
    };
  }

  async function openInPlayground(index) {
    const r = ui.heads.find((x) => x.index === index);
    const got = await headState(index);
    if (got.why === 'values') {
      v.setMessages('analysis', [() => tData('import.err.values', { layer: r.layer, head: r.head, detail: got.detail }, ['detail'])]);
      return;
    }
    if (!got.state) {
      await v.inspect(index);
      return;
    }
    const err = await v.o.openState(got.state, 'import');
    if (err) v.setMessages('analysis', [() => tData('import.err.open', { layer: r.layer, head: r.head, detail: err }, ['detail'])]);
  }

  const clipSource = (t) => ([...t].length > 500 ? `${[...t].slice(0, 499).join('')}…` : t);

  return { headState, openInPlayground };
}
