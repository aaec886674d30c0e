// The lines token view of an imported layer (web/import/tokens.js; docs/import.md "Token views"),
// as BertViz's head view reads a layer: queries in a left column, keys in a right one, a line per
// (head, query, key) weighted by the weight, one colour per head; hover or move to a token to show
// only its lines; heads toggled with their checkboxes. Each line carries its weight in data-weight.
// Its SVG export is the picture with a legend of the heads shown.
import { h, mount, svg } from '../views/dom.js';
import { elide } from '../views/axes.js';
import { showToken } from '../views/format.js';
import { escapeXml } from '../export/files.js';
import { t } from '../i18n/i18n.js';

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

export function linesView(body, o, st, tokQ, tokK) {
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
