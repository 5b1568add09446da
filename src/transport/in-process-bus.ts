import { InvalidArgumentError, TransportError } from '../core/errors.js';
import { resolveOptions } from '../core/options.js';
import type { Rng } from '../core/rng.js';
import {
  assertInRange,
  assertInteger,
  assertKnownOptions,
  assertNonEmptyString,
  assertNonNegative,
  defineOptionKeys,
} from '../core/validate.js';
import { assertSubject, subjectMatches } from './subject.js';
import type { Transport, TransportHandler, TransportStats, TransportSubscription } from './transport.js';
import { createTransportCounters } from './_transport-counters.js';

/** Options of {@link createInProcessBus}. */
export interface InProcessBusOptions {
  /** Deliveries of one message before it is given up (dead-lettered), ≥ 1. @default 20 */
  maxDeliver?: number;
  /** Wait before redelivering a message whose handler threw, in milliseconds. @default 5 */
  redeliveryDelayMs?: number;
  /**
   * Fault injection for tests: probability in [0, 1] that an acknowledgement is "lost", so the same
   * message is delivered again (as JetStream does after an ack timeout). @default 0
   */
  lostAckRate?: number;
  /** Randomness for `lostAckRate`; required when it is above 0. @default undefined */
  rng?: Rng;
}

interface StoredMessage {
  readonly subject: string;
  readonly data: Uint8Array;
  readonly id: string;
}

interface Consumer {
  readonly durable: string;
  readonly pattern: string;
  /** Log indices of the messages matching the pattern, in publish order. */
  readonly queue: number[];
  /** Position in `queue` of the next message to deliver. */
  cursor: number;
  handler: TransportHandler | null;
  generation: number;
  /** Generation whose delivery loop is running, or -1. */
  pumping: number;
  readonly deliveries: Map<number, number>;
}

const knownInProcessBusOptions = defineOptionKeys<InProcessBusOptions>()([
  'maxDeliver',
  'redeliveryDelayMs',
  'lostAckRate',
  'rng',
]);

/**
 * The default RAPS transport: an in-process message log with durable, at-least-once consumers that
 * behave like JetStream's (messages published while a durable subscriber is away wait for it; a
 * message whose handler throws or whose subscriber stops mid-handler is delivered again; publishing
 * an id twice stores it once). Each durable consumer gets its messages one at a time, in order.
 *
 * @example
 * const bus = createInProcessBus();
 * await bus.subscribe('raps.run.pub', async (message) => console.log(message.id), { durable: 'broker' });
 * await bus.publish('raps.run.pub', new TextEncoder().encode('{}'), { id: 'm1' });
 */
