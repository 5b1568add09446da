import { describe, expect, it } from 'vitest';
import type { AgentIdentity } from '../../core/agent-identity.js';
import { InvalidArgumentError } from '../../core/errors.js';
import type { Evidence, ReputationModel } from '../../core/reputation-model.js';
import { createDebateMethod } from '../../protocols/debate/methods.js';
import { restoreSnapshot } from '../../protocols/session.js';
import { openStore, type Store } from '../../store/store.js';
import { describeConcurrentUpdate, shareTeamReputation, type ConcurrentTeamUpdate } from './_team-reputation.js';

const agents: AgentIdentity[] = [
  { id: 'a', model: 'm-a' },
  { id: 'b', model: 'm-b' },
];
const agentIds = agents.map((agent) => agent.id);
const team = 't';
const runId = 'r1';

/** A fresh `beta` model (λ = 0.9: r ← 0.9·r + success, s ← 0.9·s + 1 − success per outcome). */
function betaModel(): ReputationModel {
  return createDebateMethod('beta', { agents }).reputation as ReputationModel;
}

function outcomes(taskId: string, successes: Readonly<Record<string, number>>): Evidence[] {
  return Object.entries(successes).map(([subject, success]) => ({ type: 'outcome', taskId, subject, success }));
}

/** (r, s, evidence count) of the team's belief about `agentId` in the state saved under `scope`. */
function saved(store: Store, scope: { team: string } | { runId: string }, agentId: string) {
  const model = betaModel();
  restoreSnapshot(model, store.loadReputation({ scope, name: 'beta' }), agentIds);
  const { components, evidenceCount } = model.explain(agentId);
  return [components.positive, components.negative, evidenceCount];
}

/** What `repute serve` does per request: read the team's state, apply evidence, write, in one transaction. */
function serverUpdate(store: Store, evidence: Evidence[]): void {
  store.transaction(() => {
    const model = betaModel();
    restoreSnapshot(model, store.loadReputation({ scope: { team }, name: 'beta' }), agentIds);
    model.observe(evidence);
    store.saveReputation({ scope: { team }, name: 'beta', snapshot: model.snapshot() });
  });
}

/** A store with run r1 of team t, and a session's view of it. */
function setUp({ start = 'team', replay = true }: { start?: 'team' | 'prior'; replay?: boolean } = {}) {
  const store = openStore({ path: ':memory:' });
  store.ensureRun({ id: runId, kind: 'run', team, config: {} });
  return { store, share: () => share(store, start, replay) };
}

function share(store: Store, start: 'team' | 'prior', replay: boolean) {
  const live = betaModel();
  const updates: ConcurrentTeamUpdate[] = [];
  const shared = shareTeamReputation({
    store,
    runId,
    team,
    name: 'beta',
    agentIds,
    start,
    ...(replay ? { replay: { model: live, create: betaModel } } : {}),
    onConcurrentUpdate: (update) => updates.push(update),
  });
  const model = shared.model ?? live;
  // As a debate session does: restore (run, else team unless fresh), then per task observe and save both scopes.
  restoreSnapshot(
    model,
    store.loadReputation({ scope: { runId }, name: 'beta' }) ??
      (start === 'team' ? store.loadReputation({ scope: { team }, name: 'beta' }) : undefined),
    agentIds,
  );
  const finish = (taskId: string, successes: Readonly<Record<string, number>>) => {
    model.observe(outcomes(taskId, successes));
    const snapshot = model.snapshot();
    shared.store.recordTaskResult({
      runId,
      method: 'beta',
      taskId,
      result: {},
      reputation: [
        { scope: { runId }, name: 'beta', snapshot },
        { scope: { team }, name: 'beta', snapshot },
      ],
    });
  };
  return { model, finish, updates };
}

