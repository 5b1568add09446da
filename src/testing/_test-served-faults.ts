// The counting part of the acceptance fault run (bench/scale-faults.ts, docs/scaling.md): what the
// clients of the served team endpoint saw of each logical request (its attempts), set against the
// decisions the store holds, per fault case. Pure: no I/O, so it is tested without servers.

/** How one attempt of a served request ended, as its client saw it. */
export type ServedAttempt =
  | {
      readonly kind: 'answered';
      /** The decision's task id in the answer. */
      readonly taskId: string;
      /** Whether the answer came with `Idempotent-Replayed: true`. */
      readonly replayed: boolean;
    }
  | {
      readonly kind: 'failed';
      /** Why it failed: `HTTP <status>`, or the fetch error's code or name (`ECONNRESET`, `UND_ERR_SOCKET`, `TimeoutError`). */
      readonly reason: string;
    };

/** One logical request of a client and its attempts, in order; every failed attempt was retried unless it was the last. */
export interface ServedRequestLog {
  /** The logical request's identity (its index in the run). */
  readonly request: number;
  readonly attempts: readonly ServedAttempt[];
}

/** A decision of the team endpoint as the store holds it. */
export interface StoredServedDecision {
  readonly taskId: string;
  /** The logical request it decided (read from the decision), or `undefined` when it names none of the run's. */
  readonly request: number | undefined;
  /**
   * Whether it appended reputation evidence to the team's log. A decision whose agents had all given
   * evidence on this very request before (a retry decided again, without an Idempotency-Key) appends
   * no event at all, so the log alone cannot count it.
   */
  readonly evidence: boolean;
}

/**
 * What went wrong on a request's first failed attempt: `none` (answered at once), `connection`
 * (reset, closed socket, refused or timed out: typically its replica SIGKILLed mid-request) or
 * `http-5xx` (the replica answered a server error).
 */
export type ServedFaultCase = 'none' | 'connection' | 'http-5xx';

/** The fault cases in the order they are reported. */
export const servedFaultCases: readonly ServedFaultCase[] = ['none', 'connection', 'http-5xx'];

/** Counts of one fault case (or of all requests). */
export interface ServedFaultCounts {
  /** Logical requests in this case. */
  requests: number;
  /** Requests whose last attempt got an answer. */
  answered: number;
  /** Failed attempts (each one sent again unless the client gave up). */
  retries: number;
  /** Answers that came with `Idempotent-Replayed: true`. */
  replayed: number;
  /** Decisions stored for the requests of this case. */
  decisions: number;
  /** Decisions beyond the first of one logical request (two decisions for one key count 1). */
  duplicated: number;
  /** Stored decisions whose task id no client got (decided, answer lost). */
  orphans: number;
  /** Stored decisions that appended no reputation evidence (see {@link StoredServedDecision.evidence}). */
  withoutEvidence: number;
}

/** {@link countServedFaults}'s result: per fault case, over all requests, and decisions of no request. */
export interface ServedFaultReport {
  readonly cases: Readonly<Record<ServedFaultCase, ServedFaultCounts>>;
  readonly total: ServedFaultCounts;
  /** Stored decisions that name none of the run's requests (each is also an orphan in `total`). */
  readonly unattributed: number;
}

/** A reputation event of the team's log, as far as {@link servedTasksWithEvidence} reads it. */
export interface ServedLogEvent {
  /** `<run>/<method>/<task>`, `#n` appended for its later evidence batches; a grade's ends in `/feedback`. */
  readonly key: string;
  readonly runId: string | null;
  readonly taskId: string | null;
  /** Outcomes in the event. */
  readonly evidenceCount: number;
}

/**
 * The task ids of the served decisions that appended reputation evidence to the log: events of a
 * served run (`serveRunIds`) with at least one outcome, except grades (`.../feedback`, which carry
 * the graded decision's task id but are not evidence of the decision).
 */
