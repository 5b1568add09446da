// The counters behind `Transport.stats()`, shared by the in-process bus and the NATS transport so
// both count the same fields from the same zero.
import type { TransportStats } from './transport.js';

/** Mutable {@link TransportStats}: what a transport increments as it publishes and delivers. */
export type TransportCounters = { -readonly [Key in keyof TransportStats]: number };

/** Every counter at 0, for a new transport. */
export function createTransportCounters(): TransportCounters {
  return { published: 0, duplicatePublishes: 0, delivered: 0, redelivered: 0, handlerErrors: 0, deadLettered: 0 };
}
