// Tests of the optional `lesson` part of the state (web/core/state-schema.js, docs/lesson.md): strict
// validation, the link round trip, older links reading unchanged, and the core ignoring it.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { StateError, defaultState, validateState, encodeLink, decodeLink, statesEqual } from './schema.js';
import { loadCore } from '../../web/core/core.js';
import { LESSON_PRESETS } from '../../web/presets/presets.js';

function assertStateError(fn, field, message) {
  let caught;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof StateError, `expected a StateError, got ${caught && caught.message}`);
  assert.equal(caught.field, field, caught.message);
  if (message) assert.ok(caught.message.includes(message), caught.message);
}

const full = {
  step: 3,
  predictions: {
    rise: [1],
    zeros: [1, 2, 3, 6, 7, 11],
    entropy: 'up',
    sums: 'yes',
    renorm: 'renormalised',
    scores: 'same',
    largest: 'yes',
    reproduce: 'yes',
  },
  revealed: [1, 2],
};

test('lesson: absent stays absent, and a link without it is the same link as before', () => {
  const s = defaultState();
  assert.equal('lesson' in validateState(s), false);
  const link = encodeLink(s);
  assert.ok(!link.includes('lesson='), link);
  assert.equal(decodeLink(link).lesson, undefined);
});

test('lesson: validated state round-trips through the link, bit-exact and statesEqual', () => {
  for (const lesson of [
    full,
    { step: 1 },
    { step: 5, predictions: {}, revealed: [1, 2, 3, 4, 5] },
    { step: 2, predictions: { rise: [] } },
  ]) {
    const s = { ...defaultState(), lesson };
    const valid = validateState(s);
    assert.deepEqual(Object.keys(valid.lesson), ['step', 'predictions', 'revealed']);
    const link = encodeLink(s);
    assert.ok(link.includes('&lesson='), link);
    const back = decodeLink(link);
    assert.ok(statesEqual(back, valid), JSON.stringify(back.lesson));
    assert.equal(encodeLink(back), link);
    // Page options after the state are not part of it.
    assert.ok(statesEqual(decodeLink(`${link}&lang=zh-CN`), valid));
  }
  assert.deepEqual(validateState({ ...defaultState(), lesson: { step: 4 } }).lesson, { step: 4, predictions: {}, revealed: [] });
  assert.equal(
    statesEqual(validateState({ ...defaultState(), lesson: { step: 4 } }), validateState({ ...defaultState(), lesson: { step: 3 } })),
    false,
  );
});

test('lesson: unknown keys, wrong choices, unordered or long lists are refused with the field', () => {
  const s = defaultState();
  const bad = (lesson, field, message) => assertStateError(() => validateState({ ...s, lesson }), field, message);
  bad(null, 'lesson');
  bad([], 'lesson');
  bad({}, 'lesson.step');
  bad({ step: 0 }, 'lesson.step');
  bad({ step: 6 }, 'lesson.step');
  bad({ step: 1.5 }, 'lesson.step');
  bad({ step: '1' }, 'lesson.step');
  bad({ step: 1, notes: 'x' }, 'lesson.notes', 'unknown field');
  bad({ step: 1, predictions: { guess: 'yes' } }, 'lesson.predictions.guess', 'unknown field');
  bad({ step: 1, predictions: JSON.parse('{"__proto__": "yes"}') }, 'lesson.predictions.__proto__');
  bad({ step: 1, predictions: { entropy: 'higher' } }, 'lesson.predictions.entropy');
  bad({ step: 1, predictions: { sums: true } }, 'lesson.predictions.sums');
  bad({ step: 1, predictions: { rise: 1 } }, 'lesson.predictions.rise');
  bad({ step: 1, predictions: { rise: [1, 1] } }, 'lesson.predictions.rise', 'increasing');
  bad({ step: 1, predictions: { rise: [2, 1] } }, 'lesson.predictions.rise', 'increasing');
  bad({ step: 1, predictions: { rise: [64] } }, 'lesson.predictions.rise[0]');
  bad({ step: 1, predictions: { rise: [-1] } }, 'lesson.predictions.rise[0]');
  bad({ step: 1, predictions: { zeros: Array.from({ length: 257 }, (_, i) => i) } }, 'lesson.predictions.zeros');
  bad({ step: 1, revealed: [0] }, 'lesson.revealed[0]');
  bad({ step: 1, revealed: [3, 2] }, 'lesson.revealed', 'increasing');
  bad({ step: 1, revealed: [1, 2, 3, 4, 5, 5] }, 'lesson.revealed');
  // Exercise marks (1..3) and the predictions (step 1's redistribution, the three 常见误区).
  bad({ step: 1, done: [0] }, 'lesson.done[0]');
  bad({ step: 1, done: [4] }, 'lesson.done[0]');
  bad({ step: 1, done: [2, 1] }, 'lesson.done', 'increasing');
  bad({ step: 1, predictions: { myth1: 'yes' } }, 'lesson.predictions.myth1');
  bad({ step: 1, predictions: { redistribute: 'up' } }, 'lesson.predictions.redistribute');
  assert.deepEqual(
    validateState({ ...s, lesson: { step: 1, done: [1, 3], predictions: { myth2: 'wrong', redistribute: 'others-fall' } } }).lesson,
    { step: 1, predictions: { redistribute: 'others-fall', myth2: 'wrong' }, revealed: [], done: [1, 3] },
  );
  // No mark: no `done` field, so links made before the marks read back bit for bit.
  assert.deepEqual(validateState({ ...s, lesson: { step: 1, done: [] } }).lesson, { step: 1, predictions: {}, revealed: [] });
  const link = encodeLink(s);
  assertStateError(() => decodeLink(`${link}&lesson=%7Bnot`), 'lesson', 'not JSON');
  assertStateError(() => decodeLink(`${link}&lesson=${encodeURIComponent('{"step":9}')}`), 'lesson.step');
});

test('lesson presets: valid, the guided one starts the lesson at step 1, the lab ones open their views', () => {
  const guided = validateState(LESSON_PRESETS.lessonGuided.make());
  assert.deepEqual(guided.lesson, { step: 1, predictions: {}, revealed: [] });
  assert.deepEqual(guided.heads[0].Q, [[1, 0]]);
  const sweep = validateState(LESSON_PRESETS.lessonSweep.make());
  assert.equal(sweep.lab.view, 'sweep');
  assert.deepEqual(sweep.lab.params.taus, [0.5, 1, 2]);
  assert.equal(validateState(LESSON_PRESETS.lessonSensitivity.make()).lab.view, 'sensitivity');
});

test('the core computes a state with a lesson exactly as without (the lesson changes no number)', async () => {
  const core = await loadCore({ variant: 'scalar' });
  const s = validateState({ ...LESSON_PRESETS.selfattention.make(), lesson: full });
  const { lesson, ...plain } = s; // eslint-disable-line no-unused-vars
  assert.deepEqual(core.compute(s), core.compute(plain));
  assert.deepEqual(
    core.lab({ ...s, lab: { view: 'sensitivity', params: {} } }),
    core.lab({ ...plain, lab: { view: 'sensitivity', params: {} } }),
  );
  // A bad lesson is still refused by compute() (the schema check after the core).
  assert.throws(
    () => core.compute({ ...plain, lesson: { step: 9 } }),
    (e) => e.field === 'lesson.step',
  );
});
