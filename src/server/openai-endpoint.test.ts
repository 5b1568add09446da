// The OpenAI-compatible team endpoint, driven by the official `openai` client against a real
// port; the team's agents are live agents talking to the local OpenAI-compatible test server.
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createLiveTeam } from '../cli/commands/_live-team.js';
import { readTeamFile } from '../cli/commands/_team-file.js';
import { defaultServeMethod } from '../protocols/debate/methods.js';
import { openStore } from '../store/store.js';
import { newPostgresStoreUrl, postgresAvailable } from '../store/_test-postgres.js';
import {
  startOpenAICompatibleServer,
  type RecordedRequest,
  type ServerStep,
} from '../testing/openai-compatible-server.js';
import { sumReply, writeSumTeam } from '../testing/_test-sum-team.js';
import { serveSumTeam, type ServedSumTeam } from '../testing/_test-served-sum-team.js';
import { createTeamService, type TeamService, type TeamServiceOptions } from './team-service.js';
import { temporaryDirectory } from '../testing/_test-temporary-directory.js';

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const agentOf = (request: RecordedRequest) => /You are agent (\S+),/.exec(JSON.stringify(request.body))?.[1];

async function setup({
  agents,
  script = (request: RecordedRequest) => sumReply(request),
  method,
}: {
  agents?: string[];
  script?: (request: RecordedRequest) => ServerStep | string;
  method?: TeamServiceOptions['method'];
} = {}): Promise<ServedSumTeam> {
  return serveSumTeam(closers, {
    script,
    ...(agents === undefined ? {} : { agents }),
    ...(method === undefined ? {} : { service: { method } }),
    clock: { now: () => 1_700_000_000_000 },
  });
}

