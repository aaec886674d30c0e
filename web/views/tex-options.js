// KaTeX's options for every formula of the page: web/views/tex.js at run time and
// scripts/prerender-tex.js at build time (the same output either way).
export const TEX_OPTIONS = Object.freeze({ throwOnError: false, output: 'htmlAndMathml', trust: false, strict: 'ignore' });
