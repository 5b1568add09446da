import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProviderError, StoreError } from '../core/errors.js';
import { createReputationModel } from '../reputation/registry.js';
import { openStore, type Store } from '../store/store.js';
import { createApp } from './app.js';
import { startServer } from './start-server.js';
import type { TeamService } from './team-service.js';
import { temporaryDirectory } from '../testing/_test-temporary-directory.js';

let stores: Store[] = [];
afterEach(() => {
  for (const store of stores) store.close();
  stores = [];
});

/**
 * A store with one run of team `t`: methods `beta` and `majority` on tasks t1..t3, answers from
 * agents a1, a2, a3 (a3 wrong on t2 and t3). The clock advances 10 ms per read, so every row has
 * a distinct time and each ledger entry falls before exactly one task result.
 */
function fixture(): Store {
  let time = 1_000;
  const store = openStore({ path: ':memory:', now: () => (time += 10) });
  stores.push(store);
  store.createRun({ id: 'r1', kind: 'run', team: 't', config: { seed: 1 } });
  store.saveTeam('t', [
    { id: 'a1', model: 'm1' },
    { id: 'a2', model: 'm2' },
    { id: 'a3', model: 'm3' },
  ]);
  const answers: Record<string, Record<string, string>> = {
    t1: { a1: '4', a2: '4', a3: '4' },
    t2: { a1: '6', a2: '6', a3: '7' },
    t3: { a1: '9', a2: '8', a3: '8' },
  };
  const reference: Record<string, string> = { t1: '4', t2: '6', t3: '9' };
  for (const method of ['beta', 'majority']) {
    ['t1', 't2', 't3'].forEach((taskId, index) => {
      // One ledger entry per agent before each result: cost 0.001 per call, 100 in / 10 out tokens.
      store.recordUsage(
        ['a1', 'a2', 'a3'].map((agentId) => ({
          runId: 'r1',
          agentId,
          taskId,
          act: 'propose',
          inputTokens: 100,
          outputTokens: 10,
          cost: 0.001,
          cached: method === 'majority' && agentId === 'a1',
        })),
      );
      const decided = method === 'beta' && taskId === 't3' ? '9' : taskId === 't3' ? '8' : reference[taskId]!;
      const reputation: Record<string, number> =
        method === 'beta' ? { a1: 0.5 + 0.1 * (index + 1), a2: 0.5, a3: 0.5 - 0.1 * (index + 1) } : {};
      const reasons = ['a1', 'a2', 'a3'].map((agentId) => ({
        agentId,
        weight: method === 'beta' ? reputation[agentId]! / 1.5 : 1 / 3,
        components: (method === 'beta' ? { reputation: reputation[agentId]! } : {}) as Record<string, number>,
        note: `${method} weight`,
      }));
      store.recordTaskResult({
        runId: 'r1',
        method,
        taskId,
        result: {
          schemaVersion: 1,
          taskId,
          answer: decided,
          correct: decided === reference[taskId],
          participants: ['a1', 'a2', 'a3'],
          excluded: [],
          answers: answers[taskId],
          support: { [decided]: 2 / 3 },
          reputation,
          failures: method === 'beta' && taskId === 't2' ? 1 : 0,
        },
        events: [
          {
            type: 'selection',
            taskId,
            round: 0,
            selected: ['a1', 'a2', 'a3'],
            excluded: [],
            reasons: reasons.map((reason) => ({ ...reason, weight: 1, note: 'no selector: everyone takes part' })),
          },
          { type: 'vote', taskId, answer: decided, support: { [decided]: 2 / 3 }, reasons },
          ...(method === 'beta'
            ? [
                {
                  type: 'reputation-update' as const,
                  taskId,
                  before: { a1: 0.5 + 0.1 * index, a2: 0.5, a3: 0.5 - 0.1 * index },
                  after: reputation,
                },
              ]
            : []),
        ],
      });
    });
  }
  return store;
}

const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as any });

