export * from './run-demo.js';
