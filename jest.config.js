/** Unit tests sit beside the code; e2e tests boot the real app (test/e2e). */
const tsJest = ['ts-jest', { tsconfig: 'tsconfig.json' }];
// The generated Prisma client imports its own files as './x.js'.
const moduleNameMapper = { '^(\\.{1,2}/.*)\\.js$': '$1' };

module.exports = {
  testTimeout: 60_000,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      rootDir: '.',
      testMatch: ['<rootDir>/src/**/*.spec.ts'],
      transform: { '^.+\\.ts$': tsJest },
      moduleNameMapper,
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      rootDir: '.',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      transform: { '^.+\\.ts$': tsJest },
      moduleNameMapper,
      globalSetup: '<rootDir>/test/utils/global-setup.ts',
      globalTeardown: '<rootDir>/test/utils/global-teardown.ts',
    },
  ],
};
