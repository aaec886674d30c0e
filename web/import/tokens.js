// Token views of an imported layer (docs/import.md "Token views"), as CircuitsVis's coloured tokens and BertViz's
// head view read a head:
//   text:  the tokens as text; choose one (hover, click, or the arrow keys) and the others are
//          shaded by its attention weight: the row of the chosen query (what it attends to) or
//          the column of the chosen key (what attends to it); one head or the core's mean over
//          the layer's heads.
//   lines: queries in a left column, keys in a right one, a line per (head, query, key) weighted
//          by the weight, one colour per head; hover or move to a token to show only its lines;
//          heads toggled with their checkboxes.
// A function of the weights it is given (the core's, from the import worker): no attention maths
// here beyond picking a row or a column and scaling a colour. Token strings are text (text nodes,
// never markup). Every shaded token and every line carries its weight in data-weight (a float32
// value written in full) so tests and users read the numbers behind the colours.
import { h, mount, svg } from '../views/dom.js';
import { elide } from '../views/axes.js';
import { showToken, tData } from '../views/format.js';
import { escapeXml } from '../export/files.js';
import { t } from '../i18n/i18n.js';

/** Largest side (queries or keys) the token views draw (the core's full-resolution thumbnail). */
export const TOKEN_VIEW_MAX = 1024;

// One colour per head: a colour-blind-aware categorical set (Okabe-Ito, then Tol's muted), then
// evenly spaced hues for layers of more heads.
const HEAD_COLOURS = [
  '#0072b2',
  '#e69f00',
  '#009e73',
  '#cc79a7',
  '#d55e00',
  '#56b4e9',
  '#882255',
  '#117733',
  '#999933',
  '#332288',
  '#aa4499',
  '#44aa99',
];
export const headColour = (k) => HEAD_COLOURS[k] ?? `hsl(${Math.round((k * 137.508) % 360)} 65% 42%)`;

const ROW_PX = 16; // height of a token in the lines view
const num = (x) => (Number.isFinite(x) ? String(Number(x.toPrecision(4))) : t('views.notVisible'));

/** The weights of row i (direction 'query') or column i ('key') of an n_q x n_k matrix. */
function pick(w, nQ, nK, i, direction) {
  if (direction === 'query') return w.subarray(i * nK, (i + 1) * nK);
  const out = new Float32Array(nQ);
  for (let r = 0; r < nQ; r++) out[r] = w[r * nK + i];
  return out;
}

/**
 * Builds the token views into `container`.
 * @param {HTMLElement} container
 * @param {object} o
 * @param {string[]} o.queryTokens     n_q tokens (missing ones are shown as their index)
 * @param {string[]} o.keyTokens       n_k tokens
 * @param {number} o.nQ
 * @param {number} o.nK
 * @param {{head: number, label: string, weights: Float32Array|null}[]} o.heads  the layer's heads
 *   (weights n_q * n_k row-major, NaN = not visible; null = not computed)
 * @param {Float32Array|null} o.mean   the core's mean over the computed heads
 * @param {number} o.selectedHead      the head shown first in the text view (-1 = the mean)
 * @param {string} o.title             the layer's name, for the exports
 * @param {(string|Node)[]} [o.heading] the heading as nodes (names as data, translate="no")
 * @param {(name: string, svg: string) => void} o.onExport  downloads an exported SVG
 * @returns {{state: object}} the views' current choice (tests and the exports read it)
 */
