// NATS JetStream transport. `nats` is imported dynamically, so importing Repute never loads it
// unless this transport is used.
import { InvalidArgumentError, TransportError } from '../core/errors.js';
import { assertInteger, assertKnownOptions, assertNonEmptyString, defineOptionKeys } from '../core/validate.js';
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
  /**
   * How long a subscription's `stop` (and `close`) waits for a handler still running, in ms. A handler
   * that has not finished by then is left running, but its message is no longer kept alive: it is not
   * acknowledged and goes to the durable's next subscriber after `ackWaitMs`. @default 5000
   */
  stopTimeoutMs?: number;
  /**
   * How a new stream keeps messages: `limits` keeps them after delivery (RAPS replays its log);
   * `workqueue` removes each message once a consumer acknowledges it, so a task queue holds only
   * the tasks not yet done. @default 'limits'
   */
  retention?: 'limits' | 'workqueue';
  /**
   * How long a consumer this transport creates may have no subscriber pulling from it before the
   * server deletes it (JetStream's `inactive_threshold`), in ms (≥ 1000). A process that crashes
   * cannot delete its consumers (`deleteDurable`); this bounds how long they stay. A subscriber
   * that comes back within it resumes where its durable stopped; later, it starts a new consumer
   * at the first message the stream still holds. @default 3600000 (1 hour)
   */
  inactiveThresholdMs?: number;
}

const knownNatsTransportOptions = defineOptionKeys<NatsTransportOptions>()([
  'servers',
  'stream',
  'subjects',
  'name',
  'ackWaitMs',
  'maxDeliver',
  'duplicateWindowMs',
  'storage',
  'publishTimeoutMs',
  'now',
  'stopTimeoutMs',
  'retention',
  'inactiveThresholdMs',
]);

