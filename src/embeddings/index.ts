export type * from './embedder.js';
export * from './vector.js';
export * from './hashed-ngram.js';
