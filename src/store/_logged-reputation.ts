// One decision maker's view of a team reputation kept in the shared log (docs/scaling.md): a run's
// session, a worker of a run, or the team endpoint of `repute serve`. Before a decision the model is
// brought to the log's latest state (the state this process read last time plus the events appended
// since), and the version it read is kept; the decision's evidence batches, recorded as the model
// receives them, become the task's reputation events, appended with an idempotency key in the
// task's own transaction. The fold of the log into the team's stored snapshot is left to the fold
// lease: every so many appends this process tries to take it, and folds when it holds it.
import { hostname } from 'node:os';
import type { Evidence, ReputationModel } from '../core/reputation-model.js';
import type { SpanData } from '../core/trace.js';
import { forwardSessionStore, type SessionStore } from '../protocols/session.js';
import { createSharedReputation, type FoldOutcome } from './shared-reputation.js';
import type { ReputationEventInput, Store } from './types.js';

/** Options of {@link createLoggedReputation}. */
export interface LoggedReputationOptions {
  readonly store: Store;
  /** Team key of the log. */
  readonly team: string;
  /** Name of the reputation within the team (the method). */
  readonly name: string;
  /** The run whose decisions append (a part of every idempotency key). */
  readonly runId: string;
  /**
   * `team`: decisions read the team's whole log; `prior`: they read only this run's own events,
   * folded from the prior (`--reputation fresh`), while the events still go to the team's log.
   */
  readonly start: 'team' | 'prior';
  /** The model the decisions use; it is restored to the latest state in place. */
  readonly model: ReputationModel;
  /** A fresh model of the same kind over the team's agents (the prior). */
  readonly create: () => ReputationModel;
  /** Fold lease holder id. @default `${hostname()}:${process.pid}` */
  readonly holder?: string;
  /** Fold lease length in ms. @default 10000 */
  readonly leaseMs?: number;
  /** Appends of this process after which it tries to fold. @default 32 */
  readonly foldEvery?: number;
}

/** See {@link createLoggedReputation}. */
export interface LoggedReputation {
  /**
   * The model to decide with: `options.model`, brought to the log's latest state at its first use
   * after a write or an undo (`restore`), and recording each evidence batch it observes.
   */
  readonly model: ReputationModel;
  /** Brings the model to the log's latest state now; returns the version read. */
  sync(): number;
  /** The version the model's state was read at (`undefined` before the first read). */
  readonly readVersion: number | undefined;
  /**
   * The task's reputation events: each evidence batch the model observed since it was read, keyed
   * `${runId}/${name}/${taskId}` (or `key`; a second batch adds `#2`, ...).
   */
  events(taskId: string, key?: string): ReputationEventInput[];
  /** `events` with the version read added to the decision's `vote` and `reputation-update` data. */
  stamp<T extends { readonly data: SpanData }>(events: readonly T[]): T[];
  /** Call after the task's write committed: the next use reads the log again; folds when due. */
  written(): void;
  /** Tries to fold the log now (busy while another process holds the lease). */
  fold(): FoldOutcome;
  /**
   * Folds the log, waiting up to `waitMs` for another holder's lease to end; returns `busy` early
   * when that holder renews its lease meanwhile (it is alive and will fold these events itself).
   */
  foldWaiting(waitMs: number): Promise<FoldOutcome>;
}

/** How long a run's last fold waits for another holder's lease to end, in ms (the default lease, 10 s, and a margin). */
export const FOLD_WAIT_MS = 11_000;

/** The default fold lease holder id of this process. */
export function processHolderId(): string {
  return `${hostname()}:${process.pid}`;
}

/**
 * Keeps a decision maker's model on the team's shared reputation log.
 *
 * @example
 * const logged = createLoggedReputation({ store, team: 'sum-team', name: 'beta', runId, start: 'team',
 *   model: method.reputation, create: () => createDebateMethod('beta', { agents }).reputation });
 * // decide with logged.model, then write the task with logged.events(taskId) and logged.stamp(events)
 */
