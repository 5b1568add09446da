// A run's writes of the team's saved reputation, made safe against other writers of the same team
// (`repute serve`, whose requests read, update and write it in one IMMEDIATE transaction). A session
// keeps its method's reputation in memory for the whole run and saves that state under the run and
// under the team after each task; saved as is, it would overwrite whatever a server wrote to the
// team in between. Here each task's team write becomes a read-modify-write in one transaction: when
// the team's saved state is still the one the run's model started the task from, the run's state is
// saved as before (a solo run writes exactly what it always did); otherwise another writer changed
// it, and the task's evidence, recorded as the run's model received it, is applied to the latest
// saved state instead. Without a model to record (DRF teams, whose session builds its own), a changed
// team state is kept and the run's state stays with the run.
import type { AgentId } from '../../core/agent-identity.js';
import { InvalidArgumentError } from '../../core/errors.js';
import type { Evidence, ReputationModel, ReputationSnapshot } from '../../core/reputation-model.js';
import { assertNonEmptyString } from '../../core/validate.js';
import type { SessionStore } from '../../protocols/session.js';
import { restoreSnapshot } from '../../protocols/session.js';
import type { Store } from '../../store/store.js';

/** What a run does when it finds that another writer changed the team's saved reputation. */
export interface ConcurrentTeamUpdate {
  /** Name the reputation is saved under (the method). */
  readonly name: string;
  /** Task whose write found the change. */
  readonly taskId: string;
  /**
   * `merged`: the task's evidence was applied to the latest saved state; `kept`: the other writer's
   * state was kept and the run's state saved only under the run (no evidence to replay).
   */
  readonly resolution: 'merged' | 'kept';
}

/** Options of {@link shareTeamReputation}. */
export interface ShareTeamReputationOptions {
  /** The store the session writes to. */
  readonly store: Store;
  /** The session's run id. */
  readonly runId: string;
  /** Team key the session saves reputation under. */
  readonly team: string;
  /** Name the session saves the reputation under (the method name; `drf` for a DRF team). */
  readonly name: string;
  /** The team's agents, added to a saved state that does not know them (as the session does). */
  readonly agentIds: readonly AgentId[];
  /**
   * Where the session's reputation starts (its `reputationStart`). With `prior` the run's first task
   * replaces the team's saved state (a fresh start), unless the run is resumed.
   */
  readonly start: 'team' | 'prior';
  /**
   * The run's model and a maker of fresh models of the same kind: the model's evidence is recorded
   * per task and, after another writer changed the team's state, applied to a fresh model restored
   * from it. Omitted = a changed team state is kept (`resolution: 'kept'`). @default none
   */
  readonly replay?: { readonly model: ReputationModel; readonly create: () => ReputationModel };
  /** Called the first time a task finds the team's state changed by another writer. @default none */
  readonly onConcurrentUpdate?: (update: ConcurrentTeamUpdate) => void;
}

/** The store and model to give the session. */
export interface SharedTeamReputation {
  /** Delegates to the store; a task's team reputation is written as described on {@link shareTeamReputation}. */
  readonly store: SessionStore;
  /** The run's model, recording the evidence of the task in progress; `undefined` without `replay`. */
  readonly model: ReputationModel | undefined;
}

/**
 * Wraps a store for one session so that its per-task write of the team's reputation (scope
 * `{ team }`, under `name`) does not lose other writers' updates: in one transaction it reads the
 * team's latest state and the run's own last state (scope `{ runId }`); if they match (nobody else
 * wrote), the run's state is saved as before, else the task's evidence is replayed onto the latest
 * state (or, without `replay`, the team's state is left as the other writer saved it).
 *
 * @example
 * const method = createDebateMethod('beta', { agents });
 * const shared = shareTeamReputation({ store, runId, team: 'sum-team', name: 'beta', agentIds, start: 'team',
 *   replay: { model: method.reputation, create: () => createDebateMethod('beta', { agents }).reputation } });
 * await runDebateSession({ store: shared.store, method: { ...method, reputation: shared.model }, ... });
 */
