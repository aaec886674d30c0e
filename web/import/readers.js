// Import of attention tensors exported from real models (docs/import.md): reads a dropped file
// (a Blob) a head at a time, hands the bytes to the C++ core (parse, check, analyse) and returns
// plain data. No DOM: it runs in the import worker (web/import/import-worker.js) and, unchanged, in the
// node tests, so the page, node and the CLI (`attn analyze`) report the same numbers.
//
// Memory: a .npy file is never read whole. Heads are sliced from the Blob a few at a time (up to
// READ_BYTES per read, the next read under way while one is analysed), each copied into the
// WebAssembly heap, analysed and dropped, so a [12, 12, 512, 512] float32 file (151 MB) costs
// two reads of 4 MiB and one head in the heap at a time. A .npz member (fflate inflates it) and a
// JSON document are held whole, hence their smaller limits.
import { AttentionError } from '../core/core.js';
import { unzipSync } from '../vendor/vendor.js';
import IMPORT_STRINGS from '../i18n/import.js';
import { fillEntry } from '../i18n/fill.js';
import { SCHEMA } from '../generated/schema.js';

const MiB = 1024 * 1024;
/** Largest files the page reads, by kind (refused with these numbers in the message). */
export const IMPORT_LIMITS = Object.freeze({
  npyBytes: 8 * 1024 * MiB, // streamed: bounded by one head, not by the file
  npzBytes: 512 * MiB, // unzipped in memory
  jsonBytes: 64 * MiB, // parsed whole (the parsed tree is several times the text)
  tokensBytes: 16 * MiB,
  headBytes: 256 * MiB, // one head's raw values (n_q * n_k * item size)
});

const NPY_MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY
const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04]; // PK\3\4
const ITEM = { float16: 2, float32: 4, float64: 8 };

const fmtMiB = (bytes) => `${(bytes / MiB).toFixed(bytes < 10 * MiB ? 1 : 0)} MiB`;

function startsWith(bytes, magic) {
  return magic.every((b, i) => bytes[i] === b);
}

// The importer's own messages come from its string table (web/i18n/import.js), read here directly
// rather than through web/i18n/i18n.js: the error's message is the English text whatever language a
// page has loaded (the same words as the CLI's, what the node tests read; in the release a
// Chinese page loads only the Chinese strings), and `i18n` = {key, vars, data} lets the page word
// it again in its language (data: the vars that hold file names and other data, shown with
// translate="no"). The import worker's bundle then holds this table only, not the page's others.
// Format, command and value names the messages write as they are, in every language (shown as
// data, translate="no").
export const TECH = Object.freeze({
  npy: '.npy',
  npz: '.npz',
  zip: 'zip',
  cli: 'attn analyze',
  npyMagic: '\\x93NUMPY',
  zipMagic: 'PK',
  nanInf: 'NaN/Inf',
  f16: 'float16',
});
const TECH_NAMES = Object.keys(TECH);

/** The importer's string `key` in `lang` (English when that language lacks it). */
function word(key, vars, lang = 'en') {
  const entry = IMPORT_STRINGS[lang]?.[key] ?? IMPORT_STRINGS.en[key];
  return entry === undefined ? key : fillEntry(entry, vars);
}

function importError(code, field, key, vars = {}, data = []) {
  const all = { ...TECH, ...vars };
  const e = new AttentionError(code, field, word(key, all));
  e.i18n = { key, vars: all, data: [...data, ...TECH_NAMES] };
  return e;
}

function badFile(key, vars, data = ['name'], field = 'file') {
  return importError('bad_file', field, key, vars, data);
}

function tooLarge(name, size, limit, key = 'import.err.tooLarge') {
  return importError('too_large', 'file', key, { name, size: fmtMiB(size), limit: fmtMiB(limit) }, ['name']);
}

async function readBytes(blob, start, end) {
  return new Uint8Array(await blob.slice(start, end).arrayBuffer());
}

