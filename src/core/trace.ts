import type { AgentId } from './agent-identity.js';
import type { TaskId } from './task.js';
import { assertKnownOptions, defineOptionKeys } from './validate.js';

/** Why one agent got its weight or selection score. */
export interface WeightReason {
  readonly agentId: AgentId;
  /** Final weight or score used by the decision. */
  readonly weight: number;
  /** Named components that produced it (e.g. `{ reputation: 0.8, quality: 0.9, risk: 0.1 }`). */
  readonly components?: Readonly<Record<string, number>>;
  /** Human-readable reason, e.g. `cooldown: flagged 2 tasks ago`. */
  readonly note?: string;
}

/**
 * Structured data of one traced decision, tagged by `type`. Every decision a protocol makes is
 * written as one of these, so a user can always ask why an agent was trusted.
 */
export type SpanData =
  | {
      readonly type: 'run';
      readonly runId: string;
      readonly method?: string;
      readonly detail?: Readonly<Record<string, unknown>>;
    }
  | { readonly type: 'task'; readonly taskId: TaskId }
  | {
      readonly type: 'selection';
      readonly taskId: TaskId;
      readonly round?: number;
      readonly selected: readonly AgentId[];
      readonly excluded: readonly AgentId[];
      readonly reasons: readonly WeightReason[];
    }
  | {
      readonly type: 'proposal';
      readonly taskId: TaskId;
      readonly round: number;
      readonly agentId: AgentId;
      readonly answer: string | null;
      /** True for an answer that arrived after the task was decided (quorum or deadline); recorded for reputation only. */
      readonly late?: boolean;
    }
  | {
      readonly type: 'rating';
      readonly taskId: TaskId;
      readonly rater: AgentId;
      readonly ratee: AgentId;
      readonly score: number;
      readonly reason?: string;
    }
  | {
      readonly type: 'debate-round';
      readonly taskId: TaskId;
      readonly round: number;
      readonly answers: Readonly<Record<AgentId, string | null>>;
    }
  | {
      readonly type: 'vote';
      readonly taskId: TaskId;
      readonly answer: string | null;
      readonly support: Readonly<Record<string, number>>;
      readonly reasons: readonly WeightReason[];
      /** Name of the verifier whose verdicts the aggregator read, when the team has one. */
      readonly verifier?: string;
      /** The verifier's verdict per agent (estimated probability of being correct, in [0, 1]); agents it had no opinion on are left out. */
      readonly verdicts?: Readonly<Record<AgentId, number>>;
      /** Version of the shared reputation log the decision read (its last seq folded in; docs/scaling.md). */
      readonly readVersion?: number;
    }
  | {
      readonly type: 'reputation-update';
      readonly taskId: TaskId;
      readonly before: Readonly<Record<AgentId, number>>;
      readonly after: Readonly<Record<AgentId, number>>;
      /** Version of the shared reputation log `before` was read at. */
      readonly readVersion?: number;
    }
  | {
      /** A grade posted for a served decision (once per decision). */
      readonly type: 'feedback';
      readonly taskId: TaskId;
      /** The decision's grade in [0, 1] (1 = correct). */
      readonly score: number;
      /** Each graded agent's success in [0, 1]. */
      readonly successes: Readonly<Record<AgentId, number>>;
      readonly before: Readonly<Record<AgentId, number>>;
      readonly after: Readonly<Record<AgentId, number>>;
      /** Version of the shared reputation log `before` was read at. */
      readonly readVersion?: number;
    }
  | {
      readonly type: 'route';
      readonly publisher: AgentId;
      readonly messageId: string;
      readonly recipients: readonly AgentId[];
      readonly reasons: readonly WeightReason[];
      readonly taskId?: TaskId;
      readonly round?: number;
      /** Receivers kept away by distrust (trust in the publisher below τ). */
      readonly distrusted?: readonly AgentId[];
      /**
       * One reason per `distrusted` receiver, same order (components: similarity, trust). Absent in
       * events recorded before it existed: there, why a receiver was kept away was not recorded.
       */
      readonly distrustReasons?: readonly WeightReason[];
      /** Subscribers below the similarity floor, ≥ 0. Absent in events recorded before it existed. */
      readonly belowFloor?: number;
      /** Subscribers broadcast would have reached. */
      readonly broadcast?: number;
    }
  | {
      /** A receiver's belief about a publisher it kept away was aged towards the prior by ρ in [0, 1] (RAPS recovery, ours). */
      readonly type: 'recovery';
      readonly taskId: TaskId;
      readonly round: number;
      readonly receiver: AgentId;
      readonly publisher: AgentId;
      readonly rho: number;
      /** E_receiver[publisher] before and after, in [0, 1]. */
      readonly beliefBefore: number;
      readonly beliefAfter: number;
    }
  | {
      readonly type: 'audit';
      readonly auditor: AgentId;
      readonly subject: AgentId;
      readonly messageId: string;
      readonly reliable: boolean;
      readonly reason?: string;
      readonly taskId?: TaskId;
      readonly round?: number;
      readonly beliefAfter?: number;
    }
  | {
      readonly type: 'witness';
      readonly taskId: TaskId;
      readonly round: number;
      readonly observer: AgentId;
      readonly witness: AgentId;
      readonly subject: AgentId;
      readonly deviation: number;
      readonly accepted: boolean;
    }
  | {
      readonly type: 'refine';
      readonly taskId: TaskId;
      readonly round: number;
      readonly agentId: AgentId;
      readonly before: string;
      readonly after: string;
      readonly drift: number;
    }
  | {
      /** A decided `code` answer run against its task's tests in the sandbox (`repute run`). */
      readonly type: 'code-tests';
      readonly taskId: TaskId;
      /** First 16 hex digits of the SHA-256 of the program run, or `null` when the answer held none. */
      readonly program: string | null;
      /** The sandbox's verdict; `no-program` when there was nothing to run (graded wrong). */
      readonly status: 'passed' | 'failed' | 'timeout' | 'no-program';
      /** Whether the decision is graded correct (the tests passed). */
      readonly correct: boolean;
      /** Exit code of the sandbox, or `null` (killed at the timeout, or not run). */
      readonly exitCode: number | null;
      /** Signal that ended the program (`SIGXCPU`, `SIGKILL`, ...), or `null`. */
      readonly signal: string | null;
      /** Wall-clock time of the sandbox run in ms, or `null` when not run. */
      readonly durationMs: number | null;
      /** The end of the sandbox's stderr (at most 2000 characters): the failed assertion or exception. */
      readonly stderr: string;
    }
  | {
      readonly type: 'llm-call';
      readonly agentId: AgentId;
      readonly act: string;
      readonly cached: boolean;
      readonly inputTokens?: number;
      readonly outputTokens?: number;
      readonly costUsd?: number;
      readonly durationMs?: number;
      /** `failed`: the call ended in an error after the provider may have billed it. @default 'ok' */
      readonly status?: 'ok' | 'failed';
      /** False when the provider did not report the usage: tokens and cost are lower bounds. @default true */
      readonly usageReported?: boolean;
      /** Provider attempts, retries included (0 for a cache hit; absent when not known). */
      readonly attempts?: number;
    };

