export * from './run-code-tests.js';
