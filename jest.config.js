/** Unit tests sit beside the code; integration and e2e tests under test/ run on real PostgreSQL and Redis. */
const path = require('node:path');
const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: path.join(__dirname, 'tsconfig.jest.json'), diagnostics: false }],
};
const common = { transform, testEnvironment: 'node', moduleFileExtensions: ['ts', 'js', 'json'] };

module.exports = {
  maxWorkers: 2,
  // Applies to every project (a project-level testTimeout is ignored by Jest).
  testTimeout: 30000,
  projects: [
    { ...common, displayName: 'unit', rootDir: 'src', testMatch: ['**/*.spec.ts'] },
    {
      ...common,
      displayName: 'e2e',
      rootDir: '.',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