export function renderTokenViews(container, o) {
  const same = o.nQ === o.nK && o.queryTokens.every((q, i) => q === o.keyTokens[i]);
  const tokQ = (i) => o.queryTokens[i] ?? String(i);
  const tokK = (j) => o.keyTokens[j] ?? String(j);
  const st = (container.tokenState ??= {
    tab: 'text',
    which: o.selectedHead,
    direction: 'query',
    focus: null,
    locked: false,
    side: 'query',
  });
  if (!o.heads.some((x) => x.weights)) {
    mount(container, h('p', { class: 'note' }, t('views.tokens.notComputed', { why: '' })));
    return { state: st };
  }
  if (st.which >= 0 && !o.heads[st.which]?.weights) st.which = o.mean ? -1 : o.heads.findIndex((x) => x.weights);
  const tabs = h(
    'div',
    { class: 'token-tabs', role: 'tablist', 'aria-label': t('views.tokens.tabs') },
    ['text', 'lines'].map((id) =>
      h(
        'button',
        {
          type: 'button',
          role: 'tab',
          id: `token-tab-${id}`,
          'aria-selected': String(st.tab === id),
          onclick: () => {
            st.tab = id;
            st.focus = null;
            st.locked = false;
            renderTokenViews(container, o);
          },
        },
        t(`views.tokens.${id}`),
      ),
    ),
  );
  const body = h('div', { class: 'token-body', role: 'tabpanel', 'aria-labelledby': `token-tab-${st.tab}` });
  const exportButton = h('button', { type: 'button', id: 'token-export-svg' }, t('views.tokens.svg'));
  const heading = o.heading ?? tData('views.tokens.title', { name: o.title });
  mount(container, h('h4', {}, heading), tabs, body, h('div', { class: 'export-row' }, exportButton));
  const api = st.tab === 'text' ? textView(body, o, st, same, tokQ, tokK) : linesView(body, o, st, tokQ, tokK);
  exportButton.onclick = () => o.onExport(st.tab, api.toSvg());
  container.tokenApi = api;
  return { state: st };
}

// --- text view ------------------------------------------------------------------------------

