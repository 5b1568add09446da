// Wire shapes of RAPS over a Transport, validated with zod on receipt: publications and commands
// with schemaVersion 1, reports with schemaVersion 2 (2 added the provider-failure record of a
// `failed` report, so that a coordinator can tell a remote model call that failed from an agent's
// own unusable reply).
import { z } from 'zod';
import { answerKinds } from '../../core/answers/answer-kind.js';
import { DataFormatError, ProviderError, type ProviderFailureReason, TransportError } from '../../core/errors.js';
import type { Message } from '../../core/message.js';
import type { Task } from '../../core/task.js';

const nonEmpty = z.string().min(1);

/** zod schema of a RAPS publication: the core `Message`, schemaVersion 1. */
export const messageSchema = z.strictObject({
  schemaVersion: z.literal(1),
  id: nonEmpty,
  from: nonEmpty,
  round: z.number().int().min(0),
  taskId: nonEmpty.optional(),
  text: z.string().max(200_000),
  answer: z.string().nullable().optional(),
  done: z.boolean().optional(),
});

const taskSchema = z.strictObject({
  id: nonEmpty,
  kind: z.enum(answerKinds),
  prompt: z.string(),
  difficulty: z.number().min(0).max(1).optional(),
  metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
});

const commandBase = {
  schemaVersion: z.literal(1),
  id: nonEmpty,
  runId: nonEmpty,
  agentId: nonEmpty,
  round: z.number().int().min(0),
};

/** zod schema of a coordinator → agent command. */
export const commandSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    ...commandBase,
    kind: z.literal('publish'),
    task: taskSchema,
    own: messageSchema.nullable(),
    received: z.array(messageSchema),
  }),
  z.strictObject({ ...commandBase, kind: z.literal('deliver'), task: taskSchema.nullable(), message: messageSchema }),
  z.strictObject({ ...commandBase, kind: z.literal('refine'), current: z.string(), received: z.array(messageSchema) }),
]);

/**
 * Version of the agent → coordinator report shape. 2: a `failed` report may carry a
 * `providerFailure` record; a coordinator refuses reports of any other version (see {@link decodeReport}).
 */
export const RAPS_REPORT_VERSION = 2;
/** The report version of the builds before provider-failure records. */
const previousReportVersion = 1;

/** Why a provider call failed for good, as on {@link ProviderError}`.reason`. */
export const providerFailureReasons = [
  'http',
  'network',
  'timeout',
  'malformed',
  'incomplete',
  'bad-reply',
] as const satisfies readonly ProviderFailureReason[];

/** The agent acts a RAPS node runs, named as in a task failure record. */
export const rapsActs = ['propose', 'revise', 'audit', 'refine-subscription'] as const;

/** Longest provider-failure message on the wire, in characters (longer ones are cut on encoding). */
export const PROVIDER_FAILURE_MESSAGE_MAX = 4000;

// Any three-digit status: Node's HTTP client passes 600-999 on (some proxies answer 999), and such a
// reply is a provider failure like a 5xx, not a malformed report.
const minStatus = 100;
const maxStatus = 999;

/**
 * zod schema of the provider-failure record of a `failed` report: which act's model call failed
 * after its retries, the provider, model, reason, HTTP status and attempts of the
 * {@link ProviderError}, and its message with secrets removed by the sending node.
 */
export const providerFailureSchema = z.strictObject({
  act: z.enum(rapsActs),
  provider: nonEmpty,
  model: nonEmpty,
  reason: z.enum(providerFailureReasons).optional(),
  status: z.number().int().min(minStatus).max(maxStatus).optional(),
  attempts: z.number().int().min(1),
  message: z.string().max(PROVIDER_FAILURE_MESSAGE_MAX),
});

const reportBase = { schemaVersion: z.literal(RAPS_REPORT_VERSION), commandId: nonEmpty, agentId: nonEmpty };

/** zod schema of an agent → coordinator report (audit verdicts, refined subscriptions, failures). */
export const reportSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    ...reportBase,
    kind: z.literal('audited'),
    messageId: nonEmpty,
    subject: nonEmpty,
    reliable: z.boolean(),
    reason: z.string(),
  }),
  z.strictObject({ ...reportBase, kind: z.literal('refined'), text: z.string() }),
  z.strictObject({
    ...reportBase,
    kind: z.literal('failed'),
    error: z.string(),
    /** Present when the act's model call failed (a provider failure: the task did not happen); absent for the agent's own failure. */
    providerFailure: providerFailureSchema.optional(),
  }),
]);

