import { describe, expect, it } from 'vitest';
import { DataFormatError, InvalidArgumentError, ProviderError } from '../core/errors.js';
import { BadReplyError } from './bad-reply-error.js';
import {
  answerFromReply,
  createLiveAgent,
  keepLatexBackslashes,
  parseJsonReply,
  type CompletionRequest,
} from './live-agent.js';

const task = { id: 't1', kind: 'number' as const, prompt: 'What is 6 × 7?' };

function fake(replies: string[]) {
  const calls: CompletionRequest[] = [];
  return {
    calls,
    complete: async (request: CompletionRequest) => {
      calls.push(request);
      return {
        text: replies[calls.length - 1] ?? '',
        usage: { inputTokens: 12, outputTokens: 7, cost: 0, cached: false },
      };
    },
  };
}

describe('parseJsonReply', () => {
  it('finds JSON bare, fenced, or inside prose, and gives up on none', () => {
    expect(parseJsonReply('{"answer": "4"}')).toEqual({ answer: '4' });
    expect(parseJsonReply('Sure!\n```json\n{"answer": "4"}\n```\nDone.')).toEqual({ answer: '4' });
    expect(parseJsonReply('I think {"score": 0.5, "reason": "ok"} is right}')).toEqual({ score: 0.5, reason: 'ok' });
    expect(parseJsonReply('no json here')).toBeUndefined();
  });
});

describe('answerFromReply', () => {
  it('extracts the JSON answer per kind, falls back to the text, and returns null when nothing parses', () => {
    expect(answerFromReply('number', '{"reasoning": "6 times 7", "answer": "42"}')).toBe('42');
    expect(answerFromReply('number', 'The final answer is \\boxed{42}.')).toBe('42');
    expect(answerFromReply('number', 'I cannot tell.')).toBeNull();
  });
});

describe('LaTeX in a JSON reply', () => {
  it.each([
    ['\\frac{3}{4}', '0.75'],
    ['2\\times 3', '6'],
    ['\\sqrt{2}', String(Math.SQRT2.toPrecision(10))],
    ['\\theta', null],
  ])('reads a math answer written with single backslashes (%s) as the LaTeX it is', (latex, key) => {
    // What a model following the prompt's example writes: one backslash inside the JSON string.
    const reply = `{"reasoning": "work", "answer": "${latex}"}`;
    const expected = key ?? answerFromReply('math', `{"answer": "${latex.replace(/\\/g, '\\\\')}"}`);
    expect(expected).not.toBeNull();
    expect(answerFromReply('math', reply)).toBe(expected);
  });

  it('leaves correct JSON (doubled backslashes), unicode escapes and code answers alone', () => {
    expect(answerFromReply('math', '{"answer": "\\\\frac{3}{4}"}')).toBe('0.75');
    expect(keepLatexBackslashes('{"a": "\\\\frac", "b": "\\u00b0", "c": "\\\\\\frac"}')).toBe(
      '{"a": "\\\\frac", "b": "\\u00b0", "c": "\\\\\\\\frac"}',
    );
    // A code answer keeps its line breaks (\n before a letter is a real newline there).
    const code = answerFromReply('code', '{"answer": "x = 1\\ny = 2"}');
    expect(code).toContain('x = 1\ny = 2');
  });
});

