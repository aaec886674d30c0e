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
//
// The heads of an opened source are read and analysed by web/import/source-heads.js, the summary
// of their results is web/import/summary.js, the messages web/import/messages.js.
import { unzipSync } from '../vendor/vendor.js';
import { MiB, TECH, badFile, fmtMiB, importError, tooLarge } from './messages.js';
import { readBytes } from './source-heads.js';

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

function startsWith(bytes, magic) {
  return magic.every((b, i) => bytes[i] === b);
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
