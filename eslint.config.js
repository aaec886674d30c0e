// npm run lint: ESLint's recommended rules over the project's JavaScript (web/, tests/, bench/,
// scripts/), with the globals of where each part runs. Formatting is prettier's (.prettierrc.json).
import js from '@eslint/js';
import globals from 'globals';

export default [
  { ignores: ['node_modules/', 'build/', 'web/vendor/', 'web/wasm/', 'web/generated/', 'bench-results/', 'test-results/', 'dist/'] },
  js.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: 'module',
      globals: { ...globals.browser, ...globals.worker, ...globals.node },
    },
    rules: {
      'no-unused-vars': ['error', { args: 'none', caughtErrors: 'none' }],
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
];
