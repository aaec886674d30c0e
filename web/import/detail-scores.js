// The inspected head's scores in words (web/import/detail.js): its pattern scores, TransformerLens's
// head-detector scores and whether it is causal, each a paragraph of numbers from the core.
import { h } from '../views/dom.js';
import { fmtMetric } from '../views/format.js';
import { hasKey, t } from '../i18n/i18n.js';
import { tnData } from './text.js';

/** The pattern scores of head `d` (the core's classification), one line. */
export function patternScores(d) {
  const p = d.pattern;
  const scoreName = (k) => (hasKey(`lab.patternShort.${k}`) ? t(`lab.patternShort.${k}`) : k);
  return h(
    'p',
    { class: 'note', id: 'detail-scores' },
    t('import.detail.scores') +
      Object.entries(p.scores)
        .filter(([k]) => !['offsetD', 'period', 'positionKey'].includes(k))
        .map(
          ([k, v]) =>
            `${scoreName(k)} ${fmtMetric(v, 3)}${
              k === 'offset'
                ? ` (d=${p.scores.offsetD})`
                : k === 'strided'
                  ? ` (p=${p.scores.period})`
                  : k === 'position'
                    ? ` (${t('lab.patternParam.position', { key: p.scores.positionKey }).trim()})`
                    : ''
            }`,
        )
        .join(' · '),
  );
}

/** TransformerLens's head-detector scores of the head (the core's; docs/import.md). */
export function fieldScores(ui, d) {
  const f = d.field ?? {};
  const { nQ, nK } = ui.source.layout;
  // Undefined for a head that is not square (TransformerLens asserts n_q = n_k), else without tokens.
  const none = nQ !== nK ? t('import.detail.fieldNotSquare', { nQ, nK }) : t('import.detail.fieldNone');
  const val = (x) => (Number.isFinite(x) ? fmtMetric(x, 4) : none);
  return h(
    'p',
    { class: 'note', id: 'detail-field-scores' },
    tnData(
      'import.detail.field',
      {
        prev: val(f.previousToken),
        dup: val(f.duplicateToken),
        ind: val(f.induction),
        ours: fmtMetric(d.pattern.scores.previous, 4),
        fn: 'detect_head',
        measure: '"mul"',
      },
      ['fn', 'measure'],
    ),
  );
}

/** Whether the head is causal by its values, what |Omega_t| was taken as, its flag. */
export function structureNote(ui, d) {
  const f = ui.flagged.get(d.index);
  const { nQ, nK } = ui.source.layout;
  // A head that is not square and not masked by its values has no diagonal to speak of.
  const key =
    nQ !== nK && !d.causalVisibility && !d.causalStructure
      ? 'import.detail.notSquare'
      : f
        ? 'import.detail.flagged'
        : d.causalVisibility
          ? 'import.detail.causalVisibility'
          : d.causalStructure
            ? 'import.detail.causalStructure'
            : 'import.detail.notCausal';
  return h(
    'p',
    { class: 'note', id: 'detail-structure' },
    t(key, {
      mass: fmtMetric(d.aboveDiagonalMass, 4),
      rank: f ? f.rank + 1 : 0,
      k: ui.flagged.size,
      max: fmtMetric(d.check.maxAboveDiagonal, 3),
      nQ,
      nK,
    }),
  );
}
