// Lint config: typescript-eslint's recommended rules over the sources, tests, benchmarks and examples.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import shortNames from './scripts/eslint-rules/short-names.js';

export default tseslint.config(
  { ignores: ['**/dist/', '**/node_modules/', 'coverage/', 'bench-out/', '.pagewise/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-eval': 'error',
      'no-new-func': 'error',
      // One import statement per module (a type-only import beside it is allowed, as consistent-type-imports writes).
      'no-duplicate-imports': ['error', { allowSeparateTypeImports: true }],
    },
  },
  {
    files: ['**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs}'],
    plugins: { pagewise: { rules: { 'short-names': shortNames } } },
    rules: { 'pagewise/short-names': 'error' },
  },
  {
    files: ['packages/*/bin/**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', module: 'writable' } },
  },
);