/** Parses a .npy held in `bytes` (a whole .npz member) or the header of a Blob. */
async function npyHeaderOf(core, read, size) {
  const first = await read(0, Math.min(size, 12));
  const length = core.npyHeaderLength(first);
  if (length > size) throw badFile('import.err.npyHeaderTruncated', { length, size }, []);
  const header = core.parseNpyHeader(await read(0, length));
  const needed = header.dataOffset + header.dataBytes;
  if (size < needed) {
    throw badFile(
      'import.err.npyTruncated',
      { bytes: header.dataBytes, dtype: header.dtype, shape: header.shape.join(', '), follow: Math.max(0, size - header.dataOffset) },
      ['dtype'],
    );
  }
  return header;
}

/**
 * Opens a file: detects the format from its first bytes (not its name) and parses what is needed
 * to know its layout. Nothing is analysed yet.
 * @param {object} core  a Core (web/core/core.js)
 * @param {Blob} blob    the file (a File in the page, fs.openAsBlob in node)
 * @param {{name?: string, member?: string}} [o]  member: the .npz array to read
 * @returns {Promise<object>} a source: {kind: 'npy'|'npz'|'json', format, name, dtype, shape,
 *   layout: {layers, heads, nQ, nK}, queryTokens, keyTokens, layerLabels, headLabels (labels the
 *   file gives, or empty), members?} or, for a .npz with several
 *   arrays and no member chosen, {kind: 'npz', needsMember: true, members: [{name, shape, dtype}]};
 *   for a playground state document, {kind: 'state', state}.
 * @throws {AttentionError} bad_file, shape_mismatch, too_large with a message for the user
 */
export async function openSource(core, blob, { name = 'file', member = null } = {}) {
  if (blob.size === 0) throw badFile('import.err.empty', { name });
  const head = await readBytes(blob, 0, Math.min(blob.size, 16));
  if (startsWith(head, NPY_MAGIC)) {
    if (blob.size > IMPORT_LIMITS.npyBytes) throw tooLarge(name, blob.size, IMPORT_LIMITS.npyBytes);
    const header = await npyHeaderOf(core, (a, b) => readBytes(blob, a, b), blob.size);
    return npySource({ kind: 'npy', format: 'npy', name, blob, base: 0 }, header);
  }
  if (startsWith(head, ZIP_MAGIC)) {
    if (blob.size > IMPORT_LIMITS.npzBytes) throw tooLarge(name, blob.size, IMPORT_LIMITS.npzBytes);
    return openNpz(core, new Uint8Array(await blob.arrayBuffer()), name, member);
  }
  // Neither magic: it must be JSON. Say what is wrong before any size limit or parse error
  // (random bytes named .npy are "not a .npy", not "too large for JSON").
  if (/\.np[yz]$/i.test(name)) {
    const npz = /z$/i.test(name);
    throw badFile(
      npz ? 'import.err.notNpz' : 'import.err.notNpy',
      { name, ext: name.slice(-4), magic: npz ? TECH.zipMagic : TECH.npyMagic },
      ['name', 'magic'],
    );
  }
  const first = new TextDecoder().decode(head).trimStart()[0];
  if (first !== undefined && first !== '{' && first !== '[') {
    throw badFile('import.err.notAttention', { name });
  }
  if (blob.size > IMPORT_LIMITS.jsonBytes) throw tooLarge(name, blob.size, IMPORT_LIMITS.jsonBytes);
  const text = await blob.text();
  return openJson(core, text, name);
}

