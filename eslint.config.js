// ESLint flat config for the whole tree (TypeScript without type information: fast enough to run
// before every test run). Layer rules and import cycles are dependency-cruiser's job
// (.dependency-cruiser.cjs); formatting is Prettier's (.prettierrc.json).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'dist/**', 'coverage/**'] },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } } },
  {
    // Plain ES modules run by Node (worker-thread entry, benchmark probes): Node's globals.
    files: ['**/*.mjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        performance: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        fetch: 'readonly',
      },
    },
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      // `any` is allowed where a value crosses an untyped boundary (JSON bodies, pg rows) and in tests.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Paths, names and ids are checked for control characters on purpose.
      'no-control-regex': 'off',
      'no-eval': 'error',
      'no-implied-eval': 'error',
      'no-new-func': 'error',
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'node:vm', message: 'No code evaluation (see DESIGN.md).' },
            { name: 'vm', message: 'No code evaluation (see DESIGN.md).' },
          ],
        },
      ],
    },
  },
);
