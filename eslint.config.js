// Lint: typescript-eslint's recommended rules on all TypeScript; generated output is ignored.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['src/**/*.js', 'test/**/*.js', 'dist/**', 'node_modules/**', 'bench/results/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', URL: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-constant-condition': ['error', { checkLoops: false }],
      // kysely's values come from its CommonJS build through src/store/kysely.ts (one copy, a
      // faster start); type imports of 'kysely' load nothing and stay allowed.
      '@typescript-eslint/no-restricted-imports': ['error', {
        paths: [{ name: 'kysely', message: 'import kysely values from src/store/kysely.ts (its CommonJS build); only `import type` from kysely', allowTypeImports: true }],
      }],
    },
  },
);
