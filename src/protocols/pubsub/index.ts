export * from './broker.js';
export type * from './events.js';
export * from './node.js';
export * from './route-selector.js';
export * from './run-raps.js';
export * from './watchdog.js';
export * from './wire.js';
export * from './run-raps-session.js';
export * from './raps-protocol.js';
