// The language check shared by tests/node/i18n.test.js (the string tables) and
// tests/browser/i18n.test.js (the text on the page): which Latin words may stand in Chinese text,
// and what counts as a Chinese character in English text.

// English words allowed in Chinese strings: technical names a Chinese ML course writes as they
// are (functions, units, formats, products, keyboard keys, the embed element's attribute names,
// names of people and models). Anything else is an untranslated word.
export const ALLOWED_WORDS = new Set([
  'softmax',
  'sigmoid',
  'logit',
  'logits',
  'argmax',
  'ln',
  'exp',
  'sin',
  'cos',
  'inf',
  'nats',
  'N_eff',
  'd_model',
  'd_out',
  'WQ',
  'WK',
  'WV',
  'WO',
  'sparsemax',
  'entmax',
  'KaTeX',
  'MiB',
  'KiB',
  'PNG',
  'SVG',
  'CSV',
  'JSON',
  'HTML',
  'URL',
  'API',
  'setState',
  'WebAssembly',
  'SIMD',
  'SIMD128',
  'iframe',
  'script',
  'postMessage',
  'state',
  'hide',
  'Ctrl',
  'Shift',
  'Enter',
  'Home',
  'End',
  'PageUp',
  'PageDown',
  'viridis',
  'cividis',
  'magma',
  'StreamingLLM',
  'TransformerLens',
  'MIT',
  'mulberry32',
  'Vaswani',
  'Qiu',
  'GPT-2',
  'small',
  'T5-small',
]);
export const TOP_K = /^top-(k|\d+)$/;

/** Words of a text that hold two or more Latin letters in a row ("d_k", "W_O", "L5H5" do not). */
export function englishWords(text) {
  const words = text.match(/[A-Za-z0-9]+(?:[_-][A-Za-z0-9]+)*/g) ?? [];
  return words.filter((w) => /[A-Za-z]{2,}/.test(w) && !ALLOWED_WORDS.has(w) && !TOP_K.test(w));
}

export const CJK = /[\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]/;
