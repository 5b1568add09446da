import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../store/store.js';
import type { OpenAICompatibleServer } from '../../testing/openai-compatible-server.js';
import { startToyTeamEndpoint } from '../../testing/toy-team-endpoint.js';
import { killRunOnceCommitted, runJson, withoutKey } from '../../testing/_test-cli-run.js';
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
});