describe('createApp: JSON API', () => {
  it('reports health with the store path and schema version', async () => {
    const store = fixture();
    const app = createApp({ store, version: '9.9.9' });
    expect(await json(await app.request('/health'))).toEqual({
      status: 200,
      body: { status: 'ok', version: '9.9.9', store: ':memory:', schemaVersion: store.schemaVersion },
    });
  });

  it('fails its health probe with 503 when the store does not answer a read', async () => {
    const store = fixture();
    const app = createApp({ store, version: '9.9.9' });
    store.close();
    const { status, body } = await json(await app.request('/health'));
    expect(status).toBe(503);
    expect(body.status).toBe('unavailable');
    expect(body.message).toMatch(/closed|open/i);
  });

  it('lists runs and describes one: accuracy, failed acts and usage per method', async () => {
    const app = createApp({ store: fixture() });
    const list = await json(await app.request('/api/runs'));
    expect(list.body.runs).toHaveLength(1);
    expect(list.body.runs[0]).toMatchObject({ id: 'r1', team: 't', status: 'running', tasks: 3 });
    const { status, body } = await json(await app.request('/api/runs/r1'));
    expect(status).toBe(200);
    const beta = body.methods.find((method: { name: string }) => method.name === 'beta');
    const majority = body.methods.find((method: { name: string }) => method.name === 'majority');
    // beta decides 4, 6, 9 against references 4, 6, 9 → 3/3; majority decides 4, 6, 8 → 2/3.
    expect(beta).toMatchObject({ tasks: 3, graded: 3, correct: 3, accuracy: 1, failures: 1 });
    expect(majority).toMatchObject({ tasks: 3, graded: 3, correct: 2, failures: 0 });
    expect(majority.accuracy).toBeCloseTo(2 / 3, 12);
    // 3 tasks × 3 calls per method: 9 calls, 900 in / 90 out tokens, cost 9 × 0.001 = 0.009 each;
    // majority's a1 calls are cache hits (3). The run has 18 calls in total.
    expect(beta.usage).toMatchObject({ calls: 9, cachedCalls: 0, inputTokens: 900, outputTokens: 90 });
    expect(beta.usage.cost).toBeCloseTo(0.009, 12);
    expect(majority.usage).toMatchObject({ calls: 9, cachedCalls: 3 });
    expect(body.usage).toMatchObject({ calls: 18, cachedCalls: 3, inputTokens: 1800, outputTokens: 180 });
  });

  it('answers 404 naming the unknown id, and 400 naming the bad field', async () => {
    const app = createApp({ store: fixture() });
    const missing = await json(await app.request('/api/runs/nope'));
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: 'not_found' });
    expect(missing.body.error.message).toContain('"nope"');
    for (const [query, parameter] of [
      ['limit=0', 'query.limit'],
      ['limit=abc', 'query.limit'],
      ['offset=-1', 'query.offset'],
      ['limit=501', 'query.limit'],
    ] as const) {
      const bad = await json(await app.request(`/api/runs/r1/decisions?${query}`));
      expect(bad.status, query).toBe(400);
      expect(bad.body.error).toMatchObject({ code: 'invalid_argument', parameter });
    }
    expect((await app.request('/api/runs/r1/decisions?method=nope')).status).toBe(404);
    expect((await app.request('/api/teams/nope/reputation')).status).toBe(404);
    expect((await app.request('/api/nothing')).status).toBe(404);
    // A limit past the safe integers is still out of 1..500: the message gives that range.
    const huge = await json(await app.request(`/api/runs/r1/decisions?limit=${'9'.repeat(24)}`));
    expect(huge.status).toBe(400);
    expect(huge.body.error.message).toContain('<=500');
    for (const value of ['x', '1'.repeat(24)]) {
      // Not a number, or past any seq a store can hold (1e23 was taken as a position).
      const header = await json(await app.request('/api/runs/r1/events', { headers: { 'last-event-id': value } }));
      expect(header.status, value).toBe(400);
      expect(header.body.error.parameter, value).toBe('header.last-event-id');
    }
  });

  it("pages decisions: each method's answer and every agent's weight, components, reason and reputation", async () => {
    const app = createApp({ store: fixture() });
    const { body } = await json(await app.request('/api/runs/r1/decisions?offset=1&limit=1'));
    expect(body).toMatchObject({ runId: 'r1', total: 3, offset: 1, limit: 1 });
    expect(body.tasks).toHaveLength(1);
    const task = body.tasks[0];
    expect(task).toMatchObject({ taskId: 't2', index: 1 });
    expect(task.methods.beta).toMatchObject({ answer: '6', correct: true, failures: 1 });
    const a3 = task.methods.beta.weights.find((weight: { agentId: string }) => weight.agentId === 'a3');
    // t2 is beta's 2nd task: a3's reputation goes 0.5 - 0.1 = 0.4 → 0.5 - 0.2 = 0.3, weight 0.3 / 1.5 = 0.2.
    expect(a3.weight).toBeCloseTo(0.2, 12);
    expect(a3.components.reputation).toBeCloseTo(0.3, 12);
    expect(a3.reputationBefore).toBeCloseTo(0.4, 12);
    expect(a3.reputationAfter).toBeCloseTo(0.3, 12);
    expect(a3).toMatchObject({
      answer: '7',
      note: 'beta weight',
      selected: true,
      selectionNote: 'no selector: everyone takes part',
    });
    const one = await json(await app.request('/api/runs/r1/decisions?taskId=t3&method=majority'));
    expect(one.body.tasks.map((entry: { taskId: string }) => entry.taskId)).toEqual(['t3']);
    expect(Object.keys(one.body.tasks[0].methods)).toEqual(['majority']);
  });

  it('gives reputation over tasks per method from the task results', async () => {
    const app = createApp({ store: fixture() });
    const { body } = await json(await app.request('/api/runs/r1/reputation'));
    // majority has no reputation model, so only beta has a series.
    expect(body.methods.map((method: { name: string }) => method.name)).toEqual(['beta']);
    expect(body.methods[0].taskIds).toEqual(['t1', 't2', 't3']);
    expect(body.methods[0].scores.a1.map((value: number) => Number(value.toFixed(10)))).toEqual([0.6, 0.7, 0.8]);
  });

  it("lists teams and explains a team's saved reputation", async () => {
    const store = fixture();
    const model = createReputationModel('beta', { agents: ['a1', 'a2', 'a3'] });
    model.observe([{ type: 'outcome', taskId: 't1', subject: 'a1', success: 1 }]);
    store.saveReputation({ scope: { team: 't' }, name: 'beta', snapshot: model.snapshot() });
    const app = createApp({ store });
    expect((await json(await app.request('/api/teams'))).body.teams).toEqual([
      { name: 't', agents: ['a1', 'a2', 'a3'], runs: 1, methods: ['beta'] },
    ]);
    const { body } = await json(await app.request('/api/teams/t/reputation'));
    expect(body.methods[0].name).toBe('beta');
    const a1 = body.methods[0].agents.find((agent: { agentId: string }) => agent.agentId === 'a1');
    // Beta: (r + 1) / (r + s + 2) = (1 + 1) / (1 + 0 + 2) = 2/3 after one success.
    expect(a1.score).toBeCloseTo(2 / 3, 12);
    expect(a1.evidenceCount).toBe(1);
    expect(typeof a1.summary).toBe('string');
  });

  it('explains and filters a team whose name holds a slash, as team files allow', async () => {
    const store = fixture();
    store.createRun({ id: 'r2', kind: 'run', team: 'org/team', config: {} });
    store.saveTeam('org/team', [{ id: 'a1', model: 'm1' }]);
    const app = createApp({ store });
    const { body: listed } = await json(await app.request('/api/teams'));
    expect(listed.teams.map((team: { name: string }) => team.name)).toEqual(['org/team', 't']);
    // The dashboard asks for /api/teams/<encodeURIComponent(name)>/reputation.
    expect(await json(await app.request('/api/teams/org%2Fteam/reputation'))).toEqual({
      status: 200,
      body: { team: 'org/team', methods: [] },
    });
    const { status, body } = await json(await app.request('/api/runs?team=org%2Fteam'));
    expect(status).toBe(200);
    expect(body.runs.map((run: { id: string }) => run.id)).toEqual(['r2']);
    expect((await app.request('/api/teams/x%00y/reputation')).status).toBe(400);
  });

  it('serves replay outputs with mean accuracy per attack, and refuses path tricks', async () => {
    const root = temporaryDirectory('repute-replays-');
    mkdirSync(join(root, 'math'));
    writeFileSync(
      join(root, 'math', 'summary.json'),
      JSON.stringify({
        schemaVersion: 2,
        data: { name: 'math-l5' },
        methods: { majority: {}, minirep: {} },
        retention: {},
        byComposition: {},
      }),
    );
    // A version-1 summary (pre-paper metrics) is listed with its problem and refused when opened.
    mkdirSync(join(root, 'old'));
    writeFileSync(join(root, 'old', 'summary.json'), JSON.stringify({ schemaVersion: 1, methods: { majority: {} } }));
    writeFileSync(
      join(root, 'math', 'conditions.csv'),
      [
        'condition,composition,placement,attack,method,accuracy',
        'c/clean,c,,clean,majority,0.8',
        'c/clean,c,,clean,minirep,0.9',
        'c/A/RAND,c,A,RAND,majority,0.5',
        'c/B/RAND,c,B,RAND,majority,0.3',
        'c/A/RAND,c,A,RAND,minirep,0.85',
        'c/B/RAND,c,B,RAND,minirep,"0.75"',
      ].join('\n'),
    );
    const app = createApp({ store: fixture(), replayDir: root });
    expect((await json(await app.request('/api/replays'))).body).toEqual({
      replays: [
        { name: 'math', dataset: 'math-l5', methods: ['majority', 'minirep'] },
        {
          name: 'old',
          dataset: null,
          methods: [],
          problem: expect.stringMatching(/schemaVersion 1 replay summaries use the pre-paper metrics/),
        },
      ],
    });
    const old = await json(await app.request('/api/replays/old'));
    expect(old.status).toBe(400);
    expect(JSON.stringify(old.body)).toMatch(/schemaVersion 1 replay summaries/);
    const { body } = await json(await app.request('/api/replays/math'));
    expect(body.byAttack.attacks).toEqual(['clean', 'RAND']);
    // RAND: majority (0.5 + 0.3) / 2 = 0.4; minirep (0.85 + 0.75) / 2 = 0.8.
    expect(body.byAttack.methods.majority[1]).toBeCloseTo(0.4, 12);
    expect(body.byAttack.methods.minirep[1]).toBeCloseTo(0.8, 12);
    expect(body.conditions).toHaveLength(6);
    // `..` as a whole segment is normalised away by the URL parser (→ /api/ → 404); encoded forms reach the check.
    expect((await app.request('/api/replays/..')).status).toBe(404);
    expect((await app.request('/api/replays/.env')).status).toBe(400);
    expect((await app.request('/api/replays/%2e%2e%2fsecret')).status).toBe(400);
    expect((await app.request('/api/replays/other')).status).toBe(404);
  });

  it('generates /openapi.json from the zod schemas', async () => {
    const app = createApp({ store: fixture() });
    const { body } = await json(await app.request('/openapi.json'));
    expect(body.openapi).toBe('3.1.0');
    const decisions = body.paths['/api/runs/{id}/decisions'].get;
    const limit = decisions.parameters.find((parameter: { name: string }) => parameter.name === 'limit');
    expect(limit).toMatchObject({ in: 'query', required: false });
    expect(
      body.paths['/api/runs/{id}'].get.responses['200'].content['application/json'].schema.properties.methods.type,
    ).toBe('array');
    expect(Object.keys(body.paths)).toContain('/v1/chat/completions');
    const chat = body.paths['/v1/chat/completions'].post;
    expect(chat.parameters.map((parameter: { name: string }) => parameter.name)).toContain('x-repute-deadline-ms');
    const repute =
      chat.responses['200'].content['application/json'].schema.properties.repute.properties.skipped.items.properties;
    expect(repute.reason.enum).toEqual(['circuit-open', 'quorum', 'deadline']);
  });
});

