import { afterEach, describe, expect, it } from 'vitest';
import type { SpanData } from '../core/trace.js';
import type { Task } from '../core/task.js';
import { createDebateMethod } from '../protocols/debate/methods.js';
import type { PeerFilter } from '../protocols/debate/peer-filter.js';
import { runDebateSession } from '../protocols/debate/run-debate-session.js';
import { scriptedAgent } from '../protocols/drf/_testing/fakes.js';
import { runDrfSession } from '../protocols/drf/run-drf-session.js';
import { createScriptedAgent } from '../protocols/pubsub/_test-agents.js';
import { runRapsSession } from '../protocols/pubsub/run-raps-session.js';
import { openStore, type Store } from '../store/store.js';
import { createApp } from './app.js';
import { listDecisions, type AgentWeightView } from './run-views.js';

let stores: Store[] = [];
afterEach(() => {
  for (const store of stores) store.close();
  stores = [];
});

function memoryStore(): Store {
  let time = 1_000;
  const store = openStore({ path: ':memory:', now: () => (time += 10) });
  stores.push(store);
  return store;
}

const tasks: Task[] = ['t1', 't2', 't3'].map((id, index) => ({
  id,
  kind: 'number',
  prompt: `What is ${index} + 4?`,
}));
const reference: Record<string, string> = { t1: '4', t2: '5', t3: '6' };

type Selection = Extract<SpanData, { type: 'selection' }>;

/** The `selection` events the session stored for a task, in order. */
function storedSelections(store: Store, runId: string, method: string, taskId: string): Selection[] {
  return store.events(runId, { type: 'selection', method, taskId }).map((event) => event.data as Selection);
}

/** The one `selection` event the session stored for a task. */
function storedSelection(store: Store, runId: string, method: string, taskId: string): Selection {
  const events = storedSelections(store, runId, method, taskId);
  expect(events).toHaveLength(1);
  return events[0] as Selection;
}

/** `agentId → [selected, selectionNote]` of one method's rows on one task of a decision page. */
function verdicts(weights: readonly AgentWeightView[]): Record<string, [boolean, string | null]> {
  return Object.fromEntries(weights.map((weight) => [weight.agentId, [weight.selected, weight.selectionNote]]));
}

