// The validator's, the core's and the link codec's messages (English, naming schema paths; the
// same text the API, node and the CLI report) worded in the page's language, as views/source.js
// words the built-in sources: the common forms are recognised here and written from the string
// table ("app.detail.*"), with their parts (a field's path, the value given, a limit) as data in
// translate="no" spans. Any other message stays as it is: English technical detail, marked as data.
import { getLang, t } from '../i18n/i18n.js';
import { dataSpan, tData } from '../views/format.js';

/** A state field (or link key) -> its name in the string table ("app.field.<name>"). */
const FIELDS = {
  tau: 'tau',
  scale: 'scale',
  topK: 'topK',
  k: 'topK',
  row: 'row',
  head: 'head',
  mode: 'mode',
  'mask.causal': 'causal',
  causal: 'causal',
  'mask.window': 'window',
  window: 'window',
  'mask.stride': 'stride',
  stride: 'stride',
  'mask.sinks': 'sinks',
  sinks: 'sinks',
  'view.panel': 'panel',
  panel: 'panel',
  'view.preset': 'preset',
  preset: 'preset',
  'view.numbers': 'numbers',
  numbers: 'numbers',
  version: 'version',
  v: 'version',
  d: 'd',
  lab: 'lab',
  lesson: 'lesson',
};

/** The field's words in the page's language, or null when it has none. */
function term(path) {
  const name = FIELDS[path];
  if (name) return t(`app.field.${name}`);
  if (/^lab\.params\.\w+$/.test(path)) return t('app.field.labParam');
  const m = /^heads\[(\d+)\]\.(Q|K|V|logits|weights|WQ|WK|WV|gate)(?:\[(\d+)\])?(?:\[(\d+)\])?$/.exec(path);
  if (!m) return null;
  if (m[4] !== undefined) return t('app.field.cell', { head: m[1], matrix: m[2], r: m[3], c: m[4] });
  if (m[3] !== undefined) return t('app.field.entry', { head: m[1], matrix: m[2], i: m[3] });
  return t('app.field.matrix', { head: m[1], matrix: m[2] });
}

/** The path as data, with its words after it when it has some: "tau（温度 τ）" (the Chinese strings
 * write no space after it: the bare path brings its own). */
function subject(path) {
  const words = term(path);
  return words === null ? tData('app.detail.subjectBare', { path }) : tData('app.detail.subject', { path, term: words }, ['path']);
}

// Words of a message in the page's language: an array, so that wordDetail's tData puts them in as
// they are (its other placeholders are data, translate="no").
const words = (key) => [t(key)];
/** "rows" / "columns" of a shape message. */
const axis = (word) => words(word === 'rows' ? 'app.detail.rows' : 'app.detail.columns');
/** A JSON type as the core names it ("a string", "null", ...). */
const typeName = (name) => words(`app.detail.type.${name.split(' ').pop()}`);

// The tensor layouts an import reads and the files it knows, written as they are in every
// language (data in the sentences of app.detail.importAxes and app.detail.expectedFiles).
const TENSOR_SHAPES = {
  s2: '[n_q, n_k]',
  s3: '[heads, n_q, n_k]',
  s4: '[layers, heads, n_q, n_k]',
  s5: '[1, layers, heads, n_q, n_k]',
};
const expectedFiles = () =>
  tData('app.detail.expectedFiles', {
    ours: '{"tokens", "attention"}',
    cv: 'CircuitsVis',
    cross: '{"queryTokens", "keyTokens", "attention"}',
    bv: 'BertViz {"all": {"attn", "left_text", "right_text"}}',
  });

