// @ts-check
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'data/', 'test-artifacts/', 'src/generated/', 'node_modules/', 'dashboard/src/api/schema.d.ts'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      '@typescript-eslint/no-unused-vars': ['warn', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
    },
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
    // bench/ and scripts are plain CommonJS; some unit tests require() a module inside a fake clock.
    files: ['**/*.js', '**/*.cjs', 'src/**/*.spec.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
