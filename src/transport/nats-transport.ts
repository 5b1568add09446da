// NATS JetStream transport. `nats` is imported dynamically, so importing Repute never loads it
// unless this transport is used.
import { InvalidArgumentError, TransportError } from '../core/errors.js';
import { assertInteger, assertNonEmptyString } from '../core/validate.js';
import { retrying, wallTime } from './_retrying.js';
import { assertSubject } from './subject.js';
import type { Transport, TransportHandler, TransportStats, TransportSubscription } from './transport.js';
import { createTransportCounters } from './_transport-counters.js';

/** Options of {@link connectNatsTransport}. */
export interface NatsTransportOptions {
  /** Server URL(s), e.g. `nats://127.0.0.1:4222`. */
  servers: string | readonly string[];
  /** JetStream stream that stores the messages (created when missing), e.g. `RAPS_run1`. */
  stream: string;
  /** Subjects the stream captures, e.g. `['raps.run1.>']`. */
  subjects: readonly string[];
  /** Connection name shown by the server. @default 'repute' */
  name?: string;
  /** Time a consumer waits for an acknowledgement before redelivering, in ms (≥ 100). @default 2000 */
  ackWaitMs?: number;
  /** Deliveries of one message before it is given up, ≥ 1. @default 20 */
  maxDeliver?: number;
  /** Window in which JetStream drops a re-published message id, in ms. @default 120000 */
  duplicateWindowMs?: number;
  /** Keep messages on disk (`file`, survives a server restart) or in memory. @default 'file' */
  storage?: 'file' | 'memory';
  /** How long `publish` keeps retrying while the server is unreachable, in ms. @default 30000 */
  publishTimeoutMs?: number;
  /** Clock in ms on which `publishTimeoutMs` is measured. @default Date.now */
  now?: () => number;
}

/**
 * Connects to NATS and returns a {@link Transport} over JetStream: every subject lives in one
 * stream; `subscribe` creates (or re-attaches to) a durable pull consumer with explicit acks, so a
 * subscriber that crashes gets its unacknowledged and missed messages on restart; `publish` sets
 * the `Nats-Msg-Id` header, so a retried publish is stored once; the client reconnects forever and
 * `publish` retries until `publishTimeoutMs` while the server is away.
 *
 * Delivery choice: JetStream (not core NATS with hand-written acks), because it already gives
 * durable storage, redelivery after `ackWaitMs` and publish de-duplication; nats-server must run
 * with `-js -sd <store dir>`.
 *
 * @example
 * const transport = await connectNatsTransport({ servers: 'nats://127.0.0.1:4222', stream: 'RAPS_demo', subjects: ['raps.demo.>'] });
 */
