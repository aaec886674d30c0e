// Presets: the lesson's worked examples and real heads bundled in web/data/real (provenance and
// licence in web/data/real/README.md). Each preset is a complete version-1 state.

import { mulberry32 } from './random.js';
import { defaultState } from '../core/state-schema.js';
import { makeLayerState } from './multihead.js';
import { fourTokens, setupState } from '../lesson/steps.js';

const base = (over) => ({
  version: 1,
  mode: 'qkv',
  heads: [],
  head: 0,
  tokens: { queries: [], keys: [] },
  mask: { causal: false, window: 0, padding: [], allow: null },
  tau: 1,
  scale: 'auto',
  topK: 2,
  row: 0,
  view: { panel: 'weights', preset: 'custom', numbers: 'auto' },
  source: '',
  ...over,
});

const head = (name, m) => ({ name, Q: null, K: null, V: null, logits: null, weights: null, ...m });

/** Built-in lesson presets (synchronous). */
export const LESSON_PRESETS = {
  example1: {
    label: 'Lesson · worked example 1: two candidates',
    make: () => defaultState(), // the page's default state is this example (web/core/state-schema.js)
  },
  example2: {
    label: 'Lesson · worked example 2: three-position causal',
    make: () =>
      base({
        mode: 'logits',
        heads: [
          head('example 2', {
            logits: [
              [0, null, null],
              [0, Math.log(3), null],
              [Math.log(2), 0, 0],
            ],
            V: [[2], [6], [10]],
          }),
        ],
        tokens: { queries: ['x1', 'x2', 'x3'], keys: ['x1', 'x2', 'x3'] },
        mask: { causal: true, window: 0, padding: [false, false, false], allow: null },
        row: 2,
        view: { panel: 'weights', preset: 'example2', numbers: 'auto' },
        source: 'Worked example 2 of the lesson: causal logits (0), (0, ln 3), (ln 2, 0, 0) with V = (2, 6, 10).',
      }),
  },
  selfattention: {
    label: 'Lesson · self-attention on four tokens (edit Q, K, V)',
    // The lesson's steps 2 to 5 start from this state (web/lesson/steps.js holds it).
    make: () => fourTokens(),
  },
  multihead: {
    label: 'Lesson · multi-head from X: 4 tokens, 2 heads (edit X, W)',
    make: () =>
      makeLayerState({
        tokens: ['The', 'cat', 'sat', 'down'],
        dModel: 4,
        heads: [
          { name: 'head 0', dK: 2, dV: 2 },
          { name: 'head 1', dK: 2, dV: 2 },
        ],
        projected: true,
        residual: true,
        seed: 4,
        preset: 'multihead',
        source:
          'Multi-head self-attention (Vaswani et al. 2017): X is 4 tokens x d_model 4; two heads of d_k = d_v = 2 with Q = X WQ, K = X WK, V = X WV; output [Y0 | Y1] WO + X. Numbers: mulberry32 seed 4.',
      }),
  },
  lessonGuided: {
    label: 'Lesson · guided (step 1)',
    labelKey: 'lesson.preset.lessonGuided',
    // The guided lesson (web/lesson/, docs/lesson.md) from its first step: worked example 1.
    make: () => ({ ...setupState(1), lesson: { step: 1, predictions: {}, revealed: [] } }),
  },
  lessonSweep: {
    label: 'Lesson · θ experiment (q(θ) = (cos θ, sin θ), τ = 0.5, 1, 2)',
    labelKey: 'lesson.preset.lessonSweep',
    make: () => {
      const s = defaultState();
      s.view.preset = 'lessonSweep';
      s.source =
        "The lesson's parameter experiment: worked example 1's keys k1 = (1,0), k2 = (0,1), the query turned from θ = 0 to π/2 at τ = 0.5, 1, 2.";
      s.lab = { view: 'sweep', params: { taus: [0.5, 1, 2] } };
      return s;
    },
  },
  lessonSensitivity: {
    label: 'Lesson · sensitivity (does the largest weight mark the value that moves the output most?)',
    labelKey: 'lesson.preset.lessonSensitivity',
    make: () => {
      const s = fourTokens();
      s.view.preset = 'lessonSensitivity';
      s.lab = { view: 'sensitivity', params: {} };
      return s;
    },
  },
  long512: {
    label: 'Long sequence · 512 tokens (overview, zoom, worker)',
    make: () => longSequenceState(512),
  },
};

/**
 * A long causal self-attention head: n tokens, d_k = 16. Half of each query and key is random
 * content, half a sinusoidal position code, so the weights show a local band plus scattered
 * content matches. Values are multiples of 1/8 (exact in float32, short in a link). V = position.
 */
