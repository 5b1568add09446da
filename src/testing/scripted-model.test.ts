import { generateText, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { ScriptedModel } from './scripted-model.js';

describe('ScriptedModel', () => {
  it('answers from the list in order and records every call', async () => {
    const model = new ScriptedModel({ replies: ['first', { text: 'second', usage: { inputTokens: 3, outputTokens: 2 } }] });
    const one = await generateText({ model, prompt: 'q1' });
    const two = await generateText({ model, system: 'be brief', prompt: 'q2', temperature: 0.3 });
    expect([one.text, two.text]).toEqual(['first', 'second']);
    expect(two.usage.inputTokens).toBe(3);
    expect(model.calls).toHaveLength(2);
    expect(model.calls[1]!.temperature).toBe(0.3);
    expect(model.promptText(1)).toBe('be brief\nq2');
    await expect(generateText({ model, prompt: 'q3', maxRetries: 0 })).rejects.toThrow(/ran out of replies: call 3 but only 2 scripted/);
  });

  it('throws scripted errors, streams, and answers from a function', async () => {
    const failing = new ScriptedModel({ replies: [{ error: new Error('scripted failure') }] });
    await expect(generateText({ model: failing, prompt: 'x', maxRetries: 0 })).rejects.toThrow('scripted failure');
    const echo = new ScriptedModel({ replies: (call, index) => `#${index}: ${call.prompt.length} message(s)` });
    const streamed = streamText({ model: echo, prompt: 'hello' });
    expect(await streamed.text).toBe('#0: 1 message(s)');
  });

  it('honours the abort signal during a scripted delay', async () => {
    const model = new ScriptedModel({ replies: [{ text: 'late', delayMs: 5_000 }] });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop waiting')), 20);
    await expect(generateText({ model, prompt: 'x', abortSignal: controller.signal, maxRetries: 0 })).rejects.toThrow('stop waiting');
  });
});