describe('/v1 with the openai client', () => {
  it('lists the team as a model and answers with the decided sum, weights and reasons', async () => {
    const { client, store } = await setup();
    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).toEqual(['team:sum-team']);

    const completion = await client.chat.completions.create({
      model: 'team:sum-team',
      messages: [{ role: 'user', content: 'What is 11 + 5?' }],
    });
    // 11 + 5 = 16: alpha, beta-1 and beta-2 say 16, weak says 17.
    expect(completion.object).toBe('chat.completion');
    expect(completion.created).toBe(1_700_000_000);
    expect(completion.choices[0]!.message.content).toContain('"answer":"16"');
    const repute = (completion as unknown as { repute: any }).repute;
    expect(repute).toMatchObject({
      schemaVersion: 1,
      team: 'sum-team',
      method: defaultServeMethod,
      kind: 'number',
      taskId: 'chat-1',
      decision: { answer: '16' },
      degraded: [],
    });
    expect(repute.weights.map((weight: { agentId: string }) => weight.agentId).sort()).toEqual([
      'alpha',
      'beta-1',
      'beta-2',
      'weak',
    ]);
    expect(repute.weights.find((weight: { agentId: string }) => weight.agentId === 'weak')).toMatchObject({
      answer: '17',
    });
    expect(
      repute.weights.every(
        (weight: { note: string | null; components: object }) =>
          typeof weight.note === 'string' && Object.keys(weight.components).length > 0,
      ),
    ).toBe(true);
    expect(['alpha', 'beta-1', 'beta-2']).toContain(repute.winner);
    // 4 calls × (10 prompt + 5 completion tokens) from the test server.
    expect(completion.usage).toEqual({ prompt_tokens: 40, completion_tokens: 20, total_tokens: 60 });
    // The decision is stored as a task of the serve run, with its vote event.
    expect(store.taskResults('serve').map((record) => record.taskId)).toEqual(['chat-1']);
    expect(store.events('serve', { type: 'vote' })).toHaveLength(1);
  });

  it('streams the decided answer', async () => {
    const { client } = await setup();
    const stream = await client.chat.completions.create({
      model: 'team:sum-team',
      messages: [{ role: 'user', content: 'What is 2 + 3?' }],
      stream: true,
    });
    let text = '';
    let last: any;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      last = chunk;
    }
    expect(text).toContain('"answer":"5"');
    expect(last.choices[0].finish_reason).toBe('stop');
    expect(last.repute.decision.answer).toBe('5');
  });

  it('decides under the x-repute-kind header, and names bad input', async () => {
    const { client } = await setup();
    const completion = await client.chat.completions.create(
      { model: 'team:sum-team', messages: [{ role: 'user', content: 'What is 1 + 1?' }] },
      { headers: { 'x-repute-kind': 'exact' } },
    );
    expect((completion as unknown as { repute: { kind: string } }).repute.kind).toBe('exact');
    await expect(
      client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({ status: 400, error: { param: 'body.model', type: 'invalid_request_error' } });
    await expect(
      client.chat.completions.create({ model: 'team:other', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(client.chat.completions.create({ model: 'team:sum-team', messages: [] })).rejects.toMatchObject({
      status: 400,
      error: { param: 'body.messages' },
    });
    await expect(
      client.chat.completions.create(
        { model: 'team:sum-team', messages: [{ role: 'user', content: 'hi' }] },
        { headers: { 'x-repute-kind': 'poetry' } },
      ),
    ).rejects.toMatchObject({ status: 400, error: { param: 'header.x-repute-kind' } });
  });

  it('degrades to the remaining agents, and answers 502 when every agent fails', async () => {
    const { client } = await setup({
      agents: ['alpha', 'beta-1', 'down-1'],
      script: (request) =>
        agentOf(request)?.startsWith('down')
          ? { type: 'error', status: 500, message: 'model crashed' }
          : sumReply(request),
    });
    const completion = await client.chat.completions.create({
      model: 'team:sum-team',
      messages: [{ role: 'user', content: 'What is 4 + 4?' }],
    });
    const repute = (completion as unknown as { repute: any }).repute;
    expect(repute.decision.answer).toBe('8');
    expect(repute.degraded.map((entry: { agentId: string }) => entry.agentId)).toEqual(['down-1']);
    expect(repute.degraded[0].message).toContain('500');

    const dead = await setup({
      agents: ['down-1', 'down-2'],
      script: () => ({ type: 'error', status: 500, message: 'model crashed' }),
    });
    const failure = await dead.client.chat.completions
      .create({ model: 'team:sum-team', messages: [{ role: 'user', content: 'What is 4 + 4?' }] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(failure).toMatchObject({ status: 502, error: { type: 'upstream_error', code: 'provider' } });
    expect((failure as InstanceType<typeof OpenAI.APIError>).message).toMatch(/every agent of team sum-team failed/);
    expect(dead.store.taskResults('serve')).toHaveLength(0);
  });

  it('handles 50 concurrent requests: 50 decisions stored, reputation evidence for exactly 50 tasks', async () => {
    const { client, store, servedModel } = await setup();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        client.chat.completions.create({
          model: 'team:sum-team',
          messages: [{ role: 'user', content: `What is ${index} + ${index + 1}?` }],
        }),
      ),
    );
    answers.forEach((completion, index) =>
      expect((completion as unknown as { repute: { decision: { answer: string } } }).repute.decision.answer).toBe(
        String(2 * index + 1),
      ),
    );
    const results = store.taskResults('serve');
    expect(results).toHaveLength(50);
    expect(new Set(results.map((record) => record.taskId)).size).toBe(50);
    expect(store.events('serve', { type: 'reputation-update' })).toHaveLength(50);
    // No lost update: the saved team reputation holds one behaviour record per agent per request.
    const model = servedModel();
    for (const agentId of ['alpha', 'beta-1', 'beta-2', 'weak'])
      expect(model.explain(agentId).evidenceCount, agentId).toBe(50);
    // The always-wrong agent ends below every agent that agreed with the team.
    const scores = model.scores();
    expect(scores.weak!).toBeLessThan(Math.min(scores.alpha!, scores['beta-1']!, scores['beta-2']!));
  }, 60_000);
});

describe('Idempotency-Key on /v1/chat/completions', () => {
  const post = (url: string, content: string, key?: string, stream = false) =>
    fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
      body: JSON.stringify({ model: 'team:sum-team', messages: [{ role: 'user', content }], stream }),
    });

  it('answers a retry with the first answer: no new calls, no second decision, Idempotent-Replayed: true', async () => {
    const { server, store, provider } = await setup();
    const first = await post(server.url, 'What is 11 + 5?', 'req-1');
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const calls = provider.requests.length;
    // 4 agents, one call each.
    expect(calls).toBe(4);
    const again = await post(server.url, 'What is 11 + 5?', 'req-1');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const [one, two] = [(await first.json()) as any, (await again.json()) as any];
    expect(two).toEqual(one);
    expect(two.repute.taskId).toBe('chat-1');
    expect(provider.requests.length).toBe(calls);
    expect(store.taskResults('serve').map((record) => record.taskId)).toEqual(['chat-1']);
    // A streamed retry replays the same answer too.
    const streamed = await post(server.url, 'What is 11 + 5?', 'req-1', true);
    expect(streamed.headers.get('idempotent-replayed')).toBe('true');
    const text = await streamed.text();
    expect(text).toContain('chatcmpl-chat-1');
    expect(text).toContain('\\"answer\\":\\"16\\"');
    expect(provider.requests.length).toBe(calls);
    // Without a key, or with another key, the same question is a new request.
    await post(server.url, 'What is 11 + 5?');
    await post(server.url, 'What is 11 + 5?', 'req-2');
    expect(store.taskResults('serve').map((record) => record.taskId)).toEqual(['chat-1', 'chat-2', 'chat-3']);
  });

  it('refuses a key reused for another request, and a malformed key, naming the header', async () => {
    const { server, store } = await setup();
    expect((await post(server.url, 'What is 1 + 2?', 'req-1')).status).toBe(200);
    const reused = await post(server.url, 'What is 2 + 2?', 'req-1');
    expect(reused.status).toBe(400);
    const body = (await reused.json()) as any;
    expect(body.error.param).toBe('header.idempotency-key');
    expect(body.error.message).toContain('already used by a different request');
    for (const bad of ['has space', 'x'.repeat(256)]) {
      const refused = await post(server.url, 'What is 2 + 2?', bad);
      expect(refused.status, bad.slice(0, 20)).toBe(400);
      expect(((await refused.json()) as any).error.param).toBe('header.idempotency-key');
    }
    expect(store.taskResults('serve')).toHaveLength(1);
  });

  // PostgreSQL where a server is up (CI requires one: REPUTE_REQUIRE_POSTGRES=1 fails without it).
  const stores = [
    { name: 'SQLite', path: (dir: string) => join(dir, 'repute.db') },
    ...(postgresAvailable() ? [{ name: 'PostgreSQL', path: () => newPostgresStoreUrl() }] : []),
  ];
  it.each(stores)(
    'decides once when the same key reaches two servers of one team at once ($name)',
    async ({ path }) => {
      const provider = await startOpenAICompatibleServer({ script: (request: RecordedRequest) => sumReply(request) });
      closers.push(() => provider.close());
      const dir = temporaryDirectory('repute-v1-idempotency-');
      const file = readTeamFile(writeSumTeam(dir, { baseURL: provider.baseURL, tasks: 1 }));
      const store = openStore({ path: path(dir) });
      closers.push(() => store.close());
      let counter = 0;
      const [first, second] = [1, 2].map((replica) =>
        createTeamService({
          name: file.name,
          agents: createLiveTeam(file, store, 'unused'),
          store,
          kind: 'number',
          generateId: () => `chat-${replica}-${++counter}`,
        }),
      ) as [TeamService, TeamService];
      const messages = [{ role: 'user', content: 'What is 20 + 22?' }];
      const [one, two] = await Promise.all([
        first.answer({ messages, idempotencyKey: 'same' }),
        second.answer({ messages, idempotencyKey: 'same' }),
      ]);
      // Both gathered (neither had decided yet); the first transaction decided, the second replayed it.
      expect(two.taskId).toBe(one.taskId);
      expect(two.decision).toEqual(one.decision);
      expect([one.replayed, two.replayed].filter((flag) => flag === true)).toHaveLength(1);
      const decided = [...store.taskResults(first.runId), ...store.taskResults(second.runId)];
      expect(decided.map((record) => record.taskId)).toEqual([one.taskId]);
      // A later retry on either server gets the same answer.
      expect((await second.answer({ messages, idempotencyKey: 'same' })).taskId).toBe(one.taskId);
    },
  );
});

