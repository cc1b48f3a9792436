/** Jest runs the TypeScript sources as ES modules through SWC (types are checked by `tsc`). */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    // openapi-backend (CommonJS) requires this ES-module-only package; Node 20 can, Jest's loader can't.
    'node_modules/@apidevtools/json-schema-ref-parser/.+\\.js$': ['@swc/jest', { module: { type: 'commonjs' } }],
    '^.+\\.ts$': ['@swc/jest', {
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'es6' },
    }],
  },
  transformIgnorePatterns: ['/node_modules/(?!@apidevtools/json-schema-ref-parser/)'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/tests/**/*.test.ts'],
  globalSetup: '<rootDir>/tests/support/global-setup.mjs',
  globalTeardown: '<rootDir>/tests/support/global-teardown.mjs',
  setupFilesAfterEnv: ['<rootDir>/tests/support/after-file.ts'],
  testTimeout: 30000,
  // Three on the 2-core machine: with two, a third of its CPU sat idle while files waited on
  // their databases, children and timers (425 s, 294 CPU-s idle; three: 299–372 s, 106–125 idle,
  // four green runs in a row, 2026-12-02). Timing-sensitive tests wait for states, not fixed times.
  maxWorkers: 3,
  // A worker ends once its last file is done and its event loop is empty; then node tears down a
  // heap of 1.3-1.5 GiB (what 60-odd files leave in a worker). That took longer than Jest's 500 ms
  // on the loaded 2-core machine. Jest then killed the worker and warned of "tests leaking due to
  // improper teardown", though nothing held it: a probe saw each worker's 'exit' event 0-1 ms
  // after Jest's end message, and the process reaped only by the SIGTERM 0.9-1.0 s later. Given
  // the time, each exited by itself (code 0) 1.9-2.1 s after its 'exit' event (2026-12-03). A worker
  // that something really holds is still killed, and warned of, after these 10 s.
  workerGracefulExitTimeout: 10_000,
};
