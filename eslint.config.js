import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { heraldPlugin } from './eslint-rules/layers.js';
import { featuresRule } from './eslint-rules/features.js';

/**
 * herald/layers (eslint-rules/layers.js) keeps the layers of src/ pointing one way, and
 * herald/features (eslint-rules/features.js) the features of src/domain; see docs/architecture.md.
 */
const herald = { ...heraldPlugin, rules: { ...heraldPlugin.rules, features: featuresRule } };
export default tseslint.config(
  { ignores: ['dist/**', '**/dist/**', 'node_modules/**', 'src/generated/**', 'sdk/src/generated/**', 'coverage/**', '.data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      'no-console': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // The layer table (eslint-rules/layers.js) and the feature edges (eslint-rules/features.js):
    // a backwards import or a new circle between features fails `make test`.
    files: ['src/**/*.ts'],
    plugins: { herald },
    rules: { 'herald/layers': 'error', 'herald/features': 'error' },
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
