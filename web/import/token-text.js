// The text token view of an imported layer (web/import/tokens.js; docs/import.md "Token views"),
// as CircuitsVis's coloured tokens read a head: the tokens as text; choose one (hover, click, or
// the arrow keys) and the others are shaded by its attention weight: the row of the chosen query
// (what it attends to) or the column of the chosen key (what attends to it); one head or the
// core's mean over the layer's heads. Each shaded token carries its weight in data-weight. Its
// SVG export flows the tokens into lines, shaded as on screen.
import { h, mount } from '../views/dom.js';
import { showToken, tData } from '../views/format.js';
import { escapeXml } from '../export/files.js';
import { t } from '../i18n/i18n.js';

const num = (x) => (Number.isFinite(x) ? String(Number(x.toPrecision(4))) : t('views.notVisible'));

/** The weights of row i (direction 'query') or column i ('key') of an n_q x n_k matrix. */
function pick(w, nQ, nK, i, direction) {
  if (direction === 'query') return w.subarray(i * nK, (i + 1) * nK);
  const out = new Float32Array(nQ);
  for (let r = 0; r < nQ; r++) out[r] = w[r * nK + i];
  return out;
}

export function textView(body, o, st, same, tokQ, tokK) {
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