function npySource(base, header) {
  const { layout } = header;
  const headBytes = layout.nQ * layout.nK * ITEM[header.dtype];
  if (headBytes > IMPORT_LIMITS.headBytes) {
    throw importError(
      'too_large',
      'shape',
      'import.err.headTooLarge',
      { nQ: layout.nQ, nK: layout.nK, size: fmtMiB(headBytes), dtype: header.dtype, limit: fmtMiB(IMPORT_LIMITS.headBytes) },
      ['dtype'],
    );
  }
  return {
    ...base,
    dtype: header.dtype,
    shape: header.shape,
    layout,
    dataOffset: base.base + header.dataOffset,
    headBytes,
    queryTokens: [],
    keyTokens: [],
    layerLabels: [],
    headLabels: [],
  };
}

async function openNpz(core, bytes, name, member) {
  let entries;
  try {
    entries = unzipSync(bytes, { filter: (f) => f.name.endsWith('.npy') && (!member || stripNpy(f.name) === stripNpy(member)) });
  } catch (e) {
    throw badFile('import.err.npzUnreadable', { name, detail: e.message }, ['name', 'detail']);
  }
  const names = Object.keys(entries);
  if (member && !names.length) throw badFile('import.err.npzNoMember', { name, member: stripNpy(member) }, ['name', 'member'], 'member');
  if (!names.length) throw badFile('import.err.npzEmpty', { name });
  const described = [];
  for (const n of names) {
    const data = entries[n];
    try {
      const header = await npyHeaderOf(core, async (a, b) => data.subarray(a, b), data.length);
      described.push({ name: stripNpy(n), shape: header.shape, dtype: header.dtype, header, data });
    } catch (e) {
      if (names.length === 1 || member) throw e;
      described.push({ name: stripNpy(n), error: e.message });
    }
  }
  // One member per layer ("layer_0", "blocks.4.attn.hook_pattern"...): the same shape of
  // [heads, n_q, n_k] each and a layer number in every name. Read as one file of those layers,
  // in the order of their numbers, numbered by them.
  const perLayer = described.length > 1 && !member && described.every((m) => !m.error && m.header.layout.layers === 1);
  const numbers = perLayer ? core.layerNumbersFromLabels(described.map((m) => m.name)) : [];
  if (numbers.length === described.length) {
    const first = described[0].header;
    const same = described.every(
      (m) =>
        m.header.dtype === first.dtype &&
        m.header.layout.heads === first.layout.heads &&
        m.header.layout.nQ === first.layout.nQ &&
        m.header.layout.nK === first.layout.nK,
    );
    if (same) {
      const order = described.map((m, i) => [numbers[i], m]).sort((a, b) => a[0] - b[0]);
      const blob = new Blob(order.map(([, m]) => m.data.subarray(m.header.dataOffset, m.header.dataOffset + m.header.dataBytes)));
      const layout = { ...first.layout, layers: order.length };
      const header = { ...first, dataOffset: 0, layout, shape: [order.length, layout.heads, layout.nQ, layout.nK] };
      return {
        ...npySource({ kind: 'npz', format: 'npz', name, blob, base: 0 }, header),
        member: `${order[0][1].name} … ${order[order.length - 1][1].name}`,
        layerNumbers: order.map(([n]) => n),
        layerLabels: order.map(([, m]) => m.name),
      };
    }
  }
  if (described.length > 1) {
    return {
      kind: 'npz',
      name,
      needsMember: true,
      members: described.map(({ name: n, shape, dtype, error }) => ({ name: n, shape, dtype, error })),
    };
  }
  const m = described[0];
  const blob = new Blob([m.data]);
  return { ...npySource({ kind: 'npz', format: 'npz', name, blob, base: 0 }, m.header), member: m.name };
}

const stripNpy = (n) => n.replace(/\.npy$/, '');