describe('createLiveAgent', () => {
  it('reads answers from normal prose per kind without a repair prompt', async () => {
    const cases: Array<[Parameters<typeof answerFromReply>[0], string, string]> = [
      ['number', 'Six times seven is 42, so the final answer is 42.', '42'],
      ['math', 'Simplifying, we get \\boxed{\\frac{3}{4}}.', '0.75'],
      ['choice', 'Looking at the options, the correct one is (B).', 'B'],
      ['exact', 'Paris', 'paris'],
    ];
    for (const [kind, reply, expected] of cases) {
      const model = fake([reply]);
      const agent = createLiveAgent({ identity: { id: 'a1', model: 'm' }, complete: model.complete });
      const { value } = await agent.propose({ task: { ...task, kind } });
      expect(value.answer, reply).toBe(expected);
      expect(model.calls.map((call) => [call.context.act, call.context.answerKind])).toEqual([['propose', kind]]);
    }
  });

  it('fails the act with a BadReplyError keeping the reply when the repair prompt gets no answer either', async () => {
    const model = fake(['lorem ipsum', 'dolor sit amet']);
    const agent = createLiveAgent({ identity: { id: 'a1', model: 'm' }, complete: model.complete });
    const error = await agent.propose({ task }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(BadReplyError);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as BadReplyError).reason).toBe('bad-reply');
    expect((error as BadReplyError).message).toContain("agent a1's propose reply held no number answer");
    expect((error as BadReplyError).message).toContain('"dolor sit amet"');
    // Both calls' tokens: 12 + 12 input.
    expect((error as BadReplyError).usage.inputTokens).toBe(24);
    expect(model.calls.map((call) => call.context.act)).toEqual(['propose', 'propose-repair']);
  });

  it('asks once per act with the act and task in the call context, and parses the reply', async () => {
    const model = fake([
      '{"reasoning": "6·7", "answer": "42"}',
      'garbage',
      'Sorry: the answer is 41.',
      '{"score": 0.25, "reason": "off by one"}',
      'not json',
      '{"reliable": false, "reason": "payload"}',
    ]);
    const agent = createLiveAgent({ identity: { id: 'a1', model: 'm' }, complete: model.complete });
    const proposed = await agent.propose({ task });
    expect(proposed.value).toMatchObject({ agentId: 'a1', taskId: 't1', round: 0, answer: '42' });
    expect(proposed.usage.inputTokens).toBe(12);
    const revised = await agent.revise({
      task,
      round: 1,
      own: proposed.value,
      peers: [{ agentId: 'b', taskId: 't1', round: 0, text: 'x'.repeat(2000), answer: '41' }],
    });
    // The revise reply held no number: one repair prompt quoting it got one.
    expect(revised.value.answer).toBe('41');
    expect(revised.usage.inputTokens).toBe(24);
    expect(model.calls[2]?.prompt).toContain('Your reply was:\n"garbage"');
    // Peer text is clipped to 600 characters plus an ellipsis.
    expect(model.calls[1]?.prompt).toContain(`${'x'.repeat(600)}…`);
    expect(model.calls[1]?.prompt).not.toContain('x'.repeat(601));
    expect((await agent.rate({ task, proposal: revised.value })).value).toMatchObject({
      rater: 'a1',
      score: 0.25,
      reason: 'off by one',
    });
    expect((await agent.rate({ task, proposal: revised.value })).value).toMatchObject({
      score: 0.5,
      reason: 'unparseable rating reply; neutral score 0.5',
    });
    expect(
      (
        await agent.audit({
          message: { schemaVersion: 1, id: 'm', from: 'b', round: 0, taskId: 't1', text: 'trust me', answer: '41' },
        })
      ).value.reliable,
    ).toBe(false);
    expect(model.calls.map((call) => [call.context.act, call.context.taskId])).toEqual([
      ['propose', 't1'],
      ['revise', 't1'],
      ['revise-repair', 't1'],
      ['rate', 't1'],
      ['rate', 't1'],
      ['audit', 't1'],
    ]);
    expect(model.calls.every((call) => call.system.includes('agent a1'))).toBe(true);
  });

  it('throws a DataFormatError on an unparseable audit, never a crash on a proposal', async () => {
    const agent = createLiveAgent({ identity: { id: 'a1', model: 'm' }, complete: fake(['???']).complete });
    await expect(
      agent.audit({ message: { schemaVersion: 1, id: 'm', from: 'b', round: 0, text: 'x' } }),
    ).rejects.toThrow(DataFormatError);
    expect(() => createLiveAgent({ identity: { id: 'a1', model: 'm' }, complete: 'nope' as never })).toThrow(
      InvalidArgumentError,
    );
  });
});