export function servedTasksWithEvidence(
  events: readonly ServedLogEvent[],
  serveRunIds: ReadonlySet<string>,
): Set<string> {
  const tasks = new Set<string>();
  for (const event of events) {
    if (event.runId === null || !serveRunIds.has(event.runId) || event.taskId === null) continue;
    if (event.key.replace(/#\d+$/, '').endsWith('/feedback') || event.evidenceCount === 0) continue;
    tasks.add(event.taskId);
  }
  return tasks;
}

/** The fault case of a failed attempt's reason: `HTTP 5xx` statuses are `http-5xx`, anything else `connection`. */
export function servedFaultCaseOf(reason: string): Exclude<ServedFaultCase, 'none'> {
  return /^HTTP 5\d\d$/.test(reason) ? 'http-5xx' : 'connection';
}

const emptyCounts = (): ServedFaultCounts => ({
  requests: 0,
  answered: 0,
  retries: 0,
  replayed: 0,
  decisions: 0,
  duplicated: 0,
  orphans: 0,
  withoutEvidence: 0,
});

/**
 * Counts, per fault case (a request's first failed attempt), the requests answered, retries,
 * replayed answers, stored decisions, duplicated decisions (beyond the first per request), orphans
 * (stored decisions whose task id the client never got) and decisions without new evidence (that
 * appended nothing to the reputation log), from the clients' logs and the store's decisions.
 *
 * @example
 * countServedFaults({
 *   requests: [{ request: 0, attempts: [{ kind: 'failed', reason: 'ECONNRESET' }, { kind: 'answered', taskId: 'a', replayed: true }] }],
 *   decisions: [{ taskId: 'a', request: 0, evidence: true }],
 * }).cases.connection; // { requests: 1, answered: 1, retries: 1, replayed: 1, decisions: 1, duplicated: 0, orphans: 0, withoutEvidence: 0 }
 */
export function countServedFaults(input: {
  readonly requests: readonly ServedRequestLog[];
  readonly decisions: readonly StoredServedDecision[];
}): ServedFaultReport {
  const cases = Object.fromEntries(servedFaultCases.map((name) => [name, emptyCounts()])) as Record<
    ServedFaultCase,
    ServedFaultCounts
  >;
  const caseOf = new Map<number, ServedFaultCase>();
  // The task ids each request's client got (a replayed answer repeats the first one).
  const seen = new Set<string>();
  for (const { request, attempts } of input.requests) {
    const firstFailure = attempts.find((attempt) => attempt.kind === 'failed');
    const name = firstFailure === undefined ? 'none' : servedFaultCaseOf(firstFailure.reason);
    caseOf.set(request, name);
    const counts = cases[name];
    counts.requests++;
    if (attempts.at(-1)?.kind === 'answered') counts.answered++;
    for (const attempt of attempts) {
      if (attempt.kind === 'failed') counts.retries++;
      else {
        seen.add(attempt.taskId);
        if (attempt.replayed) counts.replayed++;
      }
    }
  }
  const perRequest = new Map<number, number>();
  let unattributed = 0;
  let unattributedWithoutEvidence = 0;
  for (const decision of input.decisions) {
    const name = decision.request === undefined ? undefined : caseOf.get(decision.request);
    if (decision.request === undefined || name === undefined) {
      unattributed++;
      if (!decision.evidence) unattributedWithoutEvidence++;
      continue;
    }
    const counts = cases[name];
    counts.decisions++;
    if (!decision.evidence) counts.withoutEvidence++;
    const before = perRequest.get(decision.request) ?? 0;
    perRequest.set(decision.request, before + 1);
    if (before > 0) counts.duplicated++;
    if (!seen.has(decision.taskId)) counts.orphans++;
  }
  const total = emptyCounts();
  for (const counts of Object.values(cases))
    for (const field of Object.keys(total) as Array<keyof ServedFaultCounts>) total[field] += counts[field];
  total.decisions += unattributed;
  total.orphans += unattributed;
  total.withoutEvidence += unattributedWithoutEvidence;
  return { cases, total, unattributed };
}
