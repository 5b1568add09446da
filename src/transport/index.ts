export type * from './transport.js';
export * from './subject.js';
export * from './dedupe.js';
export * from './in-process-bus.js';
export * from './nats-transport.js';
export { startNatsServer } from './nats-server.js';
export type { NatsServerProcess, StartNatsServerOptions } from './nats-server.js';
