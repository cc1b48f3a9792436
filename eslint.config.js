import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { heraldPlugin } from './eslint-rules/layers.js';

/** herald/layers (eslint-rules/layers.js) keeps the layers of src/ pointing one way; see docs/architecture.md. */
export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'src/generated/**', 'coverage/**', '.data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      'no-console': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // The layer table (eslint-rules/layers.js): a backwards import fails `make test`.
    files: ['src/**/*.ts'],
    plugins: { herald: heraldPlugin },
    rules: { 'herald/layers': 'error' },
  },
  {
    files: ['scripts/**', 'codegen/**'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
