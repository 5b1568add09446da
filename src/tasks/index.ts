export * from './generate-tasks.js';
export * from './load-tasks.js';
