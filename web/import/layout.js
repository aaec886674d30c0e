// The import view's page: the drop zone and file pickers, the reading and progress lines, the
// messages, the overview toolbar, the grid, the detail panel and the two tables, built once
// into the view's root. Static text carries its table key (setLang refills it); text with NAMES
// in it is redrawn by redrawNamed() on a change of language.
import { h, mount } from '../views/dom.js';
import { t } from '../i18n/i18n.js';
import { FLAGGED_FILTER, PATTERN_KINDS, RANGE_KEYS, SORT_KEYS } from './view-state.js';
import { tn, tnData } from './text.js';

const HF_SNIPPET = `# Hugging Face transformers
out = model(**inputs, output_attentions=True)        # attn_implementation="eager"
att = torch.stack(out.attentions)[:, 0]              # [layers, heads, n, n]
np.save("attention.npy", att.float().numpy())
json.dump(tok.convert_ids_to_tokens(inputs["input_ids"][0]), open("tokens.json", "w"))`;
const TL_SNIPPET = `# TransformerLens
logits, cache = model.run_with_cache(text)
att = torch.stack([cache["pattern", l][0] for l in range(model.cfg.n_layers)])
np.save("attention.npy", att.cpu().float().numpy())
json.dump(model.to_str_tokens(text), open("tokens.json", "w"))`;

/**
 * Builds the view into `root`.
 * @returns {{fileInput, tokensInput, keyTokensInput: HTMLInputElement, drop: HTMLElement,
 *   redrawNamed: () => void}}
 */
