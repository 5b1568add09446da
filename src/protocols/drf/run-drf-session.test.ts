import { describe, expect, it } from 'vitest';
import type { Agent } from '../../agents/agent.js';
import { DataFormatError, InvalidArgumentError, ProviderError } from '../../core/errors.js';
import type { Task } from '../../core/task.js';
import { openStore } from '../../store/store.js';
import type { TaskFailure } from '../debate/run-debate-session.js';
import { scriptedAgent } from './_testing/fakes.js';
import { runDrfSession, type DrfTaskRecord } from './run-drf-session.js';

const tasks: Task[] = ['t1', 't2', 't3'].map((id, index) => ({ id, kind: 'number', prompt: `What is ${index} + 4?` }));
const answers = { t1: '4', t2: '5', t3: '6' };

/**
 * Agent `c`, whose propose on `t2` fails after its retries (a provider failure) while `down.t2` is
 * set, and whose propose on `t3` always throws an unusable-reply error (not a provider failure).
 */
function flakyAgent(down: { t2: boolean }): Agent {
  const base = scriptedAgent('c', answers);
  return {
    ...base,
    async propose(request) {
      if (request.task.id === 't2' && down.t2)
        throw new ProviderError({
          provider: 'openai-compatible',
          status: 503,
          attempts: 3,
          reason: 'http',
          message: 'model "c" failed after 3 attempts (last: HTTP 503)',
        });
      if (request.task.id === 't3')
        throw new DataFormatError({ file: 'reply of agent c', message: 'the proposal names no answer' });
      return base.propose(request);
    },
  };
}

function session(store: ReturnType<typeof openStore>, runId: string, pool: Agent[], only: readonly Task[]) {
  const failures: TaskFailure[] = [];
  const running = runDrfSession({
    store,
    runId,
    team: `team-${runId}`,
    agents: pool,
    tasks: only,
    protocol: { k: 3, threshold: 0 },
    seed: 7,
    reputationStart: 'prior',
    grade: (taskId, answer) => answer === answers[taskId as keyof typeof answers],
    onTaskFailure: (failure) => failures.push(failure),
    now: () => 0,
  });
  return { running, failures };
}

describe('runDrfSession with failing model calls', () => {
  it('keeps no result for a task with a provider failure, leaves reputation and state as before it, and redoes it on resume', async () => {
    const store = openStore({ path: ':memory:', now: () => 0 });
    const down = { t2: true };
    const pool = () => [scriptedAgent('a', answers), scriptedAgent('b', answers), flakyAgent(down)];

    const first = session(store, 'faulty', pool(), tasks);
    const summary = await first.running;
    const failure: TaskFailure = {
      schemaVersion: 1,
      method: 'drf',
      taskId: 't2',
      failures: [
        {
          agentId: 'c',
          act: 'propose',
          round: 0,
          message: 'model "c" failed after 3 attempts (last: HTTP 503)',
          kind: 'provider',
          status: 503,
          reason: 'http',
        },
      ],
    };
    expect(summary.failed).toEqual([failure]);
    expect(first.failures).toEqual([failure]);
    expect(summary.ran).toBe(2);
    expect(store.taskFailures('faulty').map((record) => [record.taskId, record.failure])).toEqual([['t2', failure]]);
    const stored = store.taskResults<DrfTaskRecord>('faulty', 'drf').map((record) => record.result);
    expect(stored.map((record) => record.taskId)).toEqual(['t1', 't3']);
    // c's unusable reply on t3 is its failed act in a stored task, not a failed task.
    expect(stored.map((record) => record.failures)).toEqual([0, 1]);

    // t3 started from the state after t1: the same records as a session that never saw t2.
    const reference = await session(store, 'without-t2', pool(), [tasks[0] as Task, tasks[2] as Task]).running;
    expect(stored).toEqual(reference.records);

    // The provider is back: the rerun redoes t2 alone, after the others.
    down.t2 = false;
    const rerun = session(store, 'faulty', pool(), tasks);
    const resumed = await rerun.running;
    expect(resumed).toMatchObject({ ran: 1, failed: [] });
    expect(rerun.failures).toEqual([]);
    expect(store.taskResults('faulty', 'drf').map((record) => record.taskId)).toEqual(['t1', 't3', 't2']);
    expect(store.taskFailures('faulty')).toEqual([]);
    store.close();
  });

  it('stops when onTaskFailure throws (a failure budget), with the failed task recorded and no later task started', async () => {
    const store = openStore({ path: ':memory:', now: () => 0 });
    const pool = [scriptedAgent('a', answers), scriptedAgent('b', answers), flakyAgent({ t2: true })];
    const budget = new Error('budget spent');
    await expect(
      runDrfSession({
        store,
        runId: 'stopped',
        team: 'team',
        agents: pool,
        tasks,
        protocol: { k: 3, threshold: 0 },
        seed: 7,
        onTaskFailure: () => {
          throw budget;
        },
      }),
    ).rejects.toBe(budget);
    expect(store.taskResults('stopped').map((record) => record.taskId)).toEqual(['t1']);
    expect(store.taskFailures('stopped').map((record) => record.taskId)).toEqual(['t2']);
    store.close();
  });

  it('refuses a price for an agent that is not in the pool (a misspelt id would make the real agent free)', async () => {
    const store = openStore({ path: ':memory:', now: () => 0 });
    const pool = [scriptedAgent('a', answers), scriptedAgent('b', answers)];
    const run = runDrfSession({
      store,
      runId: 'priced',
      team: 'team',
      agents: pool,
      tasks,
      protocol: { k: 2 },
      prices: { a: { perCall: 1 }, gpt4o: { perCall: 5 } },
      seed: 7,
    });
    await expect(run).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(run).rejects.toMatchObject({ parameter: 'prices.gpt4o', value: { perCall: 5 } });
    await expect(run).rejects.toThrow(/prices names agent "gpt4o", which is not in the pool \(a, b\)/);
    expect(store.getRun('priced')).toBeUndefined();
    store.close();
  });
});
