/**
 * Error codes carried by every {@link ReputeError}. The server maps them to HTTP statuses and the
 * CLI to exit codes.
 */
export type ReputeErrorCode =
  | 'invalid_argument'
  | 'not_found'
  | 'convergence'
  | 'provider'
  | 'data_format'
  | 'store'
  | 'transport'
  | 'run_failed'
  | 'interrupted'
  | 'unavailable'
  | 'internal';

/** Base class of every error Repute throws on purpose. */
export class ReputeError extends Error {
  /** Stable machine-readable code. */
  readonly code: ReputeErrorCode;

  constructor(code: ReputeErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.name = new.target.name;
  }
}

/** Caller misuse: a parameter has a value the function cannot accept. */
export class InvalidArgumentError extends ReputeError {
  /** Name of the offending parameter or field, dotted for nested fields (`options.alpha`). */
  readonly parameter: string;
  /** The value that was refused. */
  readonly value: unknown;

  constructor({
    parameter,
    value,
    message,
    cause,
  }: { parameter: string; value: unknown; message: string; cause?: unknown }) {
    super('invalid_argument', message, { cause });
    this.parameter = parameter;
    this.value = value;
  }
}

/** A referenced entity (agent, task, run) does not exist. */
export class NotFoundError extends ReputeError {
  /** Kind of the missing entity, e.g. `agent`. */
  readonly entity: string;
  /** The id that was looked up. */
  readonly id: string;

  constructor({ entity, id, message, cause }: { entity: string; id: string; message?: string; cause?: unknown }) {
    super('not_found', message ?? `unknown ${entity} id ${JSON.stringify(id)}`, { cause });
    this.entity = entity;
    this.id = id;
  }
}

/** An iterative method did not converge within its iteration budget. */
export class ConvergenceError extends ReputeError {
  /** Iterations performed before giving up. */
  readonly iterations: number;
  /** Residual (e.g. L1 change) at the last iteration. */
  readonly residual: number;

  constructor({ iterations, residual, message }: { iterations: number; residual: number; message: string }) {
    super('convergence', message);
    this.iterations = iterations;
    this.residual = residual;
  }
}

/** An LLM or embedding provider failed after all retries. */
export class ProviderError extends ReputeError {
  /** Provider name, e.g. `openai-compatible`. */
  readonly provider: string;
  /** HTTP status of the last attempt, when there was one. */
  readonly status: number | undefined;
  /** Number of attempts made. */
  readonly attempts: number;
  /** What went wrong on the last attempt: an HTTP error status, no connection, a timeout, a reply outside the protocol, or a reply cut short. */
  readonly reason: ProviderFailureReason | undefined;

  constructor({
    provider,
    status,
    attempts,
    reason,
    message,
    cause,
  }: {
    provider: string;
    status?: number;
    attempts: number;
    reason?: ProviderFailureReason;
    message: string;
    cause?: unknown;
  }) {
    super('provider', message, { cause });
    this.provider = provider;
    this.status = status;
    this.attempts = attempts;
    this.reason = reason;
  }
}

/**
 * Why a provider call failed for good: `http` (an error status), `network`, `timeout`, `malformed`
 * (a reply outside the protocol), `incomplete` (the model stopped before the end of its reply: the
 * output token limit, or the provider's content filter), `bad-reply` (a reply that held no answer of
 * the task's kind, also after one repair prompt).
 */
export type ProviderFailureReason = 'http' | 'network' | 'timeout' | 'malformed' | 'incomplete' | 'bad-reply';

/** A run ended without finishing every task (failed tasks, or stopped early by the failure budget). */
export class RunFailedError extends ReputeError {
  /** Id of the run, so it can be resumed. */
  readonly runId: string;
  /** Tasks that failed (per method and task). */
  readonly failedTasks: number;

  constructor({
    runId,
    failedTasks,
    message,
    cause,
  }: { runId: string; failedTasks: number; message: string; cause?: unknown }) {
    super('run_failed', message, { cause });
    this.runId = runId;
    this.failedTasks = failedTasks;
  }
}

/** The process was asked to stop (SIGINT or SIGTERM); work done so far is kept and a rerun resumes. */
export class InterruptedError extends ReputeError {
  /** The signal that stopped the work. */
  readonly signal: 'SIGINT' | 'SIGTERM';

  constructor({ signal, message }: { signal: 'SIGINT' | 'SIGTERM'; message?: string }) {
    super('interrupted', message ?? `interrupted by ${signal}; rerun the same command to resume`);
    this.signal = signal;
  }
}

/** A data file or wire message does not have the expected shape. */
export class DataFormatError extends ReputeError {
  /** File (or stream/subject) that held the bad record. */
  readonly file: string;
  /** 1-based line number, when the format is line oriented. */
  readonly line: number | undefined;

  constructor({ file, line, message, cause }: { file: string; line?: number; message: string; cause?: unknown }) {
    super('data_format', `${file}${line === undefined ? '' : `:${line}`}: ${message}`, { cause });
    this.file = file;
    this.line = line;
  }
}

/** The persistent store failed (open, migrate, read or write). */
export class StoreError extends ReputeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('store', message, options);
  }
}

/** A message transport (in-process bus, NATS) failed. */
export class TransportError extends ReputeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('transport', message, options);
  }
}

/** An internal invariant was broken: a bug in Repute, not caller misuse. */
export class InternalError extends ReputeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('internal', message, options);
  }
}

/**
 * An entry the code relied on is missing (an index past the end, a key not in a record or map):
 * a broken internal invariant, so a bug in Repute. `what` names the entry, `key` the index or key.
 */
export class MissingEntryError extends InternalError {
  /** What was looked up, e.g. 'subscription embedding'. */
  readonly what: string;
  /** The index or key that missed. */
  readonly key: string | number;

  constructor({ what, key, size }: { what: string; key: string | number; size?: number }) {
    super(
      `missing ${what} at ${typeof key === 'number' ? `index ${key}` : `key ${JSON.stringify(key)}`}${
        size === undefined ? '' : ` (${size} entries)`
      }; this is a bug in Repute, please report it with the command that triggered it`,
    );
    this.what = what;
    this.key = key;
  }
}
