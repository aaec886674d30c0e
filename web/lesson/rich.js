// A translated sentence with elements in it: rich(t, key, {name: Node | string}) returns an array of
// text and nodes for h(), so numbers can sit in their own <span id=... data-value=...> while the
// word order and punctuation around them come from the string table of the current language.
const MARK = '\u0001';

export function rich(t, key, parts) {
  const vars = {};
  for (const name of Object.keys(parts)) vars[name] = `${MARK}${name}${MARK}`;
  return t(key, vars)
    .split(MARK)
    .map((piece, i) => (i % 2 === 1 && Object.hasOwn(parts, piece) ? parts[piece] : piece))
    .filter((x) => x !== '');
}