function openJson(core, text, name) {
  let doc = null;
  try {
    doc = JSON.parse(text);
  } catch {
    // Not JSON at all: let the core say so in its words (and handle NaN literals it may accept).
  }
  if (doc && typeof doc === 'object' && !Array.isArray(doc) && 'version' in doc && 'heads' in doc) {
    return { kind: 'state', name, state: doc };
  }
  const t = core.parseAttentionJson(text);
  return {
    kind: 'json',
    format: t.format,
    name,
    dtype: 'float32',
    shape: [t.layout.layers, t.layout.heads, t.layout.nQ, t.layout.nK],
    layout: t.layout,
    data: t.data,
    queryTokens: t.queryTokens,
    keyTokens: t.keyTokens,
    layerLabels: t.layerLabels,
    headLabels: t.headLabels,
    // The model's layer numbers the labels give ("layers": [0, 2, 4, 5]); [] = the positions.
    layerNumbers: t.layerLabels.length === t.layout.layers ? core.layerNumbersFromLabels(t.layerLabels) : [],
    headBytes: t.layout.nQ * t.layout.nK * 4,
  };
}

/**
 * Reads a token file (JSON list or one per line) and checks it against the source.
 * @returns {{queryTokens: string[], keyTokens: string[]}}
 * @throws {AttentionError} bad_file, too_large, shape_mismatch ("12 tokens for a tensor with 16 keys")
 */
export async function readTokens(core, blob, source, { which = 'both' } = {}) {
  if (blob.size > IMPORT_LIMITS.tokensBytes) throw tooLarge('', blob.size, IMPORT_LIMITS.tokensBytes, 'import.err.tokensTooLarge');
  const tokens = core.parseTokens(await blob.text());
  const { nQ, nK } = source.layout;
  const check = (n, axis) => {
    if (tokens.length !== n) {
      throw importError('shape_mismatch', 'tokens', axis === 'keys' ? 'import.err.tokenCountKeys' : 'import.err.tokenCountQueries', {
        n: tokens.length,
        m: n,
      });
    }
  };
  if (which === 'keys') {
    check(nK, 'keys');
    return { queryTokens: source.queryTokens, keyTokens: tokens };
  }
  if (which === 'queries') {
    check(nQ, 'queries');
    return { queryTokens: tokens, keyTokens: source.keyTokens };
  }
  check(nK, 'keys');
  if (nQ !== nK) {
    throw importError('shape_mismatch', 'tokens', 'import.err.crossTokens', { nQ, nK });
  }
  return { queryTokens: tokens, keyTokens: tokens };
}

/** Raw bytes of head `index` (layer-major: index = layer * heads + head). */
async function rawHead(source, index) {
  if (source.data) return heldHead(source, index);
  const start = source.dataOffset + index * source.headBytes;
  return readBytes(source.blob, start, start + source.headBytes);
}

/** Head `index` of a source held whole in memory (a JSON document's float32 values). */
function heldHead(source, index) {
  const n = source.layout.nQ * source.layout.nK;
  return new Uint8Array(source.data.buffer, source.data.byteOffset + index * n * 4, n * 4);
}

/**
 * Bytes of one read of the analysis: consecutive heads are read from the file together, up to
 * this many bytes (one head when a head is larger), and while one read is analysed the next one is
 * already being read. A worker therefore holds at most two reads (2 x 4 MiB) besides the head in
 * its heap; a head larger than this is read alone and not ahead (one head at a time, as before).
 */
export const READ_BYTES = 4 * MiB;

/** How many consecutive heads one read takes (at least one). */
export const headsPerRead = (headBytes) => Math.max(1, Math.floor(READ_BYTES / Math.max(1, headBytes)));

/**
 * The raw bytes of the heads `list` (indices, in that order), as an async iterator of
 * {index, bytes}: runs of consecutive indices are read in blocks of headsPerRead() heads with one
 * File read (Blob.slice), the next block being read while the caller analyses the current one.
 */