/**
 * Connects to NATS and returns a {@link Transport} over JetStream: every subject lives in one
 * stream; `subscribe` creates (or re-attaches to) a durable pull consumer with explicit acks, so a
 * subscriber that crashes gets its unacknowledged and missed messages on restart (within
 * `inactiveThresholdMs`, after which the server deletes a consumer nobody pulls from; `deleteDurable`
 * deletes one whose run is over at once, `deleteStream` the whole stream once nothing will resume
 * it); `publish` sets
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
  assertKnownOptions('options', options, knownNatsTransportOptions, 'connectNatsTransport');
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
  if (options.retention !== undefined && options.retention !== 'limits' && options.retention !== 'workqueue')
    throw new InvalidArgumentError({
      parameter: 'options.retention',
      value: options.retention,
      message: `options.retention must be 'limits' or 'workqueue', got ${JSON.stringify(options.retention)}`,
    });
  const stopTimeoutMs = options.stopTimeoutMs ?? 5000;
  assertInteger('options.stopTimeoutMs', stopTimeoutMs, 0);
  const inactiveThresholdMs = options.inactiveThresholdMs ?? defaultInactiveThresholdMs;
  assertInteger('options.inactiveThresholdMs', inactiveThresholdMs, 1000);

  // Server URLs may carry `user:password@` or a token; error messages show them without it.
  const shownServers = servers.map(redactUrlCredentials).join(', ');
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
      `cannot connect to NATS at ${shownServers}: ${redactCredentials((error as Error).message, servers)}; start it with \`nats-server -js -sd <dir> -a 127.0.0.1 -p <port>\``,
      { cause: error },
    );
  }
  const manager = await retrying(publishTimeoutMs, () => connection.jetstreamManager(), 'connect to JetStream', time);
  const nanos = nats.nanos;
  let existing: import('nats').StreamInfo | undefined;
  try {
    existing = await manager.streams.info(options.stream);
  } catch {
    try {
      await manager.streams.add({
        name: options.stream,
        subjects: [...options.subjects],
        storage: options.storage === 'memory' ? nats.StorageType.Memory : nats.StorageType.File,
        duplicate_window: nanos(duplicateWindowMs),
        retention: options.retention === 'workqueue' ? nats.RetentionPolicy.Workqueue : nats.RetentionPolicy.Limits,
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
  const capturing = existing?.config.subjects ?? [...options.subjects];
  const uncaptured = options.subjects.filter((subject) => !capturing.includes(subject));
  if (uncaptured.length > 0) {
    // Publishing there would only time out with "no responders"; say why now.
    await connection.close().catch(() => undefined);
    throw new TransportError(
      `JetStream stream ${options.stream} already exists and captures ${JSON.stringify(capturing)}, not ${JSON.stringify(uncaptured)}; pass another options.stream or delete the old stream (\`nats stream rm ${options.stream}\`)`,
    );
  }
  const jetstream = connection.jetstream();
  const stats = createTransportCounters();
  // The stop of every attached subscription (what `close` runs).
  const active = new Set<() => Promise<void>>();
  // Consumer names with a subscriber attached through this connection (the in-process bus refuses a
  // second one too), each with its subscription's `stop`.
  const attached = new Map<string, () => Promise<void>>();
  let closed = false;
  // Set by `deleteStream`: publishing would only time out ("no responders"), so it throws at once.
  let streamDeleted = false;
  const ensureStream = (): void => {
    if (closed) throw new TransportError('the NATS transport is closed');
    if (streamDeleted)
      throw new TransportError(
        `JetStream stream ${options.stream} was deleted (deleteStream); connect a new transport to use it again`,
      );
  };

  return {
    name: 'nats',
    async publish(subject, data, { id }) {
      ensureStream();
      assertSubject('subject', subject);
      assertNonEmptyString('options.id', id, 'every message needs a unique id for de-duplication');
      if (!(data instanceof Uint8Array))
        throw new InvalidArgumentError({
          parameter: 'data',
          value: data,
          message: `data must be a Uint8Array, got ${typeof data}`,
        });
      const ack = await retrying(
        publishTimeoutMs,
        () =>
          jetstream.publish(subject, data, { msgID: id, timeout: 2000 }).catch((error: unknown) => {
            if ((error as { code?: unknown }).code !== 'MAX_PAYLOAD_EXCEEDED') throw error;
            throw new InvalidArgumentError({
              parameter: 'data',
              value: `${data.byteLength} bytes`,
              message: `message ${id} to ${subject} has ${data.byteLength} bytes, over the server's max_payload of ${connection.info?.max_payload} bytes (headers included); send a smaller payload or raise max_payload in the nats-server config`,
              cause: error,
            });
          }),
        `publish ${id} to ${subject}`,
        time,
      );
      if (ack.duplicate) stats.duplicatePublishes++;
      else stats.published++;
    },
    async subscribe(subject, handler: TransportHandler, { durable }) {
      ensureStream();
      assertSubject('subject', subject, { wildcards: true });
      assertNonEmptyString('options.durable', durable);
      const consumerName = consumerNameOf(durable);
      const info = await retrying(
        publishTimeoutMs,
        async () => {
          try {
            return await manager.consumers.info(options.stream, consumerName);
          } catch {
            return await manager.consumers.add(options.stream, {
              durable_name: consumerName,
              ack_policy: nats.AckPolicy.Explicit,
              deliver_policy: nats.DeliverPolicy.All,
              filter_subject: subject,
              ack_wait: nanos(ackWaitMs),
              max_deliver: maxDeliver,
              max_ack_pending: 64,
              inactive_threshold: nanos(inactiveThresholdMs),
            });
          }
        },
        `create consumer ${consumerName}`,
        time,
      );
      // JetStream keeps an existing consumer's filter: re-attaching it to another subject would
      // silently deliver the old subject's messages.
      if ((info.config.filter_subject ?? '') !== subject)
        throw new InvalidArgumentError({
          parameter: 'subject',
          value: subject,
          message: `durable ${JSON.stringify(durable)} (consumer ${consumerName}) already follows ${JSON.stringify(info.config.filter_subject ?? '')}; use another durable name for ${JSON.stringify(subject)}`,
        });
      if (attached.has(consumerName))
        throw new TransportError(
          `durable ${JSON.stringify(durable)} (consumer ${consumerName}) already has an attached subscriber; stop it first`,
        );
      // Claimed before the awaits below, so that a second subscribe meanwhile is refused; set to the stop below.
      attached.set(consumerName, async () => {});
      const consumer = await jetstream.consumers.get(options.stream, consumerName);
      // One message at a time, as the in-process bus delivers: a prefetched message would sit in the
      // client's buffer while the handler runs, and its ack timer would redeliver it behind our back.
      const messages = await consumer.consume({ max_messages: 1, expires: 5000 });
      // The message whose handler is running: its ack-deadline heartbeat, and a promise settled when
      // the handler returns. Once the subscription is `stopping` no handler starts; a handler still
      // running when stop gives up on it is `abandoned`: its message is neither acked nor nakked.
      let inFlight: { heartbeat: ReturnType<typeof setInterval>; settled: Promise<void> } | undefined;
      let stopping = false;
      let abandoned = false;
      void (async () => {
        for await (const message of messages) {
          // Delivered while stopping: left unacknowledged, so it goes to the next subscriber.
          if (stopping) break;
          const deliveryCount = message.info.redeliveryCount;
          stats.delivered++;
          if (deliveryCount > 1) stats.redelivered++;
          const id = message.headers?.get('Nats-Msg-Id') || `${options.stream}:${message.seq}`;
          // A handler slower than ackWaitMs (an LLM call) is still working, not lost: push the ack
          // deadline back so the message is not redelivered, and its delivery budget not spent, meanwhile.
          const heartbeat = setInterval(
            () => {
              try {
                message.working();
              } catch {
                // Connection gone: the ack timeout redelivers the message, which is what we want then.
              }
            },
            Math.max(50, Math.floor(ackWaitMs / 2)),
          );
          let settle = () => {};
          inFlight = { heartbeat, settled: new Promise<void>((resolve) => (settle = resolve)) };
          try {
            await handler({ subject: message.subject, data: message.data, id, deliveryCount });
            if (!abandoned) message.ack();
          } catch {
            stats.handlerErrors++;
            if (abandoned) {
              // Given up by stop: the message goes to the next subscriber as it is.
            } else if (deliveryCount >= maxDeliver) {
              stats.deadLettered++;
              message.term();
            } else {
              message.nak(Math.min(ackWaitMs, 250));
            }
          } finally {
            clearInterval(heartbeat);
            inFlight = undefined;
            settle();
          }
        }
      })();
      // Waits up to stopTimeoutMs for a running handler, then detaches: a handler still running keeps
      // running, but its message is no longer kept alive, so the server redelivers it after ackWaitMs.
      const detach = async () => {
        stopping = true;
        const running = inFlight;
        let finished = running === undefined;
        if (running !== undefined) {
          let timer: ReturnType<typeof setTimeout> | undefined;
          finished = await Promise.race([
            running.settled.then(() => true),
            new Promise<boolean>((resolve) => {
              timer = setTimeout(() => resolve(false), stopTimeoutMs);
            }),
          ]);
          clearTimeout(timer);
          clearInterval(running.heartbeat);
          abandoned = !finished;
        }
        // Closing waits for the loop above to leave its handler, so not for a handler that is stuck.
        const closing = messages.close().catch(() => undefined);
        if (finished) await closing;
      };
      const subscription: TransportSubscription = {
        subject,
        durable,
        async stop() {
          if (!active.has(detach)) return;
          active.delete(detach);
          attached.delete(consumerName);
          await detach();
        },
      };
      active.add(detach);
      attached.set(consumerName, () => subscription.stop());
      return subscription;
    },
    async deleteDurable(durable) {
      ensureStream();
      assertNonEmptyString('durable', durable);
      const consumerName = consumerNameOf(durable);
      await attached.get(consumerName)?.();
      return retrying(
        publishTimeoutMs,
        () =>
          manager.consumers.delete(options.stream, consumerName).catch((error: unknown) => {
            // Already gone (deleted by another process, or expired after inactiveThresholdMs).
            if (isConsumerNotFound(error)) return false;
            throw error;
          }),
        `delete consumer ${consumerName}`,
        time,
      );
    },
    async deleteStream() {
      if (closed) throw new TransportError('the NATS transport is closed');
      if (streamDeleted) return false;
      streamDeleted = true;
      for (const detach of active) await detach();
      active.clear();
      attached.clear();
      return retrying(
        publishTimeoutMs,
        () =>
          manager.streams.delete(options.stream).catch((error: unknown) => {
            // Already gone (deleted by another process of the run).
            if (isStreamNotFound(error)) return false;
            throw error;
          }),
        `delete stream ${options.stream}`,
        time,
      );
    },
    stats: (): TransportStats => ({ ...stats }),
    async close() {
      if (closed) return;
      closed = true;
      for (const detach of active) await detach();
      active.clear();
      attached.clear();
      await connection.drain().catch(() => connection.close());
    },
  };
}

/** The default of {@link NatsTransportOptions.inactiveThresholdMs}: 1 hour, in ms. */
export const defaultInactiveThresholdMs = 3_600_000;