describe('listDecisions: who was selected and why, per protocol', () => {
  it('shows the DRF team of every task as selected, with the selector notes of that task', async () => {
    const store = memoryStore();
    // 4 agents, teams of k = 2: each task leaves 2 agents out, so "selected" is never everyone.
    const answers = (wrong: boolean) =>
      Object.fromEntries(tasks.map((task) => [task.id, wrong ? '0' : (reference[task.id] as string)]));
    const agents = ['a1', 'a2', 'a3', 'a4'].map((id) => scriptedAgent(id, answers(id === 'a4')));
    const { records } = await runDrfSession({
      store,
      runId: 'drf-run',
      team: 'pool',
      agents,
      tasks,
      protocol: { k: 2 },
      seed: 2027,
      now: () => 0,
    });
    expect(records.map((record) => record.round)).toEqual([0, 1, 2]);

    const page = listDecisions(store, 'drf-run', { offset: 0, limit: 10 });
    expect(page.tasks.map((task) => task.taskId)).toEqual(['t1', 't2', 't3']);
    for (const [index, record] of records.entries()) {
      // The session's own record and selection event say who was chosen and why; the view must agree.
      const selection = storedSelection(store, 'drf-run', 'drf', record.taskId);
      expect(selection.round).toBe(index);
      expect([...selection.selected].sort()).toEqual([...record.team].sort());
      const notes = new Map(selection.reasons.map((reason) => [reason.agentId, reason.note ?? null]));
      const rows = page.tasks[index]?.methods.drf?.weights ?? [];
      expect(rows.map((row) => row.agentId).sort(), record.taskId).toEqual(['a1', 'a2', 'a3', 'a4']);
      expect(verdicts(rows), record.taskId).toEqual(
        Object.fromEntries(
          ['a1', 'a2', 'a3', 'a4'].map((agentId) => [
            agentId,
            [record.team.includes(agentId), notes.get(agentId) ?? null],
          ]),
        ),
      );
      expect(rows.filter((row) => row.selected)).toHaveLength(2);
      for (const row of rows.filter((row) => row.selected)) expect(row.selectionNote, row.agentId).not.toBeNull();
    }
  });

  it('answers the same through GET /api/runs/:id/decisions for a DRF task after the first', async () => {
    const store = memoryStore();
    const agents = ['a1', 'a2', 'a3'].map((id) => scriptedAgent(id, reference));
    const { records } = await runDrfSession({
      store,
      runId: 'drf-api',
      team: 'pool',
      agents,
      tasks,
      protocol: { k: 1 },
      seed: 7,
      now: () => 0,
    });
    const second = records[1];
    if (second === undefined) throw new Error('the session finished fewer than 2 tasks');
    const selection = storedSelection(store, 'drf-api', 'drf', second.taskId);
    const response = await createApp({ store }).request('/api/runs/drf-api/decisions?offset=1&limit=1');
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      tasks: Array<{ taskId: string; methods: Record<string, { weights: AgentWeightView[] }> }>;
    };
    expect(body.tasks.map((task) => task.taskId)).toEqual([second.taskId]);
    const rows = body.tasks[0]?.methods.drf?.weights ?? [];
    // k = 1: exactly the one team member is selected, with the UCB note of the stored event.
    expect(second.team).toHaveLength(1);
    expect(rows.filter((row) => row.selected).map((row) => row.agentId)).toEqual(second.team);
    const chosen = rows.find((row) => row.selected);
    expect(chosen?.selectionNote).toBe(
      selection.reasons.find((reason) => reason.agentId === second.team[0])?.note ?? null,
    );
    expect(chosen?.selectionNote).not.toBeNull();
  });

  it('shows the RAPS agents whose answers counted (eligible) as selected on every task', async () => {
    const store = memoryStore();
    // A and B agree and distrust C, C distrusts both: after the first task C's peer reputation is
    // below tau and C is left out of the decisions (see run-raps.test.ts for the hand computation).
    const agents = [
      createScriptedAgent({ id: 'A', answer: '4', distrusts: ['C'] }),
      createScriptedAgent({ id: 'B', answer: '4', distrusts: ['C'] }),
      createScriptedAgent({ id: 'C', answer: '9', distrusts: ['A', 'B'] }),
    ];
    const { records } = await runRapsSession({
      store,
      runId: 'raps-run',
      team: 'trio',
      agents: agents.map((agent) => agent.identity),
      hostAgents: agents,
      tasks: tasks.slice(0, 2),
      protocol: { topK: 2, floor: -1, maxRounds: 2, doneQuorum: 1, refine: false, witness: false },
      seed: 2027,
    });
    expect(records.map((record) => [...record.eligible].sort())).toEqual([
      ['A', 'B'],
      ['A', 'B'],
    ]);

    const page = listDecisions(store, 'raps-run', { offset: 0, limit: 10 });
    for (const [index, record] of records.entries()) {
      const rows = page.tasks[index]?.methods.raps?.weights ?? [];
      expect(rows.map((row) => row.agentId).sort(), record.taskId).toEqual(['A', 'B', 'C']);
      // RAPS has no selector event: the record's `eligible` is who took part in the decision.
      expect(
        rows.filter((row) => row.selected).map((row) => row.agentId),
        record.taskId,
      ).toEqual([...record.eligible]);
      expect(rows.find((row) => row.agentId === 'C')?.note).toBe('peer reputation < tau: left out of the decision');
    }
  });

  it("keeps a debate's round-0 selector verdict, not its peer filter's later rounds", async () => {
    const store = memoryStore();
    const agents = [
      createScriptedAgent({ id: 'A', answer: '4' }),
      createScriptedAgent({ id: 'B', answer: '4' }),
      createScriptedAgent({ id: 'C', answer: '9' }),
    ];
    // The peer filter hides every proposal but the first from round 1 on, so its `selection` event
    // (round 1) names other agents than the selector's (round 0).
    const hideAllButFirst: PeerFilter = ({ proposals }) => ({
      visible: proposals.slice(0, 1).map((proposal) => proposal.agentId),
      reasons: proposals.map((proposal, index) => ({
        agentId: proposal.agentId,
        weight: index === 0 ? 1 : 0,
        note: index === 0 ? 'peer filter: shown' : 'peer filter: hidden',
      })),
    });
    const method = {
      ...createDebateMethod('drf', { agents: agents.map((agent) => agent.identity), k: 2 }),
      peerFilter: hideAllButFirst,
    };
    const { records } = await runDebateSession({
      store,
      runId: 'debate-run',
      team: 'trio',
      agents,
      tasks,
      method,
      rounds: 1,
      seed: 2027,
      now: () => 0,
    });
    const page = listDecisions(store, 'debate-run', { offset: 0, limit: 10 });
    for (const [index, record] of records.entries()) {
      const [selector, filter, ...rest] = storedSelections(store, 'debate-run', 'drf', record.taskId);
      expect(rest).toEqual([]);
      expect([selector?.round, filter?.round]).toEqual([0, 1]);
      expect(filter?.selected).toHaveLength(1);
      const notes = new Map((selector?.reasons ?? []).map((reason) => [reason.agentId, reason.note ?? null]));
      const rows = page.tasks[index]?.methods.drf?.weights ?? [];
      expect(rows.map((row) => row.agentId).sort(), record.taskId).toEqual(['A', 'B', 'C']);
      expect(verdicts(rows), record.taskId).toEqual(
        Object.fromEntries(
          ['A', 'B', 'C'].map((agentId) => [
            agentId,
            [record.participants.includes(agentId), notes.get(agentId) ?? null],
          ]),
        ),
      );
      expect(record.participants).toHaveLength(2);
    }
  });
});