export function longSequenceState(n = 512) {
  const rng = mulberry32(512);
  const q8 = (x) => Math.round(x * 8) / 8;
  const row = (t) => [
    ...Array.from({ length: 8 }, () => q8((rng() * 2 - 1) * 1.5)),
    ...Array.from({ length: 4 }, (_, f) => q8(2 * Math.sin(t / 4 ** f))),
    ...Array.from({ length: 4 }, (_, f) => q8(2 * Math.cos(t / 4 ** f))),
  ];
  const tokens = Array.from({ length: n }, (_, t) => `t${t}`);
  return base({
    heads: [
      head(`${n} tokens`, {
        Q: Array.from({ length: n }, (_, t) => row(t)),
        K: Array.from({ length: n }, (_, t) => row(t)),
        V: Array.from({ length: n }, (_, j) => [j]),
      }),
    ],
    tokens: { queries: tokens, keys: [...tokens] },
    mask: { causal: true, window: 0, padding: new Array(n).fill(false), allow: null },
    topK: 5,
    row: n - 1,
    view: { panel: 'weights', preset: 'long512', numbers: 'auto' },
    source: `Generated: ${n} tokens, d_k = 16 (8 random content + 8 position dimensions, seed 512), causal; V = key position.`,
  });
}

/** Real attention bundled with the page. `heads` names each head of the file. */
export const REAL_DATASETS = {
  'gpt2-small_L0_nlp-sentence': {
    label: 'GPT-2 small · layer 0 · NLP sentence',
    heads: Array.from({ length: 12 }, (_, i) => `L0H${i}`),
    causal: true,
    text: 'GPT-2 small, layer 0, on "Natural language processing tasks, such as question answering, ..."',
  },
  'gpt2-small_L5H5_induction_random-repeated': {
    label: 'GPT-2 small · L5H5 induction head · random tokens repeated',
    heads: ['L5H5'],
    causal: true,
    text: 'GPT-2 small head L5H5 (an induction head) on 20 random tokens repeated twice',
  },
  'gpt2-small_induction-heads_repeated-sentence': {
    label: 'GPT-2 small · L6H9 and L5H5 · sentence repeated',
    heads: ['L6H9', 'L5H5'],
    causal: true,
    text: 'GPT-2 small heads L6H9 and L5H5 on a sentence repeated twice',
  },
  't5-small_encoder_L0_bidirectional': {
    label: 'T5-small · encoder layer 0 (not causal)',
    heads: Array.from({ length: 8 }, (_, i) => `L0H${i}`),
    causal: false,
    text: 'T5-small encoder, layer 0, on "translate English to French: Hello, how are you?"',
  },
};

/** Preset id of a real head: "<dataset>.<head index>". */
export const realPresetId = (dataset, index) => `${dataset}.${index}`;

const cache = new Map();

/**
 * Loads one head of a bundled real dataset as a `weights`-mode state. V is the key position j
 * (one column), so the output of a row is the mean key position it attends to.
 * @param {string} dataset  a key of REAL_DATASETS
 * @param {number} index    head index within the file
 * @param {(url: URL) => Promise<object>} [loadJson]  fetch replacement (node tests)
 */
export async function loadRealPreset(dataset, index, loadJson = defaultLoadJson) {
  const info = REAL_DATASETS[dataset];
  if (!info) throw new Error(`unknown dataset "${dataset}"`);
  if (!(index >= 0 && index < info.heads.length)) throw new Error(`${dataset} has no head ${index}`);
  const url = new URL(`../data/real/${dataset}/attention.json`, import.meta.url);
  if (!cache.has(dataset)) cache.set(dataset, loadJson(url));
  const file = await cache.get(dataset);
  const weights = file.attention[0][index];
  const n = weights.length;
  return base({
    mode: 'weights',
    heads: [head(info.heads[index], { weights, V: Array.from({ length: n }, (_, j) => [j]) })],
    tokens: { queries: [...file.tokens], keys: [...file.tokens] },
    mask: { causal: false, window: 0, padding: new Array(n).fill(false), allow: null },
    topK: 3,
    row: Math.min(n - 1, 12),
    view: { panel: 'weights', preset: realPresetId(dataset, index), numbers: 'auto' },
    source: `${info.text}, head ${info.heads[index]}; real weights from web/data/real/${dataset} (MIT, TransformerLens notebooks). V = key position, so the output is the mean attended position.`,
  });
}

async function defaultLoadJson(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`could not load ${url.pathname} (HTTP ${res.status})`);
  return res.json();
}
