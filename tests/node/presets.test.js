// Every built-in preset is a valid state of the schema (checked by the core), names itself in
// view.preset and has a label in both languages: what docs/architecture.md "Add a preset" asks.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { core, statesEqual } from './schema.js';
import { LESSON_PRESETS, REAL_DATASETS, loadRealPreset, realPresetId } from '../../web/presets/presets.js';
import { hasKey, t } from '../../web/i18n/i18n.js';

const loadJson = async (url) => JSON.parse(readFileSync(url, 'utf8'));

test('every lesson preset validates, names itself and has a label in English and Chinese', () => {
  for (const [id, preset] of Object.entries(LESSON_PRESETS)) {
    const state = preset.make();
    const valid = core.validateState(state);
    assert.ok(statesEqual(valid, state), `${id}: the preset is already canonical`);
    assert.equal(state.view.preset, id, `${id}: view.preset`);
    const key = hasKey(`app.preset.${id}`) ? `app.preset.${id}` : preset.labelKey;
    assert.ok(key && hasKey(key), `${id}: a label key`);
    for (const lang of ['en', 'zh-CN']) assert.ok(t(key, {}, lang).length > 3, `${id}: label in ${lang}`);
    assert.notEqual(t(key, {}, 'en'), t(key, {}, 'zh-CN'), `${id}: the two labels differ`);
  }
});

test('every head of every bundled real dataset validates and computes', async () => {
  for (const [dataset, info] of Object.entries(REAL_DATASETS)) {
    for (let i = 0; i < info.heads.length; i++) {
      const state = await loadRealPreset(dataset, i, loadJson);
      assert.equal(state.view.preset, realPresetId(dataset, i));
      const { state: valid, results } = core.validateAndCompute(state);
      assert.equal(valid.heads[0].name, info.heads[i]);
      assert.equal(results.rows.length, state.tokens.queries.length);
    }
  }
});