/** One traced unit of work. */
export interface Span {
  readonly id: string;
  readonly parentId: string | null;
  /** Milliseconds from the injected clock. */
  readonly startedAt: number;
  endedAt?: number;
  readonly data: SpanData;
  /** Set when the span ended with an error. */
  error?: string;
}

/** Receives spans as they start and end (openai-agents-js `TracingProcessor`). */
export interface TraceSink {
  onSpanStart(span: Span): void;
  onSpanEnd(span: Span): void;
}

/** A sink that ignores everything: the default. */
export const noopTraceSink: TraceSink = {
  onSpanStart() {},
  onSpanEnd() {},
};

/**
 * A sink that keeps every ended span in memory, in end order (tests, reports).
 *
 * @example
 * const sink = createMemoryTraceSink();
 * const tracer = createTracer({ sink });
 * tracer.end(tracer.start({ type: 'task', taskId: 't1' }));
 * sink.spans.length; // 1
 */
export function createMemoryTraceSink(): TraceSink & { readonly spans: Span[] } {
  const spans: Span[] = [];
  return {
    spans,
    onSpanStart() {},
    onSpanEnd(span) {
      spans.push(span);
    },
  };
}

/** Fans spans out to several sinks. */
export function combineTraceSinks(...sinks: TraceSink[]): TraceSink {
  return {
    onSpanStart(span) {
      for (const sink of sinks) sink.onSpanStart(span);
    },
    onSpanEnd(span) {
      for (const sink of sinks) sink.onSpanEnd(span);
    },
  };
}

const knownTracerOptions = defineOptionKeys<NonNullable<Parameters<typeof createTracer>[0]>>()([
  'sink',
  'now',
  'generateId',
]);

/**
 * Creates spans with an injected clock and id maker; `record` emits a zero-length span.
 *
 * @example
 * const tracer = createTracer({ now: () => 0 });
 * const span = tracer.start({ type: 'task', taskId: 't1' }); // span.id === 'span-1'
 * tracer.end(span);
 */
export function createTracer(
  options: {
    sink?: TraceSink | undefined;
    now?: (() => number) | undefined;
    generateId?: (() => string) | undefined;
  } = {},
) {
  assertKnownOptions('', options, knownTracerOptions, 'createTracer');
  const { sink = noopTraceSink, now = () => 0, generateId } = options;
  let counter = 0;
  const makeId = generateId ?? (() => `span-${++counter}`);
  return {
    sink,
    start(data: SpanData, parentId: string | null = null): Span {
      const span: Span = { id: makeId(), parentId, startedAt: now(), data };
      sink.onSpanStart(span);
      return span;
    },
    end(span: Span, error?: unknown): void {
      span.endedAt = now();
      if (error !== undefined) span.error = error instanceof Error ? error.message : String(error);
      sink.onSpanEnd(span);
    },
    record(data: SpanData, parentId: string | null = null): Span {
      const span: Span = { id: makeId(), parentId, startedAt: now(), data };
      span.endedAt = span.startedAt;
      sink.onSpanStart(span);
      sink.onSpanEnd(span);
      return span;
    },
  };
}

/** The tracer returned by {@link createTracer}. */
export type Tracer = ReturnType<typeof createTracer>;
