// Deadlines, quorum and circuit breakers of the team endpoint, end to end: the official `openai`
// client against `repute serve`'s app, agents behind a local OpenAI-compatible server where one agent
// answers after 1.5 s and one is down (HTTP 500).
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../testing/openai-compatible-server.js';
import { serveSumTeam } from '../testing/_test-served-sum-team.js';
import type { TeamServiceOptions } from './team-service.js';

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const SLOW_MS = 1500;
const agentOf = (request: RecordedRequest) => {
  const system = (request.body as { messages: Array<{ role: string; content: string }> }).messages.find(
    (message) => message.role === 'system',
  );
  return /You are agent (\S+),/.exec(String(system?.content))?.[1] ?? '?';
};

function reply(request: RecordedRequest) {
  const messages = (request.body as { messages: Array<{ role: string; content: string }> }).messages;
  const last = String(messages.filter((message) => message.role === 'user').at(-1)?.content);
  const match = /What is (\d+) \+ (\d+)\?/.exec(last);
  const sum = Number(match?.[1]) + Number(match?.[2]);
  return `That makes ${sum}.\nAnswer: ${sum}`;
}

async function setup(service: Partial<TeamServiceOptions>, agents = ['alpha', 'beta', 'slow', 'down']) {
  const served = await serveSumTeam(closers, {
    script: (request) => {
      const agent = agentOf(request);
      if (agent === 'down') return { type: 'error', status: 500, message: 'down for maintenance' };
      if (agent === 'slow') return { type: 'reply', text: reply(request), delayMs: SLOW_MS };
      return reply(request);
    },
    agents,
    service,
  });
  const calls = (agent: string) => served.provider.requests.filter((request) => agentOf(request) === agent).length;
  const evidence = () => {
    const model = served.servedModel();
    return Object.fromEntries(agents.map((id) => [id, model.explain(id).evidenceCount]));
  };
  return { ...served, calls, evidence };
}

const repute = (completion: unknown) => (completion as { repute: any }).repute;
const ask = (client: OpenAI, content: string, headers: Record<string, string> = {}) =>
  client.chat.completions.create({ model: 'team:sum-team', messages: [{ role: 'user', content }] }, { headers });

