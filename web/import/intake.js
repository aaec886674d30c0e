// File intake of the import view: an attention file (picker or drop, an .npz member chosen), a
// token file with it or after it, and a state file handed to the playground. Opens the file in
// the worker, keeps the previous import on screen when reading fails, then starts the analysis.
import { h, mount } from '../views/dom.js';
import { fmtBytes, tData } from '../views/format.js';
import { t } from '../i18n/i18n.js';
import * as page from '../page/store.js';
import { describeSource, errDetail } from './text.js';
import { wordDetail } from '../page/details.js';

/** @param {object} v the view (web/import/index.js): its store `ui`, `$`, and the other parts */
export function createIntake(v) {
  const { ui, $ } = v;
  // The token files an open file took: a later file does not take them again.
  const readFor = new WeakSet();

  async function importFile(file, { memberName = null, tokens = null } = {}) {
    v.messages.file = [];
    v.messages.analysis = [];
    v.messages.warnings = [];
    v.messages.notes = [];
    v.messages.layers = [];
    v.messages.tokens = []; // a token file's error was about the previous file
    v.showMessages();
    $('import-logits-offer').hidden = true;
    if (!memberName) $('import-member-wrap').hidden = true;
    v.showInfo(() => tData('import.readingFile', { file: file.name, size: fmtBytes(file.size) }, ['file']));
    const w = v.getWorker();
    let source;
    try {
      await w.ready;
      source = await w.request({ type: 'open', file, name: file.name, member: memberName });
    } catch (e) {
      // The previous import (if any) stays on screen: nothing is lost.
      v.showInfo(ui.source ? () => describeSource(ui.source) : null);
      v.setMessages('file', [() => tData('import.err.read', { file: file.name, detail: errDetail(e) })]);
      return;
    }
    if (source.kind === 'state') {
      v.showInfo(ui.source ? () => describeSource(ui.source) : null);
      const err = await v.o.openState(source.state, 'state');
      if (err) v.setMessages('file', [() => tData('import.err.state', { file: file.name, detail: wordDetail(err) })]);
      return;
    }
    source.fileLayerNumbers = source.layerNumbers ?? [];
    if (source.needsMember) {
      v.showInfo(() => tData('import.needsMember', { file: file.name, n: source.members.length }, ['file']));
      mount(
        $('import-member'),
        source.members.map((m) =>
          h(
            'option',
            { value: m.name, disabled: Boolean(m.error) },
            m.error ? `${m.name} (${t('import.memberUnreadable')}: ${m.error})` : `${m.name} [${m.shape.join(', ')}] ${m.dtype}`,
          ),
        ),
      );
      $('import-member-wrap').hidden = false;
      $('import-member-go').onclick = () => importFile(file, { memberName: $('import-member').value, tokens });
      return;
    }
    ui.source = source;
    ui.file = file;
    ui.comparison = null;
    $('import-compare').hidden = true;
    $('import-compare-label').hidden = false;
    // A typed list of layer numbers applies to a file without its own (a .npy).
    if (!source.layerNumbers?.length && $('import-layer-numbers').value.trim()) applyLayerNumbers(false);
    ui.heads = [];
    ui.selected = null;
    ui.detail = null;
    v.clearCards();
    $('import-detail').hidden = true;
    $('import-key-tokens-label').hidden = source.layout.nQ === source.layout.nK;
    // Tokens: dropped with the file, else the token file chosen before, unless an earlier file
    // took it (then it was that file's: a later file starts without it; one refused for the
    // file open when it was chosen, e.g. of another length, is for this one).
    v.messages.tokens = [];
    const fresh = (input) => {
      const f = $(input).files[0] ?? null;
      if (!f || !readFor.has(f)) return f;
      $(input).value = ''; // an earlier file's: its name no longer shown
      return null;
    };
    const tokenFile = tokens ?? fresh('import-tokens');
    const keyTokenFile = fresh('import-key-tokens');
    const before = { reanalyse: false }; // the analysis below reads them
    if (tokenFile && !source.keyTokens.length)
      await readTokenFile(tokenFile, source.layout.nQ === source.layout.nK ? 'both' : 'queries', before);
    if (keyTokenFile && source.layout.nQ !== source.layout.nK) await readTokenFile(keyTokenFile, 'keys', before);
    v.showInfo(() => describeSource(ui.source));
    const reading = $('import-reading').value;
    await v.analyse(reading === 'logits' ? 'logits' : 'weights', reading === 'auto');
  }

  /**
   * Reads a token file for the open file. Added after the file (reanalyse, the default): a square
   * file is analysed again, since its duplicate-token and induction scores need the tokens.
   */
  async function readTokenFile(file, which, { reanalyse = true } = {}) {
    if (!ui.source) {
      v.setMessages('tokens', [() => tData('import.tokensPending', { file: file.name })]);
      return;
    }
    try {
      const got = await v.getWorker().request({ type: 'tokens', file, which });
      readFor.add(file);
      ui.source.queryTokens = got.queryTokens;
      ui.source.keyTokens = got.keyTokens;
      ui.source.tokensFrom = file.name;
      v.setMessages('tokens', []);
      v.showInfo(() => describeSource(ui.source));
      const square = ui.source.layout.nQ === ui.source.layout.nK;
      if (reanalyse && square && (ui.running || ui.heads.length)) {
        await v.analyse(ui.reading, false); // shows the inspected head again when it is done
      } else if (ui.selected !== null) v.inspect(ui.selected);
    } catch (e) {
      v.setMessages('tokens', [() => tData('import.err.tokens', { file: file.name, detail: errDetail(e) })]);
    }
  }

  /**
   * Files dropped together: a token list (a .txt, or a name with "token" in it) goes with the
   * attention file; a token list alone applies to the open file.
   */
  function importFiles(files) {
    const isTokens = (f) => /\.txt$/i.test(f.name) || /token/i.test(f.name);
    const tokens = files.find(isTokens) ?? null;
    const attention = files.find((f) => !isTokens(f)) ?? null;
    if (attention) return importFile(attention, { tokens });
    if (tokens && ui.source) return readTokenFile(tokens, ui.source.layout.nQ === ui.source.layout.nK ? 'both' : 'queries');
    if (tokens) return importFile(tokens); // no open file: let the format detection say what it is
    return Promise.resolve();
  }

  /** The file pickers and the drop zone (dropped anywhere on the view). */
  function wireIntake({ fileInput, tokensInput, keyTokensInput, drop }, root) {
    fileInput.addEventListener('change', () => {
      if (fileInput.files[0]) importFile(fileInput.files[0]);
      fileInput.value = '';
    });
    tokensInput.addEventListener('change', () => {
      if (tokensInput.files[0] && ui.source)
        readTokenFile(tokensInput.files[0], ui.source.layout.nQ === ui.source.layout.nK ? 'both' : 'queries');
    });
    keyTokensInput.addEventListener('change', () => {
      if (keyTokensInput.files[0] && ui.source) readTokenFile(keyTokensInput.files[0], 'keys');
    });
    const over = (ev) => {
      ev.preventDefault();
      drop.classList.add('over');
    };
    root.addEventListener('dragover', over);
    root.addEventListener('dragleave', () => drop.classList.remove('over'));
    root.addEventListener('drop', (ev) => {
      ev.preventDefault();
      drop.classList.remove('over');
      importFiles([...(ev.dataTransfer?.files ?? [])]);
    });
  }

  /**
   * The layer numbers typed for the open file ("0,2,4,5", checked by the core): the cards, titles,
   * tables and exports use them. Empty: the file's own numbers, else the positions 0, 1, ...
   */
  function applyLayerNumbers(redraw = true) {
    if (!ui.source) return;
    const text = $('import-layer-numbers').value.trim();
    let numbers;
    try {
      numbers = text ? page.core.parseLayerNumbers(text, ui.source.layout.layers) : (ui.source.fileLayerNumbers ?? []);
      v.setMessages('layers', []);
    } catch (e) {
      v.setMessages('layers', [() => tData('import.err.layerNumbers', { detail: errDetail(e) })]);
      return;
    }
    // Unchanged (a second change event as the box loses focus): the cards stay as they are, so a
    // click that moved the focus still lands on its card.
    if (String(numbers) === String(ui.source.layerNumbers ?? [])) return;
    ui.source.layerNumbers = numbers;
    if (redraw) v.renumber();
  }

  return { importFile, readTokenFile, importFiles, wireIntake, applyLayerNumbers };
}
