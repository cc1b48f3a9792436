import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { heraldPlugin } from './eslint-rules/layers.js';

/**
 * TEMPORARY (issue 8, remove once the lead's refactor of src/domain lands): the files that still
 * break the layer rule on main. Nothing may be added to this list; a file leaves it when fixed.
 */
const LAYER_RULE_PENDING_REFACTOR = [
  'src/domain/identity/api-keys-service.ts',
  'src/domain/identity/api-keys.ts',
  'src/domain/identity/auth-service.ts',
  'src/domain/identity/authenticator.ts',
  'src/domain/identity/housekeeping.ts',
  'src/domain/identity/password-reset-mail.ts',
  'src/domain/identity/password-resets.ts',
  'src/domain/identity/security-events.ts',
  'src/domain/identity/sessions-service.ts',
  'src/domain/identity/sessions.ts',
  'src/domain/identity/users-service.ts',
  'src/domain/identity/users-store.ts',
  'src/handlers/services.ts',
  'src/handlers/types.ts',
];

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
    files: LAYER_RULE_PENDING_REFACTOR,
    rules: { 'herald/layers': 'off' },
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