describe('createApp: SSE events', () => {
  async function readSse(
    response: Response,
    until: (events: Array<{ id?: string; event: string; data: string }>) => boolean,
  ) {
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    const events: Array<{ id?: string; event: string; data: string }> = [];
    let buffer = '';
    while (!until(events)) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = Object.fromEntries(
          block
            .split('\n')
            .filter((line) => !line.startsWith(':'))
            .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trimStart()]),
        );
        if (fields.event !== undefined) events.push(fields as { id?: string; event: string; data: string });
      }
    }
    await reader.cancel();
    return events;
  }

  it('streams the log, follows new events, resumes after Last-Event-ID and ends when the run stops', async () => {
    const store = fixture();
    const total = store.events('r1').length; // 3 tasks × (selection + vote + update) + 3 × (selection + vote) = 15
    expect(total).toBe(15);
    const app = createApp({ store, pollMs: 5 });
    const response = await app.request('/api/runs/r1/events', { headers: { 'last-event-id': '12' } });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const first = await readSse(response, (events) => events.filter((event) => event.id !== undefined).length >= 3);
    expect(first[0]).toMatchObject({ event: 'status' });
    expect(first.filter((event) => event.id !== undefined).map((event) => Number(event.id))).toEqual([13, 14, 15]);

    // Follow: open at the end, then another writer appends and completes the run.
    const follow = app.request('/api/runs/r1/events?after=15');
    setTimeout(() => {
      store.appendEvents('r1', [{ type: 'task', taskId: 't4' }]);
      store.setRunStatus('r1', 'completed');
    }, 30);
    const events = await readSse(await follow, (list) => list.some((event) => event.event === 'end'));
    expect(events.filter((event) => event.id !== undefined).map((event) => [event.id, event.event])).toEqual([
      ['16', 'task'],
    ]);
    expect(JSON.parse(events.find((event) => event.event === 'end')!.data)).toEqual({
      runId: 'r1',
      status: 'completed',
      lastSeq: 16,
    });
    expect(events.some((event) => event.event === 'status' && JSON.parse(event.data).status === 'completed')).toBe(
      true,
    );
  });
});

