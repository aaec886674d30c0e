// The lesson's 2-D key plane (d_k = 2): the selected row's query q as an arrow and every key as a
// point that can be dragged with the mouse or moved with the arrow keys when focused (0.1 per
// press, 0.5 with Shift; Home puts it back where the step started). Each point is a focusable
// slider-like element whose aria-valuetext gives its coordinates, score and weight; a status line
// repeats the last move for screen readers.
//
// API
//   createPlane({onMove(j, [x, y], {final}), t}) -> {el, update(state, results), dragging()}
//     onMove: called while dragging (final false) and on release or key press (final true) with
//     coordinates rounded to 0.05; the caller commits them.
//   DOM ids: #lesson-plane (SVG), #lesson-key-<j> (the key points), #lesson-query (the query arrow),
//   #lesson-plane-status (the status line).
import { h, svg } from '../views/dom.js';
import { fmtMetric, showToken } from '../views/format.js';

const SIZE = 260;
const PAD = 26;
const SNAP = 0.05;
const STEP = 0.1;
const BIG_STEP = 0.5;
const LIMIT = 10; // keys stay within [-LIMIT, LIMIT]^2

const snap = (x) => Math.max(-LIMIT, Math.min(LIMIT, Math.round(x / SNAP) * SNAP));
const clean = (x) => Number(x.toFixed(2)) + 0; // no -0, no 0.30000000000000004
const f = (x) => fmtMetric(x, 3);

/** The box of an SVG text of `size` px at (x, y) (its baseline), estimated from its length. */
function textBox(x, y, text, anchor, size) {
  const w = [...text].length * size * 0.62 + 3;
  const left = anchor === 'end' ? x - w : anchor === 'middle' ? x - w / 2 : x;
  return { x: left, y: y - size * 1.0, w, h: size * 1.3 };
}
const overlaps = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
const overlapArea = (a, b) =>
  Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x)) * Math.max(0, Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y));