/** The JetStream consumer name of a durable (a consumer name may hold letters, digits, '-' and '_' only). */
function consumerNameOf(durable: string): string {
  return durable.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** Whether a JetStream API error says the consumer does not exist (error code 10014). */
function isConsumerNotFound(error: unknown): boolean {
  const apiError = (error as { api_error?: { err_code?: unknown } }).api_error;
  return apiError?.err_code === 10014 || /consumer not found/i.test((error as Error).message ?? '');
}

/** Whether a JetStream API error says the stream does not exist (error code 10059). */
function isStreamNotFound(error: unknown): boolean {
  const apiError = (error as { api_error?: { err_code?: unknown } }).api_error;
  return apiError?.err_code === 10059 || /stream not found/i.test((error as Error).message ?? '');
}

/** `url` with any `user:password@` or `token@` part replaced by `***@`. */
function redactUrlCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1***@');
}

/** `text` with every credential of `urls` (password, user, token) replaced by `***`. */
function redactCredentials(text: string, urls: readonly string[]): string {
  let redacted = text;
  for (const url of urls) {
    const userinfo = /^[a-z][a-z0-9+.-]*:\/\/([^/@]*)@/i.exec(url)?.[1];
    if (!userinfo) continue;
    for (const secret of [userinfo, ...userinfo.split(':')].filter((part) => part.length > 0))
      redacted = redacted.split(secret).join('***');
  }
  return redacted;
}
