// What the results of a file's heads say about it as a whole, for the import view's messages
// (web/import/analysis.js) and the node tests: errors, warnings and notes, as text in a language
// and as {key, vars, data} items the page words again. Plain data, no DOM.
import { TECH, TECH_NAMES, word } from './messages.js';

/**
 * What a set of head results says about the file as a whole, for the page's messages.
 * @param {object[]} results  from analyzeAll()
 * @param {{causal?: boolean, reading?: 'weights'|'logits', lang?: string, structure?: object}} [options]
 *   as given to the analysis; lang: the language of the messages (default English); structure:
 *   the core's structureSummary() of the results (what was detected, the flagged heads)
 * @returns {{errors: string[], warnings: string[], notes: string[], offerLogits: boolean}}
 */
const fmtNum = (x) => (Number.isFinite(x) ? Number(x.toPrecision(3)).toString() : '—');

export function summarise(results, options = {}) {
  const lang = options.lang ?? 'en';
  const tr = (key, vars) => word(key, { ...TECH, ...vars }, lang);
  const by = (v) => results.filter((r) => r.verdict === v);
  const invalid = by('invalid');
  const notProb = by('not_probabilities');
  const warn = by('probabilities_warn');
  const where = (r) => `L${r.layer} H${r.head}`;
  // errors, warnings: the messages as text; errorItems, warningItems: the same as {key, vars,
  // data} for the page, which shows the names in `data` as data (translate="no").
  const out = { errors: [], warnings: [], notes: [], errorItems: [], warningItems: [], noteItems: [], offerLogits: false };
  const say = (list, key, vars) => {
    out[list].push(tr(key, vars));
    out[`${list.slice(0, -1)}Items`].push({ key, vars: { ...TECH, ...vars }, data: TECH_NAMES });
  };
  for (const r of invalid.slice(0, 5)) {
    say('errors', 'import.sum.invalid', {
      where: where(r),
      n: r.check.nonfinite,
      row: r.check.firstNonfiniteRow,
      col: r.check.firstNonfiniteCol,
    });
  }
  if (invalid.length > 5) say('errors', 'import.sum.moreInvalid', { n: invalid.length - 5 });
  // Read as logits, values that are not probabilities are what was asked for.
  if (notProb.length && options.reading !== 'logits') {
    const c = notProb[0].check;
    const why = [];
    if (c.zeroRows > 0 && c.zeroRows === c.nQ) why.push(tr('import.sum.allZero', { n: c.zeroRows }));
    // As attn analyze says it: -inf and finite mask fills (the core's is_mask_fill) first, then
    // the negative values that are not fills (with their minimum when no fill is below it).
    if (c.negInf) why.push(tr('import.sum.negInf', { n: c.negInf }));
    if (c.finiteFill) why.push(tr('import.sum.fill', { n: c.finiteFill }));
    const negative = c.negative - (c.finiteFill ?? 0);
    if (negative > 0 && !c.finiteFill) why.push(tr('import.sum.negative', { n: negative, min: c.minValue.toPrecision(3) }));
    else if (negative > 0) why.push(tr('import.sum.negativeScores', { n: negative }));
    if (c.aboveOne) why.push(tr('import.sum.aboveOne', { n: c.aboveOne, max: c.maxValue.toPrecision(3) }));
    if (!why.length) why.push(tr('import.sum.rowSum', { err: c.maxRowSumError.toPrecision(2), row: c.worstRow }));
    // Not for heads that are all zero: read as logits they are uniform rows, an analysis of an
    // unfilled buffer (the reading stays a choice of the import view's select).
    out.offerLogits = notProb.some((r) => !(r.check.zeroRows > 0 && r.check.zeroRows === r.check.nQ));
    say('errors', out.offerLogits ? 'import.sum.notProbabilities' : 'import.sum.notProbabilitiesZero', {
      n: notProb.length,
      total: results.length,
      where: where(notProb[0]),
      why: why.join(tr('import.listSep')),
    });
  }
  if (warn.length) {
    const worst = warn.reduce((a, b) => (b.check.maxRowSumError > a.check.maxRowSumError ? b : a));
    say('warnings', 'import.sum.rowSumWarning', {
      n: warn.length,
      err: worst.check.maxRowSumError.toPrecision(2),
      where: where(worst),
      row: worst.check.worstRow,
    });
  }
  // The structure (the core's structureSummary, given by the page): what was detected and why,
  // and every flagged head, largest above-diagonal mass first, with that mass.
  const st = options.structure;
  if (st) {
    const list = st.flagged
      .map((f) =>
        tr('import.struct.item', {
          where: `L${f.layer} H${f.head}`,
          mass: fmtNum(f.aboveDiagonalMass),
          rows: f.rowsAboveDiagonal,
          from: f.firstRowAboveDiagonal,
          max: fmtNum(f.maxAboveDiagonal),
        }),
      )
      .join(tr('import.listSep'));
    const n = st.analysed;
    const k = st.flagged.length;
    const logits = options.reading === 'logits';
    if (st.stated && k) say('warnings', 'import.struct.flaggedStated', { k, list });
    else if (st.stated) say('notes', 'import.struct.stated', {});
    else if (st.structure === 'causal') say('notes', logits ? 'import.struct.causalLogits' : 'import.struct.causal', { n });
    else if (st.structure === 'mixed') say('warnings', 'import.struct.mixed', { c: st.causalHeads, n, k, list });
    else if (st.structure === 'bidirectional') say('notes', 'import.struct.bidirectional', { k: n - st.causalHeads, n });
  }
  // Read as logits, finite mask fills (-1e4, -65504, -1e9) are masked keys: say so.
  if (options.reading === 'logits') {
    const fills = results.reduce((a, r) => a + (r.check.finiteFill ?? 0), 0);
    const inf = results.reduce((a, r) => a + (r.check.negInf ?? 0), 0);
    if (fills || inf) say('notes', 'import.struct.maskFills', { fills, inf });
  }
  return out;
}
