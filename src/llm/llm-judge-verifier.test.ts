import { wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { verifyProposals } from '../aggregation/verifier.js';
import { ProviderError } from '../core/errors.js';
import type { Proposal } from '../core/proposal.js';
import type { Task } from '../core/task.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { createCacheMiddleware, type ResponseCache } from './cache-middleware.js';
import { createLlmJudgeVerifier } from './llm-judge-verifier.js';

const task: Task = { id: 't1', kind: 'number', prompt: 'What is 2 + 2?' };
const propose = (agentId: string, answer: string | null, text = `The answer is ${answer}.`): Proposal => ({
  agentId,
  taskId: 't1',
  round: 0,
  text,
  answer,
});

function memoryCache(): ResponseCache & { size(): number } {
  const entries = new Map<string, unknown>();
  return {
    getCachedResponse: (key) => entries.get(key),
    putCachedResponse: ({ key, value }) => (entries.has(key) ? false : (entries.set(key, value), true)),
    size: () => entries.size,
  };
}

describe('createLlmJudgeVerifier', () => {
  it('turns the structured verdict into P(correct), skips unparseable proposals, and shows the task and answer to the judge', async () => {
    const model = new ScriptedModel({
      replies: [
        JSON.stringify({ correct: true, confidence: 0.9, reason: '2 + 2 = 4' }),
        JSON.stringify({ correct: false, confidence: 0.7, reason: '2 + 2 is not 5' }),
      ],
    });
    const judge = createLlmJudgeVerifier({ model, runId: 'run-1' });
    expect(judge.name).toBe('llm-judge(scripted-model)');
    // Right with confidence 0.9 → 0.9; wrong with confidence 0.7 → 1 − 0.7 = 0.3; null → 0 without a call.
    const verdicts = await verifyProposals({
      verifier: judge,
      task,
      proposals: [propose('a', '4'), propose('b', '5'), propose('c', null, 'no idea')],
    });
    expect(verdicts.a).toBeCloseTo(0.9, 12);
    expect(verdicts.b).toBeCloseTo(0.3, 12);
    expect(verdicts.c).toBe(0);
    expect(model.calls).toHaveLength(2);
    expect(model.promptText(0)).toMatch(/What is 2 \+ 2\?[\s\S]*The answer is 4\.[\s\S]*Extracted final answer: 4/);
    // Structured output: the call asks for JSON, at temperature 0, tagged for the ledger.
    expect(model.calls[0]?.responseFormat?.type).toBe('json');
    expect(model.calls[0]?.temperature).toBe(0);
    expect(model.calls[0]?.providerOptions?.repute).toEqual({ runId: 'run-1', taskId: 't1', act: 'verify' });
  });

  it('goes through the cache middleware: the same question twice makes one model call', async () => {
    const scripted = new ScriptedModel({ replies: [JSON.stringify({ correct: true, confidence: 0.8, reason: 'ok' })] });
    const cache = memoryCache();
    const model = wrapLanguageModel({ model: scripted, middleware: createCacheMiddleware({ cache }) });
    const judge = createLlmJudgeVerifier({ model });
    expect(await judge.verify({ task, proposal: propose('a', '4') })).toBeCloseTo(0.8, 12);
    expect(await judge.verify({ task, proposal: propose('a', '4') })).toBeCloseTo(0.8, 12);
    expect(scripted.calls).toHaveLength(1);
    expect(cache.size()).toBe(1);
  });

  it('throws a ProviderError naming the agent and task when the reply is not a verdict', async () => {
    const judge = createLlmJudgeVerifier({ model: new ScriptedModel({ replies: ['I think it is fine.'] }) });
    await expect(judge.verify({ task, proposal: propose('a', '4') })).rejects.toThrow(ProviderError);
    const judge2 = createLlmJudgeVerifier({
      model: new ScriptedModel({ replies: [JSON.stringify({ correct: true, confidence: 3, reason: 'x' })] }),
    });
    await expect(judge2.verify({ task, proposal: propose('a', '4') })).rejects.toThrow(
      /no valid verdict for agent a on task t1/,
    );
  });

  it('refuses a missing model at construction', () => {
    expect(() => createLlmJudgeVerifier({ model: undefined as never })).toThrow(/createLanguageModel/);
  });
});