describe('/v1 with our MiniRep variants as the team method', () => {
  it.each(['minirep-lo', 'minirep-ds', 'minirep-ic'] as const)('decides with %s and reports it', async (method) => {
    const { client } = await setup({ method });
    const completion = await client.chat.completions.create({
      model: 'team:sum-team',
      messages: [{ role: 'user', content: 'What is 11 + 5?' }],
    });
    // 11 + 5 = 16: alpha, beta-1 and beta-2 say 16, weak says 17.
    expect(completion.choices[0]?.message.content).toContain('"answer":"16"');
    expect((completion as unknown as { repute: { method: string } }).repute.method).toBe(method);
  });
});

describe('one run per serve process', () => {
  it('gives two services of one team on one store their own runs, so stopping one leaves the other running', async () => {
    const provider = await startOpenAICompatibleServer({ script: (request: RecordedRequest) => sumReply(request) });
    closers.push(() => provider.close());
    const dir = temporaryDirectory('repute-v1-runs-');
    const file = readTeamFile(writeSumTeam(dir, { baseURL: provider.baseURL, tasks: 1 }));
    const store = openStore({ path: join(dir, 'repute.db') });
    closers.push(() => store.close());
    const services = [1, 2].map(() =>
      createTeamService({ name: file.name, agents: createLiveTeam(file, store, 'unused'), store, kind: 'number' }),
    );
    const [first, second] = services as [TeamService, TeamService];
    expect(first.runId).not.toBe(second.runId);
    // Same team configuration: one prefix (the configuration's hash), then the instance.
    expect(first.runId.slice(0, 'serve-sum-team-'.length + 8)).toBe(
      second.runId.slice(0, 'serve-sum-team-'.length + 8),
    );
    await second.answer({ messages: [{ role: 'user', content: 'What is 1 + 2?' }] });
    store.setRunStatus(first.runId, 'interrupted');
    expect(store.getRun(second.runId)?.status).toBe('running');
    expect(store.taskResults(second.runId)).toHaveLength(1);
    expect(store.taskResults(first.runId)).toHaveLength(0);
  });
});