export function createInProcessBus(options?: InProcessBusOptions): Transport {
  assertKnownOptions('options', options, knownInProcessBusOptions, 'createInProcessBus');
  const resolved = resolveOptions<InProcessBusOptions>(
    { maxDeliver: 20, redeliveryDelayMs: 5, lostAckRate: 0, rng: undefined as unknown as Rng },
    options,
  );
  assertInteger('options.maxDeliver', resolved.maxDeliver, 1);
  assertNonNegative('options.redeliveryDelayMs', resolved.redeliveryDelayMs);
  assertInRange('options.lostAckRate', resolved.lostAckRate, 0, 1);
  if ((resolved.lostAckRate as number) > 0 && typeof resolved.rng !== 'function') {
    throw new InvalidArgumentError({
      parameter: 'options.rng',
      value: resolved.rng,
      message: 'options.rng is required when options.lostAckRate > 0; pass createRng(seed)',
    });
  }
  const maxDeliver = resolved.maxDeliver as number;
  const redeliveryDelayMs = resolved.redeliveryDelayMs as number;
  const lostAckRate = resolved.lostAckRate as number;
  const rng = resolved.rng as Rng | undefined;

  const log: StoredMessage[] = [];
  const storedIds = new Set<string>();
  const consumers = new Map<string, Consumer>();
  let closed = false;
  // Set by `deleteStream`: the log is gone, so nothing may be published to or read from it.
  let deleted = false;
  const stats = createTransportCounters();

  const pump = async (consumer: Consumer): Promise<void> => {
    // One delivery loop per attached generation: a loop stuck in a stopped subscriber's handler
    // (a crashed process) never blocks the subscriber that replaced it.
    const generation = consumer.generation;
    if (consumer.pumping === generation) return;
    consumer.pumping = generation;
    try {
      while (
        consumer.generation === generation &&
        consumer.handler !== null &&
        consumer.cursor < consumer.queue.length &&
        !closed
      ) {
        // Drop delivered entries now and then so the queue does not grow without bound.
        if (consumer.cursor > 1024 && consumer.cursor * 2 > consumer.queue.length) {
          consumer.queue.splice(0, consumer.cursor);
          consumer.cursor = 0;
        }
        const index = consumer.queue[consumer.cursor] as number;
        const stored = log[index] as StoredMessage;
        const deliveryCount = (consumer.deliveries.get(index) ?? 0) + 1;
        consumer.deliveries.set(index, deliveryCount);
        const handler = consumer.handler;
        stats.delivered++;
        if (deliveryCount > 1) stats.redelivered++;
        let failed = false;
        try {
          await handler({ subject: stored.subject, data: stored.data, id: stored.id, deliveryCount });
        } catch {
          failed = true;
          stats.handlerErrors++;
        }
        // A subscriber that stopped while handling never acknowledged: keep the message pending.
        if (consumer.generation !== generation) break;
        if (failed) {
          if (deliveryCount >= maxDeliver) {
            stats.deadLettered++;
            consumer.deliveries.delete(index);
            consumer.cursor++;
          } else {
            await new Promise((resolve) => setTimeout(resolve, redeliveryDelayMs));
          }
          continue;
        }
        if (lostAckRate > 0 && (rng as Rng)() < lostAckRate) continue;
        consumer.deliveries.delete(index);
        consumer.cursor++;
      }
    } finally {
      if (consumer.pumping === generation) consumer.pumping = -1;
    }
    // Messages may have arrived while the last handler ran after the loop condition was checked.
    if (
      consumer.generation === generation &&
      consumer.handler !== null &&
      consumer.cursor < consumer.queue.length &&
      !closed
    )
      void pump(consumer);
  };

  const enqueue = (index: number): void => {
    const subject = (log[index] as StoredMessage).subject;
    for (const consumer of consumers.values()) {
      if (!subjectMatches(consumer.pattern, subject)) continue;
      consumer.queue.push(index);
      if (consumer.handler !== null && consumer.pumping !== consumer.generation)
        setImmediate(() => void pump(consumer));
    }
  };

  const ensureOpen = (): void => {
    if (closed) throw new TransportError('the in-process bus is closed; create a new one with createInProcessBus()');
    if (deleted)
      throw new TransportError(
        'the in-process bus was deleted (deleteStream); create a new one with createInProcessBus()',
      );
  };

  return {
    name: 'inproc',
    async publish(subject, data, { id }) {
      ensureOpen();
      assertSubject('subject', subject);
      assertNonEmptyString('options.id', id, 'every message needs a unique id for de-duplication');
      if (!(data instanceof Uint8Array))
        throw new InvalidArgumentError({
          parameter: 'data',
          value: data,
          message: `data must be a Uint8Array, got ${typeof data}`,
        });
      if (storedIds.has(id)) {
        stats.duplicatePublishes++;
        return;
      }
      storedIds.add(id);
      log.push({ subject, data: data.slice(), id });
      stats.published++;
      enqueue(log.length - 1);
    },
    async subscribe(subject, handler, { durable }) {
      ensureOpen();
      assertSubject('subject', subject, { wildcards: true });
      assertNonEmptyString('options.durable', durable);
      let consumer = consumers.get(durable);
      if (consumer === undefined) {
        // A new durable consumer starts at the beginning of the log (JetStream's DeliverPolicy.All).
        const queue = log.flatMap((stored, index) => (subjectMatches(subject, stored.subject) ? [index] : []));
        consumer = {
          durable,
          pattern: subject,
          queue,
          cursor: 0,
          handler: null,
          generation: 0,
          pumping: -1,
          deliveries: new Map(),
        };
        consumers.set(durable, consumer);
      } else if (consumer.pattern !== subject) {
        throw new InvalidArgumentError({
          parameter: 'subject',
          value: subject,
          message: `durable ${JSON.stringify(durable)} already follows ${JSON.stringify(consumer.pattern)}; use another durable name for ${JSON.stringify(subject)}`,
        });
      } else if (consumer.handler !== null) {
        throw new TransportError(
          `durable ${JSON.stringify(durable)} already has an attached subscriber; stop it first`,
        );
      }
      consumer.handler = handler;
      consumer.generation++;
      const attached = consumer;
      const generation = attached.generation;
      setImmediate(() => void pump(attached));
      const subscription: TransportSubscription = {
        subject,
        durable,
        async stop() {
          if (attached.generation === generation && attached.handler !== null) {
            attached.handler = null;
            attached.generation++;
          }
        },
      };
      return subscription;
    },
    async deleteDurable(durable) {
      ensureOpen();
      assertNonEmptyString('durable', durable);
      const consumer = consumers.get(durable);
      if (consumer === undefined) return false;
      // As `stop`: a handler still running is left to finish, and its message is not acknowledged.
      consumer.handler = null;
      consumer.generation++;
      consumers.delete(durable);
      return true;
    },
    async deleteStream() {
      if (closed) throw new TransportError('the in-process bus is closed; create a new one with createInProcessBus()');
      if (deleted) return false;
      deleted = true;
      // As `deleteDurable` for each: a handler still running is left to finish, unacknowledged.
      for (const consumer of consumers.values()) {
        consumer.handler = null;
        consumer.generation++;
      }
      consumers.clear();
      log.length = 0;
      storedIds.clear();
      return true;
    },
    stats: (): TransportStats => ({ ...stats }),
    async close() {
      closed = true;
      for (const consumer of consumers.values()) {
        consumer.handler = null;
        consumer.generation++;
      }
    },
  };
}