describe('createApp: safety', () => {
  const token = 'test-token-0123456789abcdef';

  it('requires the bearer token on every data route when one is set', async () => {
    const app = createApp({ store: fixture(), token });
    expect((await app.request('/api/runs')).status).toBe(401);
    expect(
      (await app.request('/api/teams', { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status,
    ).toBe(401);
    expect((await app.request('/openapi.json', { headers: { authorization: `Bearer ${token}x` } })).status).toBe(401);
    expect((await app.request('/api/runs', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect(() => createApp({ store: fixture(), token: 'short' })).toThrow(/at least 16 characters/);
  });

  it('sends nosniff, no-referrer and a no-framing policy on pages, data and errors alike', async () => {
    const assetsDir = temporaryDirectory('repute-assets-');
    writeFileSync(join(assetsDir, 'app.js'), 'export {};');
    const app = createApp({ store: fixture(), assetsDir, token });
    const page = await app.request('/');
    expect(page.status).toBe(200);
    // A page that another site may frame can be clickjacked (e.g. into typing the token).
    expect(page.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const authorization = { authorization: `Bearer ${token}` };
    for (const response of [
      page,
      await app.request('/assets/app.js'),
      await app.request('/api/runs', { headers: authorization }),
      await app.request('/api/runs/%3Cimg%20src%3Dx%3E', { headers: authorization }),
      await app.request('/no/such/route', { headers: authorization }),
      await app.request('/api/runs'),
    ]) {
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
    }
  });

  it('refuses non-loopback hosts without a token', async () => {
    await expect(startServer({ store: fixture(), host: '0.0.0.0', port: 0 })).rejects.toMatchObject({
      code: 'invalid_argument',
      parameter: 'host',
    });
    const server = await startServer({ store: fixture(), port: 0 });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    await server.close();
  });

  it('limits the body size and keeps CORS off unless an origin is given', async () => {
    const app = createApp({ store: fixture(), bodyLimit: 1024 });
    const big = await app.request('/api/runs', {
      method: 'POST',
      body: 'x'.repeat(2048),
      headers: { 'content-type': 'application/json', 'content-length': '2048' },
    });
    expect(big.status).toBe(413);
    const plain = await app.request('/api/runs', { headers: { origin: 'https://evil.example' } });
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();
    const allowed = createApp({ store: fixture(), cors: 'https://dash.example' });
    expect(
      (await allowed.request('/api/runs', { headers: { origin: 'https://dash.example' } })).headers.get(
        'access-control-allow-origin',
      ),
    ).toBe('https://dash.example');
  });
});

/** A team that answers "42" and counts its calls, so a test can tell whether a request reached it. */
function countingTeam(): TeamService & { calls: number } {
  const team = {
    name: 'sum-team',
    method: 'minirep',
    kind: 'number' as const,
    runId: 'serve',
    calls: 0,
    feedback() {
      throw new Error('not used here');
    },
    async answer() {
      team.calls += 1;
      return {
        schemaVersion: 1 as const,
        team: 'sum-team',
        method: 'minirep',
        kind: 'number' as const,
        taskId: `chat-${team.calls}`,
        decision: { answer: '42', support: { '42': 1 } },
        weights: [],
        winner: 'a1',
        content: '{"answer":"42"}',
        degraded: [],
        skipped: [],
        repeated: [],
        reputation: { a1: 0.5 },
        usage: { inputTokens: 1, outputTokens: 1 },
      };
    },
    idle: async () => {},
  };
  return team;
}

describe('createApp: /v1/chat/completions input', () => {
  const post = (app: ReturnType<typeof createApp>, body: string, headers: Record<string, string> = {}) =>
    app.request('/v1/chat/completions', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', ...headers },
    });
  const ask = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({ model: 'team:sum-team', messages: [{ role: 'user', content: 'What is 1 + 1?' }], ...extra });

  it('answers a plain JSON request (application/json with a charset too)', async () => {
    const team = countingTeam();
    const app = createApp({ store: fixture(), team });
    expect((await post(app, ask())).status).toBe(200);
    expect((await post(app, ask(), { 'content-type': 'application/json; charset=utf-8' })).status).toBe(200);
    expect(team.calls).toBe(2);
  });

  it('refuses a body that is not sent as JSON (a cross-site form or text/plain POST needs no preflight)', async () => {
    const team = countingTeam();
    const app = createApp({ store: fixture(), team });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const response = await json(await post(app, ask(), { 'content-type': type }));
      expect(response.status, type).toBe(415);
      expect(response.body.error, type).toMatchObject({ type: 'invalid_request_error', param: 'header.content-type' });
      expect(response.body.error.message, type).toContain('application/json');
    }
    expect(team.calls).toBe(0);
  });

  it('says that a malformed body is not JSON, and names the field of a bad one, before calling the team', async () => {
    const team = countingTeam();
    const app = createApp({ store: fixture(), team });
    const broken = await json(await post(app, '{"model":'));
    expect(broken.status).toBe(400);
    expect(broken.body.error).toMatchObject({ type: 'invalid_request_error', param: 'body' });
    expect(broken.body.error.message).toMatch(/not valid JSON/);
    const cases: Array<[string, string]> = [
      // An empty question would be sent to every agent, decided and scored.
      [ask({ messages: [{ role: 'user', content: '' }] }), 'body.messages.0.content'],
      [ask({ messages: [{ role: 'user', content: '   ' }] }), 'body.messages.0.content'],
      [
        ask({
          messages: [
            { role: 'system', content: '' },
            { role: 'user', content: null },
          ],
        }),
        'body.messages',
      ],
      // The team answers one choice with text: n > 1, tools and image parts would be dropped silently.
      [ask({ n: 3 }), 'body.n'],
      [ask({ tools: [{ type: 'function', function: { name: 'f' } }] }), 'body.tools'],
      [ask({ functions: [{ name: 'f' }] }), 'body.functions'],
      [
        ask({
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'What is 1 + 1?' },
                { type: 'image_url', image_url: { url: 'data:,' } },
              ],
            },
          ],
        }),
        'body.messages.0.content.1.type',
      ],
    ];
    for (const [body, param] of cases) {
      const response = await json(await post(app, body));
      expect(response.status, body).toBe(400);
      expect(response.body.error, body).toMatchObject({ type: 'invalid_request_error', param });
    }
    expect(team.calls).toBe(0);
    // n: 1, empty tools and text parts are fine.
    const parts = { messages: [{ role: 'user', content: [{ type: 'text', text: 'What is 1 + 1?' }] }] };
    expect((await post(app, ask({ n: 1, tools: [], ...parts }))).status).toBe(200);
    expect(team.calls).toBe(1);
  });

  it('answers 400, not 500, to a deeply nested body, and does not echo huge values', async () => {
    const app = createApp({ store: fixture(), team: countingTeam() });
    const deep = await json(await post(app, `${'['.repeat(100_000)}${']'.repeat(100_000)}`));
    expect(deep.status).toBe(400);
    expect(deep.body.error.param).toBe('body');
    const long = await post(app, ask({ model: `team:${'z'.repeat(100_000)}` }));
    expect(long.status).toBe(404);
    expect((await long.text()).length).toBeLessThan(2_000);
    const bad = await post(app, ask({ stream: 'x'.repeat(100_000) }));
    expect(bad.status).toBe(400);
    expect((await bad.text()).length).toBeLessThan(2_000);
  });
});

describe('createApp: DNS rebinding', () => {
  it('without a token, answers only requests addressed to a loopback host name', async () => {
    const app = createApp({ store: fixture(), team: countingTeam() });
    // `localhost.` is the fully qualified form of localhost (it got a 403).
    for (const host of ['localhost', '127.0.0.1:8787', '127.0.0.2', '[::1]:8787', 'localhost:8787', 'localhost.:8787'])
      expect((await app.request(`http://${host}/health`)).status, host).toBe(200);
    // evil.example resolving to 127.0.0.1 makes the browser treat this server as that site.
    const rebound = await json(await app.request('http://evil.example:8787/api/runs'));
    expect(rebound.status).toBe(403);
    expect(rebound.body.error.message).toContain('evil.example');
    const spend = await app.request('http://evil.example:8787/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'team:sum-team', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(spend.status).toBe(403);
    // With a token the name does not matter (a proxy may use any): the token is the gate.
    const token = 'test-token-0123456789abcdef';
    const guarded = createApp({ store: fixture(), token });
    expect(
      (await guarded.request('http://repute.example/health', { headers: { authorization: `Bearer ${token}` } })).status,
    ).toBe(200);
  });
});

describe('createApp: a failing store', () => {
  /** The fixture store whose listRuns fails as the store does when SQLite reports `code`. */
  const failingStore = (code: string): Store => {
    const store = fixture();
    const cause = Object.assign(new Error('database is locked'), { code });
    return {
      ...store,
      listRuns: () => {
        throw new StoreError('store repute.db: listRuns failed: another connection kept it locked', { cause });
      },
    };
  };

  it('answers 503 with Retry-After while another writer holds the lock, 500 for other store failures', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      for (const code of ['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_BUSY_SNAPSHOT']) {
        const response = await createApp({ store: failingStore(code) }).request('/api/runs');
        expect(response.status, code).toBe(503);
        expect(response.headers.get('retry-after'), code).toBe('1');
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('store');
      }
      for (const code of ['SQLITE_CORRUPT', 'SQLITE_BUSYNESS']) {
        const response = await createApp({ store: failingStore(code) }).request('/api/runs');
        expect(response.status, code).toBe(500);
        expect(response.headers.get('retry-after'), code).toBeNull();
      }
    } finally {
      log.mockRestore();
    }
  });
});

