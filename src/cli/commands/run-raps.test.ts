import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../store/store.js';
import type { OpenAICompatibleServer } from '../../testing/openai-compatible-server.js';
import { startToyTeamEndpoint } from '../../testing/toy-team-endpoint.js';
import { killRunOnceCommitted, runJson, runToExit, withoutKey } from '../../testing/_test-cli-run.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';
import {
  toyColluders,
  toyHonest,
  toyTasks,
  writeToyTeam,
  type ToyMember,
  type ToyRunTask,
} from '../../testing/_test-toy-team.js';

function writeRapsTeam(
  dir: string,
  baseURL: string,
  tasks: readonly ToyRunTask[],
  {
    agents = [...toyHonest, ...toyColluders],
    protocol = 'topK: 3, maxRounds: 2',
  }: { agents?: ToyMember[]; protocol?: string } = {},
): string {
  return writeToyTeam(dir, { name: 'raps-team', baseURL, tasks, protocol: `type: raps, ${protocol}`, agents });
}

/** Event data without message ids (they carry the run id on the wire). */
function withoutIds(value: unknown): unknown {
  return withoutKey(value, 'messageId');
}

let endpoint: OpenAICompatibleServer | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

/** The nats-server the NATS test starts (skipped where it is not installed, as the other NATS tests). */
const natsServerBinary = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
describe('repute run with protocol raps', () => {
  it('routes around two colluders, ranks them last, and replays with zero requests', async () => {
    const tasks = toyTasks(6);
    endpoint = await startToyTeamEndpoint({ tasks });
    const dir = temporaryDirectory('repute-raps-');
    const team = writeRapsTeam(dir, endpoint.baseURL, tasks);
    const first = await runJson(team, '--run-id', 'first');
    const requests = endpoint.requestCount;
    expect(requests).toBeGreaterThan(0);
    expect(first.methods.raps).toEqual({ done: 6, resumed: 0, accuracy: 1, failures: 0 });
    expect(first.usage.calls).toBe(requests + first.usage.cachedCalls);
    // Routing to the top 3 instead of all 5 others: the full team (broadcast) costs more at list price.
    expect(first.spend.fullTeam.listCost).toBeGreaterThan(first.spend.methods[0].listCost);

    const store = openStore({ path: join(dir, 'repute.db'), readonly: true });
    const routes = store.events('first', { type: 'route' }).map((event) => ({
      taskId: event.taskId,
      ...(event.data as unknown as { publisher: string; recipients: string[]; distrusted: string[] }),
    }));
    const lastTask = routes.at(-1)?.taskId;
    const last = routes.filter((route) => route.taskId === lastTask);
    // By the last task no honest publication reaches a colluder, and the colluders' publications are
    // kept from every honest agent, who distrust them (the reason is in the route event).
    for (const route of last.filter((item) => item.publisher.startsWith('honest')))
      expect(route.recipients.some((agentId) => agentId.startsWith('colluder'))).toBe(false);
    for (const route of last.filter((item) => item.publisher.startsWith('colluder'))) {
      expect(route.recipients.filter((agentId) => agentId.startsWith('honest'))).toEqual([]);
      expect(route.distrusted).toEqual(expect.arrayContaining(['honest-a', 'honest-b', 'honest-c', 'honest-d']));
    }
    const audits = store
      .events('first', { type: 'audit' })
      .map((event) => event.data as unknown as { auditor: string; subject: string; reliable: boolean; reason: string });
    expect(
      audits.some(
        (audit) =>
          audit.auditor.startsWith('honest') &&
          audit.subject.startsWith('colluder') &&
          !audit.reliable &&
          /does not check out/.test(audit.reason),
      ),
    ).toBe(true);
    // The decision's reasons give every agent's peer reputation; the colluders end below every honest agent.
    const vote = store.events('first', { type: 'vote', taskId: lastTask ?? '' })[0]?.data as unknown as {
      reasons: Array<{ agentId: string; components: { reputation: number }; note: string }>;
    };
    const reputation = Object.fromEntries(vote.reasons.map((reason) => [reason.agentId, reason.components.reputation]));
    expect(Math.max(reputation['colluder-1'] ?? 1, reputation['colluder-2'] ?? 1)).toBeLessThan(
      Math.min(...toyHonest.map(([id]) => reputation[id] ?? 0)),
    );
    expect(vote.reasons.every((reason) => /peer reputation (>=|<) tau/.test(reason.note))).toBe(true);
    store.close();

    const second = await runJson(team, '--run-id', 'second');
    expect(endpoint.requestCount).toBe(requests);
    expect(second.usage).toMatchObject({ calls: first.usage.calls, cachedCalls: first.usage.calls, cost: 0 });
    expect(second.methods).toEqual(first.methods);
    const again = openStore({ path: join(dir, 'repute.db'), readonly: true });
    expect(again.taskResults('second', 'raps').map((record) => record.result)).toEqual(
      again.taskResults('first', 'raps').map((record) => record.result),
    );
    const strip = (runId: string) =>
      again
        .events(runId)
        .map((event) => [event.type, event.taskId, event.spanId, JSON.stringify(withoutIds(event.data))]);
    expect(strip('second')).toEqual(strip('first'));
    again.close();
  }, 120_000);

  it('resumes after SIGKILL with no task lost or done twice, deciding like an uninterrupted run', async () => {
    const tasks = toyTasks(6);
    endpoint = await startToyTeamEndpoint({ tasks, delayMs: 60 });
    const dir = temporaryDirectory('repute-raps-kill-');
    const team = writeRapsTeam(dir, endpoint.baseURL, tasks);
    const dbPath = join(dir, 'repute.db');
    expect(await killRunOnceCommitted({ args: [team, '--json'], dbPath, committed: 2, attempts: 1200 })).toBe(
      'SIGKILL',
    );
    const before = openStore({ path: dbPath, readonly: true });
    const runId = before.listRuns()[0]?.id ?? '';
    const committed = before.taskResults(runId).length;
    before.close();
    expect(committed).toBeGreaterThanOrEqual(2);
    expect(committed).toBeLessThan(6);

    const resumed = await runJson(team);
    expect(resumed.runId).toBe(runId);
    expect(resumed.methods.raps).toMatchObject({ done: 6, resumed: committed });
    const uninterrupted = await runJson(team, '--run-id', 'uninterrupted');
    expect(uninterrupted.methods.raps.done).toBe(6);
    const store = openStore({ path: dbPath, readonly: true });
    expect(
      store
        .taskResults(runId, 'raps')
        .map((record) => record.taskId)
        .sort(),
    ).toEqual(tasks.map((task) => task.id).sort());
    expect(store.events(runId, { type: 'vote' })).toHaveLength(6);
    expect(store.getRun(runId)?.status).toBe('completed');
    expect(store.taskResults('uninterrupted', 'raps').map((record) => record.result)).toEqual(
      store.taskResults(runId, 'raps').map((record) => record.result),
    );
    store.close();
  }, 180_000);

  it('reports a nats-server that cannot start, not a missing run, when the transport is nats', async () => {
    const tasks = toyTasks(1);
    endpoint = await startToyTeamEndpoint({ tasks });
    const dir = temporaryDirectory('repute-raps-no-nats-');
    const natsTeam = writeRapsTeam(dir, endpoint.baseURL, tasks, {
      agents: toyHonest.slice(0, 2),
      protocol: 'topK: 1, maxRounds: 1, transport: nats',
    });
    const missing = join(dir, 'no-such-nats-server');
    const outcome = await runToExit([natsTeam, '--run-id', 'no-nats'], { ...process.env, NATS_SERVER_BIN: missing });
    expect(outcome.code).not.toBe(0);
    expect(outcome.stderr).toContain(`cannot start ${missing}`);
    expect(outcome.stderr).toContain('install nats-server or set NATS_SERVER_BIN');
    expect(outcome.stderr).not.toMatch(/unknown run id/);
  }, 60_000);

  it.skipIf(!existsSync(natsServerBinary))(
    'runs the agents as separate processes over NATS with the in-process outcome',
    async () => {
      const tasks = toyTasks(3);
      endpoint = await startToyTeamEndpoint({ tasks });
      const dir = temporaryDirectory('repute-raps-nats-');
      const agents = [...toyHonest.slice(0, 3), toyColluders[0] as ToyMember];
      const natsTeam = writeRapsTeam(dir, endpoint.baseURL, tasks, {
        agents,
        protocol: 'topK: 2, maxRounds: 2, transport: nats',
      });
      const overNats = await runJson(natsTeam, '--run-id', 'nats');
      expect(overNats.methods.raps).toEqual({ done: 3, resumed: 0, accuracy: 1, failures: 0 });
      const requests = endpoint.requestCount;
      expect(requests).toBeGreaterThan(0);
      // Every agent's calls went through its own process and model, booked in the shared store.
      expect(overNats.spend.agents.map((agent: { agentId: string; calls: number }) => agent.calls > 0)).toEqual([
        true,
        true,
        true,
        true,
      ]);
      const inproc = writeRapsTeam(dir, endpoint.baseURL, tasks, {
        agents,
        protocol: 'topK: 2, maxRounds: 2, transport: inproc',
      });
      const inProcess = await runJson(inproc, '--run-id', 'inproc');
      expect(inProcess.methods.raps).toEqual(overNats.methods.raps);
      // Same prompts in the same order: the in-process run is served from the cache the NATS run filled.
      expect(endpoint.requestCount).toBe(requests);
      const store = openStore({ path: join(dir, 'repute.db'), readonly: true });
      expect(store.taskResults('inproc', 'raps').map((record) => record.result)).toEqual(
        store.taskResults('nats', 'raps').map((record) => record.result),
      );
      expect(store.events('nats', { type: 'route' }).map((event) => withoutIds(event.data))).toEqual(
        store.events('inproc', { type: 'route' }).map((event) => withoutIds(event.data)),
      );
      store.close();
    },
    180_000,
  );
});