export async function connectNatsTransport(options: NatsTransportOptions): Promise<Transport> {
  const servers = typeof options.servers === 'string' ? [options.servers] : [...options.servers];
  if (servers.length === 0)
    throw new InvalidArgumentError({
      parameter: 'options.servers',
      value: options.servers,
      message: "options.servers must name at least one server, e.g. 'nats://127.0.0.1:4222'",
    });
  assertNonEmptyString('options.stream', options.stream);
  if (!/^[A-Za-z0-9_-]+$/.test(options.stream)) {
    throw new InvalidArgumentError({
      parameter: 'options.stream',
      value: options.stream,
      message: `options.stream may only contain letters, digits, '-' and '_', got ${JSON.stringify(options.stream)}`,
    });
  }
  options.subjects.forEach((subject, index) =>
    assertSubject(`options.subjects[${index}]`, subject, { wildcards: true }),
  );
  const ackWaitMs = options.ackWaitMs ?? 2000;
  const maxDeliver = options.maxDeliver ?? 20;
  const duplicateWindowMs = options.duplicateWindowMs ?? 120_000;
  const publishTimeoutMs = options.publishTimeoutMs ?? 30_000;
  assertInteger('options.ackWaitMs', ackWaitMs, 100);
  assertInteger('options.maxDeliver', maxDeliver, 1);
  assertInteger('options.duplicateWindowMs', duplicateWindowMs, 1000);
  assertInteger('options.publishTimeoutMs', publishTimeoutMs, 100);

  const time = options.now ? { ...wallTime, now: options.now } : wallTime;
  const nats = await import('nats');
  let connection: import('nats').NatsConnection;
  try {
    connection = await nats.connect({
      servers,
      name: options.name ?? 'repute',
      maxReconnectAttempts: -1,
      reconnectTimeWait: 200,
      waitOnFirstConnect: false,
    });
  } catch (error) {
    throw new TransportError(
      `cannot connect to NATS at ${servers.join(', ')}: ${(error as Error).message}; start it with \`nats-server -js -sd <dir> -a 127.0.0.1 -p <port>\``,
      { cause: error },
    );
  }
  const manager = await retrying(publishTimeoutMs, () => connection.jetstreamManager(), 'connect to JetStream', time);
  const nanos = nats.nanos;
  try {
    await manager.streams.info(options.stream);
  } catch {
    try {
      await manager.streams.add({
        name: options.stream,
        subjects: [...options.subjects],
        storage: options.storage === 'memory' ? nats.StorageType.Memory : nats.StorageType.File,
        duplicate_window: nanos(duplicateWindowMs),
      });
    } catch (error) {
      // Another process may have created it at the same moment.
      await manager.streams.info(options.stream).catch(() => {
        throw new TransportError(
          `cannot create JetStream stream ${options.stream}: ${(error as Error).message}; is nats-server running with -js?`,
          { cause: error },
        );
      });
    }
  }
  const jetstream = connection.jetstream();
  const stats = createTransportCounters();
  const active = new Set<{ close(): Promise<unknown> }>();
  let closed = false;

  return {
    name: 'nats',
    async publish(subject, data, { id }) {
      if (closed) throw new TransportError('the NATS transport is closed');
      assertSubject('subject', subject);
      assertNonEmptyString('options.id', id, 'every message needs a unique id for de-duplication');
      const ack = await retrying(
        publishTimeoutMs,
        () => jetstream.publish(subject, data, { msgID: id, timeout: 2000 }),
        `publish ${id} to ${subject}`,
        time,
      );
      if (ack.duplicate) stats.duplicatePublishes++;
      else stats.published++;
    },
    async subscribe(subject, handler: TransportHandler, { durable }) {
      if (closed) throw new TransportError('the NATS transport is closed');
      assertSubject('subject', subject, { wildcards: true });
      assertNonEmptyString('options.durable', durable);
      const consumerName = durable.replace(/[^A-Za-z0-9_-]/g, '_');
      await retrying(
        publishTimeoutMs,
        async () => {
          try {
            await manager.consumers.info(options.stream, consumerName);
          } catch {
            await manager.consumers.add(options.stream, {
              durable_name: consumerName,
              ack_policy: nats.AckPolicy.Explicit,
              deliver_policy: nats.DeliverPolicy.All,
              filter_subject: subject,
              ack_wait: nanos(ackWaitMs),
              max_deliver: maxDeliver,
              max_ack_pending: 64,
            });
          }
        },
        `create consumer ${consumerName}`,
        time,
      );
      const consumer = await jetstream.consumers.get(options.stream, consumerName);
      const messages = await consumer.consume({ max_messages: 16, expires: 5000 });
      active.add(messages);
      void (async () => {
        for await (const message of messages) {
          const deliveryCount = message.info.redeliveryCount;
          stats.delivered++;
          if (deliveryCount > 1) stats.redelivered++;
          const id = message.headers?.get('Nats-Msg-Id') || `${options.stream}:${message.seq}`;
          try {
            await handler({ subject: message.subject, data: message.data, id, deliveryCount });
            message.ack();
          } catch {
            stats.handlerErrors++;
            if (deliveryCount >= maxDeliver) {
              stats.deadLettered++;
              message.term();
            } else {
              message.nak(Math.min(ackWaitMs, 250));
            }
          }
        }
      })();
      const subscription: TransportSubscription = {
        subject,
        durable,
        async stop() {
          active.delete(messages);
          await messages.close();
        },
      };
      return subscription;
    },
    stats: (): TransportStats => ({ ...stats }),
    async close() {
      if (closed) return;
      closed = true;
      for (const messages of active) await messages.close();
      active.clear();
      await connection.drain().catch(() => connection.close());
    },
  };
}
