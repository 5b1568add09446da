import type { AnswerKind } from './answers/answer-kind.js';
import type { ChatTurn, ReplyFormat, SamplingSettings } from './chat-request.js';

/** Identifier of a task (benchmark item or user question). */
export type TaskId = string;

/**
 * A task as decision paths see it. It deliberately has no reference answer: protocols, selectors,
 * aggregators and reputation models receive `Task`, so no decision can read the answer key.
 */
export interface Task {
  /** Unique id. */
  readonly id: TaskId;
  /** How answers are extracted and compared. */
  readonly kind: AnswerKind;
  /** The question or instruction shown to agents. */
  readonly prompt: string;
  /** Difficulty in [0, 1] when known (generated tasks, benchmark levels). */
  readonly difficulty?: number;
  /** Free-form metadata (subject, source), never an answer. */
  readonly metadata?: Readonly<Record<string, string | number | boolean>>;
  /**
   * A served conversation: every turn, the last one the question (`prompt` holds its text). Live
   * agents send it as messages and reply as they normally would. @default none (a one-shot task)
   */
  readonly conversation?: readonly ChatTurn[];
  /** Sampling settings the requester asked for, forwarded to the agents' models. @default none */
  readonly sampling?: SamplingSettings;
  /** Reply format the requester asked for. @default text */
  readonly replyFormat?: ReplyFormat;
}

/**
 * A task paired with its reference answer. Only graders and the evaluation harness hold these;
 * pass `referenced.task` to anything that decides.
 */
export interface ReferencedTask {
  readonly task: Task;
  /** Reference answer in the kind's raw form (e.g. `\frac{3}{4}`, `B`, `joy,anger`). */
  readonly reference: string;
}
