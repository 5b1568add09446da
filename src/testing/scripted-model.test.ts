// Exercises the LanguageModelV3 surface directly; src/llm/middleware.test.ts drives ScriptedModel
// through the AI SDK's generateText and streamText (only src/llm imports `ai`).
import { describe, expect, it } from 'vitest';
import { ScriptedModel } from './scripted-model.js';

const user = (text: string) => ({ role: 'user' as const, content: [{ type: 'text' as const, text }] });

describe('ScriptedModel', () => {
  it('answers from the list in order and records every call', async () => {
    const model = new ScriptedModel({
      replies: ['first', { text: 'second', usage: { inputTokens: 3, outputTokens: 2 } }],
    });
    const one = await model.doGenerate({ prompt: [user('q1')] });
    const two = await model.doGenerate({
      prompt: [{ role: 'system', content: 'be brief' }, user('q2')],
      temperature: 0.3,
    });
    expect([one.content, two.content]).toEqual([[{ type: 'text', text: 'first' }], [{ type: 'text', text: 'second' }]]);
    expect(one.usage.inputTokens.total).toBe(10);
    expect(two.usage.inputTokens.total).toBe(3);
    expect(two.usage.outputTokens.total).toBe(2);
    expect(model.calls).toHaveLength(2);
    expect(model.calls[1]!.temperature).toBe(0.3);
    expect(model.promptText(1)).toBe('be brief\nq2');
    expect(() => model.promptText(5)).toThrow(/no call 5; the model was called 2 time/);
    await expect(model.doGenerate({ prompt: [user('q3')] })).rejects.toThrow(
      /ran out of replies: call 3 but only 2 scripted/,
    );
    await expect(model.doGenerate({ prompt: [user('q4')] })).rejects.toMatchObject({
      name: 'InvalidArgumentError',
      parameter: 'replies',
      value: 4,
    });
  });

  it('throws scripted errors, streams, and answers from a function', async () => {
    const failing = new ScriptedModel({ replies: [{ error: new Error('scripted failure') }] });
    await expect(failing.doGenerate({ prompt: [user('x')] })).rejects.toThrow('scripted failure');
    const echo = new ScriptedModel({ replies: (call, index) => `#${index}: ${call.prompt.length} message(s)` });
    const { stream } = await echo.doStream({ prompt: [user('hello')] });
    const parts: unknown[] = [];
    for await (const part of stream as unknown as AsyncIterable<unknown>) parts.push(part);
    expect(parts.map((part) => (part as { type: string }).type)).toEqual([
      'stream-start',
      'text-start',
      'text-delta',
      'text-end',
      'finish',
    ]);
    expect(parts[2]).toMatchObject({ delta: '#0: 1 message(s)' });
    // A JavaScript caller's replies function may return undefined; the model names the call that found nothing.
    const firstOnly = (_call: unknown, index: number) => (index === 0 ? 'only' : undefined);
    const once = new ScriptedModel({ replies: firstOnly as unknown as () => string });
    await once.doGenerate({ prompt: [user('a')] });
    await expect(once.doGenerate({ prompt: [user('b')] })).rejects.toThrow(
      /call 2 but the replies function returned undefined/,
    );
  });

  it('honours the abort signal during a scripted delay', async () => {
    const model = new ScriptedModel({ replies: [{ text: 'late', delayMs: 5_000 }] });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop waiting')), 20);
    await expect(model.doGenerate({ prompt: [user('x')], abortSignal: controller.signal })).rejects.toThrow(
      'stop waiting',
    );
  });
});