function textView(body, o, st, same, tokQ, tokK) {
  const weightsOf = () => (st.which < 0 ? o.mean : o.heads[st.which].weights);
  const which = h(
    'select',
    {
      id: 'token-which',
      onchange: (ev) => {
        st.which = Number(ev.target.value);
        paint();
      },
    },
    o.mean
      ? h('option', { value: '-1', selected: st.which < 0 }, t('views.tokens.average', { n: o.heads.filter((x) => x.weights).length }))
      : null,
    o.heads.map((x, k) => (x.weights ? h('option', { value: String(k), selected: st.which === k }, x.label) : null)),
  );
  const direction = h(
    'select',
    {
      id: 'token-direction',
      onchange: (ev) => {
        st.direction = ev.target.value;
        st.focus = null;
        st.locked = false;
        build();
      },
    },
    h('option', { value: 'query', selected: st.direction === 'query' }, t('views.tokens.asQuery')),
    h('option', { value: 'key', selected: st.direction === 'key' }, t('views.tokens.asKey')),
  );
  const readout = h('p', { class: 'readout', id: 'token-readout', 'aria-live': 'polite' });
  const legend = h('p', { class: 'note', id: 'token-legend' });
  const texts = h('div', { class: 'token-texts' });
  mount(
    body,
    h('p', { class: 'note' }, tData('views.tokens.textHelp', { esc: 'Escape' })),
    h(
      'div',
      { class: 'token-controls' },
      h('label', { class: 'inline' }, t('views.tokens.which'), ' ', which),
      h('label', { class: 'inline' }, t('views.tokens.direction'), ' ', direction),
    ),
    texts,
    readout,
    legend,
  );
  // The chooser: the tokens one picks (queries when shading a row, keys when shading a column);
  // the shaded: the other side. For self-attention both are the same paragraph.
  let chooser;
  let shaded;
  let chooserSpans;
  let shadedSpans;
  function paragraph(id, n, tok, role) {
    const spans = [];
    const p = h('p', {
      class: `token-text ${role}`,
      id,
      translate: 'no',
      tabindex: role === 'chooser' ? '0' : null,
      role: role === 'chooser' ? 'listbox' : null,
      'aria-label': t('views.tokens.textAria', { n }),
    });
    for (let i = 0; i < n; i++) {
      const span = h(
        'span',
        { class: 'tok', id: `${id}-${i}`, role: role === 'chooser' ? 'option' : null, dataset: { i } },
        showToken(tok(i)),
      );
      spans.push(span);
      p.append(span);
    }
    return { p, spans };
  }
  function build() {
    const rowMode = st.direction === 'query';
    const nChoose = rowMode ? o.nQ : o.nK;
    const tokChoose = rowMode ? tokQ : tokK;
    const c = paragraph('token-chooser', nChoose, tokChoose, 'chooser');
    chooser = c.p;
    chooserSpans = c.spans;
    if (same) {
      shaded = chooser;
      shadedSpans = chooserSpans;
      mount(texts, chooser);
    } else {
      const s = paragraph('token-shaded', rowMode ? o.nK : o.nQ, rowMode ? tokK : tokQ, 'shaded');
      shaded = s.p;
      shadedSpans = s.spans;
      mount(texts, chooser, shaded);
    }
    const at = (ev) => {
      const span = ev.target.closest?.('.tok');
      return span && chooser.contains(span) ? Number(span.dataset.i) : null;
    };
    chooser.addEventListener('mouseover', (ev) => {
      const i = at(ev);
      if (i !== null && !st.locked) focusToken(i);
    });
    chooser.addEventListener('click', (ev) => {
      const i = at(ev);
      if (i === null) return;
      st.locked = !(st.locked && st.focus === i);
      focusToken(i);
    });
    chooser.addEventListener('keydown', (ev) => {
      const n = chooserSpans.length;
      const cur = st.focus ?? -1;
      const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1, Home: -Infinity, End: Infinity }[ev.key];
      if (step !== undefined) {
        ev.preventDefault();
        st.locked = false;
        focusToken(Math.min(n - 1, Math.max(0, cur < 0 ? 0 : cur + step)));
      } else if (ev.key === 'Enter' || ev.key === ' ') {
        ev.preventDefault();
        st.locked = !st.locked;
        focusToken(Math.max(0, cur));
      } else if (ev.key === 'Escape') {
        st.locked = false;
      }
    });
    chooser.addEventListener('focus', () => {
      if (st.focus === null) focusToken(0);
    });
    if (st.focus !== null && st.focus < chooserSpans.length) focusToken(st.focus);
    else paint();
  }
  function focusToken(i) {
    if (st.focus !== null) chooserSpans[st.focus]?.classList.remove('focus');
    st.focus = i;
    const span = chooserSpans[i];
    span.classList.add('focus');
    chooser.setAttribute('aria-activedescendant', span.id);
    paint();
  }
  function paint() {
    const rowMode = st.direction === 'query';
    if (st.focus === null) {
      for (const s of shadedSpans) {
        s.style.removeProperty('background-color');
        s.style.removeProperty('color');
        delete s.dataset.weight;
        s.removeAttribute('title');
      }
      readout.textContent = t('views.tokens.none');
      legend.textContent = '';
      return;
    }
    const w = pick(weightsOf(), o.nQ, o.nK, st.focus, st.direction);
    let hi = 0;
    for (const x of w) if (x > hi) hi = x;
    const scale = hi > 0 ? hi : 1;
    const tok = rowMode ? tokK : tokQ;
    for (let j = 0; j < shadedSpans.length; j++) {
      const s = shadedSpans[j];
      const x = w[j];
      s.dataset.weight = Number.isFinite(x) ? String(x) : '';
      if (!Number.isFinite(x)) {
        s.style.setProperty('background-color', '#dde2e8');
        s.style.removeProperty('color');
      } else {
        const a = Math.min(1, x / scale);
        s.style.setProperty('background-color', `rgba(214, 80, 10, ${(a * 0.9).toFixed(3)})`);
        if (a > 0.55) s.style.setProperty('color', '#fff');
        else s.style.removeProperty('color');
      }
      s.title = t('views.tokens.tokenName', { i: j, token: `'${showToken(tok(j))}'`, w: num(x) });
    }
    const chosen = rowMode ? tokQ(st.focus) : tokK(st.focus);
    readout.textContent = t(rowMode ? 'views.tokens.focused' : 'views.tokens.focusedKey', { i: st.focus, token: `'${showToken(chosen)}'` });
    legend.textContent = t('views.tokens.legend', { hi: num(hi) });
  }
  build();
  return {
    toSvg: () => textSvg(o, st, shadedSpans, chooserSpans, same),
    focus: focusToken,
  };
}

