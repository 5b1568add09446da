// The read paths of the shared reputation that decision makers use (docs/scaling.md, "Who writes to
// the log"): the incremental `latest()`, a team snapshot saved before the log existed as the log's
// base, and a run's own view (`runId`) for runs that start from the prior.
import { describe, expect, it } from 'vitest';
import type { Evidence, ReputationModel } from '../core/reputation-model.js';
import { createReputationModel } from '../reputation/registry.js';
import { createLoggedReputation } from './_logged-reputation.js';
import { createSharedReputation } from './shared-reputation.js';
import { openStore, type Store } from './store.js';

const agents = ['a', 'b'];
// Beta forgets with λ = 0.9 per observed batch: r ← 0.9·r + success, s ← 0.9·s + (1 − success).
const createModel = () => createReputationModel('beta', { agents });
const outcome = (subject: string, success: number): Evidence[] => [{ type: 'outcome', taskId: 't', subject, success }];

/** Agent a's (positive, negative) counts in a Beta state. */
function countsOf(model: ReputationModel, agentId = 'a') {
  const { components } = model.explain(agentId);
  return [components.positive, components.negative];
}

function append(store: Store, key: string, evidence: Evidence[], runId: string | null = null) {
  return store.appendReputationEvent({ team: 'team', name: 'beta', key, evidence, runId, readVersion: 0 });
}

describe('shared reputation: read paths of decision makers', () => {
  it('latest() reads only the events appended since its last read and equals current() after each append', () => {
    const store = openStore({ path: ':memory:' });
    const reader = createSharedReputation({ store, team: 'team', name: 'beta', createModel, holder: 'r' });
    const other = createSharedReputation({ store, team: 'team', name: 'beta', createModel, holder: 'o' });
    expect(reader.latest().version).toBe(0);
    append(store, 'k1', outcome('a', 1));
    append(store, 'k2', outcome('a', 0));
    // Another process folds the first two events meanwhile; the reader's cached prefix stays valid.
    expect(other.fold()).toMatchObject({ status: 'folded', foldedSeq: 2 });
    append(store, 'k3', outcome('a', 1));
    const latest = reader.latest();
    expect(latest.version).toBe(3);
    expect(latest.model.snapshot()).toEqual(reader.current().model.snapshot());
    // By hand: (1, 0) → (0.9, 1) → (1.81, 0.9).
    const [positive, negative] = countsOf(latest.model);
    expect(positive).toBeCloseTo(1.81, 12);
    expect(negative).toBeCloseTo(0.9, 12);
    store.close();
  });

  it("starts the log from the team's snapshot saved before the log existed, and its first fold keeps it", () => {
    const store = openStore({ path: ':memory:' });
    const before = createModel();
    before.observe(outcome('a', 0));
    before.observe(outcome('a', 0));
    // Saved the old way: (0, 1.9) for a.
    store.saveReputation({ scope: { team: 'team' }, name: 'beta', snapshot: before.snapshot() });
    const shared = createSharedReputation({ store, team: 'team', name: 'beta', createModel, holder: 'h' });
    append(store, 'k1', outcome('a', 1));
    const [positive, negative] = countsOf(shared.current().model);
    // (0, 1.9) → (1, 1.71).
    expect(positive).toBeCloseTo(1, 12);
    expect(negative).toBeCloseTo(1.71, 12);
    expect(shared.fold()).toMatchObject({ status: 'folded', foldedSeq: 1 });
    // The team's snapshot is now the fold, and a read from the fold gives the same state.
    expect(store.loadReputation({ scope: { team: 'team' }, name: 'beta' })).toEqual(shared.current().model.snapshot());
    const [again] = countsOf(shared.current().model);
    expect(again).toBeCloseTo(1, 12);
    store.close();
  });

  it("with runId reads only that run's events, from the prior, while the team's log holds every run's", () => {
    const store = openStore({ path: ':memory:' });
    append(store, 'other/1', outcome('a', 0), 'other');
    append(store, 'mine/1', outcome('a', 1), 'mine');
    append(store, 'other/2', outcome('a', 0), 'other');
    append(store, 'mine/2', outcome('a', 1), 'mine');
    const own = createSharedReputation({ store, team: 'team', name: 'beta', createModel, holder: 'h', runId: 'mine' });
    const state = own.current();
    // Only seq 2 and 4: (1, 0) → (1.9, 0); version = the last own event read.
    expect(state.version).toBe(4);
    expect(countsOf(state.model)).toEqual([expect.closeTo(1.9, 12), 0]);
    expect(own.latest().model.snapshot()).toEqual(state.model.snapshot());
    const team = createSharedReputation({ store, team: 'team', name: 'beta', createModel, holder: 'h' });
    // All four: (0, 1) → (1, 0.9) → (0.9, 1.81) → (1.81, 1.629).
    const [positive, negative] = countsOf(team.current().model);
    expect(positive).toBeCloseTo(1.81, 12);
    expect(negative).toBeCloseTo(1.629, 12);
    store.close();
  });

  it('a logged model appends its evidence once per task key and stamps the decision with the version read', () => {
    const store = openStore({ path: ':memory:' });
    store.ensureRun({ id: 'r1', kind: 'run', team: 'team', config: {} });
    const logged = createLoggedReputation({
      store,
      team: 'team',
      name: 'beta',
      runId: 'r1',
      start: 'team',
      model: createModel(),
      create: createModel,
    });
    append(store, 'serve/1', outcome('a', 0));
    // The first use reads the log (version 1), then the task observes one batch.
    logged.model.observe(outcome('a', 1));
    expect(logged.readVersion).toBe(1);
    const write = () =>
      store.recordTaskResult({
        runId: 'r1',
        method: 'beta',
        taskId: 't1',
        result: {},
        events: logged.stamp([{ data: { type: 'vote', taskId: 't1', answer: '1', support: {}, reasons: [] } }]),
        reputationEvents: logged.events('t1'),
      });
    write();
    logged.written();
    expect(store.events('r1', { type: 'vote' })[0]?.data).toMatchObject({ readVersion: 1 });
    expect(
      store.reputationEvents({ team: 'team', name: 'beta' }).map((event) => [event.key, event.readVersion]),
    ).toEqual([
      ['serve/1', 0],
      ['r1/beta/t1', 1],
    ]);
    // The next use reads the log again: (0, 1) → (1, 0.9).
    const [positive, negative] = countsOf(logged.model);
    expect(positive).toBeCloseTo(1, 12);
    expect(negative).toBeCloseTo(0.9, 12);
    expect(logged.readVersion).toBe(2);
    store.close();
  });
});
