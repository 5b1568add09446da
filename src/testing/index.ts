export { createMemoryTraceSink } from '../core/trace.js';
export * from './reputation-contract.js';