/** The text view as an SVG figure: the tokens flowed into lines, shaded as on screen. */
function textSvg(o, st, shadedSpans, chooserSpans, same) {
  const width = 900;
  const parts = [];
  let x = 12;
  let y = 64;
  const line = 22;
  const flow = (spans, focusIdx) => {
    for (let i = 0; i < spans.length; i++) {
      const s = spans[i];
      const text = s.textContent;
      const w = Math.max(10, [...text].length * 7.4 + 6);
      if (x + w > width - 12) {
        x = 12;
        y += line;
      }
      const bg = s.style.getPropertyValue('background-color');
      const fg = s.style.getPropertyValue('color') || '#111';
      const weight = s.dataset.weight ?? '';
      parts.push(
        `<g><title>${escapeXml(`${i} ${text}${weight ? `: ${weight}` : ''}`)}</title>${bg ? `<rect x="${x}" y="${y - 15}" width="${w}" height="19" rx="2" fill="${bg}"/>` : ''}${
          i === focusIdx ? `<rect x="${x}" y="${y - 15}" width="${w}" height="19" rx="2" fill="none" stroke="#111" stroke-width="2"/>` : ''
        }<text x="${x + 3}" y="${y}" fill="${fg}" xml:space="preserve">${escapeXml(text)}</text></g>`,
      );
      x += w + 2;
    }
  };
  flow(chooserSpans, st.focus);
  if (!same) {
    x = 12;
    y += line * 1.6;
    flow(shadedSpans, -1);
  }
  const which = st.which < 0 ? t('views.tokens.average', { n: o.heads.filter((k) => k.weights).length }) : o.heads[st.which].label;
  // The page's readout says what is shown; with no token chosen it is an instruction to the reader
  // of the page ("hover one"), which a figure must not carry.
  const sub =
    st.focus === null
      ? [t('views.tokens.svgNone')]
      : [document.getElementById('token-readout')?.textContent, document.getElementById('token-legend')?.textContent].filter(Boolean);
  const height = y + 40;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="ui-monospace, 'DejaVu Sans Mono', monospace" font-size="12">
<rect width="100%" height="100%" fill="#fff"/>
<text x="12" y="22" font-size="15" font-weight="600" font-family="system-ui, sans-serif">${escapeXml(`${o.title} · ${which}`)}</text>
<text x="12" y="40" fill="#444" font-family="system-ui, sans-serif">${escapeXml(sub.join(' · '))}</text>
${parts.join('\n')}
<text x="12" y="${height - 10}" font-size="10" fill="#555" font-family="system-ui, sans-serif">${escapeXml(t('views.madeWith'))}</text>
</svg>
`;
}

// --- lines view -----------------------------------------------------------------------------

function linesView(body, o, st, tokQ, tokK) {
  const shown = (st.shownHeads ??= o.heads.map((x) => Boolean(x.weights)));
  const n = Math.max(o.nQ, o.nK);
  const labelW = Math.min(
    160,
    Math.max(40, Math.max(...Array.from({ length: n }, (_, i) => [...elide(i < o.nQ ? tokQ(i) : '', 16)].length, 1), 1) * 7 + 10),
  );
  const gap = 220;
  const width = labelW * 2 + gap + 20;
  const height = n * ROW_PX + 20;
  const xL = labelW + 10;
  const xR = xL + gap;
  const yOf = (i) => 14 + i * ROW_PX;
  // Without a focused token: every line of at least `floor` (all lines above 0.02 up to 64 tokens).
  const floor = n <= 64 ? 0.02 : 0.25;
  const checks = h(
    'div',
    { class: 'token-heads', role: 'group', 'aria-label': t('views.tokens.which') },
    o.heads.map((x, k) =>
      x.weights
        ? h(
            'label',
            { class: 'inline head-check' },
            h('input', {
              type: 'checkbox',
              id: `token-head-${k}`,
              checked: shown[k],
              onchange: (ev) => {
                shown[k] = ev.target.checked;
                draw();
              },
            }),
            h('span', { class: 'swatch', style: { 'background-color': headColour(k) } }),
            ` ${x.label}`,
          )
        : null,
    ),
  );
  const readout = h('p', { class: 'readout', id: 'token-lines-readout', 'aria-live': 'polite' });
  const linesG = svg('g', { class: 'lines' });
  const left = svg('g', { class: 'col queries' });
  const right = svg('g', { class: 'col keys' });
  for (let i = 0; i < o.nQ; i++) {
    left.append(
      svg(
        'text',
        { x: xL - 6, y: yOf(i) + 4, 'text-anchor': 'end', dataset: { side: 'query', i } },
        svg('title', {}, `${i} ${tokQ(i)}`),
        elide(tokQ(i), 16),
      ),
    );
  }
  for (let j = 0; j < o.nK; j++) {
    right.append(
      svg('text', { x: xR + 6, y: yOf(j) + 4, dataset: { side: 'key', i: j } }, svg('title', {}, `${j} ${tokK(j)}`), elide(tokK(j), 16)),
    );
  }
  const pic = svg(
    'svg',
    {
      id: 'token-lines',
      width,
      height,
      viewBox: `0 0 ${width} ${height}`,
      tabindex: 0,
      role: 'img',
      translate: 'no',
      'aria-label': t('views.tokens.linesAria', { nQ: o.nQ, nK: o.nK }),
      'font-family': 'ui-monospace, monospace',
      'font-size': 11,
    },
    linesG,
    left,
    right,
  );
  const note = h('p', { class: 'note', id: 'token-lines-note' });
  mount(
    body,
    h('p', { class: 'note' }, t('views.tokens.linesHelp')),
    checks,
    note,
    readout,
    h('div', { class: 'token-lines-scroll' }, pic),
  );

  function draw() {
    const frag = document.createDocumentFragment();
    const f = st.focus;
    for (let k = 0; k < o.heads.length; k++) {
      const w = o.heads[k].weights;
      if (!w || !shown[k]) continue;
      const colour = headColour(k);
      const g = svg('g', { stroke: colour, dataset: { head: k } });
      // Lines hold numbers only (no token text), so they are written as markup in one go: a
      // hover at 512 tokens draws thousands of them.
      const parts = [];
      const add = (i, j, x) => {
        parts.push(
          `<line x1="${xL}" y1="${yOf(i)}" x2="${xR}" y2="${yOf(j)}" stroke-width="${(0.5 + 3 * x).toFixed(2)}" stroke-opacity="${Math.min(1, 0.15 + 0.85 * x).toFixed(3)}" data-q="${i}" data-k="${j}" data-weight="${x}"/>`,
        );
      };
      if (f === null) {
        for (let i = 0; i < o.nQ; i++)
          for (let j = 0; j < o.nK; j++) {
            const x = w[i * o.nK + j];
            if (x >= floor) add(i, j, x);
          }
      } else if (f.side === 'query') {
        for (let j = 0; j < o.nK; j++) {
          const x = w[f.i * o.nK + j];
          if (x > 0) add(f.i, j, x);
        }
      } else {
        for (let i = 0; i < o.nQ; i++) {
          const x = w[i * o.nK + f.i];
          if (x > 0) add(i, f.i, x);
        }
      }
      g.innerHTML = parts.join('');
      frag.append(g);
    }
    linesG.replaceChildren(frag);
    for (const el of pic.querySelectorAll('text.focus')) el.classList.remove('focus');
    if (f) {
      pic.querySelector(`text[data-side="${f.side}"][data-i="${f.i}"]`)?.classList.add('focus');
      readout.textContent = t(f.side === 'query' ? 'views.tokens.focused' : 'views.tokens.focusedKey', {
        i: f.i,
        token: `'${showToken(f.side === 'query' ? tokQ(f.i) : tokK(f.i))}'`,
      });
      note.textContent = '';
    } else {
      readout.textContent = t('views.tokens.none');
      note.textContent = t('views.tokens.minWeight', { w: floor });
    }
  }
  // How the token was chosen: a hover is transient (the export leaves it out), a click or a key is not.
  let focusBy = null;
  const focusAt = (side, i, by = 'key') => {
    focusBy = by;
    st.lineFocus = { side, i };
    st.focus = st.lineFocus;
    draw();
  };
  st.lineFocus = null;
  pic.addEventListener('mouseover', (ev) => {
    const el = ev.target.closest?.('text[data-side]');
    if (el && !st.locked) focusAt(el.dataset.side, Number(el.dataset.i), 'hover');
  });
  pic.addEventListener('click', (ev) => {
    const el = ev.target.closest?.('text[data-side]');
    if (!el) return;
    st.locked = !st.locked;
    focusAt(el.dataset.side, Number(el.dataset.i), st.locked ? 'click' : 'hover');
  });
  pic.addEventListener('keydown', (ev) => {
    const f = st.lineFocus ?? { side: 'query', i: -1 };
    const max = (f.side === 'query' ? o.nQ : o.nK) - 1;
    if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
      ev.preventDefault();
      focusAt(f.side, Math.min(max, Math.max(0, f.i + (ev.key === 'ArrowDown' ? 1 : -1))));
    } else if (ev.key === 'ArrowLeft' || ev.key === 'ArrowRight') {
      ev.preventDefault();
      const side = ev.key === 'ArrowLeft' ? 'query' : 'key';
      focusAt(side, Math.min((side === 'query' ? o.nQ : o.nK) - 1, Math.max(0, f.i)));
    } else if (ev.key === 'Escape') {
      st.lineFocus = null;
      st.focus = null;
      st.locked = false;
      draw();
    }
  });
  draw();
  return {
    toSvg: () => {
      // A token only hovered is not part of the figure: the lines are drawn without it for the copy.
      const hovered = focusBy === 'hover' && st.focus ? st.focus : null;
      if (hovered) {
        st.focus = null;
        draw();
      }
      const copy = pic.cloneNode(true);
      const said = readout.textContent;
      if (hovered) {
        st.focus = hovered;
        draw();
      }
      copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
      copy.removeAttribute('tabindex');
      const bg = svg('rect', { width: '100%', height: '100%', fill: '#fff' });
      copy.prepend(bg);
      // The legend wrapped to the figure's width: one item per head shown, each placed by an
      // estimate of its width (12 px sans-serif: ~7.5 px a character, the swatch and a gap).
      const items = [];
      let [x, row] = [10, 0];
      o.heads.forEach((hd, k) => {
        if (!hd.weights || !shown[k]) return;
        const w = 24 + 7.5 * [...hd.label].length;
        if (x > 10 && x + w > width - 10) [x, row] = [10, row + 1];
        items.push(`<text x="${x}" y="${height + 16 + 18 * row}" fill="${headColour(k)}">■ ${escapeXml(hd.label)}</text>`);
        x += w;
      });
      const below = height + 18 * (row + 1);
      const head = `<g font-family="system-ui, sans-serif">${items.join('')}</g><text x="10" y="${below + 16}" font-size="10" fill="#555" font-family="system-ui, sans-serif">${escapeXml(`${o.title} · ${said} · ${t('views.madeWith')}`)}</text>`;
      copy.setAttribute('height', String(below + 26));
      copy.setAttribute('viewBox', `0 0 ${width} ${below + 26}`);
      return `${new XMLSerializer().serializeToString(copy).replace('</svg>', `${head}</svg>`)}\n`;
    },
    focus: (i) => focusAt('query', i),
  };
}
