// Words of the import view: pattern class names and labels, the names written the same in every
// language (formats, products, keys) filled into the table's placeholders, a head's name, the
// open file's description and an error's text. Pure functions of their arguments and the language.
import { TECH } from './messages.js';
import { h } from '../views/dom.js';
import { tData } from '../views/format.js';
import { wordDetail } from '../page/details.js';
import { hasKey, t } from '../i18n/i18n.js';

/** A class name: long ("previous token") or short ("previous"), in the page's language. */
export const kindName = (kind, short = false) => {
  const key = `lab.${short ? 'patternShort' : 'pattern'}.${kind}`;
  return hasKey(key) ? t(key) : kind;
};

/** Label of a pattern result: "previous token", "offset d=19", "fixed position key 7" ...;
 *  short: the class name only ("previous", "offset d=19"), for the thumbnails. */
export function patternLabel(p, { short = false } = {}) {
  const param =
    p.kind === 'offset'
      ? ` d=${p.parameter}`
      : p.kind === 'strided'
        ? ` p=${p.parameter}`
        : p.kind === 'position'
          ? t('lab.patternParam.position', { key: p.parameter })
          : '';
  return `${kindName(p.kind, short)}${param}`;
}

// Names written as they are in every language (formats, products, paths, keys): filled into the
// table's placeholders and shown as data (translate="no").
export const NAMES = {
  ...TECH,
  dtypes: 'float16/32/64',
  tools: 'CircuitsVis, BertViz',
  hf: 'Hugging Face transformers',
  tl: 'TransformerLens',
  esc: 'Esc',
};
/** t() with the NAMES filled in (as text: for attributes and option labels). */
export const tn = (key, vars = {}) => t(key, { ...NAMES, ...vars });
/** t() with the NAMES filled in as data nodes (translate="no"), for element content. */
export const tnData = (key, vars = {}, data = []) => tData(key, { ...NAMES, ...vars }, [...data, ...Object.keys(NAMES)]);

export const tokenOf = (list, i) => (list[i] === undefined ? `#${i}` : list[i]);

/** An error's text: the importer's own message translated, else the core's English message
 *  worded in the page's language when it is a known form (page/details.js), else as it is
 *  (translate="no"). */
export function errDetail(e) {
  const i = e?.i18n;
  if (i && hasKey(i.key)) return h('span', {}, tData(i.key, i.vars ?? {}, i.data ?? []));
  return h('span', {}, wordDetail(e?.message ?? String(e)));
}

const JSON_NAMES = { 'attention-json': '{"tokens", "attention"}', circuitsvis: 'CircuitsVis', bertviz: 'BertViz' };

/** The open file in one line: name, format, shape, layers, heads, tokens. */
export function describeSource(s) {
  const l = s.layout;
  const kind =
    s.format === 'npy' || s.format === 'npz'
      ? tData(s.member ? 'import.source.npyMember' : 'import.source.npy', { format: s.format, member: s.member ?? '', dtype: s.dtype }, [
          'member',
          'format',
          'dtype',
        ])
      : // The JSON layouts by the names their docs use (the core's format ids: attention-json, ...).
        tData('import.source.json', { format: JSON_NAMES[s.format] ?? s.format });
  const cross = l.nQ !== l.nK ? t('import.source.cross', { nQ: l.nQ, nK: l.nK }) : ` × ${l.nQ} × ${l.nK}`;
  const [q, k] = [s.queryTokens?.length ?? 0, s.keyTokens.length];
  const tokens =
    !k && !q
      ? t('import.source.noTokens')
      : l.nQ !== l.nK
        ? s.tokensFrom
          ? tData('import.source.crossTokensFrom', { q, k, file: s.tokensFrom }, ['file'])
          : t('import.source.crossTokensInFile', { q, k })
        : !k
          ? t('import.source.noTokens')
          : s.tokensFrom
            ? tData('import.source.tokensFrom', { n: s.keyTokens.length, file: s.tokensFrom }, ['file'])
            : t('import.source.tokensInFile', { n: s.keyTokens.length });
  return tData(
    'import.source',
    {
      name: s.name,
      kind,
      shape: `[${s.shape.join(', ')}]`,
      layers: t('import.source.layers', { n: l.layers }),
      heads: t('import.source.heads', { n: l.heads }),
      cross,
      tokens,
    },
    ['name', 'kind', 'tokens'],
  );
}

const isWhole = (x) => /^\d+$/.test(String(x ?? ''));

/**
 * "L4 H11": the model's layer number (r.layer, numbered by store.numberHead: the file's
 * `layers`, .npz member names or the typed list) and the head's, or the file's own label of the
 * head when it is a name ("L9H9"). The same name on cards, titles, tables and exports.
 */
export function headName(source, r) {
  const label = source?.headLabels?.[r.head];
  const layer = source?.layerLabels?.[r.layerIndex ?? r.layer];
  if (label && !isWhole(label)) return layer && !isWhole(layer) && source.layout.layers > 1 ? `${layer} ${label}` : label;
  return `L${r.layer} H${isWhole(label) ? label : r.head}`;
}

/** The head's number in the per-head table: the file's label of the head ("heads": [5], a
 * notebook's heads=[5]) when it gives one, else its index in the file. */
export function headNumber(source, r) {
  const label = source?.headLabels?.[r.head];
  if (label === undefined || label === null || label === '') return r.head;
  return isWhole(label) ? Number(label) : label;
}

/** The label of a layer row: the file's name of the layer when it is not a number, else "L4". */
export function layerName(source, layerIndex, layerNumber) {
  const label = source?.layerLabels?.[layerIndex];
  return label && !isWhole(label) ? label : `L${layerNumber}`;
}
