export * from './run-code-tests.js';
export * from './execution-verifier.js';