describe('deadline, quorum and circuit breaker of the team endpoint', () => {
  it('decides at the deadline without the slow agent, then records its late answer for reputation', async () => {
    const { client, store, team, evidence } = await setup({ breaker: false });
    const started = performance.now();
    const completion = await ask(client, 'What is 7 + 9?', { 'x-repute-deadline-ms': '600' });
    const elapsed = performance.now() - started;
    // Decided at the 600 ms deadline, not after the slow agent's 1500 ms.
    expect(elapsed).toBeGreaterThanOrEqual(590);
    expect(elapsed).toBeLessThan(SLOW_MS);
    expect(completion.choices[0]?.message.content).toBe('That makes 16.');
    const served = repute(completion);
    expect(served.decision.answer).toBe('16');
    expect(served.degraded.map((entry: { agentId: string }) => entry.agentId)).toEqual(['down']);
    expect(served.skipped).toHaveLength(1);
    expect(served.skipped[0]).toMatchObject({ agentId: 'slow', reason: 'deadline' });
    expect(served.skipped[0].waitedMs).toBeGreaterThanOrEqual(590);
    // Evidence from the three that answered or failed in time; the slow one's comes later.
    expect(evidence()).toEqual({ alpha: 1, beta: 1, slow: 0, down: 1 });
    await team.idle();
    expect(evidence()).toEqual({ alpha: 1, beta: 1, slow: 1, down: 1 });
    // Its call is booked in the ledger with its real latency (about 1.5 s), under the request's task.
    const booked = store.usageEntries({ runId: 'serve' }).filter((entry) => entry.agentId === 'slow');
    expect(booked).toHaveLength(1);
    expect(booked[0]).toMatchObject({ taskId: 'chat-1', inputTokens: 10, outputTokens: 5 });
    const call = booked[0] as { startedAt?: number | null; endedAt?: number | null };
    expect((call.endedAt ?? 0) - (call.startedAt ?? 0)).toBeGreaterThanOrEqual(SLOW_MS - 50);
    const late = store
      .events('serve', { type: 'proposal', taskId: 'chat-1' })
      .filter((event) => (event.data as { late?: boolean }).late === true);
    expect(late.map((event) => event.data)).toEqual([
      { type: 'proposal', taskId: 'chat-1', round: 0, agentId: 'slow', answer: '16', late: true },
    ]);
    // The late answer agreed with the decision: the slow agent's score rose in the update event.
    const updates = store.events('serve', { type: 'reputation-update', taskId: 'chat-1' });
    expect(updates).toHaveLength(2);
    const lateUpdate = updates[1]?.data as { before: Record<string, number>; after: Record<string, number> };
    expect(lateUpdate.after.slow).toBeGreaterThan(lateUpdate.before.slow as number);
  });

  it('decides at the quorum: the team file quorum of 2 answers in well under the slow agent', async () => {
    const { client, team } = await setup({ quorum: 2, breaker: false });
    const started = performance.now();
    const completion = await ask(client, 'What is 1 + 2?');
    expect(performance.now() - started).toBeLessThan(SLOW_MS);
    const served = repute(completion);
    expect(served.decision.answer).toBe('3');
    expect(
      served.skipped.map((skip: { agentId: string; reason: string }) => [skip.agentId, skip.reason]),
    ).toContainEqual(['slow', 'quorum']);
    await team.idle();
  });

  it('skips an agent that failed twice in a row (circuit open) and says why', async () => {
    const { client, calls, team } = await setup({
      deadlineMs: 400,
      breaker: { failureThreshold: 2, cooldownMs: 60_000 },
    });
    await ask(client, 'What is 1 + 1?');
    await ask(client, 'What is 2 + 2?');
    expect(calls('down')).toBe(2);
    const third = await ask(client, 'What is 3 + 3?');
    expect(calls('down')).toBe(2);
    const skip = repute(third).skipped.find((entry: { agentId: string }) => entry.agentId === 'down');
    expect(skip).toMatchObject({ agentId: 'down', reason: 'circuit-open', failures: 2 });
    expect(skip.retryAt).toBeGreaterThan(Date.now() + 50_000);
    expect(repute(third).degraded).toEqual([]);
    await team.idle();
  });

  it('streams one progress chunk per agent as it answers, then the reply, before the slow agent', async () => {
    const { client, team } = await setup({ deadlineMs: 600, breaker: false });
    const started = performance.now();
    const stream = await client.chat.completions.create({
      model: 'team:sum-team',
      messages: [{ role: 'user', content: 'What is 5 + 6?' }],
      stream: true,
    });
    const chunks: any[] = [];
    for await (const chunk of stream) chunks.push({ ...chunk, at: performance.now() - started });
    const progress = chunks.filter((chunk) => chunk.repute?.progress !== undefined);
    // alpha, beta and down settle within the 600 ms deadline (down fails); slow does not.
    expect(progress.map((chunk) => chunk.repute.progress.agentId).sort()).toEqual(['alpha', 'beta', 'down']);
    expect(progress.every((chunk) => chunk.choices.length === 0 && chunk.repute.progress.type === 'agent')).toBe(true);
    const down = progress.find((chunk) => chunk.repute.progress.agentId === 'down').repute.progress;
    expect(down).toMatchObject({ failed: true, answer: null, called: 4 });
    const alpha = progress.find((chunk) => chunk.repute.progress.agentId === 'alpha').repute.progress;
    expect(alpha).toMatchObject({ failed: false, answer: '11', called: 4 });
    // Progress came before the reply; the reply and the decision at the deadline, not after 1.5 s.
    const contentIndex = chunks.findIndex((chunk) => (chunk.choices[0]?.delta?.content ?? '') !== '');
    expect(contentIndex).toBeGreaterThan(chunks.indexOf(progress.at(-1)));
    expect(chunks[contentIndex].choices[0].delta.content).toBe('That makes 11.');
    const last = chunks.at(-1);
    expect(last.choices[0].finish_reason).toBe('stop');
    expect(last.repute.skipped).toMatchObject([{ agentId: 'slow', reason: 'deadline' }]);
    expect(last.at).toBeLessThan(SLOW_MS);
    await team.idle();
  });

  it('a streamed request that no agent answers in time still gets its 502 status, naming who and why', async () => {
    const { client, team } = await setup({ deadlineMs: 300, breaker: false }, ['slow', 'down']);
    const error = await client.chat.completions
      .create({ model: 'team:sum-team', messages: [{ role: 'user', content: 'What is 1 + 1?' }], stream: true })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    const message = (error as InstanceType<typeof OpenAI.APIError>).message;
    expect(message).toContain('no agent of team sum-team answered in time');
    expect(message).toContain('slow: no answer within the deadline of 300 ms');
    await team.idle();
  });

  it('refuses a deadline header that is not a positive whole number of ms, naming it', async () => {
    const { client, calls } = await setup({});
    for (const value of ['soon', '0', '-5', '1.5']) {
      const error = await ask(client, 'What is 1 + 1?', { 'x-repute-deadline-ms': value }).catch((caught) => caught);
      expect(error, value).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as { error: { param: string } }).error.param).toBe('header.x-repute-deadline-ms');
    }
    expect(calls('alpha')).toBe(0);
  });
});
