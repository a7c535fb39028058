/** Unit tests sit beside the code; e2e tests boot the real app (test/e2e). */
const tsJest = ['ts-jest', { tsconfig: 'tsconfig.json' }];
// The generated Prisma client imports its own files as './x.js'.
const moduleNameMapper = { '^(\\.{1,2}/.*)\\.js$': '$1' };
// Packages published only as ES modules, which Jest's CommonJS runtime cannot require (Node 20 can):
// compiled to CommonJS for the tests.
const esmOnly = ['@scure', '@noble', '@levischuck', '@hexagon', '@peculiar', 'pvtsutils', 'pvutils'];
const transform = {
  '^.+\\.ts$': tsJest,
  '^.+\\.m?js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs', target: 'es2022' }, isolatedModules: true }],
};
const transformIgnorePatterns = [`^(?!.*/node_modules/(${esmOnly.join('|')})/).*/node_modules/`];

module.exports = {
  testTimeout: 60_000,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      rootDir: '.',
      testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/scripts/**/*.spec.ts', '<rootDir>/sdk/test/**/*.spec.ts'],
      // The SDK (sdk/) compiles against its own tsconfig (DOM's fetch types, no app paths).
      transform: { '^.+/sdk/.+\\.ts$': ['ts-jest', { tsconfig: 'sdk/tsconfig.json' }], ...transform },
      transformIgnorePatterns,
      moduleNameMapper,
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      rootDir: '.',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
      globalSetup: '<rootDir>/test/utils/global-setup.ts',
      globalTeardown: '<rootDir>/test/utils/global-teardown.ts',
    },
  ],
};
