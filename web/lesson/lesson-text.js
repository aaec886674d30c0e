// Small shared pieces of the lesson panel's text: numbers as the panel writes them (4 significant
// digits, vectors in parentheses), tokens as data (their own translate="no" span), the gap between
// sentences and a list of keys. No state, no arithmetic.
import { t } from '../i18n/i18n.js';
import { h } from '../views/dom.js';
import { fmtMetric, showToken } from '../views/format.js';

export const f = (x) => fmtMetric(x, 4);
/**
 * A vector in parentheses, its entries written alike: exact short entries as they are ((1, 0),
 * (0.5, 0.25, 0.25)); when any entry is rounded, every entry to the same number of decimals, the
 * most that 4 significant digits of one of them need ((0.5000, 0.3333), (0.5379, 2.9242)), so
 * no entry looks more or less exact than the others. Very small or large entries keep 4
 * significant digits in exponent form.
 */
export function vec(xs) {
  const short = xs.map((x) => fmtMetric(x, 4));
  const finite = xs.filter((x) => typeof x === 'number' && Number.isFinite(x));
  const exact = finite.every((x) => Number(fmtMetric(x, 4)) === x);
  const exponent = short.some((text) => /e/.test(text));
  if (exact || exponent) return `(${short.join(', ')})`;
  const decimals = Math.min(6, Math.max(...short.map((text) => /\.(\d+)$/.exec(text)?.[1].length ?? 0)));
  const same = xs.map((x) => (typeof x === 'number' && Number.isFinite(x) ? Number(x).toFixed(decimals) : fmtMetric(x, 4)));
  return `(${same.map((text) => (/^-0\.?0*$/.test(text) ? text.slice(1) : text)).join(', ')})`;
}
export const tok = (state, j) => showToken(state.tokens.keys[j] ?? '');
export const qtok = (state, i) => showToken(state.tokens.queries[i] ?? '');
// Tokens are data, not interface text: in sentences they sit in their own translate="no" span.
export const kk = (state, j) => h('span', { translate: 'no' }, tok(state, j));
export const qk = (state, i) => h('span', { translate: 'no' }, qtok(state, i));
/** The space between two sentences or a label and its text: none in Chinese. */
export const sp = () => t('lesson.gap');
export const data = (text, attrs = {}) => h('span', { translate: 'no', class: 'lesson-num', ...attrs }, text);
export const keyList = (s, js) =>
  js.length ? h('span', { translate: 'no' }, js.map((j) => tok(s, j)).join(t('lesson.listSep'))) : t('lesson.none');

/** A logit as the seed writes it: −∞ for a masked one (null), 0, ln k for the log of a small integer, else 4 digits. */
export function exactLogit(x) {
  if (x === null || x === -Infinity) return '−∞';
  for (let k = 1; k <= 12; k++) if (Math.abs(x - Math.log(k)) < 1e-9) return k === 1 ? '0' : `ln ${k}`;
  return f(x);
}

/** A weight as a fraction with a small denominator when it is one (1/4, 3/4, 1), else 4 digits. */
export function fraction(x) {
  for (let d = 1; d <= 8; d++) {
    const n = Math.round(x * d);
    if (Math.abs(x - n / d) < 1e-6) return d === 1 ? String(n) : `${n}/${d}`;
  }
  return f(x);
}

/** An index as subscript digits (v₁, v₁₂): symbols are written as they are printed, never with "_". */
export const subscript = (n) => String(n).replace(/[0-9]/g, (d) => '₀₁₂₃₄₅₆₇₈₉'[d]);
