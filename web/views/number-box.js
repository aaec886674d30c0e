// The rule of the page's number boxes, in one place: the main controls (web/page/controls.js
// numberBox) and the lab's parameter boxes (web/lab/lab-controls.js numberInput) both read and step
// their text here. The boxes are text boxes (inputmode decimal or numeric), not <input
// type=number>: Chromium keeps no letters in a number box and hands "" to the page, so "abc"
// would have looked like an empty box and silently sent the default.

/**
 * The text with full-width ASCII forms (U+FF01-U+FF5E: "０．５", "－２", "１ｅ３", typed with a
 * Chinese or Japanese input method in full-width mode) and the ideographic space as their ASCII
 * characters; nothing else changes (not NFKC, which would also turn "2²" into "22"). Used by
 * every box and cell that reads a number (readBox here, parseCell in web/views/editor.js).
 * @param {string} text
 * @returns {string}
 */
export function halfWidth(text) {
  return String(text).replace(/[\uff01-\uff5e\u3000]/g, (c) => (c === '\u3000' ? ' ' : String.fromCharCode(c.charCodeAt(0) - 0xfee0)));
}

// A number as a person types it: decimals with an optional exponent, a sign (also U+2212 "−").
// Not what Number() alone takes: "0x10", "0b1", "Infinity", "1_000".
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * The number a box's or a cell's text spells (full-width forms read as ASCII, halfWidth), the one
 * rule of readBox here and parseCell (web/views/editor.js).
 * @param {string} text
 * @returns {{x: number} | {problem: 'empty'|'notNumber'|'tooLarge'}} tooLarge: a decimal beyond
 *   the double range (1e400), which Number() makes Infinity
 */
export function readDecimal(text) {
  const ascii = halfWidth(String(text)).trim().replace('\u2212', '-');
  if (ascii === '') return { problem: 'empty' };
  if (!DECIMAL.test(ascii)) return { problem: 'notNumber' };
  const x = Number(ascii);
  return Number.isFinite(x) ? { x } : { problem: 'tooLarge' };
}

/**
 * What a box's text says, against its limits (the limits of the box's own spec; none here).
 * @param {string} text  the box's text
 * @param {{min?: number, max?: number, minOpen?: boolean, maxOpen?: boolean, whole?: boolean}} [spec]
 *   min/max bound the value (minOpen/maxOpen: that end excluded); whole: integers only
 * @returns {{x: number} | {problem: 'empty'|'notNumber'|'tooLarge'|'whole'|'range', text: string}}
 */
export function readBox(text, spec = {}) {
  const trimmed = String(text).trim();
  const read = readDecimal(trimmed);
  if (read.problem) return { problem: read.problem, text: read.problem === 'empty' ? '' : trimmed };
  const { x } = read;
  if (spec.whole && !Number.isInteger(x)) return { problem: 'whole', text: trimmed };
  if (!inRange(x, spec)) return { problem: 'range', text: trimmed };
  return { x };
}

/** True when x is within the spec's limits (an absent limit does not bound). */
export function inRange(x, { min, max, minOpen = false, maxOpen = false } = {}) {
  if (min !== undefined && min !== null && (minOpen ? !(x > min) : !(x >= min))) return false;
  if (max !== undefined && max !== null && (maxOpen ? !(x < max) : !(x <= max))) return false;
  return true;
}

/** The spec's range as an interval ("[1, 64]", "(0, 1)", "[0, ∞)"), the same in every language. */
export function rangeText({ min, max, minOpen = false, maxOpen = false } = {}) {
  const lo = min === undefined || min === null ? '(−∞' : `${minOpen ? '(' : '['}${min}`;
  const hi = max === undefined || max === null ? '∞)' : `${max}${maxOpen ? ')' : ']'}`;
  return `${lo}, ${hi}`;
}

/**
 * The text an arrow key gives a box: one unit of the last digit typed ("0.25" steps by 0.01, "3"
 * by 1; whole-number boxes always by 1), kept within the spec's limits (an excluded end is not
 * reached). null when the text is not a number (the box is left as it is) or cannot move.
 * @param {string} text
 * @param {1|-1} dir  +1 for ArrowUp, -1 for ArrowDown
 * @param {{min?: number, max?: number, minOpen?: boolean, maxOpen?: boolean, whole?: boolean}} [spec]
 * @returns {string|null}
 */
export function stepBox(text, dir, spec = {}) {
  const trimmed = String(text).trim();
  const x = Number(trimmed);
  if (trimmed === '' || !Number.isFinite(x)) return null;
  if (spec.whole && !Number.isInteger(x)) return null;
  // Decimals of the typed text (an exponent form steps by 1 unit of its last digit too).
  const m = /^[+-]?(?:\d*)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(trimmed);
  const places = spec.whole || !m ? 0 : Math.max(0, (m[1]?.length ?? 0) - Number(m[2] ?? 0));
  const unit = 10 ** -places;
  let y = Number((x + dir * unit).toFixed(places));
  const { min, max } = spec;
  if (min !== undefined && min !== null && y < min) y = min;
  if (max !== undefined && max !== null && y > max) y = max;
  if (!inRange(y, spec) || y === x) return null;
  return String(y);
}

/**
 * Arrow keys step `el` as they step a number box: ArrowUp/ArrowDown replace its text with
 * stepBox()'s and fire "input" (the box's own commit rule then runs).
 * @param {HTMLInputElement} el
 * @param {() => object} spec  the box's limits (read at each key: they may change)
 * @param {() => void} [stepped]  called after a step (a box that commits on "change" commits here,
 *   as a number box fires "change" on each arrow step)
 */
export function arrowSteps(el, spec, stepped) {
  el.addEventListener('keydown', (ev) => {
    if (ev.key !== 'ArrowUp' && ev.key !== 'ArrowDown') return;
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const next = stepBox(el.value, ev.key === 'ArrowUp' ? 1 : -1, spec());
    if (next === null) return;
    ev.preventDefault();
    el.value = next;
    el.dispatchEvent(new Event('input'));
    stepped?.();
  });
}