/** A coordinator → agent command (schemaVersion 1). */
export type RapsCommand = z.infer<typeof commandSchema>;
/** An agent → coordinator report (schemaVersion {@link RAPS_REPORT_VERSION}). */
export type RapsReport = z.infer<typeof reportSchema>;
/** The provider-failure record of a `failed` report. */
export type WireProviderFailure = z.infer<typeof providerFailureSchema>;
/** An agent act of {@link rapsActs}. */
export type RapsAct = (typeof rapsActs)[number];

/**
 * A wire message that the coordinator cannot act on safely, so the run stops: a report of another
 * schema version (an agent process of another Repute build), or a `failed` report whose
 * provider-failure record is malformed (the coordinator could not tell whether the task happened).
 */
export class RapsWireError extends TransportError {
  /** Subject the message came on. */
  readonly subject: string;
  /** Transport id of the message. */
  readonly id: string;
  /** The offending field, dotted (`providerFailure.reason`). */
  readonly field: string;
  /** The value found there. */
  readonly value: unknown;

  constructor({
    subject,
    id,
    field,
    value,
    message,
  }: { subject: string; id: string; field: string; value: unknown; message: string }) {
    super(message);
    this.subject = subject;
    this.id = id;
    this.field = field;
    this.value = value;
  }
}

/** Subjects of one RAPS run: publications, reports and one command inbox per agent. */
export function rapsSubjects(runId: string) {
  const root = `raps.${runId}`;
  return {
    /** Everything of the run (the JetStream stream's subject). */
    all: `${root}.>`,
    /** Publications (`Message`), agent → broker. */
    publications: `${root}.pub`,
    /** Reports, agent → coordinator. */
    reports: `${root}.report`,
    /** Commands to one agent. */
    commands: (agentToken: string) => `${root}.cmd.${agentToken}`,
  };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Encodes a wire object as UTF-8 JSON. */
export function encodeWire(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

/**
 * Decodes and validates one wire payload; a bad payload throws a {@link DataFormatError} naming the
 * subject, the message id and the first offending field (`version` is the schemaVersion the shape has).
 */
export function decodeWire<T>(
  schema: z.ZodType<T>,
  data: Uint8Array,
  where: { subject: string; id: string },
  version = 1,
): T {
  const parsed = parseJson(data, where, version);
  const result = schema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = issue && issue.path.length > 0 ? issue.path.join('.') : '(root)';
    const found = (parsed as { schemaVersion?: unknown } | null)?.schemaVersion;
    const hint = found !== version ? ` (schemaVersion ${JSON.stringify(found)}; only ${version} is understood)` : '';
    throw new DataFormatError({
      file: where.subject,
      message: `message ${where.id} rejected: field ${path}: ${issue?.message ?? 'invalid'}${hint}`,
    });
  }
  return result.data;
}

function parseJson(data: Uint8Array, where: { subject: string; id: string }, version: number): unknown {
  try {
    return JSON.parse(decoder.decode(data));
  } catch (error) {
    throw new DataFormatError({
      file: where.subject,
      message: `message ${where.id} is not UTF-8 JSON (${(error as Error).message}); publishers must send JSON with schemaVersion ${version}`,
      cause: error,
    });
  }
}

/**
 * Decodes and validates one agent → coordinator report. Two faults throw a {@link RapsWireError}
 * (a {@link TransportError}; the run stops) because going on would misrecord the task: a report of
 * `schemaVersion` 1 (an agent process of an older build, whose provider failures would pass for the
 * agent's own), and a malformed `providerFailure` record. Anything else malformed, a version no build
 * has sent included, throws a {@link DataFormatError} (counted and dropped, as stray messages are).
 */
export function decodeReport(data: Uint8Array, where: { subject: string; id: string }): RapsReport {
  const parsed = parseJson(data, where, RAPS_REPORT_VERSION);
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
    const record = parsed as Record<string, unknown>;
    const version = record.schemaVersion;
    if (version === previousReportVersion)
      throw new RapsWireError({
        ...where,
        field: 'schemaVersion',
        value: version,
        message: `report ${where.id} on ${where.subject} has schemaVersion ${version}, but this coordinator reads RAPS reports of schemaVersion ${RAPS_REPORT_VERSION} only (2 carries provider failures apart from failed acts); the agent process runs another Repute version: start the coordinator and every agent process from the same build, then rerun`,
      });
    if (record.kind === 'failed' && 'providerFailure' in record) {
      const result = providerFailureSchema.safeParse(record.providerFailure);
      if (!result.success) {
        const issue = result.error.issues[0];
        const path = issue?.path ?? [];
        const field = ['providerFailure', ...path.map(String)].join('.');
        let value: unknown = record.providerFailure;
        for (const key of path) value = (value as Record<PropertyKey, unknown> | undefined)?.[key as PropertyKey];
        throw new RapsWireError({
          ...where,
          field,
          value,
          message: `report ${where.id} on ${where.subject} from agent ${JSON.stringify(record.agentId)} has a malformed provider-failure record: field ${field} is ${describeValue(value)} (${issue?.message ?? 'invalid'}); the coordinator cannot tell whether that task's model call failed, so the run stops. Start the agent processes from the same Repute build as the coordinator, then rerun: the task is redone`,
        });
      }
    }
  }
  return decodeWire(reportSchema, data, where, RAPS_REPORT_VERSION);
}

