// The task queue of a run spread over workers: one JetStream stream with work-queue retention
// (`REPUTE_TASKS`, a message is removed once a worker acknowledges it), one subject and one durable
// pull consumer per run, so every worker of the run takes from the same queue, one task at a time.
// A task's message id is `<runId>/<method>/<taskId>` (JetStream drops a re-publication within its
// duplicate window); its ack wait is the team's LLM timeout, pushed back by in-progress heartbeats
// while a worker is still working on it (connectNatsTransport does both), and a message is given up
// after `maxDeliver` deliveries. The coordinator deletes the run's consumer when the run is over;
// one left by a crash expires after the transport's inactive threshold (one hour without a worker
// pulling), losing nothing: the work-queue stream keeps every task not yet acknowledged, and a
// new consumer starts at the first of them.
import { createHash } from 'node:crypto';
import { InvalidArgumentError, TransportError } from '../../core/errors.js';
import { assertInteger } from '../../core/validate.js';
import { parseIntegerFlag } from './_shared.js';
import { connectNatsTransport } from '../../transport/nats-transport.js';
import type { Transport } from '../../transport/transport.js';

/** The stream every run's task queue lives in. */
export const taskStream = 'REPUTE_TASKS';

/** What a queued task message carries (UTF-8 JSON). */
export interface TaskMessage {
  readonly schemaVersion: 1;
  readonly runId: string;
  readonly method: string;
  readonly taskId: string;
}

/** How a run's queue is delivered: the ack wait (ms) and the delivery limit. */
export interface TaskQueueSettings {
  /** NATS server URL, e.g. `nats://127.0.0.1:4222`. */
  readonly natsUrl: string;
  /** Time a worker has to acknowledge (or heartbeat) a task before it is redelivered, in ms. */
  readonly ackWaitMs: number;
  /** Deliveries of one task before it is given up (a task that kills its worker every time). */
  readonly maxDeliver: number;
}

/** The subject and durable consumer name of a run's queue (a run id may hold characters a subject may not). */
export function taskQueueNames(runId: string): { subject: string; durable: string } {
  const token = `${runId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40)}-${createHash('sha256').update(runId).digest('hex').slice(0, 10)}`;
  return { subject: `repute.tasks.${token}`, durable: `tasks-${token}` };
}

/** The message id of a task: a re-publication of it is dropped by JetStream. */
export function taskMessageId(message: TaskMessage): string {
  return `${message.runId}/${message.method}/${message.taskId}`;
}

/** Parses a queued message; a message that is not one throws (and is redelivered, then given up). */
export function parseTaskMessage(data: Uint8Array): TaskMessage {
  const value = JSON.parse(new TextDecoder().decode(data)) as Partial<TaskMessage>;
  if (
    value?.schemaVersion !== 1 ||
    typeof value.runId !== 'string' ||
    typeof value.method !== 'string' ||
    typeof value.taskId !== 'string'
  )
    throw new InvalidArgumentError({
      parameter: 'message',
      value,
      message: `a task message must be { schemaVersion: 1, runId, method, taskId }, got ${JSON.stringify(value)}; publish tasks with repute run --workers`,
    });
  return value as TaskMessage;
}

/** Connects to the task stream (created with work-queue retention when missing). */
export async function connectTaskQueue(settings: TaskQueueSettings, name: string): Promise<Transport> {
  assertInteger('ack-wait', settings.ackWaitMs, 100, undefined, 'pass the ack wait in ms, e.g. --ack-wait 60000');
  assertInteger('max-deliver', settings.maxDeliver, 1, undefined, 'pass e.g. --max-deliver 5');
  return connectNatsTransport({
    servers: settings.natsUrl,
    stream: taskStream,
    subjects: ['repute.tasks.>'],
    retention: 'workqueue',
    name,
    ackWaitMs: settings.ackWaitMs,
    maxDeliver: settings.maxDeliver,
  });
}

/**
 * Publishes a run's tasks in order (one message each, id `<runId>/<method>/<taskId>`); a work-queue
 * stream keeps them until a worker acknowledges them, whether or not a worker is attached yet.
 */
export async function publishTasks(transport: Transport, messages: readonly TaskMessage[]): Promise<void> {
  for (const message of messages) {
    const { subject } = taskQueueNames(message.runId);
    await transport.publish(subject, new TextEncoder().encode(JSON.stringify(message)), {
      id: taskMessageId(message),
    });
  }
}

