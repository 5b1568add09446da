import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../store/store.js';
import { startOpenAICompatibleServer, type OpenAICompatibleServer } from '../../testing/openai-compatible-server.js';
import { startToyTeamEndpoint, toyBehaviour, toyReply, toyRequestText } from '../../testing/toy-team-endpoint.js';
import { killRunOnceCommitted, runJson, runToExit, withoutKey } from '../../testing/_test-cli-run.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';
import {
  toyColluders,
  toyHonest,
  toySloppy,
  toyTasks,
  writeToyTeam,
  type ToyRunTask,
} from '../../testing/_test-toy-team.js';

/**
 * Seven agents: four honest at different prices, one sloppy, two colluders (same wrong answer, rate
 * each other 1 and everyone else 0). k = 5 keeps honest agents a majority of every team (k ≥ 2·2 + 1).
 */
function writeDrfTeam(
  dir: string,
  baseURL: string,
  tasks: readonly ToyRunTask[],
  protocol = 'k: 5, threshold: 0.5, defence: rater-credibility',
): string {
  return writeToyTeam(dir, {
    name: 'drf-team',
    baseURL,
    tasks,
    protocol: `type: drf, ${protocol}`,
    agents: [...toyHonest, toySloppy, ...toyColluders],
  });
}

/** A record without booked `cost` fields (cache hits book 0; everything else must match). */
function withoutCost(value: unknown): unknown {
  return withoutKey(value, 'cost');
}

/**
 * The toy team endpoint, except that every request about a task in `broken` (its prompt is in the
 * request) answers HTTP 500 while it is in the set.
 */
function startBrokenToyEndpoint(tasks: readonly ToyRunTask[], broken: Set<string>): Promise<OpenAICompatibleServer> {
  return startOpenAICompatibleServer({
    model: 'toy-team',
    script: (request) => {
      const text = toyRequestText(request);
      if (tasks.some((task) => broken.has(task.id) && text.includes(task.prompt)))
        return { type: 'error', status: 500, message: 'upstream exploded' };
      return toyReply(toyBehaviour((request.body as { model?: string }).model ?? ''), text, tasks);
    },
  });
}

/** Task ids with a result, task ids recorded as failed (without a result), vote events and status of a run. */
function inspectRun(dbPath: string, runId: string) {
  const store = openStore({ path: dbPath, readonly: true });
  try {
    return {
      status: store.getRun(runId)?.status,
      results: store.taskResults(runId, 'drf').map((record) => record.taskId),
      failed: store.taskFailures(runId).map((record) => record.taskId),
      votes: store.events(runId, { type: 'vote' }).length,
    };
  } finally {
    store.close();
  }
}

let endpoint: OpenAICompatibleServer | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

