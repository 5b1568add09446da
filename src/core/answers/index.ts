export * from './answer-kind.js';
