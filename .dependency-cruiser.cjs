// npm run lint: no import cycle among the page's modules (web/, static and dynamic imports alike).
// A cycle means two modules each need the other: the store is imported by what shows it, never
// the other way round (web/page/store.js), and web/main.js wires the rest. Build outputs
// (web/vendor/, web/wasm/, web/generated/) are not the page's own code.
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules of web/ must not import each other in a cycle: pass a function in or subscribe instead.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    exclude: { path: '^web/(vendor|wasm|generated)/' },
    doNotFollow: { path: '^web/(vendor|wasm|generated)/' },
  },
};