export function buildLayout(root) {
  const tx = (key) => h('span', { dataset: { i18n: key } }, t(key));
  // Text with NAMES in it: drawn again by the language listener below (not data-i18n).
  const named = [];
  const txn = (key) => {
    const el = h('span', {}, tnData(key));
    named.push([el, key]);
    return el;
  };
  const opt = (value, key) => h('option', { value, dataset: { i18n: key } }, t(key));
  // A sort key's option: its label(), drawn again by the view when the language changes.
  const optOf = (value, k) => h('option', { value, dataset: { sortKey: value } }, k.label());
  const tAttr = (pairs) => ({ i18nAttr: pairs.map(([attr, key]) => `${attr}:${key}`).join(';') });
  const fileInput = h('input', { type: 'file', id: 'import-file', accept: '.npy,.npz,.json,application/json', class: 'visually-hidden' });
  const tokensInput = h('input', {
    type: 'file',
    id: 'import-tokens',
    accept: '.json,.txt,text/plain,application/json',
    class: 'visually-hidden',
  });
  const keyTokensInput = h('input', {
    type: 'file',
    id: 'import-key-tokens',
    accept: '.json,.txt,text/plain,application/json',
    class: 'visually-hidden',
  });
  const drop = h(
    'div',
    { class: 'dropzone', id: 'import-drop' },
    h('p', { class: 'drop-title' }, tx('import.dropTitle')),
    h('p', { class: 'note' }, txn('import.dropNote')),
    h(
      'div',
      { class: 'drop-actions' },
      h('label', { class: 'button primary' }, tx('import.chooseFile'), fileInput),
      h('label', { class: 'button' }, tx('import.tokens'), tokensInput),
      h('label', { class: 'button', id: 'import-key-tokens-label', hidden: true }, tx('import.keyTokens'), keyTokensInput),
      h('label', { class: 'check' }, h('input', { type: 'checkbox', id: 'import-causal' }), ' ', tx('import.causal')),
    ),
    h(
      'details',
      { class: 'how-to' },
      h('summary', {}, txn('import.howTo')),
      h('pre', { translate: 'no' }, HF_SNIPPET),
      h('pre', { translate: 'no' }, TL_SNIPPET),
      h('p', { class: 'note' }, txn('import.axisNote')),
    ),
  );
  const options = h(
    'div',
    { class: 'import-options' },
    h(
      'label',
      { class: 'inline' },
      tx('import.readAs'),
      ' ',
      h(
        'select',
        { id: 'import-reading', 'aria-label': t('import.readAs'), dataset: tAttr([['aria-label', 'import.readAs']]) },
        opt('auto', 'import.reading.auto'),
        opt('weights', 'import.reading.weights'),
        opt('logits', 'import.reading.logits'),
      ),
    ),
    h(
      'label',
      { class: 'inline' },
      tx('import.layerNumbers'),
      ' ',
      h('input', {
        type: 'text',
        id: 'import-layer-numbers',
        class: 'num-box',
        placeholder: '0,2,4,5',
        translate: 'no',
        'aria-label': t('import.layerNumbersAria'),
        dataset: tAttr([['aria-label', 'import.layerNumbersAria']]),
      }),
    ),
    h(
      'label',
      { class: 'button', id: 'import-compare-label', hidden: true },
      tx('import.compare.choose'),
      h('input', { type: 'file', id: 'import-compare-file', accept: '.npy,.npz,.json,application/json', class: 'visually-hidden' }),
    ),
  );
  const progress = h(
    'div',
    { id: 'import-progress', class: 'import-progress', hidden: true },
    h('progress', { id: 'import-progress-bar', max: 1, value: 0 }),
    h('span', { id: 'import-progress-text', role: 'status', 'aria-live': 'polite' }),
    h('button', { type: 'button', id: 'import-cancel', disabled: true }, tx('import.cancel')), // enabled while a run goes
  );
  const member = h(
    'div',
    { id: 'import-member-wrap', hidden: true },
    h(
      'label',
      { class: 'inline' },
      txn('import.member'),
      ' ',
      h('select', { id: 'import-member', translate: 'no', 'aria-label': tn('import.member') }),
    ),
    h('button', { type: 'button', id: 'import-member-go', class: 'primary' }, tx('import.memberGo')),
  );
  const numberBox = (id, labelKey, ariaKey) =>
    h(
      'label',
      { class: 'inline' },
      tx(labelKey),
      ' ',
      h('input', {
        type: 'number',
        id,
        step: 'any',
        class: 'num-box small',
        'aria-label': t(ariaKey),
        dataset: tAttr([['aria-label', ariaKey]]),
      }),
    );
  const toolbar = h(
    'div',
    { class: 'import-toolbar', id: 'import-toolbar', hidden: true },
    h(
      'label',
      { class: 'inline' },
      tx('import.sortBy'),
      ' ',
      h(
        'select',
        { id: 'import-sort', 'aria-label': t('import.sortAria'), dataset: tAttr([['aria-label', 'import.sortAria']]) },
        Object.entries(SORT_KEYS).map(([k, v]) => optOf(k, v)),
      ),
    ),
    h('label', { class: 'inline' }, h('input', { type: 'checkbox', id: 'import-desc' }), ' ', tx('import.desc')),
    h(
      'label',
      { class: 'inline' },
      tx('import.pattern'),
      ' ',
      h(
        'select',
        { id: 'import-filter', 'aria-label': t('import.filterAria'), dataset: tAttr([['aria-label', 'import.filterAria']]) },
        opt('', 'import.filterAll'),
        PATTERN_KINDS.map((k) => opt(k, `lab.pattern.${k}`)),
        opt(FLAGGED_FILTER, 'import.filterFlagged'),
      ),
    ),
    h(
      'label',
      { class: 'inline' },
      tx('import.rangeOn'),
      ' ',
      h(
        'select',
        { id: 'import-range', 'aria-label': t('import.rangeOnAria'), dataset: tAttr([['aria-label', 'import.rangeOnAria']]) },
        RANGE_KEYS.map((k) => optOf(k, SORT_KEYS[k])),
      ),
    ),
    numberBox('import-min', 'import.min', 'import.minAria'),
    numberBox('import-max', 'import.max', 'import.maxAria'),
    h('span', { id: 'import-count', class: 'note' }),
    h('span', { class: 'spacer' }),
    h('button', { type: 'button', id: 'export-heads-csv' }, tx('import.exportHeadsCsv')),
    h('button', { type: 'button', id: 'export-heads-json' }, tx('import.exportHeadsJson')),
  );

  mount(
    root,
    h('h2', {}, tx('import.title')),
    drop,
    options,
    h('p', { id: 'import-info', class: 'import-info' }),
    progress,
    member,
    h('div', { id: 'import-errors', class: 'error-box', role: 'alert', hidden: true }),
    h('div', { id: 'import-warnings', class: 'warn-box', hidden: true }),
    h('div', { id: 'import-notes', class: 'note import-notes', role: 'status', hidden: true }),
    h(
      'div',
      { id: 'import-logits-offer', hidden: true },
      h('button', { type: 'button', id: 'import-as-logits', class: 'primary' }, tx('import.asLogits')),
    ),
    toolbar,
    h(
      'div',
      { class: 'import-main' },
      h('div', {
        id: 'import-grid',
        class: 'import-grid',
        'aria-label': t('import.gridAria'),
        dataset: tAttr([['aria-label', 'import.gridAria']]),
      }),
      h('section', {
        id: 'import-detail',
        class: 'import-detail',
        hidden: true,
        'aria-label': t('import.detailAria'),
        dataset: tAttr([['aria-label', 'import.detailAria']]),
      }),
    ),
    h(
      'details',
      { id: 'import-layer-table', class: 'import-table', open: true, hidden: true },
      h('summary', {}, tx('import.layerTable')),
      h('div', { class: 'scroll' }),
    ),
    h(
      'details',
      { id: 'import-head-table', class: 'import-table', hidden: true },
      h('summary', {}, tx('import.headTable')),
      h('div', { class: 'scroll' }),
    ),
    h('section', {
      id: 'import-compare',
      class: 'import-compare',
      hidden: true,
      'aria-label': t('import.compare.aria'),
      dataset: tAttr([['aria-label', 'import.compare.aria']]),
    }),
  );

  return {
    fileInput,
    tokensInput,
    keyTokensInput,
    drop,
    redrawNamed: () => {
      for (const [el, key] of named) mount(el, tnData(key));
    },
  };
}