describe('createApp: usage totals', () => {
  it('counts calls booked as failed and calls whose usage the provider did not report', async () => {
    const store = openStore({ path: ':memory:' });
    stores.push(store);
    store.createRun({ id: 'u', kind: 'run', config: null });
    store.recordUsage({ runId: 'u', inputTokens: 100, outputTokens: 10, cost: 0.002, cached: false });
    store.recordUsage({ runId: 'u', inputTokens: 80, outputTokens: 5, cost: 0.001, cached: false, status: 'failed' });
    store.recordUsage({ runId: 'u', inputTokens: 0, outputTokens: 0, cost: 0, cached: false, usageReported: false });
    const response = await createApp({ store }).request('/api/runs/u');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { usage: Record<string, number> };
    // 3 calls, 180 in / 15 out; one failed, one with unreported usage.
    expect(body.usage).toMatchObject({
      calls: 3,
      inputTokens: 180,
      outputTokens: 15,
      failedCalls: 1,
      unreportedUsageCalls: 1,
    });
  });
});

describe('createApp: operations', () => {
  const token = 'test-token-0123456789abcdef';

  it('answers /health without the token, with no data; the token holder gets the details', async () => {
    const store = fixture();
    const app = createApp({ store, token, version: '9.9.9' });
    expect(await json(await app.request('/health'))).toEqual({ status: 200, body: { status: 'ok' } });
    expect(
      await json(await app.request('/health', { headers: { authorization: 'Bearer wrong-token-0123456789' } })),
    ).toEqual({ status: 200, body: { status: 'ok' } });
    expect((await json(await app.request('/health', { headers: { authorization: `Bearer ${token}` } }))).body).toEqual({
      status: 'ok',
      version: '9.9.9',
      store: ':memory:',
      schemaVersion: store.schemaVersion,
    });
    // Every other data route still needs it.
    expect((await app.request('/api/teams')).status).toBe(401);
  });

  it('writes one access-log line per request: method, path without query, status, duration; no token, no body', async () => {
    const lines: string[] = [];
    const team = countingTeam();
    const app = createApp({
      store: fixture(),
      team,
      token,
      accessLog: (line) => lines.push(line),
      clock: { now: () => 0 },
    });
    await app.request('/api/runs?team=secret-query', { headers: { authorization: `Bearer ${token}` } });
    await app.request('/api/runs');
    await app.request('/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'team:sum-team', messages: [{ role: 'user', content: 'private question' }] }),
    });
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^1970-01-01T00:00:00\.000Z GET \/api\/runs 200 \d+\.\dms$/);
    expect(lines[1]).toMatch(/^1970-01-01T00:00:00\.000Z GET \/api\/runs 401 \d+\.\dms$/);
    expect(lines[2]).toMatch(/^1970-01-01T00:00:00\.000Z POST \/v1\/chat\/completions 200 \d+\.\dms task=chat-1$/);
    const all = lines.join('\n');
    for (const secret of [token, 'secret-query', 'private question']) expect(all).not.toContain(secret);
  });

  it('keeps environment variable names out of error bodies (the server log has them)', async () => {
    const team = countingTeam();
    team.answer = async () => {
      throw new ProviderError({
        provider: 'team:sum-team',
        attempts: 2,
        message:
          'every agent of team sum-team failed (a1: HTTP 401; check the API key in the environment variable MY_SECRET_KEY_VAR and its permissions)',
      });
    };
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const app = createApp({ store: fixture(), team });
    const response = await json(
      await app.request('/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'team:sum-team', messages: [{ role: 'user', content: 'hi' }] }),
      }),
    );
    expect(response.status).toBe(502);
    expect(response.body.error.message).not.toContain('MY_SECRET_KEY_VAR');
    expect(response.body.error.message).toContain('environment variable named in the server configuration');
    expect(String(logged.mock.calls[0]?.[0])).toContain('MY_SECRET_KEY_VAR');
    logged.mockRestore();
  });

  it('honours /api/runs?limit (newest first) and refuses an unknown kind naming it', async () => {
    const store = fixture();
    store.createRun({ id: 'r2', kind: 'serve', team: 't', config: null });
    const app = createApp({ store });
    const limited = await json(await app.request('/api/runs?limit=1'));
    expect(limited.body.runs.map((run: { id: string }) => run.id)).toEqual(['r2']);
    expect((await json(await app.request('/api/runs'))).body.runs.map((run: { id: string }) => run.id)).toEqual([
      'r2',
      'r1',
    ]);
    expect((await json(await app.request('/api/runs?kind=serve'))).body.runs).toHaveLength(1);
    // 'debate' is a kind Repute writes, so it is a filter that matches nothing here, not a typo.
    expect((await json(await app.request('/api/runs?kind=debate'))).body.runs).toEqual([]);
    const bogus = await json(await app.request('/api/runs?kind=bogus'));
    expect(bogus.status).toBe(400);
    expect(bogus.body.error).toMatchObject({ code: 'invalid_argument', parameter: 'query.kind' });
    expect(bogus.body.error.message).toContain('"bogus"');
    expect((await app.request('/api/runs?limit=0')).status).toBe(400);
  });
});
