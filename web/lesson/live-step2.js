// Step 2's live part (web/lesson/live.js): the temperature and scale buttons, and the selected
// row's entropy and every row's sum.
import { t } from '../i18n/i18n.js';
import { h } from '../views/dom.js';
import { rich } from './rich.js';
import { data, f, qk } from './lesson-text.js';

/** @param {object} ctx the panel's context (web/lesson/live.js createLive) */
export function step2Live(ctx, s, r, ref) {
  const tr = s.row;
  const setTau = (tau) =>
    ctx.update((x) => {
      x.tau = tau;
    });
  const setScale = (c) =>
    ctx.update((x) => {
      x.scale = c;
    });
  return [
    h(
      'div',
      { class: 'lesson-actions' },
      h('button', { type: 'button', id: 'lesson-s2-up', onclick: () => setTau(Math.min(1000, s.tau * 2)) }, t('lesson.s2.tauUp')),
      h('button', { type: 'button', id: 'lesson-s2-down', onclick: () => setTau(s.tau / 2) }, t('lesson.s2.tauDown')),
      // The scale half of the question, by the panel's own buttons (the page's scale control
      // is locked in a read-only link): c halved or doubled from the value in use (r.scale).
      h('button', { type: 'button', id: 'lesson-s2-scale-down', onclick: () => setScale(r.scale / 2) }, t('lesson.s2.scaleDown')),
      h('button', { type: 'button', id: 'lesson-s2-scale-up', onclick: () => setScale(r.scale * 2) }, t('lesson.s2.scaleUp')),
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
