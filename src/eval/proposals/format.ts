import type { AgentId, AgentIdentity } from '../../core/agent-identity.js';
import type { AnswerKind } from '../../core/answers/answer-kind.js';
import { answerKinds } from '../../core/answers/answer-kind.js';
import { DataFormatError } from '../../core/errors.js';

/**
 * One agent's recorded answer to one task in the Repute proposals format.
 * At least one of `text` and `answer` is present; `answer: null` records an unparseable reply.
 */
export interface RecordedProposal {
  /** Raw reply text, when recorded. */
  readonly text?: string;
  /** Extracted final answer in the kind's raw form, or `null` when none could be parsed. */
  readonly answer?: string | null;
  /** Correctness flag from the dataset's own grading rule, when the dataset provides one. */
  readonly correct?: boolean;
}

/** One line of a proposals file: one task with every agent's recorded answer. */
export interface ProposalsRecord {
  /** Format version; required on every line unless the file starts with a header. */
  readonly schemaVersion?: 1;
  /** Unique task id. */
  readonly id: string;
  /** Answer kind of the task. */
  readonly kind: AnswerKind;
  /** Question text shown to agents. */
  readonly prompt?: string;
  /** Reference answer in the kind's raw form (graders only). */
  readonly reference?: string;
  /** Number of answer options for `choice` tasks (letters `A`.. up to this many). */
  readonly options?: number;
  /** Agent name → recorded proposal; an agent absent from the map has no record for the task. */
  readonly proposals: Readonly<Record<AgentId, RecordedProposal>>;
  /** Agent → underlying model map for agents first seen on this line (clone groups). */
  readonly models?: Readonly<Record<AgentId, string>>;
}

/** Optional first line of a proposals file: file-wide version, name and agent → model map. */
export interface ProposalsHeader {
  readonly schemaVersion: 1;
  /** Marks the line as the header. */
  readonly format: 'repute-proposals';
  /** Dataset name for reports. */
  readonly name?: string;
  /** Agent → underlying model (clone group key); agents not listed are their own model. */
  readonly models?: Readonly<Record<AgentId, string>>;
  /** Free-form provenance (source repository, grading rule). */
  readonly source?: string;
}

/** The literal that marks a header line. */
export const proposalsFormatTag = 'repute-proposals';

/**
 * A dataset in memory in the Repute proposals format: what every loader returns and what the replay
 * harness reads. Persisted shapes carry `schemaVersion: 1`.
 */
export interface ProposalsDataset {
  readonly schemaVersion: 1;
  /** Dataset name (the directory or file base name). */
  readonly name: string;
  /** Which loader produced it. */
  readonly format: DatasetFormat;
  /** Agents in first-seen order, with their clone-group model. */
  readonly agents: readonly AgentIdentity[];
  /** Tasks in file order. */
  readonly tasks: readonly ProposalsRecord[];
  /**
   * Records (tasks, models, predictions) the loader handled instead of loading as given, by reason,
   * e.g. `noProposals`, `modelsWithoutPredictions`, `predictionsBeyondOptions`; nothing is dropped silently.
   */
  readonly skipped: Readonly<Record<string, number>>;
  /**
   * Where correctness comes from: every answered proposal carries the dataset's `correct` flag
   * (`flags`), none does (`equivalence`: the answer kind decides), or some do (`mixed`).
   */
  readonly correctness: 'flags' | 'equivalence' | 'mixed';
  /**
   * Where the tasks' answer kinds come from, in words, e.g. `models.json "task": "crux"` or `each
   * task's "kind" field`; the replay prints it. Loaders take kinds from the data, never from a path.
   */
  readonly kindSource?: string;
}

/** Formats the replay loaders understand. */
export type DatasetFormat = 'zeroeval' | 'mmlu-pro' | 'mathvista' | 'jsonl';

/** All dataset formats, in a stable order. */
export const datasetFormats: readonly DatasetFormat[] = ['zeroeval', 'mmlu-pro', 'mathvista', 'jsonl'];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True when a parsed JSON line is a {@link ProposalsHeader}. */
export function isProposalsHeader(value: unknown): value is ProposalsHeader {
  return isObject(value) && value.format === proposalsFormatTag;
}

/**
 * Checks a parsed header line and returns it typed; throws {@link DataFormatError} naming the file,
 * line and field otherwise.
 */
export function parseProposalsHeader(value: unknown, file: string, line: number): ProposalsHeader {
  if (!isObject(value) || value.format !== proposalsFormatTag) {
    throw new DataFormatError({
      file,
      line,
      message: `expected a header object with "format": "${proposalsFormatTag}"`,
    });
  }
  if (value.schemaVersion !== 1) {
    throw new DataFormatError({
      file,
      line,
      message: `header schemaVersion must be 1, got ${JSON.stringify(value.schemaVersion)}; this reader understands version 1 only`,
    });
  }
  if (value.models !== undefined) checkModelMap(value.models, file, line, 'models');
  if (value.name !== undefined && typeof value.name !== 'string') {
    throw new DataFormatError({
      file,
      line,
      message: `header "name" must be a string, got ${JSON.stringify(value.name)}`,
    });
  }
  return value as unknown as ProposalsHeader;
}