export function createLoggedReputation(options: LoggedReputationOptions): LoggedReputation {
  const { store, team, name, runId, start, model, create, foldEvery = 32 } = options;
  const shared = createSharedReputation({
    store,
    team,
    name,
    createModel: create,
    holder: options.holder ?? processHolderId(),
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
    ...(start === 'prior' ? { runId } : {}),
  });
  const pending: Evidence[][] = [];
  let stale = true;
  let readVersion: number | undefined;
  let appended = 0;

  const sync = (): number => {
    const latest = shared.latest();
    // The latest state's agents are the team's (the fold adds those a saved state lacks).
    model.restore(latest.model.snapshot());
    pending.length = 0;
    stale = false;
    readVersion = latest.version;
    return latest.version;
  };
  const fresh = (): ReputationModel => {
    if (stale) sync();
    return model;
  };

  const live: ReputationModel = {
    name: model.name,
    agentIds: () => fresh().agentIds(),
    addAgent: (agentId) => fresh().addAgent(agentId),
    observe(evidence) {
      fresh().observe(evidence);
      pending.push([...evidence]);
    },
    score: (agentId) => fresh().score(agentId),
    scores: () => fresh().scores(),
    weights: (agentIds) => fresh().weights(agentIds),
    explain: (agentId) => fresh().explain(agentId),
    snapshot: () => fresh().snapshot(),
    restore(snapshot) {
      // A session's start-up restore, or the undo of a failed task: the next use reads the log.
      model.restore(snapshot);
      pending.length = 0;
      stale = true;
    },
  };

  const fold = (): FoldOutcome => {
    const outcome = shared.fold();
    if (outcome.status !== 'busy') appended = 0;
    return outcome;
  };

  return {
    model: live,
    sync,
    get readVersion() {
      return readVersion;
    },
    events(taskId, key) {
      const base = key ?? `${runId}/${name}/${taskId}`;
      return pending.map((evidence, index) => ({
        team,
        name,
        key: index === 0 ? base : `${base}#${index + 1}`,
        evidence,
        runId,
        taskId,
        readVersion: readVersion ?? 0,
      }));
    },
    stamp(events) {
      if (readVersion === undefined) return [...events];
      const version = readVersion;
      return events.map((event) =>
        event.data.type === 'vote' || event.data.type === 'reputation-update' || event.data.type === 'feedback'
          ? { ...event, data: { ...event.data, readVersion: version } }
          : event,
      );
    },
    written() {
      appended += pending.length;
      pending.length = 0;
      stale = true;
      if (appended >= foldEvery) fold();
    },
    fold,
    async foldWaiting(waitMs) {
      const until = Date.now() + waitMs;
      let seenLease: number | undefined;
      for (;;) {
        const outcome = fold();
        if (outcome.status !== 'busy' || Date.now() >= until) return outcome;
        // A holder that renewed its lease meanwhile is alive and folds these events itself; only a
        // holder that stopped renewing (dead, or idle) is waited out.
        const lease = store.reputationFold({ team, name })?.leaseUntil;
        if (seenLease !== undefined && lease !== seenLease) return outcome;
        seenLease = lease;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
  };
}

/**
 * Wraps a store for one session whose method's reputation is `logged`: the task's write of that
 * method appends the task's reputation events and stamps its decision with the version read, and
 * saves the run's own snapshot but no longer the team's (the fold lease holder writes that).
 */
export function loggedSessionStore(store: SessionStore, logged: LoggedReputation, team: string): SessionStore {
  return forwardSessionStore(store, {
    recordTaskResult(input) {
      const written = store.recordTaskResult({
        ...input,
        events: logged.stamp(input.events ?? []),
        reputation: (input.reputation ?? []).filter((entry) => !('team' in entry.scope && entry.scope.team === team)),
        reputationEvents: [...(input.reputationEvents ?? []), ...logged.events(input.taskId)],
      });
      logged.written();
      return written;
    },
  });
}