describe('traces of served requests', () => {
  it('stores the prompt, each agent completion, start and end, tokens and cost per call, read back as a trace', async () => {
    const { client, server } = await setup();
    await client.chat.completions.create({
      model: 'team:sum-team',
      messages: [{ role: 'user', content: 'What is 7 + 8?' }],
    });
    const response = await fetch(`${server.url}/api/runs/serve/tasks/chat-1/trace`);
    expect(response.status).toBe(200);
    const trace = (await response.json()) as any;
    expect(trace.calls.map((call: { agentId: string }) => call.agentId).sort()).toEqual([
      'alpha',
      'beta-1',
      'beta-2',
      'weak',
    ]);
    for (const call of trace.calls) {
      expect(call.act).toBe('propose');
      expect(call.messages.at(-1)).toMatchObject({ role: 'user' });
      expect(call.messages.at(-1).content).toContain('What is 7 + 8?');
      // The reply is what the test server sent this agent (weak is off by one).
      expect(call.completion).toContain(call.agentId === 'weak' ? '"answer":"16"' : '"answer":"15"');
      expect(call.endedAt).toBeGreaterThanOrEqual(call.startedAt);
      // 10 prompt and 5 completion tokens per call at 1 and 2 per million: 10e-6 + 10e-6 = 2e-5.
      expect(call).toMatchObject({ inputTokens: 10, outputTokens: 5, status: 'ok', cached: false });
      expect(call.cost).toBeCloseTo(2e-5, 15);
    }
    expect(trace.usage).toMatchObject({ inputTokens: 40, outputTokens: 20 });
    expect(trace.methods[defaultServeMethod].answer).toBe('15');
    expect((await fetch(`${server.url}/api/runs/serve/tasks/chat-9/trace`)).status).toBe(404);
  });
});
