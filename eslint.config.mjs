// Lint: typescript-eslint's strict type-checked rules on the shipped code (lib/, server.ts,
// browser/), the recommended type-checked ones on the build, bench and test code; formatting is
// Prettier's (`npm run lint` checks both). Generated modules are left out: their source is
// checked instead (spec/*.schema.json by ajv at build time, wordlist/ by its SHA-256).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

const shipped = ['server.ts', 'lib/**/*.ts', 'browser/**/*.ts'];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'coverage/**',
      'node_modules/**',
      '**/*.generated.ts',
      'bench/results/**',
      '.test-output/**',
      // Programs on clients generated at test time: tests/spec/clients.integration.ts checks
      // them (tsc --strict against the generated code, and no cast, no any).
      'tests/fixtures/clients/**',
    ],
  },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-console': 'off',
    },
  },
  {
    files: shipped,
    extends: [tseslint.configs.strictTypeChecked],
    rules: {
      // A function longer than a screen hides its steps: split it (generated code aside).
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['tests/**/*.ts'],
    rules: {
      // Tests read JSON replies, child-process output and page globals as `any` on purpose: the
      // assertions that follow are the type check, and a cast to the expected shape would
      // assert what the test is there to find out.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // node:test's describe/it/before/after return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['describe', 'suite', 'it', 'test', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        Atomics: 'readonly',
        SharedArrayBuffer: 'readonly',
        Int32Array: 'readonly',
      },
    },
  },
  prettier,
);