/** A value for an error message: JSON, cut to 80 characters. */
function describeValue(value: unknown): string {
  if (value === undefined) return 'missing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * The wire record of a provider failure: `act` is the act whose model call failed, `model` the
 * agent's model; `redact` removes secrets (API keys) from every text field, and the message is cut
 * to {@link PROVIDER_FAILURE_MESSAGE_MAX} characters after redaction (so no part of a key is left).
 */
export function providerFailureToWire(
  error: ProviderError,
  { act, model, redact }: { act: RapsAct; model: string; redact: (text: string) => string },
): WireProviderFailure {
  const message = redact(error.message);
  // A status no HTTP reply has stays in the message only, so that the record always decodes.
  const { status } = error;
  const httpStatus = status !== undefined && Number.isInteger(status) && status >= minStatus && status <= maxStatus;
  return {
    act,
    provider: redact(error.provider) || 'unknown',
    model: redact(model) || 'unknown',
    ...(error.reason === undefined ? {} : { reason: error.reason }),
    ...(httpStatus ? { status } : {}),
    attempts: Number.isInteger(error.attempts) ? Math.max(1, error.attempts) : 1,
    message: message.length > PROVIDER_FAILURE_MESSAGE_MAX ? message.slice(0, PROVIDER_FAILURE_MESSAGE_MAX) : message,
  };
}

/** The {@link ProviderError} a provider-failure record stands for, as the remote agent's act threw it. */
export function providerErrorFromWire(record: WireProviderFailure): ProviderError {
  return new ProviderError({
    provider: record.provider,
    attempts: record.attempts,
    message: record.message,
    ...(record.status === undefined ? {} : { status: record.status }),
    ...(record.reason === undefined ? {} : { reason: record.reason }),
  });
}

/** Validates a publication against the Message schema (schemaVersion 1). */
export function parseMessage(data: Uint8Array, where: { subject: string; id: string }): Message {
  return decodeWire(messageSchema, data, where) as Message;
}

/** Strips a task to its wire form (no metadata beyond the allowed scalar record). */
export function taskToWire(task: Task): z.infer<typeof taskSchema> {
  return {
    id: task.id,
    kind: task.kind,
    prompt: task.prompt,
    ...(task.difficulty === undefined ? {} : { difficulty: task.difficulty }),
    ...(task.metadata === undefined ? {} : { metadata: { ...task.metadata } }),
  };
}

/**
 * Deterministic id of agent `agentId`'s publication on `taskId` in `round`, so a re-run after a
 * crash de-duplicates. It leaves out the run id (each run has its own stream), so that a scenario
 * decides the same under any run id.
 */
export function publicationId(_runId: string, taskId: string, round: number, agentId: string): string {
  return `${taskId}:${round}:${agentId}`;
}

/** Deterministic id of a command (`kind` = publish | deliver | refine). */
export function commandId(
  runId: string,
  taskId: string,
  round: number,
  kind: string,
  agentId: string,
  messageId?: string,
): string {
  return `${runId}:${taskId}:${round}:${kind}:${agentId}${messageId === undefined ? '' : `:${messageId}`}`;
}

/** JetStream stream name of a RAPS run (`RAPS_<run id>`, other characters than letters, digits, `-` and `_` replaced by `_`). */
export function natsStreamName(runId: string): string {
  return `RAPS_${runId.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}
