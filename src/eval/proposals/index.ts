export * from './format.js';
export * from './proposals-jsonl.js';
export * from './zeroeval.js';
export * from './mmlu-pro.js';
export * from './mathvista.js';
export * from './models-json.js';
export * from './load-dataset.js';
export { readLines, parseJsonLine } from './read-lines.js';
export type { NumberedLine, ReadLinesOptions } from './read-lines.js';