describe('repute run with protocol drf', () => {
  it('stops selecting two colluders, reports spend against the full team, and replays with zero requests', async () => {
    const tasks = toyTasks(12);
    endpoint = await startToyTeamEndpoint({ tasks });
    const dir = temporaryDirectory('repute-drf-');
    const team = writeDrfTeam(dir, endpoint.baseURL, tasks);
    const first = await runJson(team, '--run-id', 'first');
    const requests = endpoint.requestCount;
    // k = 5 per task: 5 proposals + 5·4 ratings = 25 calls; 12 tasks → 300 calls, all new (distinct prompts).
    expect(requests).toBe(300);
    expect(first.usage).toMatchObject({ calls: 300, cachedCalls: 0 });
    expect(first.methods.drf).toMatchObject({ done: 12, resumed: 0, failures: 0 });
    expect(Object.keys(first.methods)).toEqual(['drf', 'plurality']);
    // Spend: the per-agent list prices add up to DRF's; the full team (7 agents: 7 proposals + 42
    // ratings per task) costs more than the k = 5 team (5 + 20 calls) on the same tasks.
    const agentList = first.spend.agents.reduce((sum: number, agent: { listCost: number }) => sum + agent.listCost, 0);
    expect(first.spend.methods[0].listCost).toBeCloseTo(agentList, 12);
    expect(first.spend.agents.reduce((sum: number, agent: { cost: number }) => sum + agent.cost, 0)).toBeCloseTo(
      first.usage.cost,
      12,
    );
    expect(first.spend.fullTeam.listCost).toBeGreaterThan(first.spend.methods[0].listCost);

    const store = openStore({ path: join(dir, 'repute.db'), readonly: true });
    const selections = store.events('first', { type: 'selection' });
    expect(selections).toHaveLength(12);
    // Colluders are tried (UCB explores every agent) and then filtered out by reputation, with the reason in the event.
    const tried = new Set(
      selections.slice(0, 6).flatMap((event) => (event.data as unknown as { selected: string[] }).selected),
    );
    expect(tried.has('colluder-1') || tried.has('colluder-2')).toBe(true);
    const lastSelections = selections.slice(-4).map(
      (event) =>
        event.data as unknown as {
          selected: string[];
          excluded: string[];
          reasons: Array<{ agentId: string; note?: string }>;
        },
    );
    for (const selection of lastSelections) {
      expect(selection.selected).not.toContain('colluder-1');
      expect(selection.selected).not.toContain('colluder-2');
      expect(selection.excluded).toEqual(expect.arrayContaining(['colluder-1', 'colluder-2']));
      expect(selection.reasons.find((reason) => reason.agentId === 'colluder-1')?.note).toMatch(
        /excluded: reputation 0\.\d+ < threshold 0\.5/,
      );
    }
    const records = store
      .taskResults<{ answer: string | null; reputation: Record<string, number> }>('first', 'drf')
      .map((record) => record.result);
    expect(records.slice(-4).every((record) => record.answer !== '13')).toBe(true);
    const final = records.at(-1)!.reputation;
    expect(Math.max(final['colluder-1']!, final['colluder-2']!)).toBeLessThan(
      Math.min(final['honest-a']!, final['honest-b']!, final['honest-c']!, final['honest-d']!),
    );
    store.close();

    const second = await runJson(team, '--run-id', 'second');
    expect(endpoint.requestCount).toBe(requests);
    expect(second.usage).toMatchObject({ calls: 300, cachedCalls: 300, cost: 0 });
    expect(second.methods).toEqual({ ...first.methods });
    const again = openStore({ path: join(dir, 'repute.db'), readonly: true });
    expect(again.taskResults('second', 'drf').map((record) => withoutCost(record.result))).toEqual(
      again.taskResults('first', 'drf').map((record) => withoutCost(record.result)),
    );
    const strip = (runId: string) =>
      again.events(runId).map((event) => [event.type, event.taskId, event.spanId, JSON.stringify(event.data)]);
    expect(strip('second')).toEqual(strip('first'));
    again.close();
  }, 120_000);

  it('resumes after SIGKILL with no task lost or done twice', async () => {
    const tasks = toyTasks(10);
    endpoint = await startToyTeamEndpoint({ tasks, delayMs: 40 });
    const dir = temporaryDirectory('repute-drf-kill-');
    const team = writeDrfTeam(dir, endpoint.baseURL, tasks);
    const dbPath = join(dir, 'repute.db');
    expect(await killRunOnceCommitted({ args: [team, '--json'], dbPath, committed: 3, attempts: 600 })).toBe('SIGKILL');
    const before = openStore({ path: dbPath, readonly: true });
    const runId = before.listRuns()[0]!.id;
    const committed = before.taskResults(runId).length;
    before.close();
    expect(committed).toBeGreaterThanOrEqual(3);
    expect(committed).toBeLessThan(10);

    const resumed = await runJson(team);
    expect(resumed.runId).toBe(runId);
    expect(resumed.methods.drf).toMatchObject({ done: 10, resumed: committed });
    const store = openStore({ path: dbPath, readonly: true });
    expect(
      store
        .taskResults(runId, 'drf')
        .map((record) => record.taskId)
        .sort(),
    ).toEqual(tasks.map((task) => task.id).sort());
    expect(store.events(runId, { type: 'vote' })).toHaveLength(10);
    expect(store.events(runId, { type: 'selection' })).toHaveLength(10);
    expect(store.getRun(runId)?.status).toBe('completed');

    // The resumed run decides exactly like an uninterrupted one (same selections, same reputation).
    const fresh = await runJson(team, '--run-id', 'uninterrupted');
    expect(fresh.methods.drf.done).toBe(10);
    const reread = openStore({ path: dbPath, readonly: true });
    expect(reread.taskResults('uninterrupted', 'drf').map((record) => withoutCost(record.result))).toEqual(
      reread.taskResults(runId, 'drf').map((record) => withoutCost(record.result)),
    );
    reread.close();
    store.close();
  }, 120_000);

  it('endpoint down: stops after --max-failures tasks failed the same way, stores no result, exits 4; the rerun once it is up redoes them', async () => {
    const tasks = toyTasks(5);
    const probe = await startToyTeamEndpoint({ tasks });
    const port = Number(new URL(probe.baseURL).port);
    await probe.close();
    const dir = temporaryDirectory('repute-drf-down-');
    const team = writeDrfTeam(dir, probe.baseURL, tasks);
    const dbPath = join(dir, 'repute.db');
    const first = await runToExit([team, '--json', '--max-failures', '2']);
    expect(first.code, first.stderr).toBe(4);
    expect(first.stderr).toMatch(
      /RunFailedError: stopped after 2 tasks in a row failed the same way \(http:\/\/127\.0\.0\.1:\d+\/v1 answered network error \(no connection\)\)/,
    );
    // Each failed task: k = 5 proposals + 5·4 ratings, all refused (maxRetries 0); 2 tasks.
    expect(first.stderr).toMatch(
      /repute run: failed: http:\/\/127\.0\.0\.1:\d+\/v1 answered network error \(no connection\): 50 calls failed after retries, in 2 tasks/,
    );
    const runId = (() => {
      const store = openStore({ path: dbPath, readonly: true });
      const id = store.listRuns()[0]?.id ?? '';
      store.close();
      return id;
    })();
    expect(inspectRun(dbPath, runId)).toEqual({ status: 'failed', results: [], failed: ['t1', 't2'], votes: 0 });

    endpoint = await startToyTeamEndpoint({ tasks, port });
    const rerun = await runToExit([team, '--json']);
    expect(rerun.code, rerun.stderr).toBe(0);
    const summary = JSON.parse(rerun.stdout);
    expect(summary).toMatchObject({ runId, status: 'completed', failed: 0 });
    expect(summary.methods.drf).toMatchObject({ done: 5, resumed: 0, failures: 0 });
    // Every task once, in task order: 5 tasks × 25 calls, each sent once.
    expect(inspectRun(dbPath, runId)).toEqual({
      status: 'completed',
      results: tasks.map((task) => task.id),
      failed: [],
      votes: 5,
    });
    expect(endpoint.requestCount).toBe(125);
    // The failed attempts left no trace: the same records as a run that never failed.
    const clean = await runJson(team, '--run-id', 'clean');
    expect(clean.methods).toEqual(summary.methods);
    const store = openStore({ path: dbPath, readonly: true });
    expect(store.taskResults(runId, 'drf').map((record) => withoutCost(record.result))).toEqual(
      store.taskResults('clean', 'drf').map((record) => withoutCost(record.result)),
    );
    store.close();
  }, 180_000);

  it('a task whose calls answer 500 fails alone (exit 4), leaves reputation and state untouched, and is redone by the rerun', async () => {
    const tasks = toyTasks(4);
    const broken = new Set(['t2']);
    endpoint = await startBrokenToyEndpoint(tasks, broken);
    const dir = temporaryDirectory('repute-drf-500-');
    const team = writeDrfTeam(dir, endpoint.baseURL, tasks);
    const dbPath = join(dir, 'repute.db');
    const first = await runToExit([team, '--json', '--run-id', 'faulty']);
    expect(first.code, first.stderr).toBe(4);
    expect(first.stderr).toContain(
      'RunFailedError: 1 of 4 tasks failed (no result stored for them); run faulty is marked failed',
    );
    // t2's 5 proposals and 5·4 ratings all answered 500.
    expect(first.stderr).toMatch(
      /repute run: failed: http:\/\/127\.0\.0\.1:\d+\/v1 answered HTTP 500: 25 calls failed after retries, in 1 task/,
    );
    expect(JSON.parse(first.stdout)).toMatchObject({ status: 'failed', failed: 1, methods: { drf: { done: 3 } } });
    expect(inspectRun(dbPath, 'faulty')).toEqual({
      status: 'failed',
      results: ['t1', 't3', 't4'],
      failed: ['t2'],
      votes: 3,
    });

    // Reputation, UCB counts, credibility and token ledger after t1 are what t3 started from: the
    // records equal those of a run over t1, t3, t4 only.
    const withoutT2 = join(dir, 'tasks-without-t2.jsonl');
    writeFileSync(
      withoutT2,
      `${tasks
        .filter((task) => task.id !== 't2')
        .map((task) => JSON.stringify(task))
        .join('\n')}\n`,
    );
    const reference = await runJson(team, '--tasks', withoutT2, '--run-id', 'without-t2');
    expect(reference.methods.drf.done).toBe(3);
    const store = openStore({ path: dbPath, readonly: true });
    expect(store.taskResults('faulty', 'drf').map((record) => withoutCost(record.result))).toEqual(
      store.taskResults('without-t2', 'drf').map((record) => withoutCost(record.result)),
    );
    store.close();

    broken.clear();
    const before = endpoint.requestCount;
    const rerun = await runToExit([team, '--json', '--run-id', 'faulty']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(JSON.parse(rerun.stdout)).toMatchObject({
      status: 'completed',
      failed: 0,
      methods: { drf: { done: 4, resumed: 3 } },
    });
    // Only t2 is redone: its 25 calls; the other tasks are neither lost nor done twice.
    expect(endpoint.requestCount - before).toBe(25);
    expect(inspectRun(dbPath, 'faulty')).toEqual({
      status: 'completed',
      results: ['t1', 't3', 't4', 't2'],
      failed: [],
      votes: 4,
    });
  }, 180_000);
});
