// @ts-check
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'sdk/dist/',
      'coverage/',
      'data/',
      'test-artifacts/',
      'src/generated/',
      'node_modules/',
      'dashboard/src/api/schema.d.ts',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: {
        // Types from tsconfig.json (src, scripts, test, bench, prisma.config.ts), widget/tsconfig.json and dashboard/tsconfig.json. The
        // dashboard's tsconfig has browser types only: its vite.config.mts gets the widget's options, as widget/vite.config.mts does.
        projectService: { allowDefaultProject: ['dashboard/vite.config.mts'], defaultProject: 'widget/tsconfig.json' },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['warn', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
      // A cache hit answers a value and a miss a promise of it (`V | Promise<V>`): Promise.all takes both.
      '@typescript-eslint/await-thenable': ['error', { allowMixedPromiseArrays: true }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
    },
  },
  {
    // Plain JavaScript (bench/, scripts, configuration files) has no types to check against.
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // The embeddable widget runs in customers' pages (widget/vite.config.mts bundles it).
    files: ['widget/src/**/*.ts'],
    languageOptions: { globals: globals.browser },
  },
  {
    // The dashboard runs in browsers (dashboard/vite.config.mts bundles it); hooks follow React's rules.
    files: ['dashboard/src/**/*.{ts,tsx}'],
    languageOptions: { globals: globals.browser },
    ...reactHooks.configs.flat['recommended-latest'],
  },
  {
    // Tests check the app's untyped JSON answers (supertest/fetch bodies; jest matchers are `any`): no-unsafe-* off, the rest on.
    files: ['test/**/*.ts', 'src/**/*.spec.ts', 'sdk/test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // bench/ and scripts are plain CommonJS; some unit tests require() a module inside a fake clock, or a script.
    files: ['**/*.js', '**/*.cjs', 'src/**/*.spec.ts', 'scripts/**/*.spec.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
