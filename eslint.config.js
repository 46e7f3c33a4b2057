// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * typescript-eslint's type-aware recommended rules over the whole tree. Style (line length,
 * quotes, spacing) belongs to Prettier; layer rules belong to dependency-cruiser.
 */
export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'coverage/', 'dist/', 'test/fixtures/', 'client/api.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Memory stores and Koa middleware implement Promise-returning interfaces without awaiting
      // anything; `async` is how they keep a synchronous throw a rejection.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // Tests and benchmarks read JSON bodies of real responses, which are `any` by nature.
    files: ['test/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
);