export async function* readHeads(source, list) {
  if (source.data) {
    for (const index of list) yield { index, bytes: heldHead(source, index) };
    return;
  }
  const per = headsPerRead(source.headBytes);
  const ahead = source.headBytes <= READ_BYTES; // a head beyond the read size: one at a time
  // Blocks: [position in list, count] of consecutive indices.
  const blocks = [];
  for (let i = 0; i < list.length;) {
    let k = 1;
    while (k < per && i + k < list.length && list[i + k] === list[i] + k) k++;
    blocks.push([i, k]);
    i += k;
  }
  const read = ([i, k]) => {
    const start = source.dataOffset + list[i] * source.headBytes;
    return readBytes(source.blob, start, start + k * source.headBytes);
  };
  let next = blocks.length ? read(blocks[0]) : null;
  for (let b = 0; b < blocks.length; b++) {
    const bytes = await next;
    next = ahead && b + 1 < blocks.length ? read(blocks[b + 1]) : null;
    // A read that is not awaited (the caller stopped) must not report an unhandled rejection.
    next?.catch(() => {});
    const [i, k] = blocks[b];
    for (let j = 0; j < k; j++) {
      yield { index: list[i + j], bytes: bytes.subarray(j * source.headBytes, (j + 1) * source.headBytes) };
    }
    if (!ahead && b + 1 < blocks.length) next = read(blocks[b + 1]);
  }
}

/** Default analysis options (analysis.hpp AnalyzeOptions). */
export const ANALYZE_DEFAULTS = Object.freeze({ reading: 'weights', causal: false, ...SCHEMA.rowDefaults, thumbnail: 32 });

/**
 * Analyses one head: copies its bytes into the heap, runs the core's check and analysis (a float32
 * head is analysed where it lies in the heap, other dtypes converted there by the core).
 * @param {object} core
 * @param {object} source  from openSource()
 * @param {number} index   layer * heads + head
 * @param {object} [options]  ANALYZE_DEFAULTS overrides; wantRows (default false)
 * @param {Uint8Array} [bytes]  the head's raw bytes when already read (readHeads)
 * @returns {Promise<object>} analyzeHead()'s result with {index, layer, head}
 */
export async function analyzeSourceHead(core, source, index, options = {}, bytes = null) {
  return analyzeHeadBytes(core, source, index, options, bytes ?? (await rawHead(source, index)));
}

/** analyzeSourceHead() of bytes already read (synchronous). */
export function analyzeHeadBytes(core, source, index, options, bytes) {
  const o = { ...ANALYZE_DEFAULTS, wantRows: false, ...options };
  const ptr = core.alloc(bytes.length);
  try {
    core.writeU8(ptr, bytes);
    // The key tokens give the TransformerLens duplicate-token and induction scores.
    const { nQ, nK } = source.layout;
    const tokens = nQ === nK && source.keyTokens?.length === nK ? source.keyTokens : undefined;
    const r = core.analyzeHead({ ...o, ptr, dtype: source.dtype, nQ, nK, tokens });
    const layer = Math.floor(index / source.layout.heads);
    return { ...r, index, layer, head: index - layer * source.layout.heads };
  } finally {
    core.free(ptr);
  }
}

/**
 * Compares head `index` of two sources of the same layout (the core's compareHeads).
 * @returns {Promise<object>} compareHeads()'s result with {index, layer, head}
 */
export async function compareSourceHead(core, a, b, index, options = {}) {
  const o = { ...ANALYZE_DEFAULTS, ...options, thumbnail: 0, wantRows: false };
  const [ba, bb] = await Promise.all([rawHead(a, index), rawHead(b, index)]);
  const pa = core.alloc(ba.length);
  const pb = core.alloc(bb.length);
  try {
    core.writeU8(pa, ba);
    core.writeU8(pb, bb);
    const r = core.compareHeads({ ...o, ptrA: pa, dtypeA: a.dtype, ptrB: pb, dtypeB: b.dtype, nQ: a.layout.nQ, nK: a.layout.nK });
    const layer = Math.floor(index / a.layout.heads);
    return { ...r, index, layer, head: index - layer * a.layout.heads };
  } finally {
    core.free(pa);
    core.free(pb);
  }
}

