export { createMemoryTraceSink } from '../core/trace.js';
