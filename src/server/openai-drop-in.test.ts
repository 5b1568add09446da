// The team endpoint as a drop-in model, driven by the official `openai` client: plain-text replies,
// a two-turn conversation answered in context, a JSON Schema reply format honoured, sampling
// settings forwarded, fields the team cannot honour refused with 400, and streaming.
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultServeMethod } from '../protocols/debate/methods.js';
import type { RecordedRequest } from '../testing/openai-compatible-server.js';
import { serveSumTeam } from '../testing/_test-served-sum-team.js';

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

type Turn = { role: string; content: string | Array<{ text: string }> };
const text = (turn: Turn | undefined) =>
  typeof turn?.content === 'string' ? turn.content : (turn?.content ?? []).map((part) => part.text).join('');

/**
 * A scripted model that reads the conversation: "What is a + b?" is answered with the sum; "Add n to
 * that." adds n to the number the last assistant turn ended with (only possible with that turn in
 * hand). Replies as a person would, with the short answer on a last line, or as JSON when a reply
 * format is asked for (agent `weak` then breaks the schema: `total` instead of `sum`).
 */
function conversationalReply(request: RecordedRequest): string {
  const body = request.body as { messages: Turn[]; response_format?: unknown };
  const agent = /You are agent (\S+),/.exec(text(body.messages.find((turn) => turn.role === 'system')))?.[1];
  const last = text(body.messages.filter((turn) => turn.role === 'user').at(-1));
  const sum = /What is (\d+) \+ (\d+)\?/.exec(last);
  let value: number;
  if (sum) value = Number(sum[1]) + Number(sum[2]);
  else {
    const add = Number(/Add (\d+) to that/.exec(last)?.[1] ?? Number.NaN);
    const previous = text(body.messages.filter((turn) => turn.role === 'assistant').at(-1));
    value = Number(previous.match(/\d+/g)?.at(-1) ?? Number.NaN) + add;
  }
  if (agent === 'weak') value += 1;
  if (body.response_format !== undefined) return JSON.stringify(agent === 'weak' ? { total: value } : { sum: value });
  return `Working it through, the result is ${value}.\nAnswer: ${value}`;
}

async function setup({ cache = false }: { cache?: boolean } = {}) {
  return serveSumTeam(closers, { script: conversationalReply, cache });
}

const repute = (completion: unknown) => (completion as { repute: any }).repute;

describe('the team endpoint as a drop-in model (openai client)', () => {
  it('answers with the chosen reply as plain text, the answer line kept out of it', async () => {
    const { client } = await setup();
    const completion = await client.chat.completions.create({
      model: 'team:sum-team',
      messages: [{ role: 'user', content: 'What is 7 + 9?' }],
    });
    // alpha, beta-1, beta-2 say 16, weak 17: the reply is a 16-agent's text without its "Answer:" line.
    expect(completion.choices[0]!.message.content).toBe('Working it through, the result is 16.');
    expect(repute(completion).decision.answer).toBe('16');
  });

  it('answers a follow-up in the context of the conversation', async () => {
    const { client, provider } = await setup();
    const first = await client.chat.completions.create({
      model: 'team:sum-team',
      messages: [{ role: 'user', content: 'What is 1 + 1?' }],
    });
    const reply = first.choices[0]!.message.content ?? '';
    expect(repute(first).decision.answer).toBe('2');
    const second = await client.chat.completions.create({
      model: 'team:sum-team',
      messages: [
        { role: 'user', content: 'What is 1 + 1?' },
        { role: 'assistant', content: reply },
        { role: 'user', content: 'Add 10 to that.' },
      ],
    });
    // 2 + 10 = 12: only an agent that got the assistant turn can say so.
    expect(repute(second).decision.answer).toBe('12');
    expect(second.choices[0]!.message.content).toBe('Working it through, the result is 12.');
    // Every agent got the turns as messages: its system message, then user, assistant, user.
    const followUps = provider.requests.filter((request) => JSON.stringify(request.body).includes('Add 10 to that'));
    expect(followUps).toHaveLength(4);
    for (const request of followUps)
      expect((request.body as { messages: Turn[] }).messages.map((turn) => turn.role)).toEqual([
        'system',
        'user',
        'assistant',
        'user',
      ]);
  });

  it('honours response_format json_schema: JSON content that matches, a non-matching reply gets no vote', async () => {
    const { client, provider } = await setup();
    const completion = await client.chat.completions.create({
      model: 'team:sum-team',
      messages: [{ role: 'user', content: 'What is 20 + 5?' }],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'sum',
          schema: {
            type: 'object',
            properties: { sum: { type: 'integer' } },
            required: ['sum'],
            additionalProperties: false,
          },
        },
      },
    });
    expect(JSON.parse(completion.choices[0]!.message.content ?? '')).toEqual({ sum: 25 });
    const weights = repute(completion).weights as Array<{ agentId: string; answer: string | null }>;
    expect(weights.find((weight) => weight.agentId === 'weak')?.answer).toBeNull();
    expect(weights.find((weight) => weight.agentId === 'alpha')?.answer).toBe('{"sum":25}');
    // The agents were asked for JSON.
    const asked = provider.requests.filter((request) => JSON.stringify(request.body).includes('What is 20 + 5?'));
    for (const request of asked)
      expect((request.body as { response_format?: { type: string } }).response_format?.type).toMatch(/^json/);
  });

  it('forwards sampling settings, and refuses with 400 what it cannot honour, naming it', async () => {
    const { client, provider } = await setup();
    await client.chat.completions.create({
      model: 'team:sum-team',
      messages: [{ role: 'user', content: 'What is 3 + 4?' }],
      temperature: 0.7,
      top_p: 0.9,
      max_tokens: 256,
      seed: 11,
      stop: ['\n\n\n'],
    });
    for (const request of provider.requests)
      expect(request.body).toMatchObject({ temperature: 0.7, top_p: 0.9, max_tokens: 256, seed: 11, stop: ['\n\n\n'] });
    const before = provider.requests.length;
    const refused = await client.chat.completions
      .create({
        model: 'team:sum-team',
        messages: [{ role: 'user', content: 'What is 3 + 4?' }],
        logprobs: true,
        top_logprobs: 2,
      })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    expect(refused).toMatchObject({ status: 400, error: { param: 'body.logprobs', type: 'invalid_request_error' } });
    expect((refused as InstanceType<typeof OpenAI.APIError>).message).toMatch(/"logprobs", "top_logprobs"/);
    await expect(
      client.chat.completions.create({
        model: 'team:sum-team',
        messages: [{ role: 'user', content: 'hi' }],
        temperature: 3,
      }),
    ).rejects.toMatchObject({ status: 400, error: { param: 'body.temperature' } });
    // Nothing reached an agent.
    expect(provider.requests.length).toBe(before);
  });

  it('streams the plain-text reply in chunks with the repute field at the end', async () => {
    const { client } = await setup();
    const stream = await client.chat.completions.create({
      model: 'team:sum-team',
      messages: [{ role: 'user', content: 'What is 2 + 3?' }],
      stream: true,
    });
    let content = '';
    let last: any;
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta.content ?? '';
      last = chunk;
    }
    expect(content).toBe('Working it through, the result is 5.');
    expect(last.choices[0].finish_reason).toBe('stop');
    expect(last.repute.decision.answer).toBe('5');
  });
});

