// Internal test helper: the store contract. Every `Store` implementation (SQLite file, SQLite
// in memory, PostgreSQL) runs these cases through `runStoreContract`, so they cannot drift apart
// (hono runs its common router cases against every router the same way).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError, NotFoundError, StoreError } from '../core/errors.js';
import { createTracer } from '../core/trace.js';
import type { ReputationSnapshot } from '../reputation/reputation-model.js';
import { type OpenStoreOptions, openStore, type Store } from './store.js';
import { createStoreTraceSink } from './store-trace-sink.js';
import { createSharedReputation } from './shared-reputation.js';
import { createReputationModel } from '../reputation/registry.js';
import type { Evidence } from '../core/reputation-model.js';

/** One store implementation under the contract. */
export interface StoreContractTarget {
  /** Shown in the test names, e.g. `sqlite` or `postgres`. */
  readonly name: string;
  /** The location (file path or URL) of a new, empty store, for `openStore({ path })`. */
  newLocation(): string;
  /** Tasks of the SIGKILL crash case (each kill lands after at most 90 commits). */
  readonly crashTasks: number;
}

const snapshot = (value: number): ReputationSnapshot => ({
  schemaVersion: 1,
  model: 'beta',
  agents: ['a1', 'a2'],
  state: { a1: value, a2: 1 - value },
});