export function createPlane({ onMove, onHome, t }) {
  let range = 1.5; // half-width of the shown square in data units (grows to fit the points)
  let drag = null; // {j, pointerId}
  let last = null; // {state, results}
  const status = h('p', { id: 'lesson-plane-status', class: 'note lesson-plane-status', role: 'status', 'aria-live': 'polite' });
  const root = svg('svg', {
    id: 'lesson-plane',
    class: 'lesson-plane',
    viewBox: `0 0 ${SIZE} ${SIZE}`,
    width: SIZE,
    height: SIZE,
    role: 'group',
    'aria-label': t('lesson.plane.label'),
  });
  const el = h('div', { class: 'lesson-plane-wrap' }, root, status);

  const px = (x) => SIZE / 2 + (x / range) * (SIZE / 2 - PAD);
  const py = (y) => SIZE / 2 - (y / range) * (SIZE / 2 - PAD);
  const fromClient = (ev) => {
    const box = root.getBoundingClientRect();
    const sx = ((ev.clientX - box.left) / box.width) * SIZE;
    const sy = ((ev.clientY - box.top) / box.height) * SIZE;
    return [snap(((sx - SIZE / 2) / (SIZE / 2 - PAD)) * range), snap(((SIZE / 2 - sy) / (SIZE / 2 - PAD)) * range)];
  };

  function keyText(state, results, j) {
    const k = state.heads[state.head].K[j];
    const tr = state.row;
    return t('lesson.plane.keyText', {
      key: showToken(state.tokens.keys[j]),
      x: clean(k[0]),
      y: clean(k[1]),
      score: f(results.scores[tr][j]),
      weight: f(results.weights[tr][j]),
    });
  }

  function draw() {
    const { state, results } = last;
    const hd = state.heads[state.head];
    const q = hd.Q[state.row];
    const points = [...hd.K, q];
    const needed = Math.max(1.5, ...points.map((p) => Math.max(Math.abs(p[0]), Math.abs(p[1])) * 1.15));
    if (!drag) range = Math.ceil(needed * 2) / 2; // never rescale under the pointer
    const ticks = [];
    for (let v = -Math.floor(range); v <= Math.floor(range); v++) if (v !== 0) ticks.push(v);
    const focusedId = root.ownerDocument.activeElement?.id;
    // Labels never overlap (tests/browser/touch_targets.test.js): the axis names are placed first,
    // then each key's label at the first free spot around its dot, the query's label, and the tick
    // numbers that do not touch any of them.
    const taken = [];
    const free = (b) => b.x >= 0 && b.x + b.w <= SIZE && b.y >= 0 && b.y + b.h <= SIZE && !taken.some((o) => overlaps(o, b));
    const axisX = { x: SIZE - PAD / 2, y: py(0) - 5, anchor: 'end', text: 'x₁' };
    const axisY = { x: px(0) + 5, y: PAD / 2 + 8, anchor: 'start', text: 'x₂' };
    for (const a of [axisX, axisY]) taken.push(textBox(a.x, a.y, a.text, a.anchor, 10));
    const dots = hd.K.map((k, j) => {
      const r = 5 + 9 * results.weights[state.row][j];
      return { cx: px(k[0]), cy: py(k[1]), r };
    });
    for (const d of dots) taken.push({ x: d.cx - d.r, y: d.cy - d.r, w: 2 * d.r, h: 2 * d.r });
    const place = (cx, cy, r, text, size) => {
      const spots = [];
      for (const g of [r + 3, r + 14, r + 28]) {
        spots.push([g, -g, 'start'], [g, g + size, 'start'], [-g, -g, 'end'], [-g, g + size, 'end']);
        spots.push([0, -g - 2, 'middle'], [0, g + size + 2, 'middle']);
      }
      let best = null;
      for (const [dx, dy, anchor] of spots) {
        const b = textBox(cx + dx, cy + dy, text, anchor, size);
        if (free(b)) {
          taken.push(b);
          return { x: cx + dx, y: cy + dy, anchor };
        }
        // Else the spot inside the plane that covers the least of what is already placed.
        const inside = b.x >= 0 && b.x + b.w <= SIZE && b.y >= 0 && b.y + b.h <= SIZE;
        const cover = taken.reduce((acc, o) => acc + overlapArea(o, b), 0) + (inside ? 0 : 1e6);
        if (!best || cover < best.cover) best = { cover, b, at: { x: cx + dx, y: cy + dy, anchor } };
      }
      taken.push(best.b);
      return best.at;
    };
    const keyLabels = hd.K.map((k, j) => {
      const text = `${showToken(state.tokens.keys[j])} ${f(results.weights[state.row][j])}`;
      return { text, ...place(dots[j].cx, dots[j].cy, dots[j].r, text, 11) };
    });
    const qText = `q = (${clean(q[0])}, ${clean(q[1])})`;
    const qLabel = { text: qText, ...place(px(q[0]), py(q[1]), 6, qText, 11) };
    const tickLabels = [];
    for (const v of ticks) {
      for (const [x, y, anchor] of [
        [px(v), py(0) + 13, 'middle'],
        [px(0) - 5, py(v) + 4, 'end'],
      ]) {
        const b = textBox(x, y, String(v), anchor, 10);
        if (!free(b)) continue;
        taken.push(b);
        tickLabels.push(svg('text', { x, y, class: 'lesson-tick', 'text-anchor': anchor }, String(v)));
      }
    }
    root.replaceChildren(
      ...[
        svg(
          'defs',
          {},
          svg(
            'marker',
            { id: 'lesson-arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
            svg('path', { d: 'M0,0 L10,5 L0,10 z', class: 'lesson-arrow-head' }),
          ),
        ),
        ticks.map((v) => [
          svg('line', { x1: px(v), x2: px(v), y1: PAD / 2, y2: SIZE - PAD / 2, class: 'lesson-grid' }),
          svg('line', { y1: py(v), y2: py(v), x1: PAD / 2, x2: SIZE - PAD / 2, class: 'lesson-grid' }),
        ]),
        svg('line', { x1: PAD / 2, x2: SIZE - PAD / 2, y1: py(0), y2: py(0), class: 'lesson-axis' }),
        svg('line', { y1: PAD / 2, y2: SIZE - PAD / 2, x1: px(0), x2: px(0), class: 'lesson-axis' }),
        tickLabels,
        [axisX, axisY].map((a) =>
          svg('text', { x: a.x, y: a.y, class: 'lesson-tick lesson-axis-label', 'text-anchor': a.anchor, translate: 'no' }, a.text),
        ),
        svg(
          'g',
          { id: 'lesson-query', class: 'lesson-query', 'aria-hidden': 'true' },
          svg('line', { x1: px(0), y1: py(0), x2: px(q[0]), y2: py(q[1]), 'marker-end': 'url(#lesson-arrow)' }),
          svg('text', { x: qLabel.x, y: qLabel.y, 'text-anchor': qLabel.anchor, translate: 'no', class: 'lesson-query-label' }, qText),
        ),
        hd.K.map((k, j) => {
          const weight = results.weights[state.row][j];
          const visible = results.visible[state.row][j];
          const g = svg(
            'g',
            {
              id: `lesson-key-${j}`,
              class: `lesson-key${visible ? '' : ' masked'}`,
              tabindex: 0,
              role: 'slider',
              'aria-roledescription': t('lesson.plane.pointRole'),
              'aria-label': t('lesson.plane.keyName', { key: showToken(state.tokens.keys[j]) }),
              'aria-valuemin': -LIMIT,
              'aria-valuemax': LIMIT,
              'aria-valuenow': clean(k[0]),
              'aria-valuetext': keyText(state, results, j),
              transform: `translate(${px(k[0])} ${py(k[1])})`,
              dataset: { x: String(k[0]), y: String(k[1]) },
            },
            // A larger transparent target for the pointer; the radius shows the weight.
            svg('circle', { r: 22, class: 'lesson-key-hit' }), // 44 px across: a touch target (WCAG 2.5.5)
            svg('circle', { r: 5 + 9 * weight, class: 'lesson-key-dot' }),
            svg(
              'text',
              {
                x: keyLabels[j].x - dots[j].cx,
                y: keyLabels[j].y - dots[j].cy,
                'text-anchor': keyLabels[j].anchor,
                class: 'lesson-key-label',
                translate: 'no',
              },
              keyLabels[j].text,
            ),
          );
          g.addEventListener('pointerdown', (ev) => {
            ev.preventDefault();
            g.focus({ preventScroll: true });
            drag = { j, pointerId: ev.pointerId };
            root.setPointerCapture(ev.pointerId);
          });
          g.addEventListener('keydown', (ev) => {
            const d = ev.shiftKey ? BIG_STEP : STEP;
            const move = { ArrowLeft: [-d, 0], ArrowRight: [d, 0], ArrowUp: [0, d], ArrowDown: [0, -d] }[ev.key];
            if (ev.key === 'Home') {
              ev.preventDefault();
              onHome(j);
              return;
            }
            if (!move) return;
            ev.preventDefault();
            const at = [snap(k[0] + move[0]), snap(k[1] + move[1])].map(clean);
            onMove(j, at, { final: true });
          });
          return g;
        }),
      ].flat(Infinity),
    );
    if (focusedId?.startsWith('lesson-key-')) root.querySelector(`#${focusedId}`)?.focus({ preventScroll: true });
  }

  // A touch on the plane makes no browser gesture. touch-action: none (lesson.css) keeps a drag from
  // panning the page, but Chromium still turns a quick release into a fling: one that scrolls
  // nothing, yet runs for about a second, and the first tap anywhere in that time only stops it, so
  // the student's next tap (查看答案 right after moving a key) was lost. A cancelled touchstart
  // makes the browser give that touch no gestures at all (no fling); the pointer events
  // that drag the keys still come. tests/browser/lesson_phone.test.js "tapped at once".
  root.addEventListener('touchstart', (ev) => ev.preventDefault(), { passive: false });
  root.addEventListener('pointermove', (ev) => {
    if (!drag || ev.pointerId !== drag.pointerId) return;
    onMove(drag.j, fromClient(ev).map(clean), { final: false });
  });
  const end = (ev) => {
    if (!drag || ev.pointerId !== drag.pointerId) return;
    const j = drag.j;
    drag = null;
    onMove(j, fromClient(ev).map(clean), { final: true });
  };
  root.addEventListener('pointerup', end);
  root.addEventListener('pointercancel', end);

  return {
    el,
    /** Redraws for a state and its results (positions, sizes, labels). */
    update(state, results) {
      last = { state, results };
      draw();
    },
    /** Says where key j is now (the status line, for screen readers). */
    announce(state, results, j) {
      status.textContent = keyText(state, results, j);
    },
    dragging: () => drag !== null,
  };
}
