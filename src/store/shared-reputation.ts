// One team's reputation shared by many processes, exactly (docs/scaling.md). Every update is an
// evidence batch appended to the team's log under an idempotency key; the state is a fold of the
// log in seq order. Any process can compute the latest state (the last folded snapshot plus the
// events after it), so reading needs no lock; folding the log into a stored snapshot, which keeps
// that read short, is done by one holder of a lease, and its write carries the lease's generation
// (a fencing token): a holder that stalled past its lease and lost it writes nothing.
import type { Evidence, ReputationModel } from '../core/reputation-model.js';
import { assertKnownOptions, assertNonEmptyString, defineOptionKeys } from '../core/validate.js';
import type { ReputationSnapshot } from '../reputation/reputation-model.js';
import type { Store } from './types.js';

/** Options of {@link createSharedReputation}. */
export interface SharedReputationOptions {
  /** The store every process shares (a PostgreSQL store for several machines). */
  readonly store: Store;
  /** Team key. */
  readonly team: string;
  /** Reputation key within the team, usually the method name. */
  readonly name: string;
  /** A new model in its initial state over the team's agents; the fold starts from it. */
  readonly createModel: () => ReputationModel;
  /** Id of this process as a fold lease holder, unique among the processes, e.g. `${hostname}:${pid}`. */
  readonly holder: string;
  /** How long a fold lease lasts unless renewed, in milliseconds. @default 10000 */
  readonly leaseMs?: number;
  /**
   * Read only the events this run appended, folded from the initial state (a run that starts from
   * the prior, `--reputation fresh`): `current()` and `latest()` are that run's own state, while the
   * team's log, which `fold()` folds, still holds every run's events. @default every event
   */
  readonly runId?: string;
}

/** The latest reputation state and its version (the log's last seq folded into it). */
export interface SharedReputationState {
  readonly model: ReputationModel;
  readonly version: number;
}

/** What one {@link SharedReputation.fold} did. */
export type FoldOutcome =
  | { readonly status: 'folded'; readonly generation: number; readonly foldedSeq: number; readonly events: number }
  | { readonly status: 'busy' }
  | { readonly status: 'fenced'; readonly generation: number };

/** A team's shared reputation: read the latest state, append updates, fold the log. */
export interface SharedReputation {
  /** The latest state: the stored fold plus every event after it, applied in seq order. */
  current(): SharedReputationState;
  /**
   * The latest state like `current()`, read incrementally: the state this reader computed last time
   * plus the events appended since (the log is never rewritten, so that prefix stays valid). The
   * first call reads the fold and its tail; later calls read only the new events.
   */
  latest(): SharedReputationState;
  /**
   * Appends one decision's evidence under an idempotency key, with the version the decision read;
   * a key seen before appends nothing.
   */
  record(input: {
    key: string;
    evidence: readonly Evidence[];
    readVersion: number;
    runId?: string | null;
    taskId?: string | null;
  }): { seq: number; appended: boolean };
  /**
   * Takes (or renews) the fold lease and folds the events after the stored fold into a new
   * snapshot, written only if the lease's generation is still current when it is written.
   * `beforeCommit` runs between computing and writing (tests pause the process there).
   */
  fold(input?: { beforeCommit?: () => void }): FoldOutcome;
}

const knownOptions = defineOptionKeys<SharedReputationOptions>()([
  'store',
  'team',
  'name',
  'createModel',
  'holder',
  'leaseMs',
  'runId',
]);

/**
 * The model after applying `events` (in the order given) to `base` (or the initial state). Agents of
 * the initial state that `base` does not know (the team grew) are added, as a session adds them.
 */
export function foldReputation(
  createModel: () => ReputationModel,
  base: ReputationSnapshot | null,
  events: readonly { readonly evidence: readonly Evidence[] }[],
): ReputationModel {
  const model = createModel();
  if (base !== null) {
    const agentIds = model.agentIds();
    model.restore(base);
    const known = new Set(model.agentIds());
    for (const agentId of agentIds) if (!known.has(agentId)) model.addAgent(agentId);
  }
  for (const event of events) model.observe(event.evidence);
  return model;
}