/**
 * Opens the second run of a comparison and checks that it has the layout of the first.
 * @throws {AttentionError} shape_mismatch ("needs the same shape"), bad_file (a state, an .npz
 *   that needs a member)
 */
export async function openComparison(core, blob, first, { name = 'file', member = null } = {}) {
  const b = await openSource(core, blob, { name, member });
  if (b.kind === 'state' || b.needsMember) throw badFile('import.compare.notAttention', { name });
  const l = first.layout;
  const m = b.layout;
  if (l.layers !== m.layers || l.heads !== m.heads || l.nQ !== m.nQ || l.nK !== m.nK) {
    const shape = (x) => `[${x.layers}, ${x.heads}, ${x.nQ}, ${x.nK}]`;
    throw importError('shape_mismatch', 'shape', 'import.compare.shapeMismatch', { a: first.name, b: name, sa: shape(l), sb: shape(m) }, [
      'a',
      'b',
    ]);
  }
  return b;
}

/**
 * The float32 values of one head (n_q * n_k, row-major), for opening it in the playground.
 */
export async function headValues(core, source, index) {
  const bytes = await rawHead(source, index);
  const n = source.layout.nQ * source.layout.nK;
  if (source.dtype === 'float32') {
    return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  }
  const src = core.alloc(bytes.length);
  const dst = core.alloc(n * 4);
  try {
    core.writeU8(src, bytes);
    core.toFloat32(src, source.dtype, n, dst);
    return core.viewF32(dst, n).slice();
  } finally {
    core.free(src);
    core.free(dst);
  }
}

/**
 * Analyses every head (or `indices`), calling onHead(result, done, total) after each.
 * @returns {Promise<object[]>} the results in order
 */
export async function analyzeAll(core, source, options = {}, onHead = () => {}, indices = null) {
  const list = indices ?? Array.from({ length: source.layout.layers * source.layout.heads }, (_, i) => i);
  const out = [];
  for await (const { index, bytes } of readHeads(source, list)) {
    const r = analyzeHeadBytes(core, source, index, options, bytes);
    out.push(r);
    onHead(r, out.length, list.length);
  }
  return out;
}

/**
 * What a set of head results says about the file as a whole, for the page's messages.
 * @param {object[]} results  from analyzeAll()
 * @param {{causal?: boolean, reading?: 'weights'|'logits', lang?: string, structure?: object}} [options]
 *   as given to the analysis; lang: the language of the messages (default English); structure:
 *   the core's structureSummary() of the results (what was detected, the flagged heads)
 * @returns {{errors: string[], warnings: string[], notes: string[], offerLogits: boolean}}
 */
const fmtNum = (x) => (Number.isFinite(x) ? Number(x.toPrecision(3)).toString() : '—');