export function shareTeamReputation(options: ShareTeamReputationOptions): SharedTeamReputation {
  const { store, runId, team, name, agentIds, start, replay, onConcurrentUpdate } = options;
  assertNonEmptyString('runId', runId);
  assertNonEmptyString('team', team, "pass the team file's name");
  assertNonEmptyString('name', name, "pass the method name, e.g. 'beta'");
  if (replay) {
    const made = replay.create();
    if (made.name !== replay.model.name) {
      throw new InvalidArgumentError({
        parameter: 'replay.create',
        value: made.name,
        message: `replay.create must make models of the run's kind ${JSON.stringify(replay.model.name)}, got ${JSON.stringify(made.name)}; pass a factory of the same method`,
      });
    }
  }
  const teamScope = { team };
  const runScope = { runId };
  // What the run's model starts from when the run has no state of its own yet: the team's state
  // (`team`), or the prior, which replaces the team's state at the first task (`prior`).
  const resumed = store.loadReputation({ scope: runScope, name }) !== undefined;
  let replaceOnce = !resumed && start === 'prior';
  let startedFrom = resumed || start === 'prior' ? undefined : store.loadReputation({ scope: teamScope, name });
  let notified = false;
  // Evidence batches the run's model received since its last saved state.
  const pending: Evidence[][] = [];

  const teamSnapshot = (taskId: string, own: ReputationSnapshot): ReputationSnapshot | undefined => {
    if (replaceOnce) return own;
    const latest = store.loadReputation({ scope: teamScope, name });
    // The state the run's model had before this task: its last save, else where it started.
    const base = store.loadReputation({ scope: runScope, name }) ?? startedFrom;
    if (JSON.stringify(latest) === JSON.stringify(base)) return own;
    if (!notified) {
      notified = true;
      onConcurrentUpdate?.({ name, taskId, resolution: replay ? 'merged' : 'kept' });
    }
    if (!replay) return undefined;
    const merged = replay.create();
    restoreSnapshot(merged, latest, agentIds);
    for (const evidence of pending) merged.observe(evidence);
    return merged.snapshot();
  };

  const sessionStore: SessionStore = {
    ensureRun: (input) => store.ensureRun(input),
    saveTeam: (teamName, agents) => store.saveTeam(teamName, agents),
    loadReputation: (input) => store.loadReputation(input),
    completedTaskIds: (id, method) => store.completedTaskIds(id, method),
    recordTaskFailure: (input) => store.recordTaskFailure(input),
    taskResults<T>(id: string, method?: string) {
      return store.taskResults<T>(id, method);
    },
    recordTaskResult(input) {
      const entries = input.reputation ?? [];
      const own = entries.find((entry) => 'team' in entry.scope && entry.scope.team === team && entry.name === name);
      if (own === undefined) return store.recordTaskResult(input);
      const written = store.transaction(() => {
        const snapshot = teamSnapshot(input.taskId, own.snapshot);
        return store.recordTaskResult({
          ...input,
          reputation: entries.flatMap((entry) =>
            entry !== own ? [entry] : snapshot === undefined ? [] : [{ ...entry, snapshot }],
          ),
        });
      });
      replaceOnce = false;
      startedFrom = undefined;
      pending.length = 0;
      return written;
    },
  };
  return { store: sessionStore, model: replay ? recordingModel(replay.model, pending) : undefined };
}

/** `model` itself, except that each evidence batch it applies is also pushed to `pending`, and a restore (an undone task) clears it. */
export function recordingModel(model: ReputationModel, pending: Evidence[][]): ReputationModel {
  return {
    name: model.name,
    agentIds: () => model.agentIds(),
    addAgent: (agentId) => model.addAgent(agentId),
    observe(evidence) {
      model.observe(evidence);
      pending.push([...evidence]);
    },
    score: (agentId) => model.score(agentId),
    scores: () => model.scores(),
    weights: (agentIds) => model.weights(agentIds),
    explain: (agentId) => model.explain(agentId),
    snapshot: () => model.snapshot(),
    restore(snapshot) {
      model.restore(snapshot);
      pending.length = 0;
    },
  };
}

/** The line `repute run` prints when another writer changed the team's saved reputation during the run. */
export function describeConcurrentUpdate(team: string, { name, taskId, resolution }: ConcurrentTeamUpdate): string {
  const found = `team ${team}'s ${name} reputation was updated by another writer (repute serve?) before task ${taskId} was saved`;
  return resolution === 'merged'
    ? `${found}; this run's evidence is applied to the team's latest saved state from now on, so neither update is lost`
    : `${found}; a ${name} run cannot merge its evidence into it, so the team keeps the other writer's state and this run's reputation is saved with the run only`;
}
