import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../store/store.js';
import type { DebateFailure } from '../../protocols/debate/types.js';
import type { TaskFailure } from '../../protocols/debate/run-debate-session.js';
import { startOpenAICompatibleServer, type OpenAICompatibleServer } from '../../testing/openai-compatible-server.js';
import { startToyTeamEndpoint, toyBehaviour, toyReply, toyRequestText } from '../../testing/toy-team-endpoint.js';
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

/**
 * The toy team endpoint, except that every request about a task in `broken` (its prompt is in the
 * request) answers HTTP 500 while it is in the set, and the `toy-garbled` model answers audits in
 * prose (an unusable reply, not a provider failure).
 */
function startFaultyToyEndpoint(tasks: readonly ToyRunTask[], broken: Set<string>): Promise<OpenAICompatibleServer> {
  return startOpenAICompatibleServer({
    model: 'toy-team',
    script: (request) => {
      const text = toyRequestText(request);
      if (tasks.some((task) => broken.has(task.id) && text.includes(task.prompt)))
        return { type: 'error', status: 500, message: 'upstream exploded' };
      const model = (request.body as { model?: string }).model ?? '';
      if (model === 'toy-garbled' && text.includes('"reliable"')) return 'Looks fine to me.';
      return toyReply(toyBehaviour(model), text, tasks);
    },
  });
}

