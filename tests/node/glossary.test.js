// The Chinese terms of the page against docs/glossary.md: every Chinese string (web/i18n/*.js)
// uses one term per concept (none of the "not" names), every glossary term is used, and the
// writing rules hold (subscripts rendered, full-width punctuation in Chinese prose, 第 + number).
//
//   node --test tests/node/glossary.test.js

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { TABLES } from '../../web/i18n/index.js';

const GLOSSARY = readFileSync(new URL('../../docs/glossary.md', import.meta.url), 'utf8');

/** The glossary's rows: {concept, zh, not: string[]}. */
function rows() {
  const out = [];
  for (const line of GLOSSARY.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 6 || cells[1] === 'concept' || cells[1].startsWith('---')) continue;
    out.push({
      concept: cells[1],
      zh: cells[2],
      not: cells[3]
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    });
  }
  return out;
}

// Placeholder values for function entries: numbers, so that both plural branches run.
const sample = (n) => new Proxy({}, { get: (_, name) => (typeof name === 'string' ? n : undefined), has: () => true });
/** Every Chinese string as [key, text] (placeholders kept as {name}; functions run with samples). */
function zhStrings() {
  const out = [];
  for (const table of TABLES) {
    for (const [key, entry] of Object.entries(table['zh-CN'])) {
      if (typeof entry === 'function') for (const n of [1, 2]) out.push([key, entry(sample(n))]);
      else out.push([key, entry]);
    }
  }
  return out;
}

const CJK = /[\u3400-\u9fff]/;

test('the glossary has the terms the issue named, each with the names it replaces', () => {
  const byZh = Object.fromEntries(rows().map((r) => [r.zh, r.not]));
  for (const [zh, not] of [
    ['注意力实验场', '注意力游乐场'],
    ['敏感度', '敏感性'],
    ['分数', '得分'],
    ['注意力汇质量', '汇聚质量'],
    ['交互实验', '引导实验'],
    ['参数实验', '角度扫描'],
  ])
    assert.ok(byZh[zh]?.includes(not), `${zh} replaces ${not}`);
});

test('no Chinese string uses a name the glossary replaced, and every term is used', () => {
  const strings = zhStrings();
  const bad = [];
  for (const { zh, not } of rows()) {
    for (const name of not) for (const [key, text] of strings) if (text.includes(name)) bad.push(`${key}: “${name}” (use ${zh})`);
  }
  assert.deepEqual(bad, []);
  const unused = rows()
    .filter((r) => !strings.some(([, text]) => text.includes(r.zh)))
    .map((r) => r.zh);
  assert.deepEqual(unused, [], 'glossary terms no string uses');
});

// Names kept with "_" (no subscript letters in Unicode for them) and code-like words.
const UNDERSCORE_OK = /\b(N_eff|n_q|d_model|d_out|d_A|W_[QKVO]|[a-z]+_hide|[a-z]+_[a-z]+\.(?:json|npy|npz|csv))\b/g;

test('Chinese strings render subscripts instead of typing them with "_"', () => {
  const bad = zhStrings()
    .filter(([, text]) => CJK.test(text))
    .filter(([, text]) => /[A-Za-z]_[A-Za-z0-9{]/.test(text.replace(UNDERSCORE_OK, '')))
    .map(([key, text]) => `${key}: ${text}`);
  assert.deepEqual(bad, []);
});

test('Chinese prose takes full-width punctuation; 第 takes a number', () => {
  const bad = [];
  for (const [key, text] of zhStrings()) {
    if (!CJK.test(text)) continue;
    // A half-width comma, colon, semicolon, question or exclamation mark right after Chinese text
    // (shapes such as [头数, n, n] are maths).
    if (/[\u3400-\u9fff][,;:?!](?!\d)/.test(text.replace(/\[[^\]]*\]/g, '[]'))) bad.push(`${key}: half-width punctuation: ${text}`);
    // A half-width parenthesis around Chinese text.
    if (/\([^()]*[\u3400-\u9fff][^()]*\)/.test(text)) bad.push(`${key}: half-width parentheses: ${text}`);
    // 第 + a token or a word (第 sat 行, 第 {query} 行, 第 q 行) instead of a number.
    if (/第 ?(\{(query|key|token|tok)\}|[A-Za-z]{2,}|q\b)/.test(text)) bad.push(`${key}: 第 without a number: ${text}`);
  }
  assert.deepEqual(bad, []);
});

test('the check itself flags each rule', () => {
  assert.match('第 sat 行', /第 ?(\{(query|key|token|tok)\}|[A-Za-z]{2,}|q\b)/);
  assert.match('值的维数 d_v', /[A-Za-z]_[A-Za-z0-9{]/);
  assert.doesNotMatch('有效上下文大小 N_eff'.replace(UNDERSCORE_OK, ''), /[A-Za-z]_[A-Za-z0-9{]/);
  assert.match('权重 (初始)', /\([^()]*[\u3400-\u9fff][^()]*\)/);
  assert.doesNotMatch('(0, ln 3)', /\([^()]*[\u3400-\u9fff][^()]*\)/);
});
