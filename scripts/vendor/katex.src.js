// KaTeX, bundled by `npm run build:vendor` into web/vendor/katex.js (a build output): it renders the
// formulas with the selected row's numbers (web/views/formulas.js), which import it on first use so
// its 260 KB are not on the first screen's path. Its CSS and fonts are copied to web/vendor/katex/ by
// scripts/build.sh, so nothing is fetched from elsewhere.
import katex from 'katex';
export const katexRender = katex.render;
export const katexRenderToString = katex.renderToString;