function checkModelMap(value: unknown, file: string, line: number, field: string): void {
  if (!isObject(value))
    throw new DataFormatError({
      file,
      line,
      message: `"${field}" must be an object mapping agent → model, got ${JSON.stringify(value)}`,
    });
  for (const [agent, model] of Object.entries(value)) {
    if (typeof model !== 'string' || model.length === 0) {
      throw new DataFormatError({
        file,
        line,
        message: `"${field}.${agent}" must be a non-empty model name, got ${JSON.stringify(model)}`,
      });
    }
  }
}

/**
 * Checks a parsed task line and returns it typed. `versioned` says whether a header already fixed
 * the version (then `schemaVersion` may be omitted). Throws {@link DataFormatError} naming the file,
 * the line and the field, with what was expected.
 */
export function parseProposalsRecord(value: unknown, file: string, line: number, versioned: boolean): ProposalsRecord {
  if (!isObject(value))
    throw new DataFormatError({
      file,
      line,
      message: `expected a JSON object per line, got ${JSON.stringify(value)?.slice(0, 60)}`,
    });
  if (value.schemaVersion === undefined) {
    if (!versioned)
      throw new DataFormatError({
        file,
        line,
        message:
          'missing "schemaVersion": 1; add it to every line or start the file with a header line {"schemaVersion":1,"format":"repute-proposals"}',
      });
  } else if (value.schemaVersion !== 1) {
    throw new DataFormatError({
      file,
      line,
      message: `schemaVersion must be 1, got ${JSON.stringify(value.schemaVersion)}`,
    });
  }
  if (typeof value.id !== 'string' || value.id.length === 0) {
    throw new DataFormatError({
      file,
      line,
      message: `"id" must be a non-empty string, got ${JSON.stringify(value.id)}`,
    });
  }
  if (typeof value.kind !== 'string' || !(answerKinds as readonly string[]).includes(value.kind)) {
    throw new DataFormatError({
      file,
      line,
      message: `"kind" must be one of ${answerKinds.join(', ')}, got ${JSON.stringify(value.kind)}`,
    });
  }
  for (const field of ['prompt', 'reference'] as const) {
    if (value[field] !== undefined && typeof value[field] !== 'string') {
      throw new DataFormatError({
        file,
        line,
        message: `"${field}" must be a string when present, got ${JSON.stringify(value[field])}`,
      });
    }
  }
  if (
    value.options !== undefined &&
    (typeof value.options !== 'number' || !Number.isInteger(value.options) || value.options < 2 || value.options > 26)
  ) {
    throw new DataFormatError({
      file,
      line,
      message: `"options" must be an integer in [2, 26], got ${JSON.stringify(value.options)}`,
    });
  }
  if (!isObject(value.proposals)) {
    throw new DataFormatError({
      file,
      line,
      message: `"proposals" must be an object mapping agent → { text?, answer?, correct? }, got ${JSON.stringify(value.proposals)}`,
    });
  }
  for (const [agent, proposal] of Object.entries(value.proposals)) {
    if (!isObject(proposal))
      throw new DataFormatError({
        file,
        line,
        message: `"proposals.${agent}" must be an object, got ${JSON.stringify(proposal)}`,
      });
    if (proposal.text !== undefined && typeof proposal.text !== 'string') {
      throw new DataFormatError({
        file,
        line,
        message: `"proposals.${agent}.text" must be a string, got ${JSON.stringify(proposal.text)}`,
      });
    }
    if (proposal.answer !== undefined && proposal.answer !== null && typeof proposal.answer !== 'string') {
      throw new DataFormatError({
        file,
        line,
        message: `"proposals.${agent}.answer" must be a string or null, got ${JSON.stringify(proposal.answer)}`,
      });
    }
    if (proposal.text === undefined && proposal.answer === undefined) {
      throw new DataFormatError({
        file,
        line,
        message: `"proposals.${agent}" needs "text" or "answer" (use "answer": null for an unparseable reply)`,
      });
    }
    if (proposal.correct !== undefined && typeof proposal.correct !== 'boolean') {
      throw new DataFormatError({
        file,
        line,
        message: `"proposals.${agent}.correct" must be true or false, got ${JSON.stringify(proposal.correct)}`,
      });
    }
  }
  if (value.models !== undefined) checkModelMap(value.models, file, line, 'models');
  return value as unknown as ProposalsRecord;
}