export function summarise(results, options = {}) {
  const lang = options.lang ?? 'en';
  const tr = (key, vars) => word(key, { ...TECH, ...vars }, lang);
  const by = (v) => results.filter((r) => r.verdict === v);
  const invalid = by('invalid');
  const notProb = by('not_probabilities');
  const warn = by('probabilities_warn');
  const where = (r) => `L${r.layer} H${r.head}`;
  // errors, warnings: the messages as text; errorItems, warningItems: the same as {key, vars,
  // data} for the page, which shows the names in `data` as data (translate="no").
  const out = { errors: [], warnings: [], notes: [], errorItems: [], warningItems: [], noteItems: [], offerLogits: false };
  const say = (list, key, vars) => {
    out[list].push(tr(key, vars));
    out[`${list.slice(0, -1)}Items`].push({ key, vars: { ...TECH, ...vars }, data: TECH_NAMES });
  };
  for (const r of invalid.slice(0, 5)) {
    say('errors', 'import.sum.invalid', {
      where: where(r),
      n: r.check.nonfinite,
      row: r.check.firstNonfiniteRow,
      col: r.check.firstNonfiniteCol,
    });
  }
  if (invalid.length > 5) say('errors', 'import.sum.moreInvalid', { n: invalid.length - 5 });
  // Read as logits, values that are not probabilities are what was asked for.
  if (notProb.length && options.reading !== 'logits') {
    const c = notProb[0].check;
    const why = [];
    if (c.zeroRows > 0 && c.zeroRows === c.nQ) why.push(tr('import.sum.allZero', { n: c.zeroRows }));
    // As attn analyze says it: -inf and finite mask fills (the core's is_mask_fill) first, then
    // the negative values that are not fills (with their minimum when no fill is below it).
    if (c.negInf) why.push(tr('import.sum.negInf', { n: c.negInf }));
    if (c.finiteFill) why.push(tr('import.sum.fill', { n: c.finiteFill }));
    const negative = c.negative - (c.finiteFill ?? 0);
    if (negative > 0 && !c.finiteFill) why.push(tr('import.sum.negative', { n: negative, min: c.minValue.toPrecision(3) }));
    else if (negative > 0) why.push(tr('import.sum.negativeScores', { n: negative }));
    if (c.aboveOne) why.push(tr('import.sum.aboveOne', { n: c.aboveOne, max: c.maxValue.toPrecision(3) }));
    if (!why.length) why.push(tr('import.sum.rowSum', { err: c.maxRowSumError.toPrecision(2), row: c.worstRow }));
    // Not for heads that are all zero: read as logits they are uniform rows, an analysis of an
    // unfilled buffer (the reading stays a choice of the import view's select).
    out.offerLogits = notProb.some((r) => !(r.check.zeroRows > 0 && r.check.zeroRows === r.check.nQ));
    say('errors', out.offerLogits ? 'import.sum.notProbabilities' : 'import.sum.notProbabilitiesZero', {
      n: notProb.length,
      total: results.length,
      where: where(notProb[0]),
      why: why.join(tr('import.listSep')),
    });
  }
  if (warn.length) {
    const worst = warn.reduce((a, b) => (b.check.maxRowSumError > a.check.maxRowSumError ? b : a));
    say('warnings', 'import.sum.rowSumWarning', {
      n: warn.length,
      err: worst.check.maxRowSumError.toPrecision(2),
      where: where(worst),
      row: worst.check.worstRow,
    });
  }
  // The structure (the core's structureSummary, given by the page): what was detected and why,
  // and every flagged head, largest above-diagonal mass first, with that mass.
  const st = options.structure;
  if (st) {
    const list = st.flagged
      .map((f) =>
        tr('import.struct.item', {
          where: `L${f.layer} H${f.head}`,
          mass: fmtNum(f.aboveDiagonalMass),
          rows: f.rowsAboveDiagonal,
          from: f.firstRowAboveDiagonal,
          max: fmtNum(f.maxAboveDiagonal),
        }),
      )
      .join(tr('import.listSep'));
    const n = st.analysed;
    const k = st.flagged.length;
    const logits = options.reading === 'logits';
    if (st.stated && k) say('warnings', 'import.struct.flaggedStated', { k, list });
    else if (st.stated) say('notes', 'import.struct.stated', {});
    else if (st.structure === 'causal') say('notes', logits ? 'import.struct.causalLogits' : 'import.struct.causal', { n });
    else if (st.structure === 'mixed') say('warnings', 'import.struct.mixed', { c: st.causalHeads, n, k, list });
    else if (st.structure === 'bidirectional') say('notes', 'import.struct.bidirectional', { k: n - st.causalHeads, n });
  }
  // Read as logits, finite mask fills (-1e4, -65504, -1e9) are masked keys: say so.
  if (options.reading === 'logits') {
    const fills = results.reduce((a, r) => a + (r.check.finiteFill ?? 0), 0);
    const inf = results.reduce((a, r) => a + (r.check.negInf ?? 0), 0);
    if (fills || inf) say('notes', 'import.struct.maskFills', { fills, inf });
  }
  return out;
}
