// Part of `npm run lint`: the docs describe the product as it is, and the code cites topics, not a
// tracker. Fails (exit 1, one line per finding) when
//   - a heading in docs/ or README.md is dated or names a work period (a month, an ISO date, a
//     numbered session, round or pass, "(night)", "this session", "before / after");
//   - docs/ or README.md mentions a numbered or relative work session in its text;
//   - code, tests or docs cite a project issue by number ("issue" or "issues" with a number, a
//     parenthesised "#" and number, "fixes #" and number); citations of upstream repositories
//     (owner/repo#N, github.com/.../issues/N) are not matched;
//   - a pointer to a section of docs/performance.md ("Section" after its name) names no heading;
//   - docs/performance.md is longer than 400 lines (a reference, not a diary).
//
//   node scripts/check-docs.js
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SELF = 'scripts/check-docs.js';
const MAX_PERFORMANCE_LINES = 400;

const MONTHS = 'January|February|March|April|May|June|July|August|September|October|November|December';
const ORDINAL = 'first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|\\d+(?:st|nd|rd|th)';
const DATED_HEADING = [
  new RegExp(`\\b(?:${MONTHS})\\b`),
  /\b\d{1,2} (?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b/,
  /\b(?:19|20)\d\d-\d\d-\d\d\b/,
  /\bsessions?\b/i,
  new RegExp(`\\b(?:${ORDINAL}) (?:round|pass)\\b`, 'i'),
  /\((?:night|morning|afternoon|evening)\)/i,
  /\bthis (?:round|pass)\b/i,
  /\bbefore\s*\/\s*after\b/i,
];
const SESSION_TEXT = new RegExp(
  `\\b(?:${ORDINAL}|this|that|previous|next|last|earlier|later|an earlier|a later) (?:work )?sessions?\\b|\\bthis round\\b`,
  'i',
);
const ISSUE = [/\b(?:issues?|tickets?)[\s-]*#?\d+/gi, /\(#\d+\)/g, /\b(?:fixes|fixed|closes|closed|resolves|resolved|refs?)\s+#\d+/gi];
const SCANNED =
  /^(?:cpp|web|tests|scripts|bench|python|docs)\/.*\.(?:js|mjs|cjs|cpp|hpp|h|md|sh|py|cmake|txt|json|html|css)$|^(?:README\.md|CMakeLists\.txt)$/;
const SKIPPED = /^(?:tests\/fuzz\/corpus|tests\/fuzz\/regressions|web\/vendor|web\/generated|web\/data)\//;

const files = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((f) => SCANNED.test(f) && !SKIPPED.test(f) && f !== SELF && existsSync(ROOT + f));
const isDoc = (f) => f === 'README.md' || (f.startsWith('docs/') && f.endsWith('.md'));
const findings = [];
const report = (file, line, what, text) => findings.push(`${file}:${line}: ${what}: ${text.trim().slice(0, 120)}`);

/** The Markdown headings of a document, outside code fences. */
function headings(text) {
  const out = [];
  let fence = false;
  text.split('\n').forEach((line, i) => {
    if (/^\s*(?:```|~~~)/.test(line)) fence = !fence;
    else if (!fence && /^#{1,6}\s/.test(line)) out.push({ line: i + 1, title: line.replace(/^#+\s*/, '') });
  });
  return out;
}

const titlesOf = new Map();
for (const f of files.filter(isDoc)) {
  const text = readFileSync(ROOT + f, 'utf8');
  titlesOf.set(
    f,
    headings(text).map((h) => h.title.replaceAll('`', '')),
  );
  for (const h of headings(text)) {
    if (DATED_HEADING.some((re) => re.test(h.title))) report(f, h.line, 'dated or per-session heading', h.title);
  }
  text.split('\n').forEach((line, i) => {
    if (SESSION_TEXT.test(line)) report(f, i + 1, 'a work session in the text', line);
  });
}

for (const f of files) {
  const text = readFileSync(ROOT + f, 'utf8');
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    for (const re of ISSUE) {
      for (const m of line.matchAll(re)) {
        const before = line.slice(0, m.index);
        if (/github\.com\/\S*$|[\w.-]+\/[\w.-]+$/.test(before)) continue; // an upstream repository's issue
        report(f, i + 1, 'a project issue number', m[0]);
      }
    }
    if (!isDoc(f) && new RegExp(`\\b(?:${ORDINAL}) sessions?\\b`, 'i').test(line)) report(f, i + 1, 'a work session', line);
  });
  // Section pointers, also across a comment's line break: docs/performance.md "Section" (or , "Section").
  const joined = text.replace(/\n\s*(?:\*|\/\/|#|<!--)?\s*/g, ' ');
  for (const m of joined.matchAll(/\b(docs\/performance\.md)\)?,?\s+"([^"]{2,80})"/g)) {
    const [, doc, section] = m;
    const titles = titlesOf.get(doc);
    if (!titles) continue;
    const wanted = section.replaceAll('`', '');
    if (!titles.some((t) => t.startsWith(wanted))) {
      const line = text.slice(0, text.indexOf(section)).split('\n').length;
      report(f, line, `no section "${wanted}" in ${doc}`, m[0]);
    }
  }
}

const perfLines = readFileSync(ROOT + 'docs/performance.md', 'utf8')
  .trimEnd()
  .split('\n').length;
if (perfLines > MAX_PERFORMANCE_LINES) {
  report('docs/performance.md', perfLines, `${perfLines} lines, over ${MAX_PERFORMANCE_LINES}`, 'a reference, not a diary');
}

for (const line of findings) console.error(line);
if (findings.length) {
  console.error(`check-docs: ${findings.length} finding(s)`);
  process.exit(1);
}
console.log(`check-docs: ${files.length} files, no dated headings, sessions or issue numbers`);
