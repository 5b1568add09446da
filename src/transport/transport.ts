/**
 * One message as a subscriber receives it. Delivery is at-least-once: the same `id` can arrive more
 * than once (after a crash, a reconnect or a lost acknowledgement), so handlers de-duplicate on it.
 */
export interface TransportMessage {
  /** Subject it was published on, e.g. `raps.run-1.pub`. */
  readonly subject: string;
  /** Payload bytes (UTF-8 JSON for RAPS). */
  readonly data: Uint8Array;
  /** Publisher-assigned unique id; the transport drops re-publications of an id it has stored. */
  readonly id: string;
  /** 1 on first delivery, 2.. on redeliveries. */
  readonly deliveryCount: number;
}

/** Handles one message; resolving acknowledges it, throwing asks for a redelivery. */
export type TransportHandler = (message: TransportMessage) => Promise<void> | void;

/** Options of {@link Transport.subscribe}. */
export interface SubscribeOptions {
  /**
   * Durable consumer name: messages published while no subscriber with this name is attached are
   * kept and delivered when one attaches again, and unacknowledged ones are redelivered.
   */
  readonly durable: string;
}

/** An attached subscriber. */
export interface TransportSubscription {
  readonly subject: string;
  readonly durable: string;
  /**
   * Detaches; the durable stays, and unacknowledged messages stay pending for the next subscriber
   * with the same durable name (a restarted process resumes where this one stopped).
   */
  stop(): Promise<void>;
}

/** Counters of a transport since it was created (this connection only). */
export interface TransportStats {
  /** Messages accepted by `publish`. */
  readonly published: number;
  /** Re-publications of an id the store already held (de-duplicated, not stored again). */
  readonly duplicatePublishes: number;
  /** Handler invocations, first deliveries and redeliveries together. */
  readonly delivered: number;
  /** Handler invocations with deliveryCount > 1. */
  readonly redelivered: number;
  /** Handler invocations that threw (the message was redelivered or, after the limit, dropped). */
  readonly handlerErrors: number;
  /** Messages given up after the delivery limit. */
  readonly deadLettered: number;
}

/**
 * A message transport with durable subscriptions and at-least-once delivery: the in-process bus
 * (default) and NATS JetStream implement it, so RAPS runs unchanged across processes.
 */
export interface Transport {
  /** `inproc` or `nats`. */
  readonly name: string;
  /** Stores a message; resolves once the transport has accepted it durably. Ids must be unique per message. */
  publish(subject: string, data: Uint8Array, options: { id: string }): Promise<void>;
  /** Attaches a handler to a subject (`*` matches one token, `>` the rest) under a durable name. */
  subscribe(subject: string, handler: TransportHandler, options: SubscribeOptions): Promise<TransportSubscription>;
  /**
   * Deletes a durable consumer once the run or session it served is over, so that it does not stay
   * on the server: a subscriber of it attached through this transport is stopped first (as `stop`
   * does). Messages it had not acknowledged are no longer kept for it; a later subscriber with the
   * same name starts a new consumer at the first message of the stream that matches. Resolves to
   * whether the durable existed.
   */
  deleteDurable(durable: string): Promise<boolean>;
  /**
   * Deletes the stream that stores this transport's messages once the run it served is over and
   * nothing will resume it: JetStream's stream named at connect (its messages and every consumer
   * on it, whichever process created them), the in-process bus's log and durables. Subscribers
   * attached through this transport are stopped first; afterwards `publish`, `subscribe` and
   * `deleteDurable` throw, and only `stats` and `close` are left. Resolves to whether the stream
   * existed.
   */
  deleteStream(): Promise<boolean>;
  /** Counters since creation. */
  stats(): TransportStats;
  /** Detaches every subscriber and releases the connection. */
  close(): Promise<void>;
}