describe('shareTeamReputation', () => {
  it("saves the run's state as is while nobody else writes the team", () => {
    const { store, share } = setUp();
    const run = share();
    run.finish('t1', { a: 1, b: 0 });
    run.finish('t2', { a: 1, b: 1 });
    expect(store.loadReputation({ scope: { team }, name: 'beta' })).toEqual(run.model.snapshot());
    expect(run.updates).toEqual([]);
    store.close();
  });

  it("applies each task's evidence to the state another writer saved in between, and keeps doing so", () => {
    const { store, share } = setUp();
    const run = share();
    run.finish('t1', { a: 1, b: 0 }); // team: a (1, 0), b (0, 1)
    serverUpdate(store, outcomes('chat-1', { a: 0 })); // team: a (0.9, 1)
    run.finish('t2', { a: 1, b: 1 }); // team: a (1.81, 0.9), b (1, 0.9)
    expect(saved(store, { team }, 'a')).toEqual([expect.closeTo(1.81, 12), expect.closeTo(0.9, 12), 3]);
    expect(saved(store, { team }, 'b')).toEqual([1, expect.closeTo(0.9, 12), 2]);
    // No further server write: the run's state (a (1.9, 0)) still differs from the team's, so t3 is merged too.
    run.finish('t3', { a: 1 }); // team: a (2.629, 0.81)
    expect(saved(store, { team }, 'a')).toEqual([expect.closeTo(2.629, 12), expect.closeTo(0.81, 12), 4]);
    // The run's own state has only its evidence: a (2.71, 0).
    expect(saved(store, { runId }, 'a')).toEqual([expect.closeTo(2.71, 12), 0, 3]);
    expect(run.updates).toEqual([{ name: 'beta', taskId: 't2', resolution: 'merged' }]);
    store.close();
  });

  it('does not replay the evidence of a task the session undid', () => {
    const { store, share } = setUp();
    const run = share();
    run.finish('t1', { a: 1, b: 0 }); // team: a (1, 0), b (0, 1)
    // t2 fails: the session restores the model to its state before t2.
    const before = run.model.snapshot();
    run.model.observe(outcomes('t2', { a: 0 }));
    run.model.restore(before);
    serverUpdate(store, outcomes('chat-1', { b: 1 })); // team: b (1, 0.9)
    run.finish('t3', { a: 1 }); // team: a (1.9, 0); with t2 replayed it would be a (1.81, 0.9)
    expect(saved(store, { team }, 'a')).toEqual([expect.closeTo(1.9, 12), 0, 2]);
    expect(saved(store, { team }, 'b')).toEqual([1, expect.closeTo(0.9, 12), 2]);
    store.close();
  });

  it("without a model to replay, keeps the other writer's state and saves the run's with the run only", () => {
    const { store, share } = setUp({ replay: false });
    const run = share();
    run.finish('t1', { a: 1 });
    serverUpdate(store, outcomes('chat-1', { b: 0 }));
    const other = store.loadReputation({ scope: { team }, name: 'beta' });
    run.finish('t2', { a: 1 });
    run.finish('t3', { a: 1 });
    expect(store.loadReputation({ scope: { team }, name: 'beta' })).toEqual(other);
    // a: (1, 0) -> (1.9, 0) -> (2.71, 0) in the run's scope.
    expect(saved(store, { runId }, 'a')).toEqual([expect.closeTo(2.71, 12), 0, 3]);
    expect(run.updates).toEqual([{ name: 'beta', taskId: 't2', resolution: 'kept' }]);
    expect(describeConcurrentUpdate(team, { name: 'beta', taskId: 't2', resolution: 'kept' })).toBe(
      "team t's beta reputation was updated by another writer (repute serve?) before task t2 was saved; a beta run cannot merge its evidence into it, so the team keeps the other writer's state and this run's reputation is saved with the run only",
    );
    store.close();
  });

  it("a fresh run replaces the team's state at its first task and merges from then on", () => {
    const { store, share } = setUp({ start: 'prior' });
    serverUpdate(store, outcomes('old', { a: 0, b: 0 })); // an earlier team state: a (0, 1), b (0, 1)
    const run = share();
    run.finish('t1', { a: 1 }); // replaced: a (1, 0), b prior (0, 0)
    expect(saved(store, { team }, 'a')).toEqual([1, 0, 1]);
    expect(saved(store, { team }, 'b')).toEqual([0, 0, 0]);
    expect(run.updates).toEqual([]);
    serverUpdate(store, outcomes('chat-1', { b: 0 })); // b (0, 1)
    run.finish('t2', { a: 1 }); // a (1.9, 0), b (0, 1)
    expect(saved(store, { team }, 'a')).toEqual([expect.closeTo(1.9, 12), 0, 2]);
    expect(saved(store, { team }, 'b')).toEqual([0, 1, 1]);
    expect(run.updates).toEqual([{ name: 'beta', taskId: 't2', resolution: 'merged' }]);
    store.close();
  });

  it('a resumed fresh run merges into the team instead of replacing it again', () => {
    const { store, share } = setUp({ start: 'prior' });
    share().finish('t1', { a: 1 }); // team and run: a (1, 0)
    serverUpdate(store, outcomes('chat-1', { a: 0 })); // team: a (0.9, 1)
    const resumed = share(); // restores the run's state a (1, 0)
    resumed.finish('t2', { a: 1 }); // team: a (1.81, 0.9)
    expect(saved(store, { team }, 'a')).toEqual([expect.closeTo(1.81, 12), expect.closeTo(0.9, 12), 3]);
    store.close();
  });

  it('refuses a replay factory that makes another kind of model, naming the option', () => {
    const store = openStore({ path: ':memory:' });
    const create = () => createDebateMethod('single-metric', { agents }).reputation as ReputationModel;
    const attempt = () =>
      shareTeamReputation({
        store,
        runId,
        team,
        name: 'beta',
        agentIds,
        start: 'team',
        replay: { model: betaModel(), create },
      });
    expect(attempt).toThrow(InvalidArgumentError);
    expect(attempt).toThrow(/replay\.create must make models of the run's kind "beta", got "single-metric"/);
    store.close();
  });
});