// [pattern, string name, (match) => {vars, data}]: `data` names the placeholders that are data.
const FORMS = [
  [/^(\w+) in the link must be a number \(got (.*)\)$/, 'linkNumber', (m) => ({ key: subject(m[1]), got: m[2] })],
  [/^(\w+) in the link must be 0 or 1 \(got (.*)\)$/, 'linkFlag', (m) => ({ key: subject(m[1]), got: m[2] })],
  [/^(\w+) in the link must be one of (.*) \(got (.*)\)$/, 'linkOneOf', (m) => ({ key: subject(m[1]), list: m[2], got: m[3] })],
  [/^(lab|lesson) in the link is not JSON \(got (.*)\)$/, 'linkJson', (m) => ({ key: subject(m[1]), got: m[2] })],
  [/^the link is missing (\w+)= \(([\w.]+)\)$/, 'linkMissing', (m) => ({ key: `${m[1]}=`, words: [term(m[1]) ?? m[2]] })],
  [/^the link has no version \(expected it to start with v=1\)$/, 'linkNoVersion', () => ({ start: 'v=1' })],
  [/^unknown link version (.*): this page reads version (\d+) links$/, 'linkVersion', (m) => ({ got: m[1], v: m[2] })],
  [/^the link has an unknown key (.*?) \(known keys: (.*)\)$/, 'linkUnknownKey', (m) => ({ got: m[1], keys: m[2] })],
  [/^the link gives (.*) twice$/, 'linkTwice', (m) => ({ got: m[1] })],
  [/^the link is empty \(expected (.*)\)$/, 'linkEmpty', (m) => ({ form: m[1] })],
  [/^the link is too long \((\d+) characters, at most (\d+)\)$/, 'linkTooLong', (m) => ({ n: m[1], max: m[2] })],
  [/^the state is too large for a link \((\d+) characters, at most (\d+)\)$/, 'tooLargeChars', (m) => ({ n: m[1], max: m[2] })],
  [/^the state is too large for a link \((\d+) bytes of data, at most (\d+)\)$/, 'tooLargeBytes', (m) => ({ n: m[1], max: m[2] })],
  [/^the link part (.*) is not of the form key=value$/, 'linkPart', (m) => ({ got: m[1], form: 'key=value' })],
  [/^the link has a broken %-escape in (.*)$/, 'linkEscape', (m) => ({ got: m[1] })],
  // The data block's own messages (web/codec/block.js), worded whole: a link cut short is the
  // usual cause, and the student who pasted it reads the hint in the page's language.
  [
    /^d is not valid base64url: its length (\d+) cannot come from whole bytes \(was it cut short\?\)$/,
    'blockLength',
    (m) => ({ d: 'd', format: 'base64url', n: m[1] }),
  ],
  [
    /^d is not valid base64url: character (.*) at position (\d+) is not one of A-Z a-z 0-9 - _$/,
    'blockChar',
    (m) => ({ d: 'd', format: 'base64url', got: m[1], i: m[2], set: 'A-Z a-z 0-9 - _' }),
  ],
  // fflate's own reason ("unexpected EOF") is left out: English, and nothing a reader can act on.
  [/^d is corrupt: its compressed data cannot be inflated \((.*); was the link cut short\?\)$/, 'blockInflate', () => ({ d: 'd' })],
  [/^d is corrupt: its checksum does not match \(was it edited or cut short\?\)$/, 'blockChecksum', () => ({ d: 'd' })],
  [
    /^d is corrupt or truncated: it inflates to (more than )?(\d+) bytes, but declares (\d+)$/,
    'blockInflatesTo',
    (m) => ({ d: 'd', n: m[1] ? `> ${m[2]}` : m[2], declared: m[3] }),
  ],
  [/^d is corrupt(?: or truncated)?: (.*)$/, 'blockCorrupt', (m) => ({ d: 'd', detail: m[1] })],
  [/^d is not valid base64url: (.*)$/, 'blockBase64', (m) => ({ d: 'd', format: 'base64url', detail: m[1] })],
  [/^d is not an Attention Playground data block/, 'blockNotOurs', () => ({ d: 'd' })],
  [/^tau must be a number > 0 and <= (\S+) \(got (.*)\)$/, 'tauRange', (m) => ({ key: subject('tau'), max: m[1], got: m[2] })],
  [
    /^scale must be "auto" or a finite number > 0 \(got (.*)\)$/,
    'scaleRange',
    (m) => ({ key: subject('scale'), auto: '"auto"', got: m[1] }),
  ],
  [
    /^(\S+) must be an integer from (-?\d+) to (-?\d+) \(got (.*)\)$/,
    'integerRange',
    (m) => ({ key: subject(m[1]), lo: m[2], hi: m[3], got: m[4] }),
  ],
  [/^(\S+) must be true or false \(got (.*)\)$/, 'boolean', (m) => ({ key: subject(m[1]), yes: 'true', no: 'false', got: m[2] })],
  [/^(\S+) must be one of (.*) \(got (.*)\)$/, 'oneOf', (m) => ({ key: subject(m[1]), list: m[2], got: m[3] })],
  [
    /^(\S+) = (\S+) is outside the float32 range \(magnitude <= (\S+)\) the core computes in$/,
    'float32',
    (m) => ({ key: subject(m[1]), got: m[2], max: m[3] }),
  ],
  // The analysis lab's parameters (the core's lab views)
  [/^(lab\.params\.\w+) must be a number$/, 'labNumber', (m) => ({ key: subject(m[1]) })],
  [/^(lab\.params\.\w+) must be an integer$/, 'labInteger', (m) => ({ key: subject(m[1]) })],
  [
    /^(lab\.params\.\w+) must be between (\S+) and (\S+) \(got (.*)\)$/,
    'labBetween',
    (m) => ({ key: subject(m[1]), lo: m[2], hi: m[3], got: m[4] }),
  ],
  [
    /^(lab\.params\.\w+) must be strictly between (\S+) and (\S+) \(got (.*)\)$/,
    'labStrictly',
    (m) => ({ key: subject(m[1]), lo: m[2], hi: m[3], got: m[4] }),
  ],
  [/^(lab\.params\.\w+) must be one of (.*)$/, 'labOneOf', (m) => ({ key: subject(m[1]), list: m[2] })],
  [/^(lab\.params\.\w+) must be > 0 \(a temperature\)$/, 'labTemperature', (m) => ({ key: subject(m[1]) })],
  // The sweep's temperature list (lab.params.taus)
  [
    /^(lab\.params\.taus) must hold temperatures with 0 < tau <= (\S+) \(got (.*)\)$/,
    'labTaus',
    (m) => ({ key: subject(m[1]), max: m[2], got: m[3] }),
  ],
  [/^(lab\.params\.taus) must be a list of 1 to 4 temperatures \(got (.*)\)$/, 'labTausList', (m) => ({ key: subject(m[1]), got: m[2] })],
  [/^(lab\.params\.taus) must hold numbers \(got (.*)\)$/, 'labTausNumbers', (m) => ({ key: subject(m[1]), got: m[2] })],
  // Shapes of a state (a state file, a link, setState): the validator's shape_mismatch messages
  [
    /^(\S+) has (\d+) (rows|columns) but (n_q|n_k) = (\d+) \((rows|columns) of (\S+)\) gives \d+$/,
    'shapeCount',
    (m) => ({ key: subject(m[1]), n: m[2], what: axis(m[3]), dim: m[4], m: m[5], whatFrom: axis(m[6]), from: m[7] }),
  ],
  [
    /^(\S+) has (\d+) columns but (\S+) has (\d+); (\w+) and (\w+) must share d_k$/,
    'shareDk',
    (m) => ({ key: subject(m[1]), n: m[2], other: subject(m[3]), m: m[4], a: m[5], b: m[6], dk: 'd_k' }),
  ],
  [
    /^(\S+) has (\d+) values but (\S+) has (\d+); a matrix must be rectangular$/,
    'ragged',
    (m) => ({ key: subject(m[1]), n: m[2], first: subject(m[3]), m: m[4] }),
  ],
  [
    /^(\S+) must have (\d+) to (\d+) (rows|columns) \(got (.*)\)$/,
    'matrixSize',
    (m) => ({ key: subject(m[1]), lo: m[2], hi: m[3], what: axis(m[4]), got: m[5] }),
  ],
  [
    /^(tokens\.queries|tokens\.keys) has (\d+) labels but there are (n_q|n_k) = (\d+) (?:queries \(rows of|keys \(from) (\S+)\)$/,
    'tokenLabels',
    (m) => ({
      key: subject(m[1]),
      n: m[2],
      dim: m[3],
      m: m[4],
      what: words(m[3] === 'n_q' ? 'app.detail.queries' : 'app.detail.keys'),
      from: m[5],
    }),
  ],
  [
    /^(mask\.padding) must be an array of n_k = (\d+) booleans \(got (.*)\)$/,
    'padding',
    (m) => ({ key: subject(m[1]), dim: 'n_k', n: m[2], got: m[3] }),
  ],
  [
    /^(mask\.allow) is (\d+) x (\d+) but must be n_q x n_k = (\d+) x (\d+)$/,
    'allowShape',
    (m) => ({ key: subject(m[1]), got: `${m[2]} × ${m[3]}`, dims: 'n_q × n_k', want: `${m[4]} × ${m[5]}` }),
  ],
  [
    /^(\S+) has (\d+) gate logits but there are n_q = (\d+) query rows; a gate has one logit per query row$/,
    'gateLength',
    (m) => ({ key: subject(m[1]), n: m[2], dim: 'n_q', m: m[3] }),
  ],
  // Mode "x" (a layer from X): the projections, W_O and the residual
  [
    /^(\S+) has (\d+) rows but x\.X has d_model = (\d+) columns; a projection is d_model x (d_k|d_v)$/,
    'projectionRows',
    (m) => ({ key: subject(m[1]), n: m[2], dm: 'd_model', m: m[3], x: 'x.X', shape: `d_model × ${m[4]}` }),
  ],
  [
    /^(x\.WO) has (\d+) rows but the heads' outputs side by side have (\d+) columns \(the sum of every head's d_v\); WO must be \d+ x d_out$/,
    'woRows',
    (m) => ({ key: subject(m[1]), n: m[2], m: m[3], dv: 'd_v', shape: `${m[3]} × d_out` }),
  ],
  [
    /^the residual X \+ output needs the output width \((\d+), (the columns of x\.WO|the sum of the heads' d_v, as there is no WO)\) to equal d_model = (\d+) \(the columns of x\.X\)$/,
    'residualWidth',
    (m) => ({
      n: m[1],
      from: tData(m[2].startsWith('the columns') ? 'app.detail.widthWO' : 'app.detail.widthDv', { wo: 'x.WO', dv: 'd_v' }),
      dm: 'd_model',
      m: m[3],
      x: 'x.X',
    }),
  ],
  // An imported file (web/import/readers.js hands these from the core's readers: the CLI's words)
  [
    /^shape (\[.*\]) has (\d+) ax[ie]s: an attention tensor is \[n_q, n_k\], \[heads, n_q, n_k\], \[layers, heads, n_q, n_k\] or \[1, layers, heads, n_q, n_k\]$/,
    'importAxes',
    (m) => ({ shape: m[1], n: m[2], ...TENSOR_SHAPES }),
  ],
  [/^shape (\[.*\]) has an empty axis: there is nothing to analyse$/, 'importEmptyAxis', (m) => ({ shape: m[1] })],
  [/^shape (\[.*\]): pick one example: the batch axis has (\d+) entries$/, 'importBatch', (m) => ({ shape: m[1], n: m[2] })],
  [/^shape (\[.*\]) has (\d+) tokens on one axis; the limit is (\d+)$/, 'importTokens', (m) => ({ shape: m[1], n: m[2], max: m[3] })],
  [/^shape (\[.*\]) holds more than (\d+) heads; the limit is (\d+)$/, 'importHeadsMore', (m) => ({ shape: m[1], n: m[2], max: m[3] })],
  [/^shape (\[.*\]) holds (\d+) heads; the limit is (\d+)$/, 'importHeads', (m) => ({ shape: m[1], n: m[2], max: m[3] })],
  [
    /^not an attention file: found keys (.*); expected \{"tokens", "attention"\} .* or a list of per-layer arrays$/,
    'importKeys',
    (m) => ({ keys: m[1], expected: expectedFiles() }),
  ],
  [
    /^not an attention file: the JSON is (null|a boolean|a string|a number); expected \{"tokens", "attention"\} .* or a list of per-layer arrays$/,
    'importJsonType',
    (m) => ({ type: typeName(m[1]), expected: expectedFiles() }),
  ],
  [/^not an attention file: the text is not valid JSON \(at byte (\d+)\)$/, 'importNotJson', (m) => ({ json: 'JSON', byte: m[1] })],
  [/^(\S+) has (\d+) entries, expected (\d+)$/, 'importEntries', (m) => ({ path: m[1], n: m[2], m: m[3] })],
  [
    /^(\S+) is (null|a boolean|a string|an object|a list), expected a number$/,
    'importNotNumber',
    (m) => ({ path: m[1], type: typeName(m[2]) }),
  ],
  [/^this is a playground state \(docs\/state\.md\), not an attention file$/, 'importIsState', () => ({ doc: 'docs/state.md' })],
  [/^(\S+) must be a finite number >= 0 \(got (.*)\)$/, 'finiteNonNegative', (m) => ({ key: subject(m[1]), got: m[2] })],
  [/^(\S+) must be a finite number \(got (.*)\)$/, 'finite', (m) => ({ key: subject(m[1]), got: m[2] })],
];

/**
 * A message as nodes in the page's language: worded from the table when it is a known form, else
 * the message itself as data. In English the message is shown as it is (it is already English).
 * @param {string} message
 * @returns {(string|Node|Array)[]}
 */
export function wordDetail(message) {
  const text = String(message);
  if (getLang() === 'en') return [dataSpan(text)];
  const full = text.endsWith('.');
  const body = full ? text.slice(0, -1) : text;
  for (const [re, name, vars] of FORMS) {
    const m = re.exec(body);
    if (!m) continue;
    const v = vars(m);
    const nodes = tData(`app.detail.${name}`, v);
    return full ? [...nodes, t('app.detail.end')] : nodes;
  }
  return [dataSpan(text)];
}
