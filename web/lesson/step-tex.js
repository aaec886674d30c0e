// The guided lesson's formula per step (docs/lesson.md), the same in both languages; null: none.
// Fixed TeX, so scripts/prerender-tex.js typesets it at build time (web/generated/tex.js): the
// lesson's first screen needs no KaTeX script, only its stylesheet and fonts.
export const STEP_TEX = Object.freeze({
  1: 's_j = c\\,\\mathbf q\\cdot\\mathbf k_j,\\qquad a_j = \\dfrac{e^{s_j/\\tau}}{\\sum_\\ell e^{s_\\ell/\\tau}}',
  2: 'H = -\\sum_j a_j \\ln a_j,\\qquad \\sum_j a_j = 1',
  3: 'a_j = \\dfrac{e^{s_j/\\tau}}{\\sum_{\\ell\\le t} e^{s_\\ell/\\tau}}\\ (j\\le t),\\qquad a_j = 0\\ (j>t)',
  4: '\\mathbf o_t = \\sum_j a_{tj}\\,\\mathbf v_j,\\qquad \\dfrac{\\partial \\mathbf o_t}{\\partial \\mathbf v_j} = a_{tj} I',
  5: null,
});
