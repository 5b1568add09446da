import { describe, expect, it } from 'vitest';
import { createSimulatedAgent } from '../../agents/simulated-agent.js';
import { createSimulationWorld } from '../../agents/simulation-world.js';
import { createWeightedPluralityAggregator } from '../../aggregation/plurality.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { createBetaModel } from '../../reputation/beta.js';
import { openStore } from '../../store/store.js';
import { generateTasks } from '../../tasks/generate-tasks.js';
import { runDebateSession, type DebateMethod, type RunDebateSessionOptions } from './run-debate-session.js';
import { createDebateMethod } from './methods.js';

const referenced = generateTasks({ count: 8, seed: 4 });
const tasks = referenced.map((item) => item.task);
const world = createSimulationWorld({ tasks: referenced, seed: 4 });
const agents = Array.from({ length: 4 }, (_, index) =>
  createSimulatedAgent({
    identity: { id: `a${index}`, model: `m${index % 3}` },
    profile: { skill: 0.4 + 0.1 * index },
    world,
    seed: 4,
  }),
);
const method = (): DebateMethod => ({
  name: 'beta',
  aggregator: createWeightedPluralityAggregator(),
  reputation: createBetaModel({ agents: agents.map((agent) => agent.identity.id) }),
});
const grade = (taskId: string, answer: string | null) => world.isCorrect(taskId, answer);
let clock = 0;
const now = () => ++clock;

/** What a test names itself: the store and method, plus any other option. */
type SessionSetup = Pick<RunDebateSessionOptions, 'store' | 'method'> & Partial<RunDebateSessionOptions>;

/** Runs the four agents over the eight tasks as run 'r' of team 'team' with seed 9, graded by the world. */
function runSession(options: SessionSetup) {
  return runDebateSession({ runId: 'r', team: 'team', agents, tasks, seed: 9, grade, now, ...options });
}

/** Runs {@link runSession} and kills it with the error 'killed' once `done` tasks are finished. */
async function killSessionAfter(done: number, options: SessionSetup) {
  const controller = new AbortController();
  await expect(
    runSession({
      ...options,
      signal: controller.signal,
      onProgress: (progress) => progress.done === done && controller.abort(new Error('killed')),
    }),
  ).rejects.toThrow('killed');
}

describe('runDebateSession', () => {
  it('records each task with its events and reputation, and resumes an interrupted run without repeats', async () => {
    const reference = openStore({ path: ':memory:' });
    const full = await runSession({ store: reference, method: method(), rounds: 1 });
    expect(full.ran).toBe(8);

    const store = openStore({ path: ':memory:' });
    await killSessionAfter(3, { store, method: method(), rounds: 1 });
    expect(store.completedTaskIds('r', 'beta')).toHaveLength(3);
    const resumed = await runSession({ store, method: method(), rounds: 1 });
    expect(resumed).toMatchObject({ ran: 5, skipped: 3, resumed: true });
    expect(store.completedTaskIds('r', 'beta')).toEqual(tasks.map((task) => task.id));
    // Same decisions and the same final reputation as the uninterrupted run.
    expect(resumed.records).toEqual(full.records);
    const strip = (events: ReturnType<typeof store.events>) =>
      events.map((event) => [event.type, event.taskId, event.spanId, JSON.stringify(event.data)]);
    expect(strip(store.events('r'))).toEqual(strip(reference.events('r')));
    expect(store.events('r', { type: 'vote' })).toHaveLength(8);
  });

  it('rebuilds the UCB counts of drf on resume, so the resumed run decides like an uninterrupted one', async () => {
    const identities = agents.map((agent) => agent.identity);
    const drf = () => createDebateMethod('drf', { agents: identities, k: 3 });
    const full = await runSession({ store: openStore({ path: ':memory:' }), method: drf() });
    const store = openStore({ path: ':memory:' });
    await killSessionAfter(5, { store, method: drf() });
    const resumed = await runSession({ store, method: drf() });
    expect(resumed.ran).toBe(3);
    expect(resumed.records.map((record) => record.participants)).toEqual(
      full.records.map((record) => record.participants),
    );
    expect(resumed.records).toEqual(full.records);
  });

  it('refuses bad rounds or method.k before it writes the run or the team', async () => {
    const store = openStore({ path: ':memory:' });
    const cases: Array<[Partial<RunDebateSessionOptions>, string, unknown]> = [
      [{ rounds: 21 }, 'rounds', 21],
      [{ rounds: -1 }, 'rounds', -1],
      [{ method: { ...method(), k: 5 } }, 'method.k', 5],
      [{ method: { ...method(), k: 0 } }, 'method.k', 0],
    ];
    for (const [options, parameter, value] of cases) {
      const run = runSession({ store, method: method(), ...options });
      await expect(run).rejects.toBeInstanceOf(InvalidArgumentError);
      await expect(run).rejects.toMatchObject({ parameter, value });
    }
    expect(store.getRun('r')).toBeUndefined();
    expect(store.loadTeam('team')).toBeUndefined();
  });

  it('starts a new run of the same team from the saved reputation', async () => {
    const store = openStore({ path: ':memory:' });
    await runDebateSession({ store, runId: 'first', team: 'team', agents, tasks, method: method(), seed: 9, now });
    const saved = store.loadReputation({ scope: { team: 'team' }, name: 'beta' });
    const model = createBetaModel({ agents: agents.map((agent) => agent.identity.id) });
    await runDebateSession({
      store,
      runId: 'second',
      team: 'team',
      agents,
      tasks: tasks.slice(0, 1),
      method: { ...method(), reputation: model },
      seed: 9,
      now,
    });
    const firstUpdate = store.events('second', { type: 'reputation-update' })[0]?.data;
    expect(firstUpdate?.type === 'reputation-update' && firstUpdate.before).toEqual(restoredScores(saved));
    expect(store.loadTeam('team')?.map((agent) => agent.id)).toEqual(['a0', 'a1', 'a2', 'a3']);
  });
});

function restoredScores(snapshot: ReturnType<ReturnType<typeof openStore>['loadReputation']>): Record<string, number> {
  const model = createBetaModel({ agents: ['a0', 'a1', 'a2', 'a3'] });
  model.restore(snapshot!);
  return model.scores();
}
