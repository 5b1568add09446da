export * from './run-code-tests.js';
export * from './execution-verifier.js';
export * from './task-grader.js';