describe('cache and evidence', () => {
  it('a cached repeat calls no agent and leaves every evidence count unchanged; a new question counts', async () => {
    const { client, provider, servedModel } = await setup({ cache: true });
    const ask = (content: string) =>
      client.chat.completions.create({ model: 'team:sum-team', messages: [{ role: 'user', content }] });
    const evidence = () => {
      const model = servedModel();
      return Object.fromEntries(
        ['alpha', 'beta-1', 'beta-2', 'weak'].map((id) => [id, model.explain(id).evidenceCount]),
      );
    };
    const first = await ask('What is 4 + 4?');
    expect(repute(first).repeated).toEqual([]);
    const calls = provider.requests.length;
    const once = evidence();
    expect(once).toEqual({ alpha: 1, 'beta-1': 1, 'beta-2': 1, weak: 1 });
    const again = await ask('What is 4 + 4?');
    // Served from the cache: no agent called, the same reply, and no new evidence for anyone.
    expect(provider.requests.length).toBe(calls);
    expect(again.choices[0]!.message.content).toBe(first.choices[0]!.message.content);
    expect(repute(again).repeated).toEqual(['alpha', 'beta-1', 'beta-2', 'weak']);
    expect(evidence()).toEqual(once);
    // A different sampling setting is a different request: called again, and it counts.
    await client.chat.completions.create({
      model: 'team:sum-team',
      messages: [{ role: 'user', content: 'What is 4 + 4?' }],
      temperature: 0.5,
    });
    expect(provider.requests.length).toBe(calls + 4);
    expect(evidence()).toEqual({ alpha: 2, 'beta-1': 2, 'beta-2': 2, weak: 2 });
  });
});

describe('feedback on a served decision', () => {
  it('moves reputation once per decision (a re-post changes nothing) and shows as served accuracy', async () => {
    const { client, servedModel } = await setup();
    const server = (client.baseURL as string).replace(/\/v1$/, '');
    const completion = await client.chat.completions.create({
      model: 'team:sum-team',
      messages: [{ role: 'user', content: 'What is 30 + 12?' }],
    });
    const evidence = () => {
      const model = servedModel();
      return Object.fromEntries(['alpha', 'weak'].map((id) => [id, model.explain(id).evidenceCount]));
    };
    const scores = () => servedModel().scores();
    const grade = (body: object) =>
      fetch(`${server}/v1/feedback`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const before = scores();
    expect(evidence()).toEqual({ alpha: 1, weak: 1 });
    // The reference says 42: alpha (42) right, weak (43) wrong.
    const first = await grade({ taskId: completion.id, reference: '42' });
    expect(first.status).toBe(200);
    const result = (await first.json()) as any;
    expect(result).toMatchObject({
      applied: true,
      score: 1,
      successes: { alpha: 1, 'beta-1': 1, 'beta-2': 1, weak: 0 },
    });
    const after = scores();
    expect(evidence()).toEqual({ alpha: 2, weak: 2 });
    expect(after.alpha!).toBeGreaterThan(before.alpha!);
    expect(after.weak!).toBeLessThan(before.weak!);
    // Again, in another form: nothing moves, the first grade is returned.
    const again = (await (await grade({ taskId: repute(completion).taskId, correct: false })).json()) as any;
    expect(again).toMatchObject({ applied: false, score: 1 });
    expect(scores()).toEqual(after);
    expect(evidence()).toEqual({ alpha: 2, weak: 2 });
    // Served accuracy: the run's method (the default) has one graded decision, right.
    const run = (await (await fetch(`${server}/api/runs/serve`)).json()) as any;
    expect(run.methods.find((method: { name: string }) => method.name === defaultServeMethod)).toMatchObject({
      graded: 1,
      correct: 1,
      accuracy: 1,
    });
    // Bad grades are refused before anything is written.
    expect((await grade({ taskId: 'chat-404', correct: true })).status).toBe(404);
    expect((await grade({ taskId: repute(completion).taskId, correct: true, score: 1 })).status).toBe(400);
    expect((await grade({ taskId: repute(completion).taskId })).status).toBe(400);
  });
});