/**
 * Creates the shared reputation of one team and method over a store.
 *
 * @example
 * const shared = createSharedReputation({ store, team: 'math', name: 'beta', holder: `${hostname()}:${process.pid}`,
 *   createModel: () => createReputationModel('beta', { agents: ['a1', 'a2'] }) });
 * const { model, version } = shared.current();
 * // ... decide with model.weights(), then:
 * shared.record({ key: `${runId}/beta/${taskId}`, evidence, readVersion: version });
 */
export function createSharedReputation(options: SharedReputationOptions): SharedReputation {
  assertKnownOptions('', options, knownOptions, 'createSharedReputation');
  const { store, team, name, createModel, holder, leaseMs = 10_000, runId } = options;
  assertNonEmptyString('team', team, "pass the team key, e.g. 'math-team'");
  assertNonEmptyString('name', name, "pass the method name, e.g. 'minirep'");
  assertNonEmptyString('holder', holder, 'pass an id unique to this process, e.g. `${hostname}:${pid}`');
  if (runId !== undefined) assertNonEmptyString('runId', runId, 'pass the run whose own events to read');
  const key = { team, name };
  // Before the first fold commits, the log starts from the team's saved snapshot, if any (a team
  // that kept reputation before the log existed); the first commit replaces that snapshot with the
  // fold, in one transaction. Read before the fold row: if that row still has no snapshot, nothing
  // committed before it was read, so what was read here is still the pre-log state.
  const teamBase = () => store.loadReputation({ scope: { team }, name }) ?? null;
  let cached: { snapshot: ReputationSnapshot; version: number } | undefined;

  const current = (): SharedReputationState => {
    if (runId !== undefined) {
      const events = store.reputationEvents({ ...key, runId });
      return { model: foldReputation(createModel, null, events), version: events.at(-1)?.seq ?? 0 };
    }
    const base = teamBase();
    const fold = store.reputationFold(key);
    const events = store.reputationEvents({ ...key, afterSeq: fold?.foldedSeq ?? 0 });
    const model = foldReputation(createModel, fold?.snapshot ?? base, events);
    return { model, version: events.at(-1)?.seq ?? fold?.foldedSeq ?? 0 };
  };

  return {
    current,

    latest() {
      if (cached === undefined) {
        const state = current();
        cached = { snapshot: state.model.snapshot(), version: state.version };
        return state;
      }
      const events = store.reputationEvents({
        ...key,
        afterSeq: cached.version,
        ...(runId === undefined ? {} : { runId }),
      });
      const model = foldReputation(createModel, cached.snapshot, events);
      const version = events.at(-1)?.seq ?? cached.version;
      if (events.length > 0) cached = { snapshot: model.snapshot(), version };
      return { model, version };
    },

    record({ key: eventKey, evidence, readVersion, runId = null, taskId = null }) {
      return store.appendReputationEvent({ ...key, key: eventKey, evidence, readVersion, runId, taskId });
    },

    fold({ beforeCommit } = {}) {
      const lease = store.acquireReputationLease({ ...key, holder, leaseMs });
      if (lease === undefined) return { status: 'busy' };
      const base = lease.snapshot ?? teamBase();
      const events = store.reputationEvents({ ...key, afterSeq: lease.foldedSeq });
      const model = foldReputation(createModel, base, events);
      const foldedSeq = events.at(-1)?.seq ?? lease.foldedSeq;
      beforeCommit?.();
      const written = store.commitReputationFold({
        ...key,
        generation: lease.generation,
        foldedSeq,
        snapshot: model.snapshot(),
      });
      return written
        ? { status: 'folded', generation: lease.generation, foldedSeq, events: events.length }
        : { status: 'fenced', generation: lease.generation };
    },
  };
}
