// The live part of each lesson step (web/lesson/panel.js): what the student acts on. Step 1 the
// key plane (web/lesson/plane.js) and the table of scores and weights, step 2 the temperature
// buttons and the row's entropy and sums, step 3 the causal mask, step 4 the value editor and the
// row's output, step 5 the link with its Copy button. Owns the plane (kept across rebuilds of the
// panel while its step and key count stay) and the value chosen in step 4.
import { t } from '../i18n.js';
import { h } from '../views/dom.js';
import { createPlane } from './plane.js';
import { rich } from './rich.js';
import { GRID_MAX, setupState } from './steps.js';
import { data, f, qk, sp, tok, vec } from './format.js';

/**
 * @param {object} ctx the panel's context (initLesson): getState, getResults, update, shareUrl,
 *   container
 * @returns {{live: (n, s, r, ref) => Node[], step1Table: (s, r, ref) => Node,
 *   plane: () => object|null, dropPlane: () => void}}
 */
export function createLive(ctx) {
  const { container } = ctx;
  let plane = null;
  let planeKey = '';
  const state = () => ctx.getState();
  const results = () => ctx.getResults();

  function moveKey(j, at, { final }) {
    ctx.update(
      (s) => {
        s.heads[s.head].K[j] = at;
      },
      { kind: final ? 'lesson-key' : 'lesson-drag', report: false },
    );
    if (final && plane) plane.announce(state(), results(), j);
  }

  function homeKey(j) {
    const start = setupState(1).heads[0].K[j];
    if (start) moveKey(j, [...start], { final: true });
  }

  function step1Live(s, r, ref) {
    const hd = s.heads[s.head];
    const ok = s.mode === 'qkv' && hd.Q[0].length === 2 && hd.K.length <= GRID_MAX;
    const parts = [];
    if (ok) {
      const key = `${s.lesson.step}|${hd.K.length}`;
      if (!plane || planeKey !== key) {
        plane = createPlane({ onMove: moveKey, onHome: homeKey, t });
        planeKey = key;
      }
      plane.update(s, r);
      parts.push(plane.el, h('p', { class: 'note' }, t('lesson.plane.help')));
    } else {
      parts.push(h('p', { class: 'note' }, t('lesson.plane.unavailable')));
    }
    if (s.mode === 'qkv') parts.push(step1Table(s, r, ref));
    return parts;
  }

  function step1Table(s, r, ref) {
    const tr = s.row;
    return h(
      'div',
      { id: 'lesson-s1-readout' },
      h(
        'table',
        { id: 'lesson-s1-table', class: 'lesson-table' },
        h('caption', {}, rich(t, 'lesson.s1.tableCaption', { query: qk(s, tr) })),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, t('lesson.col.key')),
            h('th', { scope: 'col' }, 'k_j'),
            h('th', { scope: 'col' }, t('lesson.col.score')),
            h('th', { scope: 'col' }, t('lesson.col.weight')),
          ),
        ),
        h(
          'tbody',
          {},
          s.heads[s.head].K.map((k, j) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row', translate: 'no' }, tok(s, j)),
              h('td', {}, data(vec(k))),
              h(
                'td',
                {},
                data(ref ? `${f(ref.scores[tr][j])} → ${f(r.scores[tr][j])}` : f(r.scores[tr][j]), {
                  id: `lesson-s1-score-${j}`,
                  dataset: { value: String(r.scores[tr][j]) },
                }),
              ),
              h(
                'td',
                {},
                data(ref ? `${f(ref.weights[tr][j])} → ${f(r.weights[tr][j])}` : f(r.weights[tr][j]), {
                  id: `lesson-s1-weight-${j}`,
                  dataset: { value: String(r.weights[tr][j]) },
                }),
              ),
            ),
          ),
        ),
      ),
    );
  }

  function live(n, s, r, ref) {
    const tr = s.row;
    if (n === 1) return step1Live(s, r, ref);
    if (n === 2) {
      const setTau = (tau) =>
        ctx.update((x) => {
          x.tau = tau;
        });
      return [
        h(
          'div',
          { class: 'lesson-actions' },
          h('button', { type: 'button', id: 'lesson-s2-up', onclick: () => setTau(Math.min(1000, s.tau * 2)) }, t('lesson.s2.tauUp')),
          h('button', { type: 'button', id: 'lesson-s2-down', onclick: () => setTau(s.tau / 2) }, t('lesson.s2.tauDown')),
        ),
        h(
          'dl',
          { class: 'lesson-facts' },
          h('dt', {}, t('lesson.s2.tau')),
          h('dd', {}, data(String(s.tau), { id: 'lesson-s2-tau' })),
          h('dt', {}, t('lesson.s2.scale')),
          h('dd', {}, data(f(r.scale), { id: 'lesson-s2-scale' })),
          h('dt', {}, rich(t, 'lesson.s2.entropy', { query: qk(s, tr) })),
          h(
            'dd',
            {},
            data(ref ? `${f(ref.rows[tr].entropy)} → ${f(r.rows[tr].entropy)}` : f(r.rows[tr].entropy), {
              id: 'lesson-s2-entropy',
              dataset: { value: String(r.rows[tr].entropy) },
            }),
          ),
          h('dt', {}, t('lesson.s2.sums')),
          h('dd', {}, data(r.rows.map((m) => (m.empty ? '—' : f(m.rowSum))).join(', '), { id: 'lesson-s2-sums' })),
        ),
      ];
    }
    if (n === 3) {
      return [
        h(
          'label',
          { class: 'check' },
          h('input', {
            type: 'checkbox',
            id: 'lesson-s3-causal',
            checked: s.mask.causal,
            onchange: (ev) =>
              ctx.update((x) => {
                x.mask.causal = ev.target.checked;
              }),
          }),
          ` ${t('lesson.s3.causal')}`,
        ),
        h(
          'p',
          { class: 'note' },
          rich(t, 'lesson.s3.rowWeights', { query: qk(s, tr) }),
          sp(),
          data(vec(r.weights[tr]), { id: 'lesson-s3-weights' }),
        ),
      ];
    }
    if (n === 4) {
      const hd = s.heads[s.head];
      if (!hd.V) return [h('p', { class: 'note' }, t('lesson.s4.noValues'))];
      const sel = h(
        'select',
        { id: 'lesson-s4-key' },
        hd.V.map((_, j) => h('option', { value: String(j), translate: 'no' }, `v_${j + 1} (${tok(s, j)})`)),
      );
      sel.value = String(chosenValue < hd.V.length ? chosenValue : 0);
      sel.addEventListener('change', () => {
        chosenValue = Number(sel.value);
      });
      return [
        h(
          'div',
          { class: 'lesson-actions' },
          h('label', {}, `${t('lesson.s4.which')} `, sel),
          h(
            'button',
            {
              type: 'button',
              id: 'lesson-s4-change',
              onclick: () => {
                const j = Number(sel.value);
                ctx.update((x) => {
                  x.heads[x.head].V[j] = x.heads[x.head].V[j].map((v) => v + 1);
                });
              },
            },
            t('lesson.s4.change'),
          ),
        ),
        h(
          'dl',
          { class: 'lesson-facts' },
          h('dt', {}, rich(t, 'lesson.s4.scoresRow', { query: qk(s, tr) })),
          h('dd', {}, data(vec(r.scores[tr].map((x) => x ?? NaN)), { id: 'lesson-s4-scores' })),
          h('dt', {}, rich(t, 'lesson.s4.output', { query: qk(s, tr) })),
          h('dd', {}, data(ref ? `${vec(ref.output[tr])} → ${vec(r.output[tr])}` : vec(r.output[tr]), { id: 'lesson-s4-output' })),
        ),
      ];
    }
    // Step 5: the link.
    let link = '';
    try {
      link = ctx.shareUrl();
    } catch (e) {
      link = e.message;
    }
    return [
      h(
        'div',
        { class: 'lesson-actions' },
        h('button', { type: 'button', id: 'lesson-s5-copy', onclick: copyStepLink }, t('lesson.s5.copy')),
        h('span', { class: 'status', id: 'lesson-s5-status', role: 'status', 'aria-live': 'polite' }),
      ),
      h(
        'label',
        { class: 'lesson-link' },
        t('lesson.s5.linkLabel'),
        h('input', {
          type: 'text',
          id: 'lesson-s5-link',
          readonly: true,
          value: link,
          translate: 'no',
          onfocus: (ev) => ev.target.select(),
        }),
      ),
    ];
  }

  let chosenValue = 1;

  /**
   * Step 5's Copy link: copies the link shown beside the button. Where the clipboard is refused
   * (an iframe whose course page does not allow clipboard-write, an insecure context) the link box
   * beside it is selected for Ctrl+C, so a keyboard user stays in the step; the page's header
   * button would move the focus to the top of the page (and may be hidden by share_hide=1).
   */
  async function copyStepLink() {
    const box = container.querySelector('#lesson-s5-link');
    const status = container.querySelector('#lesson-s5-status');
    if (!box || !status) return;
    const policy = document.permissionsPolicy ?? document.featurePolicy;
    try {
      // Asking while the permissions policy forbids it logs an error in Chromium: don't ask.
      if (policy?.allowsFeature && !policy.allowsFeature('clipboard-write')) throw new Error('clipboard-write not allowed');
      await navigator.clipboard.writeText(box.value);
      status.textContent = t('embed.copied', { n: box.value.length });
    } catch {
      box.focus();
      box.select();
      status.textContent = t('embed.copyByHand');
    }
  }

  return {
    live,
    step1Table,
    plane: () => plane,
    dropPlane: () => {
      plane = null;
    },
  };
}
