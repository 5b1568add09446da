// Wire shapes of RAPS over a Transport, all with schemaVersion 1, validated with zod on receipt.
import { z } from 'zod';
import { answerKinds } from '../../core/answers/answer-kind.js';
import { DataFormatError } from '../../core/errors.js';
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

const reportBase = { schemaVersion: z.literal(1), commandId: nonEmpty, agentId: nonEmpty };

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
  z.strictObject({ ...reportBase, kind: z.literal('failed'), error: z.string() }),
]);

/** A coordinator → agent command (schemaVersion 1). */
export type RapsCommand = z.infer<typeof commandSchema>;
/** An agent → coordinator report (schemaVersion 1). */
export type RapsReport = z.infer<typeof reportSchema>;

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
 * subject, the message id and the first offending field.
 */
export function decodeWire<T>(schema: z.ZodType<T>, data: Uint8Array, where: { subject: string; id: string }): T {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(data));
  } catch (error) {
    throw new DataFormatError({
      file: where.subject,
      message: `message ${where.id} is not UTF-8 JSON (${(error as Error).message}); publishers must send JSON with schemaVersion 1`,
      cause: error,
    });
  }
  const result = schema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = issue && issue.path.length > 0 ? issue.path.join('.') : '(root)';
    const version = (parsed as { schemaVersion?: unknown } | null)?.schemaVersion;
    const hint = version !== 1 ? ` (schemaVersion ${JSON.stringify(version)}; only 1 is understood)` : '';
    throw new DataFormatError({
      file: where.subject,
      message: `message ${where.id} rejected: field ${path}: ${issue?.message ?? 'invalid'}${hint}`,
    });
  }
  return result.data;
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
