// Writes docs/metrics.md, the reference table of the row metrics, from the core's one table of
// them (cpp/include/attn/metrics.def, through `attn schema` -> web/generated/schema.js) and their
// English names in the string table (web/i18n/app.js app.metric.*). `npm run docs:metrics` runs it;
// tests/node/metrics_table.test.js fails when the committed file differs from what it writes.
//   node scripts/metrics-doc.js            write docs/metrics.md
//   node scripts/metrics-doc.js --check    exit 1 when docs/metrics.md is not up to date
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SCHEMA } from '../web/generated/schema.js';
import app from '../web/i18n/app.js';
import importTable from '../web/i18n/import.js';

const OUT = fileURLToPath(new URL('../docs/metrics.md', import.meta.url));
const K = SCHEMA.rowDefaults.topK;

/** The doc's text. */
export function metricsDoc() {
  const en = app.en;
  const fill = (s) => String(s).replace('{k}', 'k');
  const cell = (s) => String(s).replace(/\|/g, '\\|');
  const rows = SCHEMA.metrics.map((m) =>
    [
      `\`${m.key}\``,
      cell(fill(en[`app.metric.${m.key}`])),
      cell(fill(en[`app.metric.${m.key}Help`])),
      m.unit === 'none' ? '—' : m.unit,
      `\`${m.csv}\``,
      m.head ? `\`${m.head.key}\`, \`${m.head.csv}\`` : '—',
      m.emptyUndefined ? (m.integer ? '`null` (0 in typed arrays)' : '`null` (NaN in typed arrays)') : '0',
      `\`${m.field}\``,
    ].join(' | '),
  );
  const heads = SCHEMA.metrics.filter((m) => m.head);
  return `# Row metrics

<!-- Written by scripts/metrics-doc.js from cpp/include/attn/metrics.def: do not edit. -->

Every metric of a query row t over its visible keys Ω_t, in the order every view, export and
command writes them. This table is generated from the core's one list of them,
\`cpp/include/attn/metrics.def\` (formulas: docs/MATH.md "Per-row quantities"); the row panel,
the results JSON (\`rows\`, \`summary\`), \`core.computeHead\`'s typed arrays, \`attn analyze\`
(JSON and CSV), \`attn compare\`, the import view's tables and every export read the same list.
top-k uses k = ${K} unless the state or the command says otherwise.

| key | name | meaning | unit | CSV column | head mean (JSON, CSV) | empty row | C++ field |
| --- | --- | --- | --- | --- | --- | --- | --- |
${rows.map((r) => `| ${r} |`).join('\n')}

A head's summary (\`summary\` in the results JSON, \`attn analyze\`'s heads, the import view)
holds \`rows\`, \`emptyRows\` and the mean over its non-empty rows of every metric with a head
mean; a layer's summary in the import view is the mean of its heads' means; \`attn compare\` and
the import view's comparison give B − A of each (\`delta<Key>\`; CSV \`<column>_a\`,
\`<column>_b\`, \`delta_<column>\`).

The CSV columns, as \`attn analyze --format csv\` and the page's exports write them:

- per head: \`layer,head,verdict,rows,empty_rows,${heads.map((m) => m.head.csv).join(',')},pattern,confidence,parameter,above_diagonal_mass,causal_structure,${SCHEMA.heads.headScores.map((x) => x.csv).join(',')}\`
- per row (\`--rows\`; the page's Rows CSV starts at \`row\`): \`layer,head,row,query_token,empty,${SCHEMA.metrics.map((m) => m.csv).join(',')}\`

A head also carries TransformerLens's head-detector scores (\`fieldScores\` in \`attn analyze\`'s
JSON, \`field\` in the page's; definitions: docs/analysis.md) and a pattern class, both listed once
in \`cpp/include/attn/head_scores.def\`:

| score | JSON key | CSV column |
| --- | --- | --- |
${SCHEMA.heads.headScores.map((x) => `| ${cell(importTable.en[`import.score.${x.key}`])} | \`${x.key}\` | \`${x.csv}\` |`).join('\n')}

Pattern classes, in the order ties are broken: ${SCHEMA.heads.patternKinds.map((k) => `\`${k}\``).join(', ')}.

To add a metric: docs/architecture.md "Add a metric".
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = metricsDoc();
  if (process.argv.includes('--check')) {
    let old = '';
    try {
      old = readFileSync(OUT, 'utf8');
    } catch {
      // missing: not up to date
    }
    if (old !== text) {
      console.error('docs/metrics.md is not up to date with metrics.def: run node scripts/metrics-doc.js');
      process.exit(1);
    }
  } else {
    writeFileSync(OUT, text);
  }
}
