export * from './answer-kind.js';
export type * from './answer-handler.js';
export * from './answers.js';
export * from './number-answer.js';
export * from './math-answer.js';
export * from './choice-answer.js';
export * from './exact-answer.js';
export * from './labels-answer.js';
export * from './code-answer.js';