/** Runs the store contract against one implementation. */
export function runStoreContract(target: StoreContractTarget): void {
  const opened: Store[] = [];
  afterEach(() => {
    for (const store of opened.splice(0)) store.close();
  });
  /** Opens a store and closes it after the test (a PostgreSQL connection each). */
  const open = (options: OpenStoreOptions): Store => {
    const store = openStore(options);
    opened.push(store);
    return store;
  };
  const fresh = (options: { now?: () => number } = {}): { store: Store; tick: () => number } => {
    let time = 1000;
    const tick = () => time++;
    return { store: open({ path: target.newLocation(), now: options.now ?? tick }), tick };
  };

  describe(`store contract (${target.name})`, () => {
    describe('runs', () => {
      it('throws after close', () => {
        const { store } = fresh();
        store.close();
        expect(() => store.listRuns()).toThrow(/closed/);
      });
      it('keeps failed tasks apart from results: counted per rerun, cleared by a later result', () => {
        let clock = 10;
        const store = open({ path: target.newLocation(), now: () => clock });
        store.createRun({ id: 'r', kind: 'run', config: {} });
        store.recordTaskFailure({ runId: 'r', method: 'm', taskId: 't1', failure: { status: 401 } });
        clock = 11;
        const again = store.recordTaskFailure({ runId: 'r', method: 'm', taskId: 't1', failure: { status: 500 } });
        // Two failures of the same task: one row, attempts 2, the latest failure, first/last times 10/11.
        expect(again).toEqual({
          schemaVersion: 1,
          runId: 'r',
          method: 'm',
          taskId: 't1',
          failure: { status: 500 },
          attempts: 2,
          createdAt: 10,
          updatedAt: 11,
        });
        expect(store.completedTaskIds('r', 'm')).toEqual([]);
        store.recordTaskResult({ runId: 'r', method: 'm', taskId: 't1', result: { ok: true } });
        expect(store.taskFailures('r')).toEqual([]);
        expect(() => store.recordTaskFailure({ runId: 'r', method: 'm', taskId: 't1', failure: {} })).toThrow(
          /already has a result/,
        );
        store.close();
      });
      it('creates, lists, resumes and updates runs with the injected clock', () => {
        const { store } = fresh();
        const run = store.createRun({ id: 'r1', kind: 'debate', config: { b: 2, a: 1 }, team: 'math' });
        expect(run).toEqual({
          schemaVersion: 1,
          id: 'r1',
          kind: 'debate',
          team: 'math',
          config: { b: 2, a: 1 },
          status: 'running',
          createdAt: 1001,
          updatedAt: 1001,
        });
        // Clock ticks: 1000 migration, 1001 r1, 1002 r2, 1003 the refused duplicate, 1004 status change.
        store.createRun({ id: 'r2', kind: 'demo', config: null });
        expect(store.listRuns({ kind: 'debate' }).map((entry) => entry.id)).toEqual(['r1']);
        expect(store.listRuns({ team: 'math' }).map((entry) => entry.id)).toEqual(['r1']);
        expect(store.listRuns().map((entry) => entry.id)).toEqual(['r1', 'r2']);
        expect(() => store.createRun({ id: 'r1', kind: 'debate', config: {} })).toThrow(/already exists/);

        expect(store.setRunStatus('r1', 'interrupted')).toMatchObject({
          status: 'interrupted',
          createdAt: 1001,
          updatedAt: 1004,
        });
        // Key order in config does not matter for a resume.
        const resumed = store.ensureRun({ id: 'r1', kind: 'debate', config: { a: 1, b: 2 }, team: 'math' });
        expect(resumed.resumed).toBe(true);
        expect(resumed.run.status).toBe('running');
        expect(store.ensureRun({ id: 'r3', kind: 'demo', config: 1 }).resumed).toBe(false);
        expect(() => store.ensureRun({ id: 'r1', kind: 'debate', config: { a: 2, b: 2 }, team: 'math' })).toThrow(
          /different setup \(config differs at a: 1 stored, 2 given\)/,
        );
        // The message names what differs, stored and given (old: only "config differs").
        store.createRun({
          id: 'r4',
          kind: 'run',
          config: { methods: ['majority', 'beta'], seed: 1, agents: [{ id: 'a' }] },
        });
        expect(() =>
          store.ensureRun({
            id: 'r4',
            kind: 'run',
            config: { methods: ['majority'], seed: 1, agents: [{ id: 'b' }], k: 2 },
          }),
        ).toThrow(
          'config differs at methods: ["majority","beta"] stored, ["majority"] given; agents.0.id: "a" stored, "b" given; k: (none) stored, 2 given)',
        );
        expect(() => store.ensureRun({ id: 'r1', kind: 'demo', config: { a: 1, b: 2 } })).toThrow(
          /kind "debate" vs "demo"; team "math" vs null/,
        );
        expect(() => store.setRunStatus('nope', 'completed')).toThrow(NotFoundError);
        expect(() => store.setRunStatus('r1', 'done' as never)).toThrow(/status must be one of/);
        expect(store.getRun('nope')).toBeUndefined();
      });

      it('never quotes a config value under a key named like a secret in a refused resume', () => {
        const store = open({ path: target.newLocation() });
        try {
          store.createRun({
            id: 'r',
            kind: 'run',
            config: {
              apiKey: 'sk-stored-0123456789',
              maxTokens: 100,
              provider: { headers: { Authorization: 'Bearer abc' } },
              apiKeyEnv: 'OPENAI_API_KEY',
            },
          });
          let message = '';
          try {
            store.ensureRun({
              id: 'r',
              kind: 'run',
              config: {
                apiKey: 'sk-given-9876543210',
                maxTokens: 200,
                provider: { headers: { Authorization: 'Bearer xyz' } },
                apiKeyEnv: 'OTHER_KEY',
              },
            });
          } catch (error) {
            message = (error as Error).message;
          }
          // Key names end in a secret's name (apiKey, Authorization): redacted; maxTokens and apiKeyEnv (a variable's name) are shown.
          expect(message).toContain('apiKey: [redacted] stored, [redacted] given');
          expect(message).toContain('provider.headers.Authorization: [redacted] stored, [redacted] given');
          expect(message).toContain('maxTokens: 100 stored, 200 given');
          expect(message).toContain('apiKeyEnv: "OPENAI_API_KEY" stored, "OTHER_KEY" given');
          expect(message).not.toMatch(/sk-|Bearer/);
        } finally {
          store.close();
        }
      });

      it('rejects configs that are not JSON', () => {
        const { store } = fresh();
        expect(() => store.createRun({ id: 'r', kind: 'k', config: { big: 1n } })).toThrow(InvalidArgumentError);
        expect(() => store.createRun({ id: '', kind: 'k', config: null })).toThrow(/id must be a non-empty string/);
      });
    });

    describe('task results and events', () => {
      it('records results with their events in completion order and refuses duplicates atomically', () => {
        const { store } = fresh();
        store.createRun({ id: 'r', kind: 'k', config: null });
        store.appendEvents('r', [{ type: 'run', runId: 'r' }]);
        store.recordTaskResult({
          runId: 'r',
          method: 'drf',
          taskId: 't2',
          result: { correct: true },
          events: [
            { type: 'task', taskId: 't2' },
            { type: 'vote', taskId: 't2', answer: '4', support: { '4': 1 }, reasons: [] },
          ],
        });
        store.recordTaskResult({ runId: 'r', method: 'drf', taskId: 't1', result: { correct: false } });
        store.recordTaskResult({
          runId: 'r',
          method: 'majority',
          taskId: 't2',
          result: { correct: true },
          events: [{ data: { type: 'task', taskId: 't2' }, spanId: 's9', startedAt: 3, endedAt: 4 }],
        });
        expect(store.completedTaskIds('r', 'drf')).toEqual(['t2', 't1']);
        expect(store.completedTaskIds('r', 'majority')).toEqual(['t2']);
        expect(store.taskResults('r', 'drf').map((entry) => [entry.taskId, entry.position, entry.result])).toEqual([
          ['t2', 0, { correct: true }],
          ['t1', 1, { correct: false }],
        ]);
        expect(store.taskResults('r').map((entry) => `${entry.method}/${entry.taskId}`)).toEqual([
          'drf/t2',
          'drf/t1',
          'majority/t2',
        ]);

        const before = store.events('r').length;
        expect(() =>
          store.recordTaskResult({
            runId: 'r',
            method: 'drf',
            taskId: 't2',
            result: {},
            events: [{ type: 'task', taskId: 't2' }],
          }),
        ).toThrow(/already recorded.*completedTaskIds/);
        expect(store.events('r')).toHaveLength(before);

        const events = store.events('r');
        expect(events.map((event) => [event.seq, event.type, event.method, event.taskId])).toEqual([
          [1, 'run', null, null],
          [2, 'task', 'drf', 't2'],
          [3, 'vote', 'drf', 't2'],
          [4, 'task', 'majority', 't2'],
        ]);
        expect(events[3]).toMatchObject({ spanId: 's9', startedAt: 3, endedAt: 4, schemaVersion: 1 });
        expect(store.events('r', { type: 'task' }).map((event) => event.seq)).toEqual([2, 4]);
        expect(store.events('r', { method: 'drf', afterSeq: 2 }).map((event) => event.seq)).toEqual([3]);
        expect(store.events('r', { taskId: 't2' })).toHaveLength(3);
        // A batch of a long log: the first `limit` events after a seq.
        expect(store.events('r', { afterSeq: 1, limit: 2 }).map((event) => event.seq)).toEqual([2, 3]);
        expect(store.events('r', { type: 'task', limit: 1 }).map((event) => event.seq)).toEqual([2]);
        expect(() => store.events('r', { limit: 0 })).toThrow(/filter\.limit.*pass e\.g\. \{ limit: 500 \}/);
      });

      it('rolls the whole task back when any part is invalid', () => {
        const { store } = fresh();
        store.createRun({ id: 'r', kind: 'k', config: null });
        expect(() =>
          store.recordTaskResult({
            runId: 'r',
            method: 'm',
            taskId: 't',
            result: 1,
            events: [{ type: 'task', taskId: 't' }],
            usage: [{ inputTokens: -1, outputTokens: 0, cost: 0, cached: false }],
          }),
        ).toThrow(/usage\[0\]\.inputTokens/);
        expect(store.completedTaskIds('r', 'm')).toEqual([]);
        expect(store.events('r')).toEqual([]);
        expect(store.usageEntries()).toEqual([]);
        expect(() => store.recordTaskResult({ runId: 'missing', method: 'm', taskId: 't', result: 1 })).toThrow(
          NotFoundError,
        );
        expect(() => store.appendEvents('r', [{ nope: 1 } as never])).toThrow(/must be span data/);
      });

      it('writes and buffers spans through the store trace sink', () => {
        const { store } = fresh();
        store.createRun({ id: 'r', kind: 'k', config: null });
        let clock = 0;
        const immediate = createTracer({ sink: createStoreTraceSink({ store, runId: 'r' }), now: () => clock++ });
        immediate.record({ type: 'run', runId: 'r' });
        expect(store.events('r')).toHaveLength(1);

        const sink = createStoreTraceSink({ store, runId: 'r', mode: 'buffered', method: 'drf' });
        const tracer = createTracer({ sink, now: () => clock++ });
        const span = tracer.start({ type: 'task', taskId: 't1' });
        tracer.record({ type: 'proposal', taskId: 't1', round: 0, agentId: 'a', answer: '1' }, span.id);
        tracer.record({ type: 'proposal', taskId: 't2', round: 0, agentId: 'a', answer: '2' });
        tracer.end(span);
        expect(store.events('r')).toHaveLength(1);
        expect(sink.pending()).toHaveLength(3);
        const events = sink.take({ taskId: 't1' });
        expect(events.map((event) => event.data.type)).toEqual(['proposal', 'task']);
        expect(sink.pending()).toHaveLength(1);
        store.recordTaskResult({ runId: 'r', method: 'drf', taskId: 't1', result: null, events });
        const stored = store.events('r', { taskId: 't1' });
        expect(stored.map((event) => [event.type, event.parentId === null])).toEqual([
          ['proposal', false],
          ['task', true],
        ]);
        // The task span started at clock 1 and ended at clock 4 (two records in between took 2 and 3).
        expect(stored[1]).toMatchObject({ spanId: span.id, startedAt: 1, endedAt: 4, method: 'drf' });
        expect(sink.take()).toHaveLength(1);
        expect(sink.pending()).toEqual([]);
      });

      it('keeps exactly the first result per task under any sequence of retries (property)', () => {
        const { store } = fresh({ now: () => 0 });
        let runs = 0;
        fc.assert(
          fc.property(fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 30 }), (taskIndexes) => {
            // One store for every sequence (a new PostgreSQL schema per case would be slow): a run per sequence.
            runs += 1;
            const r = `r${runs}`;
            store.createRun({ id: r, kind: 'k', config: null });
            const expected: string[] = [];
            for (const index of taskIndexes) {
              const taskId = `t${index}`;
              const record = () =>
                store.recordTaskResult({
                  runId: r,
                  method: 'm',
                  taskId,
                  result: index,
                  events: [{ type: 'task', taskId }],
                });
              if (store.completedTaskIds(r, 'm').includes(taskId)) {
                expect(record).toThrow(StoreError);
              } else {
                record();
                expected.push(taskId);
              }
            }
            expect(store.completedTaskIds(r, 'm')).toEqual(expected);
            expect(store.events(r).map((event) => event.taskId)).toEqual(expected);
            expect(store.events(r).map((event) => event.seq)).toEqual(expected.map((_, index) => index + 1));
          }),
          { numRuns: 50 },
        );
      });
    });

    describe('reputation and teams', () => {
      it('saves and reloads snapshots per run or team, replacing older ones', () => {
        const { store } = fresh();
        store.createRun({ id: 'r', kind: 'k', config: null });
        store.saveReputation({ scope: { runId: 'r' }, name: 'drf', snapshot: snapshot(0.1) });
        store.saveReputation({ scope: { team: 'math' }, name: 'drf', snapshot: snapshot(0.2) });
        store.saveReputation({ scope: { team: 'math' }, name: 'drf', snapshot: snapshot(0.3) });
        expect(store.loadReputation({ scope: { runId: 'r' }, name: 'drf' })).toEqual(snapshot(0.1));
        expect(store.loadReputation({ scope: { team: 'math' }, name: 'drf' })).toEqual(snapshot(0.3));
        expect(store.loadReputation({ scope: { team: 'math' }, name: 'beta' })).toBeUndefined();
        expect(() =>
          store.saveReputation({ scope: { runId: 'r', team: 'x' } as never, name: 'drf', snapshot: snapshot(0) }),
        ).toThrow(/exactly one/);
        expect(() =>
          store.saveReputation({ scope: { team: 'x' }, name: 'drf', snapshot: { model: 'beta' } as never }),
        ).toThrow(/schemaVersion 1/);
      });

      it('commits reputation with the task so a resumed run continues from the last finished task', () => {
        const { store } = fresh();
        store.createRun({ id: 'r', kind: 'k', config: null });
        store.recordTaskResult({
          runId: 'r',
          method: 'drf',
          taskId: 't1',
          result: 1,
          reputation: [
            { scope: { runId: 'r' }, name: 'drf', snapshot: snapshot(0.4) },
            { scope: { team: 'math' }, name: 'drf', snapshot: snapshot(0.4) },
          ],
        });
        expect(() =>
          store.recordTaskResult({
            runId: 'r',
            method: 'drf',
            taskId: 't1',
            result: 2,
            reputation: [{ scope: { runId: 'r' }, name: 'drf', snapshot: snapshot(0.9) }],
          }),
        ).toThrow(StoreError);
        expect(store.loadReputation({ scope: { runId: 'r' }, name: 'drf' })).toEqual(snapshot(0.4));
        expect(store.loadReputation({ scope: { team: 'math' }, name: 'drf' })).toEqual(snapshot(0.4));
      });

      it('persists team identities across store sessions in their order', () => {
        const path = target.newLocation();
        const first = open({ path });
        first.saveTeam('math', [
          { id: 'b', model: 'm2', cost: 0.5 },
          { id: 'a', model: 'm1' },
        ]);
        first.saveTeam('math', [
          { id: 'c', model: 'm3' },
          { id: 'b', model: 'm2', cost: 0.5 },
        ]);
        first.close();
        const second = open({ path });
        expect(second.loadTeam('math')).toEqual([
          { id: 'c', model: 'm3' },
          { id: 'b', model: 'm2', cost: 0.5 },
        ]);
        expect(second.loadTeam('other')).toBeUndefined();
        expect(() =>
          second.saveTeam('math', [
            { id: 'a', model: 'x' },
            { id: 'a', model: 'y' },
          ]),
        ).toThrow(/duplicate agent id "a"/);
        expect(second.loadTeam('math')).toHaveLength(2);
        second.close();
      });
    });

    describe('shared reputation log', () => {
      const agents = ['a1', 'a2', 'a3'];
      // Beta with forgetting (lambda 0.9) is order-dependent: a fold in any other order than seq differs.
      const createModel = () => createReputationModel('beta', { agents, lambda: 0.9 });
      const outcome = (taskId: string, subject: string, success: number): Evidence[] => [
        { type: 'outcome', taskId, subject, success },
      ];

      it('appends each idempotency key once, gap-free, with the version the decision read', () => {
        const { store } = fresh();
        const team = { team: 'math', name: 'beta' };
        expect(store.reputationVersion(team)).toBe(0);
        expect(
          store.appendReputationEvent({ ...team, key: 'r/t1', evidence: outcome('t1', 'a1', 1), readVersion: 0 }),
        ).toEqual({
          seq: 1,
          appended: true,
        });
        // A redelivered task: same key, different evidence; nothing appended, the first event's seq returned.
        expect(
          store.appendReputationEvent({ ...team, key: 'r/t1', evidence: outcome('t1', 'a2', 0), readVersion: 1 }),
        ).toEqual({
          seq: 1,
          appended: false,
        });
        store.createRun({ id: 'r', kind: 'k', config: null });
        store.recordTaskResult({
          runId: 'r',
          method: 'beta',
          taskId: 't2',
          result: null,
          reputationEvents: [
            { ...team, key: 'r/t2', evidence: outcome('t2', 'a2', 0), readVersion: 1, runId: 'r', taskId: 't2' },
          ],
        });
        // The task's event rolls back with a failed task: a bad ledger entry after it.
        expect(() =>
          store.recordTaskResult({
            runId: 'r',
            method: 'beta',
            taskId: 't3',
            result: null,
            reputationEvents: [{ ...team, key: 'r/t3', evidence: outcome('t3', 'a3', 1) }],
            usage: [{ inputTokens: -1, outputTokens: 0, cost: 0, cached: false }],
          }),
        ).toThrow(/usage\[0\]\.inputTokens/);
        expect(store.reputationVersion(team)).toBe(2);
        expect(
          store.reputationEvents(team).map((event) => [event.seq, event.key, event.readVersion, event.taskId]),
        ).toEqual([
          [1, 'r/t1', 0, null],
          [2, 'r/t2', 1, 't2'],
        ]);
        expect(store.reputationEvents({ ...team, afterSeq: 1 })[0]?.evidence).toEqual(outcome('t2', 'a2', 0));
        expect(store.reputationVersion({ team: 'math', name: 'other' })).toBe(0);
      });

      it('lets one holder fold at a time and fences out a holder whose lease was taken', () => {
        let clock = 1000;
        const { store } = fresh({ now: () => clock });
        const team = { team: 'math', name: 'beta' };
        store.appendReputationEvent({ ...team, key: 'k1', evidence: outcome('t1', 'a1', 1) });
        const first = store.acquireReputationLease({ ...team, holder: 'A', leaseMs: 100 });
        expect(first).toMatchObject({ generation: 1, holder: 'A', leaseUntil: 1100, foldedSeq: 0, snapshot: null });
        // B waits while A's lease runs (1000 + 100 = 1100), and takes it at 1100: generation 2.
        clock = 1099;
        expect(store.acquireReputationLease({ ...team, holder: 'B', leaseMs: 100 })).toBeUndefined();
        clock = 1100;
        expect(store.acquireReputationLease({ ...team, holder: 'B', leaseMs: 100 })).toMatchObject({
          generation: 2,
          holder: 'B',
        });
        const folded = createModel();
        folded.observe(outcome('t1', 'a1', 1));
        // A, stalled past its lease, tries to write its fold: fenced, nothing written.
        expect(store.commitReputationFold({ ...team, generation: 1, foldedSeq: 1, snapshot: folded.snapshot() })).toBe(
          false,
        );
        expect(store.reputationFold(team)).toMatchObject({ generation: 2, foldedSeq: 0, snapshot: null });
        expect(store.loadReputation({ scope: { team: 'math' }, name: 'beta' })).toBeUndefined();
        expect(store.commitReputationFold({ ...team, generation: 2, foldedSeq: 1, snapshot: folded.snapshot() })).toBe(
          true,
        );
        // A fold never moves backwards, even by the current holder.
        expect(
          store.commitReputationFold({ ...team, generation: 2, foldedSeq: 0, snapshot: createModel().snapshot() }),
        ).toBe(false);
        expect(store.reputationFold(team)).toMatchObject({
          generation: 2,
          holder: 'B',
          foldedSeq: 1,
          snapshot: folded.snapshot(),
        });
        // The fold is the team's snapshot now.
        expect(store.loadReputation({ scope: { team: 'math' }, name: 'beta' })).toEqual(folded.snapshot());
        // B renews without a new generation; A cannot take it back before B's renewed lease ends.
        clock = 1150;
        expect(store.acquireReputationLease({ ...team, holder: 'B', leaseMs: 100 })).toMatchObject({
          generation: 2,
          leaseUntil: 1250,
        });
        expect(store.acquireReputationLease({ ...team, holder: 'A', leaseMs: 100 })).toBeUndefined();
      });

      it('reads and folds to the state of a fresh fold of the log, whoever folds and when (property)', () => {
        let clock = 0;
        const { store } = fresh({ now: () => clock });
        let teams = 0;
        const step = fc.oneof(
          fc.record({
            kind: fc.constant('append' as const),
            key: fc.integer({ min: 0, max: 8 }),
            subject: fc.constantFrom(...agents),
            success: fc.constantFrom(0, 1),
          }),
          fc.record({
            kind: fc.constant('fold' as const),
            holder: fc.constantFrom('A', 'B'),
            advance: fc.integer({ min: 0, max: 150 }),
          }),
        );
        fc.assert(
          fc.property(fc.array(step, { maxLength: 25 }), (steps) => {
            teams += 1;
            const shared = createSharedReputation({
              store,
              team: `team${teams}`,
              name: 'beta',
              createModel,
              holder: 'A',
              leaseMs: 100,
            });
            const other = createSharedReputation({
              store,
              team: `team${teams}`,
              name: 'beta',
              createModel,
              holder: 'B',
              leaseMs: 100,
            });
            // The expected state, by a second method: the first batch of each key, in append order, in memory.
            const expected = createModel();
            const seen = new Set<number>();
            for (const entry of steps) {
              if (entry.kind === 'append') {
                const evidence = outcome(`t${entry.key}`, entry.subject, entry.success);
                const { version } = shared.current();
                shared.record({ key: `k${entry.key}`, evidence, readVersion: version });
                if (!seen.has(entry.key)) expected.observe(evidence);
                seen.add(entry.key);
              } else {
                clock += entry.advance;
                (entry.holder === 'A' ? shared : other).fold();
              }
              expect(shared.current().model.snapshot()).toEqual(expected.snapshot());
            }
            expect(shared.current().version).toBe(seen.size);
            // Whoever can fold last, the stored fold is then the whole log's.
            clock += 1000;
            expect(other.fold()).toMatchObject({ status: 'folded', foldedSeq: seen.size });
            expect(
              store.reputationFold({ team: `team${teams}`, name: 'beta' })?.snapshot ?? createModel().snapshot(),
            ).toEqual(expected.snapshot());
          }),
          { numRuns: 30 },
        );
      });
    });

    describe('llm cache and cost ledger', () => {
      it('keeps the first cached response per key', () => {
        const { store } = fresh();
        expect(store.getCachedResponse('k1')).toBeUndefined();
        expect(store.putCachedResponse({ key: 'k1', value: { text: 'a' }, model: 'gpt' })).toBe(true);
        expect(store.putCachedResponse({ key: 'k1', value: { text: 'b' } })).toBe(false);
        expect(store.getCachedResponse('k1')).toEqual({ text: 'a' });
        expect(store.countCachedResponses()).toBe(1);
      });

      it('sums the ledger per agent, task, act and run', () => {
        const { store } = fresh();
        store.recordUsage([
          {
            runId: 'r1',
            agentId: 'a',
            taskId: 't1',
            act: 'propose',
            inputTokens: 100,
            outputTokens: 10,
            cost: 0.5,
            cached: false,
          },
          {
            runId: 'r1',
            agentId: 'b',
            taskId: 't1',
            act: 'propose',
            inputTokens: 200,
            outputTokens: 20,
            cost: 1.25,
            cached: false,
          },
          {
            runId: 'r1',
            agentId: 'a',
            taskId: 't2',
            act: 'revise',
            inputTokens: 50,
            outputTokens: 5,
            cost: 0,
            cached: true,
          },
        ]);
        store.recordUsage({
          runId: 'r2',
          agentId: 'a',
          taskId: 't1',
          act: 'propose',
          inputTokens: 1,
          outputTokens: 1,
          cost: 2,
          cached: false,
        });
        // Agent a in r1: 100 + 50 input, 10 + 5 output, 0.5 + 0 cost, 2 calls of which 1 cached.
        expect(store.usageSummary({ by: 'agent', runId: 'r1' })).toEqual([
          {
            key: 'a',
            calls: 2,
            cachedCalls: 1,
            inputTokens: 150,
            outputTokens: 15,
            cost: 0.5,
            failedCalls: 0,
            unreportedUsageCalls: 0,
          },
          {
            key: 'b',
            calls: 1,
            cachedCalls: 0,
            inputTokens: 200,
            outputTokens: 20,
            cost: 1.25,
            failedCalls: 0,
            unreportedUsageCalls: 0,
          },
        ]);
        // Task t1 across runs: 100 + 200 + 1 input, 10 + 20 + 1 output, 0.5 + 1.25 + 2 = 3.75.
        expect(store.usageSummary({ by: 'task' })[0]).toEqual({
          key: 't1',
          calls: 3,
          cachedCalls: 0,
          inputTokens: 301,
          outputTokens: 31,
          cost: 3.75,
          failedCalls: 0,
          unreportedUsageCalls: 0,
        });
        expect(store.usageSummary({ by: 'run' }).map((row) => [row.key, row.cost])).toEqual([
          ['r1', 1.75],
          ['r2', 2],
        ]);
        expect(store.usageSummary({ by: 'act', runId: 'r1' }).map((row) => [row.key, row.calls])).toEqual([
          ['propose', 2],
          ['revise', 1],
        ]);
        expect(store.usageEntries({ runId: 'r2' })).toMatchObject([{ agentId: 'a', cost: 2, cached: false }]);
        expect(() => store.usageSummary({ by: 'week' as never })).toThrow(/by must be one of/);
        expect(() => store.recordUsage({ inputTokens: 1, outputTokens: 1, cost: Number.NaN, cached: false })).toThrow(
          /entries\[0\]\.cost/,
        );
      });

      it('keeps failed calls, unreported usage and attempts apart, and counts them per group', () => {
        const { store } = fresh();
        store.recordUsage([
          { runId: 'r', inputTokens: 100, outputTokens: 10, cost: 0.5, cached: false },
          {
            runId: 'r',
            inputTokens: 0,
            outputTokens: 0,
            cost: 0.1,
            cached: false,
            status: 'failed',
            usageReported: false,
            attempts: 3,
          } as never,
          {
            runId: 'r',
            inputTokens: 40,
            outputTokens: 4,
            cost: 0.2,
            cached: false,
            status: 'failed',
            usageReported: true,
            attempts: 1,
          } as never,
        ]);
        const rows = store.usageEntries() as unknown as Array<{
          status: string;
          usageReported: boolean;
          attempts: number | null;
        }>;
        // Entries that do not say are successes with reported usage and unknown attempts.
        expect(rows.map((row) => [row.status, row.usageReported, row.attempts])).toEqual([
          ['ok', true, null],
          ['failed', false, 3],
          ['failed', true, 1],
        ]);
        // 3 calls, 2 failed, 1 with unreported usage; 100 + 0 + 40 = 140 input tokens, 0.5 + 0.1 + 0.2 = 0.8.
        const [total] = store.usageSummary({ by: 'run' });
        expect(total).toMatchObject({ calls: 3, failedCalls: 2, unreportedUsageCalls: 1, inputTokens: 140 });
        expect(total!.cost).toBeCloseTo(0.8, 12);
        expect(() =>
          store.recordUsage({ inputTokens: 1, outputTokens: 1, cost: 0, cached: false, status: 'broken' } as never),
        ).toThrow(/entries\[0\]\.status must be one of ok, failed, got "broken"/);
        expect(() =>
          store.recordUsage({ inputTokens: 1, outputTokens: 1, cost: 0, cached: false, attempts: -1 } as never),
        ).toThrow(/entries\[0\]\.attempts must be an integer/);
        expect(() =>
          store.recordUsage({ inputTokens: 1, outputTokens: 1, cost: 0, cached: false, usageReported: 'yes' } as never),
        ).toThrow(/entries\[0\]\.usageReported must be a boolean/);
      });

      it('joins nested transactions and rolls back on error', () => {
        const { store } = fresh();
        expect(() =>
          store.transaction(() => {
            store.putCachedResponse({ key: 'x', value: 1 });
            store.recordUsage({ inputTokens: 1, outputTokens: 1, cost: 0, cached: true });
            throw new Error('boom');
          }),
        ).toThrow('boom');
        expect(store.countCachedResponses()).toBe(0);
        expect(store.usageEntries()).toEqual([]);
      });
    });

    describe('crash safety', () => {
      const worker = fileURLToPath(new URL('./_sigkill-worker.ts', import.meta.url));

      function runWorker(
        path: string,
        count: number,
        delayMs: number,
        killAfter?: number,
      ): Promise<{ lines: string[]; signal: NodeJS.Signals | null }> {
        return new Promise((resolve, reject) => {
          const child = spawn(process.execPath, ['--import', 'tsx', worker, path, String(count), String(delayMs)], {
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          const lines: string[] = [];
          let stderr = '';
          let buffered = '';
          child.stdout.on('data', (chunk: Buffer) => {
            buffered += chunk.toString();
            const parts = buffered.split('\n');
            buffered = parts.pop() ?? '';
            for (const line of parts) {
              lines.push(line);
              if (killAfter !== undefined && lines.filter((entry) => entry.startsWith('done')).length === killAfter)
                child.kill('SIGKILL');
            }
          });
          child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
          child.on('error', reject);
          child.on('close', (code, signal) => {
            if (killAfter === undefined && code !== 0) reject(new Error(`worker exited ${code}: ${stderr}`));
            else resolve({ lines, signal });
          });
        });
      }

      it('loses and doubles no task when SIGKILLed mid-run and resumed', async () => {
        const path = target.newLocation();
        // target.crashTasks (1500 for SQLite) leave a long runway after each kill point, so the kill always lands mid-run even
        // when this process reads the worker's output late. Three kills: after 10 commits with 1 ms of
        // busy work per task (the kill lands while a task is computed or written), then twice after 40
        // more commits with no busy work (the kill lands inside or between writes).
        const count = target.crashTasks;
        let recorded: string[] = [];
        for (const [delayMs, killAfter] of [
          [1, 10],
          [0, 40],
          [0, 40],
        ] as const) {
          const killed = await runWorker(path, count, delayMs, killAfter);
          expect(killed.signal).toBe('SIGKILL');
          expect(killed.lines).not.toContain('finished');
          expect(killed.lines[0]).toBe(`resumed ${recorded.length}`);
          const middle = open({ path });
          const now = middle.completedTaskIds('run-kill', 'm');
          // Every reported commit survived, and what survived is a prefix of the task order.
          expect(now.length).toBeGreaterThanOrEqual(recorded.length + killAfter);
          expect(now).toEqual(Array.from({ length: now.length }, (_, index) => `t${index}`));
          expect(middle.events('run-kill')).toHaveLength(3 * now.length);
          // The reputation saved is the last finished task's, neither older nor from a task cut short.
          expect(middle.loadReputation({ scope: { runId: 'run-kill' }, name: 'm' })?.state).toEqual({
            done: now.length,
          });
          expect(middle.getRun('run-kill')?.status).toBe('running');
          middle.close();
          recorded = now;
        }
        expect(recorded.length).toBeLessThan(count);

        const second = await runWorker(path, count, 0);
        expect(second.lines[0]).toBe(`resumed ${recorded.length}`);
        expect(second.lines.at(-1)).toBe('finished');

        const store = open({ path });
        const ids = store.completedTaskIds('run-kill', 'm');
        const expected = Array.from({ length: count }, (_, index) => `t${index}`);
        expect(ids).toEqual(expected);
        const events = store.events('run-kill');
        // 3 events per task, each task's events exactly once, seq gap-free.
        expect(events).toHaveLength(3 * count);
        expect(events.map((event) => event.seq)).toEqual(Array.from({ length: 3 * count }, (_, index) => index + 1));
        const typesByTask = new Map<string, string[]>();
        for (const event of events)
          typesByTask.set(event.taskId!, [...(typesByTask.get(event.taskId!) ?? []), event.type]);
        for (const taskId of expected) expect(typesByTask.get(taskId)).toEqual(['task', 'proposal', 'vote']);
        // One ledger entry per task of 10 input tokens and 0.001: for 1500 tasks 15000 tokens and 1.5.
        const [total] = store.usageSummary({ by: 'run', runId: 'run-kill' });
        expect(total?.calls).toBe(count);
        expect(total?.inputTokens).toBe(count * 10);
        expect(total?.cost).toBeCloseTo(count * 0.001, 9);
        expect(store.loadReputation({ scope: { runId: 'run-kill' }, name: 'm' })?.state).toEqual({ done: count });
        expect(store.getRun('run-kill')?.status).toBe('completed');
        store.close();
      }, 240_000);
    });
  });
}
