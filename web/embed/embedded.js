// A state or a file carried inside the page itself: what `attn html` and the notebook module
// (python/attention_playground.py) write into the one-file page (scripts/single-file.js). The
// page reads it once at start, when the link holds no state (docs/embedding.md "One file").
//
// The carrier is a data block, never run, so the page's content security policy does not see it:
//   <script type="application/json" id="ap-embedded" data-max-bytes="N">PAYLOAD</script>
// PAYLOAD is empty (nothing embedded) or one of
//   {"kind": "state", "state": {...}}                     a state (docs/state.md), shown as it is
//   {"kind": "files", "files": [{"name": "attention.npy", "base64": "..."},
//                               {"name": "tokens.json", "base64": "..."}]}
//                                                         files opened in the import view, as if
//                                                         dropped on it (docs/import.md)
// Either may also carry "options": page options as a link writes them ("preset_hide=1&..."),
// taken when the page's own address has none (the notebook hides the teacher's tools with them).
// data-max-bytes is the largest input the writers accept (one place: scripts/single-file.js).

/** The id of the carrier element. */
export const EMBEDDED_ID = 'ap-embedded';

/**
 * The embedded payload of `doc`, or null when the page carries none.
 * @param {Document} [doc]
 * @returns {{kind: 'state', state: object} | {kind: 'files', files: File[]} | null}
 * @throws {Error} when the carrier holds something that is not a payload (a broken writer)
 */
export function readEmbedded(doc = document) {
  const text = doc.getElementById(EMBEDDED_ID)?.textContent.trim();
  if (!text) return null;
  const payload = JSON.parse(text);
  if (payload?.kind === 'state' && payload.state && typeof payload.state === 'object') return { kind: 'state', state: payload.state };
  if (payload?.kind === 'files' && Array.isArray(payload.files) && payload.files.length) {
    return { kind: 'files', files: payload.files.map((f) => new File([fromBase64(String(f.base64 ?? ''))], String(f.name ?? 'file'))) };
  }
  throw new Error('the embedded payload is neither {"kind": "state"} nor {"kind": "files"}');
}

/**
 * The page options the embedded payload carries ("" when none, or no payload, or one that does
 * not parse: openEmbedded says why). Read by the page's start before its first paint.
 * @param {Document} [doc]
 * @returns {string} a fragment without "#", e.g. "preset_hide=1&share_hide=1"
 */
export function embeddedOptions(doc = document) {
  try {
    const options = JSON.parse(doc.getElementById(EMBEDDED_ID)?.textContent.trim() || 'null')?.options;
    return typeof options === 'string' ? options.replace(/^#/, '') : '';
  } catch {
    return '';
  }
}

function fromBase64(text) {
  const bin = atob(text);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

/**
 * Shows the page's embedded payload: a state goes through `commit` (validated like a link's);
 * files are dropped on the page (a `drop` event on the document carrying them), so they take the
 * page's own intake: the import view, as when a reader drops the files (docs/import.md).
 * @param {object} o
 * @param {(state: object) => Promise<string|null>|string|null} o.commit  shows a state; null or the error
 * @param {Document} [o.doc]
 * @returns {Promise<boolean>} true when a state was shown (false: none embedded, or files, which
 *   leave the playground to its default state)
 * @throws {Error} when the embedded state is refused (the message says why)
 */
export async function openEmbedded({ commit, doc = document }) {
  const embedded = readEmbedded(doc);
  if (!embedded) return false;
  if (embedded.kind === 'state') {
    const err = await commit(embedded.state);
    if (err) throw new Error(`the embedded state was refused: ${err}`);
    return true;
  }
  const dataTransfer = new DataTransfer();
  for (const file of embedded.files) dataTransfer.items.add(file);
  doc.dispatchEvent(new DragEvent('drop', { dataTransfer, bubbles: true, cancelable: true }));
  return false;
}