/**
 * Messages of a run's queue not yet acknowledged (waiting plus being worked on), read from its
 * consumer; `undefined` while the consumer does not exist.
 */
export async function queueDepth(natsUrl: string, runId: string): Promise<number | undefined> {
  const nats = await import('nats');
  const connection = await nats.connect({ servers: natsUrl, name: 'repute-queue-depth' }).catch((error: unknown) => {
    throw new TransportError(`cannot connect to NATS at ${natsUrl}: ${(error as Error).message}`, { cause: error });
  });
  try {
    const manager = await connection.jetstreamManager();
    const info = await manager.consumers.info(taskStream, taskQueueNames(runId).durable).catch(() => undefined);
    return info === undefined ? undefined : info.num_pending + info.num_ack_pending;
  } finally {
    await connection.close();
  }
}

/**
 * Deletes the consumer of a run's queue once the run is over (every published task decided or given
 * up), so that it does not stay on the server; resolves to whether it existed. Tasks still in the
 * stream (given up after `maxDeliver` deliveries to workers that died) stay there: a rerun of the
 * run creates a new consumer that starts at them.
 */
export async function deleteTaskQueue(settings: TaskQueueSettings, runId: string): Promise<boolean> {
  const transport = await connectTaskQueue(settings, `repute-run-${process.pid}`);
  try {
    return await transport.deleteDurable(taskQueueNames(runId).durable);
  } finally {
    await transport.close();
  }
}

/** The flags of `repute run` that name a run, which `repute worker` takes too (so it joins that run). */
export const runNamingArgs = {
  'run-id': { type: 'string', description: 'Run id (default: derived from the team file and tasks)', valueHint: 'ID' },
  reputation: {
    type: 'string',
    description:
      "Where reputation starts: 'continue' (the team's saved state) or 'fresh' (the prior); overrides the file",
    valueHint: 'continue|fresh',
  },
  methods: {
    type: 'string',
    description: "Comma-separated methods of the team's protocol, overrides the file",
    valueHint: 'LIST',
  },
  tasks: { type: 'string', description: "Task file (JSON Lines); overrides the team file's tasks", valueHint: 'FILE' },
  store: {
    type: 'string',
    description: "SQLite store file or postgres:// URL; overrides the team file's store",
    valueHint: 'FILE',
  },
  'allow-env': {
    type: 'string',
    description: 'Comma-separated key variables the team file may send to its endpoints (also REPUTE_ALLOW_ENV)',
    valueHint: 'NAMES',
  },
} as const;

/** The task queue flags of `repute run --workers` and `repute worker`. */
export const queueArgs = {
  nats: {
    type: 'string',
    description: 'NATS server with JetStream of the task queue (also REPUTE_NATS_URL; default nats://127.0.0.1:4222)',
    valueHint: 'URL',
  },
  'ack-wait': {
    type: 'string',
    description:
      "Ms a worker may go silent on a task before it is redelivered (default: the team file's timeoutMs); a live worker heartbeats meanwhile",
    valueHint: 'MS',
  },
  'max-deliver': {
    type: 'string',
    description: 'Deliveries of a task before it is given up as failed',
    default: '5',
    valueHint: 'N',
  },
} as const;

/** The queue settings from the flags; the ack wait defaults to the team's LLM call timeout. */
export function parseQueueFlags(
  args: { nats?: string | undefined; 'ack-wait'?: string | undefined; 'max-deliver'?: string | undefined },
  timeoutMs: number,
): TaskQueueSettings {
  return {
    natsUrl: args.nats ?? process.env.REPUTE_NATS_URL ?? 'nats://127.0.0.1:4222',
    ackWaitMs: parseIntegerFlag('ack-wait', args['ack-wait'], Math.max(100, timeoutMs), 100),
    maxDeliver: parseIntegerFlag('max-deliver', args['max-deliver'], 5, 1),
  };
}

/** Refuses a protocol whose tasks cannot be decided on several workers. */
export function assertDistributable(type: string, workers: boolean | undefined): void {
  if (!workers)
    throw new InvalidArgumentError({
      parameter: '--workers',
      value: type,
      message: `protocol ${type} carries state from task to task that workers cannot share; run this team without --workers (and without repute worker)`,
    });
}