/** Task ids with a result, task ids recorded as failed (without a result), vote events and status of a run. */
function inspectRun(dbPath: string, runId: string) {
  const store = openStore({ path: dbPath, readonly: true });
  try {
    return {
      status: store.getRun(runId)?.status,
      results: store.taskResults(runId, 'raps').map((record) => record.taskId),
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

/** The nats-server the NATS test starts (skipped where it is not installed, as the other NATS tests). */
const natsServerBinary = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
/** A NATS server with JetStream that outlives a run (127.0.0.1:4222 or REPUTE_TEST_NATS), when one answers. */
const sharedNatsUrl = process.env.REPUTE_TEST_NATS ?? 'nats://127.0.0.1:4222';
const hasSharedNats = await (async () => {
  const nats = await import('nats');
  try {
    const connection = await nats.connect({ servers: sharedNatsUrl, timeout: 2000 });
    await (await connection.jetstreamManager()).getAccountInfo();
    await connection.close();
    return true;
  } catch (error) {
    if (process.env.REPUTE_REQUIRE_NATS === '1') throw error;
    console.info(`RAPS natsUrl test skipped: no JetStream at ${sharedNatsUrl} (${(error as Error).message})`);
    return false;
  }
})();
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

  it('endpoint down: stops after --max-failures tasks failed the same way, stores no result, exits 4; the rerun once it is up redoes them', async () => {
    const tasks = toyTasks(4);
    const probe = await startToyTeamEndpoint({ tasks });
    const port = Number(new URL(probe.baseURL).port);
    await probe.close();
    const dir = temporaryDirectory('repute-raps-down-');
    const team = writeRapsTeam(dir, probe.baseURL, tasks);
    const dbPath = join(dir, 'repute.db');
    const first = await runToExit([team, '--json', '--run-id', 'down']);
    expect(first.code, first.stderr).toBe(4);
    expect(first.stderr).toMatch(
      /RunFailedError: stopped after 3 tasks in a row failed the same way \(http:\/\/127\.0\.0\.1:\d+\/v1 answered network error \(no connection\)\)/,
    );
    expect(first.stderr).toMatch(
      /repute run: failed: http:\/\/127\.0\.0\.1:\d+\/v1 answered network error \(no connection\): \d+ calls failed after retries, in 3 tasks/,
    );
    expect(inspectRun(dbPath, 'down')).toEqual({ status: 'failed', results: [], failed: ['t1', 't2', 't3'], votes: 0 });

    endpoint = await startToyTeamEndpoint({ tasks, port });
    const rerun = await runToExit([team, '--json', '--run-id', 'down']);
    expect(rerun.code, rerun.stderr).toBe(0);
    const summary = JSON.parse(rerun.stdout);
    expect(summary).toMatchObject({ status: 'completed', failed: 0 });
    expect(summary.methods.raps).toEqual({ done: 4, resumed: 0, accuracy: 1, failures: 0 });
    expect(inspectRun(dbPath, 'down')).toEqual({
      status: 'completed',
      results: tasks.map((task) => task.id),
      failed: [],
      votes: 4,
    });
    // The failed attempts left no trace in beliefs or subscriptions: the same records as a run that never failed.
    const clean = await runJson(team, '--run-id', 'clean');
    expect(clean.methods).toEqual(summary.methods);
    const store = openStore({ path: dbPath, readonly: true });
    expect(store.taskResults('down', 'raps').map((record) => record.result)).toEqual(
      store.taskResults('clean', 'raps').map((record) => record.result),
    );
    store.close();
  }, 180_000);

  it('a task whose calls answer 500 fails alone (exit 4) and leaves beliefs untouched; unusable audits still count as failed acts; the rerun redoes it', async () => {
    const tasks = toyTasks(3);
    const broken = new Set(['t2']);
    endpoint = await startFaultyToyEndpoint(tasks, broken);
    const dir = temporaryDirectory('repute-raps-500-');
    const agents: ToyMember[] = [
      ...toyHonest.slice(0, 3),
      ['garbled', 'toy-garbled', '{ inputPerMillion: 0.1, outputPerMillion: 0.4 }'],
    ];
    const team = writeRapsTeam(dir, endpoint.baseURL, tasks, { agents, protocol: 'topK: 3, maxRounds: 2' });
    const dbPath = join(dir, 'repute.db');
    const first = await runToExit([team, '--json', '--run-id', 'faulty']);
    expect(first.code, first.stderr).toBe(4);
    expect(first.stderr).toContain(
      'RunFailedError: 1 of 3 tasks failed (no result stored for them); run faulty is marked failed',
    );
    expect(first.stderr).toMatch(
      /repute run: failed: http:\/\/127\.0\.0\.1:\d+\/v1 answered HTTP 500: \d+ calls failed after retries, in 1 task\n/,
    );
    const summary = JSON.parse(first.stdout);
    expect(summary).toMatchObject({ status: 'failed', failed: 1, methods: { raps: { done: 2, accuracy: 1 } } });
    // garbled's audits are unusable replies, not provider failures: its tasks are kept, the acts counted.
    expect(summary.methods.raps.failures).toBeGreaterThan(0);
    expect(inspectRun(dbPath, 'faulty')).toEqual({ status: 'failed', results: ['t1', 't3'], failed: ['t2'], votes: 2 });

    // t3 started from the beliefs and subscriptions after t1: the records equal those of a run over t1 and t3 only.
    const withoutT2 = join(dir, 'tasks-without-t2.jsonl');
    writeFileSync(
      withoutT2,
      `${tasks
        .filter((task) => task.id !== 't2')
        .map((task) => JSON.stringify(task))
        .join('\n')}\n`,
    );
    const reference = await runJson(team, '--tasks', withoutT2, '--run-id', 'without-t2');
    expect(reference.methods.raps.done).toBe(2);
    const store = openStore({ path: dbPath, readonly: true });
    expect(store.taskResults('faulty', 'raps').map((record) => record.result)).toEqual(
      store.taskResults('without-t2', 'raps').map((record) => record.result),
    );
    // Each delivery to garbled is one unusable audit: its task's failed acts are exactly those.
    for (const { taskId, result } of store.taskResults<{ failures: number }>('faulty', 'raps')) {
      const deliveries = store
        .events('faulty', { type: 'route', taskId })
        .filter((event) => (event.data as unknown as { recipients: string[] }).recipients.includes('garbled')).length;
      expect(deliveries).toBeGreaterThan(0);
      expect(result.failures).toBe(deliveries);
    }
    store.close();

    broken.clear();
    const rerun = await runToExit([team, '--json', '--run-id', 'faulty']);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(JSON.parse(rerun.stdout)).toMatchObject({
      status: 'completed',
      failed: 0,
      methods: { raps: { done: 3, resumed: 2, accuracy: 1 } },
    });
    expect(inspectRun(dbPath, 'faulty')).toEqual({
      status: 'completed',
      results: ['t1', 't3', 't2'],
      failed: [],
      votes: 3,
    });
  }, 180_000);

  it('a provider answering a status outside 100-599 (HTTP 999) fails the task like any provider failure, not the run', async () => {
    const tasks = toyTasks(2);
    // Node's HTTP stack passes any three-digit status on; some proxies answer 999 or 6xx.
    endpoint = await startOpenAICompatibleServer({
      model: 'toy-team',
      script: (request) => {
        const model = (request.body as { model?: string }).model ?? '';
        if (model === 'toy-odd') return { type: 'error', status: 999, message: 'request denied' };
        return toyReply(toyBehaviour(model), toyRequestText(request), tasks);
      },
    });
    const dir = temporaryDirectory('repute-raps-999-');
    const agents: ToyMember[] = [
      ...toyHonest.slice(0, 3),
      ['odd', 'toy-odd', '{ inputPerMillion: 0.1, outputPerMillion: 0.4 }'],
    ];
    const team = writeRapsTeam(dir, endpoint.baseURL, tasks, { agents });
    const first = await runToExit([team, '--json', '--run-id', 'odd-status']);
    expect(first.code, first.stderr).toBe(4);
    expect(first.stderr).not.toContain('RapsWireError');
    expect(first.stderr).toContain(
      'RunFailedError: 2 of 2 tasks failed (no result stored for them); run odd-status is marked failed',
    );
    const dbPath = join(dir, 'repute.db');
    expect(inspectRun(dbPath, 'odd-status')).toEqual({ status: 'failed', results: [], failed: ['t1', 't2'], votes: 0 });
    const store = openStore({ path: dbPath, readonly: true });
    for (const { failure } of store.taskFailures<TaskFailure>('odd-status', 'raps'))
      for (const item of failure.failures)
        expect(item).toMatchObject({ agentId: 'odd', kind: 'provider', status: 999, reason: 'http' });
    store.close();
  }, 180_000);

  it.skipIf(!hasSharedNats)(
    "over a NATS server that outlives the run (natsUrl), deletes the finished run's consumers and stream at its end",
    async () => {
      const tasks = toyTasks(2);
      endpoint = await startToyTeamEndpoint({ tasks });
      const dir = temporaryDirectory('repute-raps-nats-url-');
      const agents = [...toyHonest.slice(0, 3), toyColluders[0] as ToyMember];
      const runId = `natsurl-${Date.now().toString(36)}`;
      const team = writeRapsTeam(dir, endpoint.baseURL, tasks, {
        agents,
        protocol: `topK: 2, maxRounds: 2, transport: nats, natsUrl: '${sharedNatsUrl}'`,
      });
      const nats = await import('nats');
      const connection = await nats.connect({ servers: sharedNatsUrl });
      try {
        const manager = await connection.jetstreamManager();
        const runStreams = async () =>
          (await manager.streams.list().next()).filter((info) => info.config.name.startsWith(`RAPS_${runId}-`));
        // The session's wire run is `<run id>-<pid><time>`: its stream RAPS_<wire run> exists while it runs.
        let seen = 0;
        const watching = setInterval(() => {
          void runStreams().then((streams) => (seen = Math.max(seen, streams.length)));
        }, 200);
        const summary = await runJson(team, '--run-id', runId).finally(() => clearInterval(watching));
        expect(summary.methods.raps).toMatchObject({ done: 2, failures: 0 });
        expect(seen).toBe(1);
        // Before, the stream stayed (with the run's messages) and, before that, its 6 consumers too:
        // the coordinator's 2 and one node consumer per agent (4).
        expect(await runStreams()).toEqual([]);
      } finally {
        await connection.close();
      }
    },
    180_000,
  );

  it.skipIf(!hasSharedNats)(
    'over a NATS server that outlives the run (natsUrl), an interrupted run keeps its stream; the rerun that finishes deletes its own',
    async () => {
      const tasks = toyTasks(4);
      endpoint = await startToyTeamEndpoint({ tasks, delayMs: 60 });
      const dir = temporaryDirectory('repute-raps-nats-interrupted-');
      const agents = [...toyHonest.slice(0, 3), toyColluders[0] as ToyMember];
      const runId = `natsint-${Date.now().toString(36)}`;
      const team = writeRapsTeam(dir, endpoint.baseURL, tasks, {
        agents,
        protocol: `topK: 2, maxRounds: 2, transport: nats, natsUrl: '${sharedNatsUrl}'`,
      });
      const nats = await import('nats');
      const connection = await nats.connect({ servers: sharedNatsUrl });
      const manager = await connection.jetstreamManager();
      const runStreams = async () =>
        (await manager.streams.list().next()).filter((info) => info.config.name.startsWith(`RAPS_${runId}-`));
      try {
        // SIGTERM once a task is stored: the CLI winds down and exits 143 (interrupted).
        expect(
          await killRunOnceCommitted({
            args: [team, '--run-id', runId],
            dbPath: join(dir, 'repute.db'),
            committed: 1,
            attempts: 2400,
            signal: 'SIGTERM',
          }),
        ).toBe(143);
        const kept = await runStreams();
        // Its stream stays, with the run's messages; its consumers (the coordinator's 2, the 4 agents') are gone.
        expect(kept).toHaveLength(1);
        const stream = kept[0] as (typeof kept)[number];
        expect(stream.state.messages).toBeGreaterThan(0);
        expect(await manager.consumers.list(stream.config.name).next()).toEqual([]);
        // The rerun resumes from the store under a fresh wire run id; that one finishes and deletes its stream.
        const rerun = await runJson(team, '--run-id', runId);
        expect(rerun.methods.raps.done).toBe(4);
        expect((await runStreams()).map((info) => info.config.name)).toEqual([stream.config.name]);
        await manager.streams.delete(stream.config.name);
      } finally {
        await connection.close();
      }
    },
    180_000,
  );

  it.skipIf(!existsSync(natsServerBinary))(
    "over NATS, an agent process whose model keeps failing fails the task, not an act: exit 4, no result, the team's beliefs untouched, no key on record; the rerun redoes it",
    async () => {
      const tasks = toyTasks(3);
      const fakeKey = 'sk-test-abcdefghijklmnop1234';
      // While `down`, every call of flaky's model is refused as unauthorised, quoting the key it was sent.
      const state = { down: false };
      endpoint = await startOpenAICompatibleServer({
        model: 'toy-team',
        script: (request) => {
          const model = (request.body as { model?: string }).model ?? '';
          if (state.down && model === 'toy-flaky')
            return { type: 'error', status: 401, message: `Incorrect API key provided: ${fakeKey}` };
          return toyReply(toyBehaviour(model), toyRequestText(request), tasks);
        },
      });
      const dir = temporaryDirectory('repute-raps-nats-provider-');
      const agents: ToyMember[] = [
        ...toyHonest.slice(0, 3),
        ['flaky', 'toy-flaky', '{ inputPerMillion: 0.1, outputPerMillion: 0.4 }'],
      ];
      const team = writeRapsTeam(dir, endpoint.baseURL, tasks, {
        agents,
        protocol: 'topK: 3, maxRounds: 2, transport: nats',
      });
      // flaky's key lives in an environment variable the agent processes inherit (and must never send on).
      writeFileSync(
        team,
        readFileSync(team, 'utf8').replace(
          'model: toy-flaky\n',
          'model: toy-flaky\n    apiKeyEnv: TOY_FLAKY_API_KEY\n',
        ),
      );
      const env = { ...process.env, TOY_FLAKY_API_KEY: fakeKey, REPUTE_ALLOW_ENV: 'TOY_FLAKY_API_KEY' };
      const taskFile = (name: string, ids: readonly string[]) => {
        const file = join(dir, name);
        const lines = tasks.filter((task) => ids.includes(task.id)).map((task) => JSON.stringify(task));
        writeFileSync(file, `${lines.join('\n')}\n`);
        return file;
      };
      const first = taskFile('first.jsonl', ['t1']);
      const rest = taskFile('rest.jsonl', ['t2', 't3']);
      const dbPath = join(dir, 'repute.db');
      const teamBeliefs = () => {
        const store = openStore({ path: dbPath, readonly: true });
        try {
          return {
            beliefs: store.loadReputation({ scope: { team: 'raps-team' }, name: 'raps' }),
            firstHand: store.loadReputation({ scope: { team: 'raps-team' }, name: 'raps-first-hand' }),
          };
        } finally {
          store.close();
        }
      };
      type Belief = { observer: string | null; subject: string; positive: number; negative: number };
      const aboutFlaky = (snapshot: unknown) =>
        ((snapshot as { state: { beliefs: Belief[] } }).state.beliefs ?? []).filter(
          (belief) => belief.subject === 'flaky',
        );

      // 1. All healthy: t1 gives the team beliefs, flaky among the audited.
      const warm = await runToExit(
        [team, '--json', '--run-id', 'warm', '--tasks', first, '--reputation', 'continue'],
        env,
      );
      expect(warm.code, warm.stderr).toBe(0);
      const before = teamBeliefs();
      expect(before.beliefs).toBeDefined();
      // topK 3 of the 3 others: every t1 publication of flaky reached all three honest agents, who audited it.
      expect(aboutFlaky(before.beliefs).map((belief) => belief.observer)).toEqual(
        expect.arrayContaining(['honest-a', 'honest-b', 'honest-c']),
      );

      // 2. flaky's model down: both tasks fail (2 < --max-failures 3, so the run goes through them).
      state.down = true;
      const args = [team, '--json', '--run-id', 'faulty', '--tasks', rest, '--reputation', 'continue'];
      const faulty = await runToExit(args, env);
      expect(faulty.code, faulty.stderr).toBe(4);
      expect(faulty.stderr).toContain(
        'RunFailedError: 2 of 2 tasks failed (no result stored for them); run faulty is marked failed',
      );
      expect(faulty.stderr).toMatch(
        /repute run: failed: http:\/\/127\.0\.0\.1:\d+\/v1 answered HTTP 401: \d+ calls failed after retries, in 2 tasks\n/,
      );
      expect(inspectRun(dbPath, 'faulty')).toEqual({ status: 'failed', results: [], failed: ['t2', 't3'], votes: 0 });
      const store = openStore({ path: dbPath, readonly: true });
      const records = store.taskFailures<TaskFailure>('faulty', 'raps');
      for (const { failure } of records) {
        expect(failure.failures.length).toBeGreaterThan(0);
        // Only flaky's calls failed, each as a provider failure (HTTP 401), not as flaky's own bad output.
        for (const item of failure.failures)
          expect(item).toMatchObject({ agentId: 'flaky', kind: 'provider', status: 401, reason: 'http' });
        // flaky never published, so it proposed afresh in both rounds (round 1 ends the task: the
        // three honest answers did not change, 3 of 3 DONE ≥ 0.6); it never revised.
        const proposals = failure.failures.filter((item: DebateFailure) => item.act === 'propose');
        expect(proposals.map((item) => item.round)).toEqual([0, 1]);
        expect(failure.failures.every((item) => ['propose', 'audit', 'refine-subscription'].includes(item.act))).toBe(
          true,
        );
      }
      // No reputation was saved under the run: no task of it finished.
      expect(store.loadReputation({ scope: { runId: 'faulty' }, name: 'raps' })).toBeUndefined();
      // The key never reached the store or the output: the stored messages say [redacted] where it stood.
      expect(JSON.stringify(records)).not.toContain(fakeKey);
      expect(JSON.stringify(records)).toContain('[redacted]');
      expect(`${faulty.stdout}${faulty.stderr}`).not.toContain(fakeKey);
      store.close();
      // The team's beliefs, and those about flaky in particular, are what t1 left.
      const after = teamBeliefs();
      expect(after).toEqual(before);
      expect(aboutFlaky(after.beliefs)).toEqual(aboutFlaky(before.beliefs));

      // 3. flaky's model back: the same command redoes exactly t2 and t3.
      state.down = false;
      const rerun = await runToExit(args, env);
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(JSON.parse(rerun.stdout)).toMatchObject({
        status: 'completed',
        failed: 0,
        methods: { raps: { done: 2, resumed: 0, accuracy: 1, failures: 0 } },
      });
      expect(inspectRun(dbPath, 'faulty')).toEqual({
        status: 'completed',
        results: ['t2', 't3'],
        failed: [],
        votes: 2,
      });
    },
    240_000,
  );
});
