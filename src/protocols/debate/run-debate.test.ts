import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../agents/agent.js';
import { createSimulatedAgent } from '../../agents/simulated-agent.js';
import { createSimulationWorld } from '../../agents/simulation-world.js';
import { createPluralityAggregator, createWeightedPluralityAggregator } from '../../aggregation/plurality.js';
import { InvalidArgumentError, ProviderError } from '../../core/errors.js';
import type { Proposal } from '../../core/proposal.js';
import { createRng } from '../../core/rng.js';
import type { Task } from '../../core/task.js';
import { createMemoryTraceSink, createTracer } from '../../core/trace.js';
import { createBetaModel } from '../../reputation/beta.js';
import { runDebate, type RunDebateOptions } from './run-debate.js';

const task: Task = { id: 't1', kind: 'number', prompt: 'What is 6 × 7?', difficulty: 0.5 };

/** A scripted agent: fixed answers per round, optional delay, records in-flight calls. */
function scripted(
  id: string,
  answers: Array<string | null>,
  probe?: { inFlight: number; max: number },
  delayMs = 0,
  fail = false,
): Agent {
  const act = async (round: number): Promise<Proposal> => {
    if (probe) probe.max = Math.max(probe.max, ++probe.inFlight);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (probe) probe.inFlight--;
    if (fail) throw new Error(`provider down for ${id}`);
    const answer = answers[Math.min(round, answers.length - 1)] ?? null;
    return { agentId: id, taskId: task.id, round, text: `answer ${answer}`, answer };
  };
  const usage = { inputTokens: 10, outputTokens: 5, cost: 0.001, cached: false };
  return {
    identity: { id, model: `model-${id}` },
    kind: 'simulated',
    propose: async () => ({ value: await act(0), usage }),
    revise: async ({ round }) => ({ value: await act(round), usage }),
    rate: async ({ proposal }) => {
      if (probe) probe.max = Math.max(probe.max, ++probe.inFlight);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (probe) probe.inFlight--;
      return {
        value: { rater: id, ratee: proposal.agentId, taskId: task.id, score: proposal.answer === '42' ? 1 : 0 },
        usage,
      };
    },
    audit: async () => ({ value: { reliable: true, reason: 'ok' }, usage }),
    refineSubscription: async ({ current }) => ({ value: current, usage }),
  };
}

/** runDebate on the 6 × 7 task with plain plurality and seed 1, unless `options` say otherwise. */
const debatePlainly = (options: Pick<RunDebateOptions, 'team' | 'rounds'> & Partial<RunDebateOptions>) =>
  runDebate({ task, aggregator: createPluralityAggregator(), rng: createRng(1), ...options });

describe('runDebate', () => {
  it('proposes, debates, decides and writes every decision as an event', async () => {
    const sink = createMemoryTraceSink();
    const tracer = createTracer({ sink });
    const team = [scripted('a', ['42']), scripted('b', ['41', '42']), scripted('c', ['40', '40'])];
    const result = await debatePlainly({
      team,
      rounds: 1,
      tracer,
    });
    // Round 0 answers 42, 41, 40 (a three-way tie); after round 1: 42, 42, 40 → plurality 42 with 2 votes.
    expect(result.rounds.map((round) => round.map((proposal) => proposal.answer))).toEqual([
      ['42', '41', '40'],
      ['42', '42', '40'],
    ]);
    expect(result.decision.answer).toBe('42');
    expect(result.decision.support).toEqual({ '42': 2, '40': 1 });
    const types = sink.spans.map((span) => span.data.type);
    expect(types.filter((type) => type === 'proposal')).toHaveLength(6);
    expect(types).toContain('selection');
    expect(types).toContain('debate-round');
    expect(types).toContain('vote');
    expect(types.at(-1)).toBe('task');
    expect(result.usage).toHaveLength(6);
  });

  it('issues every call of a round at once', async () => {
    const probe = { inFlight: 0, max: 0 };
    const team = Array.from({ length: 10 }, (_, index) => scripted(`a${index}`, ['1'], probe, 20));
    await debatePlainly({
      team,
      rounds: 2,
      ratings: true,
    });
    // Propose and revise rounds have 10 calls each; the rating step has 10 · 9 = 90 calls at once.
    expect(probe.max).toBe(90);
  });

  it('counts a failing agent as unparseable instead of failing the task', async () => {
    const team = [scripted('a', ['42']), scripted('b', ['42']), scripted('x', ['1'], undefined, 0, true)];
    const result = await debatePlainly({
      team,
      rounds: 1,
    });
    expect(result.decision.answer).toBe('42');
    expect(result.failures.map((failure) => [failure.agentId, failure.act, failure.round])).toEqual([
      ['x', 'propose', 0],
      ['x', 'revise', 1],
    ]);
    expect(result.rounds[1]?.[2]?.answer).toBeNull();
  });

  it('sends no revision round and no ratings when every proposal failed at the provider', async () => {
    let calls = 0;
    const down = (id: string): Agent => {
      const fail = async (): Promise<never> => {
        calls++;
        throw new ProviderError({ provider: 'p', attempts: 3, reason: 'timeout', message: `${id} timed out` });
      };
      return { ...scripted(id, ['1']), propose: fail, revise: fail, rate: fail };
    };
    const result = await debatePlainly({ team: [down('a'), down('b'), down('c')], rounds: 2, ratings: true });
    // Before: 3 proposals + 2 rounds × 3 revisions + 3 × 2 ratings = 15 calls, each waiting out its timeouts.
    expect(calls).toBe(3);
    expect(result.failures.map((failure) => [failure.agentId, failure.act])).toEqual([
      ['a', 'propose'],
      ['b', 'propose'],
      ['c', 'propose'],
    ]);
    expect(result.rounds).toHaveLength(1);
  });

  it('weights votes by reputation and updates it after the decision with consensus feedback', async () => {
    const reputation = createBetaModel({ agents: ['a', 'b', 'c'] });
    // Teach the model that c is reliable and a, b are not: c right 5 times, a and b wrong 5 times.
    for (let index = 0; index < 5; index++) {
      reputation.observe([
        { type: 'outcome', taskId: `p${index}`, subject: 'a', success: 0 },
        { type: 'outcome', taskId: `p${index}`, subject: 'b', success: 0 },
        { type: 'outcome', taskId: `p${index}`, subject: 'c', success: 1 },
      ]);
    }
    const sink = createMemoryTraceSink();
    const team = [scripted('a', ['7']), scripted('b', ['7']), scripted('c', ['42'])];
    const result = await runDebate({
      team,
      task,
      rounds: 0,
      aggregator: createWeightedPluralityAggregator(),
      reputation,
      rng: createRng(1),
      tracer: createTracer({ sink }),
    });
    // c's Beta weight far exceeds a + b: with λ = 0.9 its positive count is Σ 0.9^i (i < 5) = 4.095,
    // score (4.095 + 1) / (4.095 + 2) = 0.836; a and b score 1 / 6.095 = 0.164 each; 0.836 > 0.328.
    expect(result.decision.answer).toBe('42');
    expect(result.reputationAfter.c).toBeGreaterThan(result.reputationBefore.c as number);
    expect(result.reputationAfter.a).toBeLessThan(result.reputationBefore.a as number);
    const update = sink.spans.find((span) => span.data.type === 'reputation-update');
    expect(update?.data).toMatchObject({ type: 'reputation-update', taskId: 't1' });
  });

  it('runs simulated teams deterministically', async () => {
    const tasks = [{ task, reference: '42' }];
    const world = createSimulationWorld({ tasks, seed: 3 });
    const make = () =>
      Array.from({ length: 5 }, (_, index) =>
        createSimulatedAgent({
          identity: { id: `s${index}`, model: `m${index % 2}` },
          profile: { skill: 0.6 },
          world,
          seed: 3,
        }),
      );
    const first = await debatePlainly({
      team: make(),
      rounds: 2,
    });
    const second = await debatePlainly({
      team: make(),
      rounds: 2,
    });
    expect(second).toEqual(first);
  });

  it('keeps its invariants for any team and script (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.option(fc.constantFrom('1', '2', '3'), { nil: null }), { minLength: 1, maxLength: 4 }), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.integer({ min: 0, max: 3 }),
        async (scripts, rounds) => {
          const sink = createMemoryTraceSink();
          const team = scripts.map((answers, index) => scripted(`a${index}`, answers));
          const result = await debatePlainly({
            team,
            rounds,
            tracer: createTracer({ sink }),
          });
          const played = team.length > 1 ? rounds : 0;
          expect(result.rounds).toHaveLength(played + 1);
          const final = result.rounds.at(-1)!;
          // The decision is one of the final answers (or null when none parsed), with plurality support.
          const counts = new Map<string, number>();
          for (const proposal of final)
            if (proposal.answer !== null) counts.set(proposal.answer, (counts.get(proposal.answer) ?? 0) + 1);
          if (counts.size === 0) expect(result.decision.answer).toBeNull();
          else expect(counts.get(result.decision.answer as string)).toBe(Math.max(...counts.values()));
          const types = sink.spans.map((span) => span.data.type);
          expect(types.filter((type) => type === 'proposal')).toHaveLength(team.length * (played + 1));
          expect(types.filter((type) => type === 'debate-round')).toHaveLength(played);
          expect(types.filter((type) => type === 'vote')).toHaveLength(1);
          expect(types.filter((type) => type === 'selection')).toHaveLength(1);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('stops at an abort even when the agents ignore the signal: no further round, no reputation update', async () => {
    // a aborts the run while it proposes, then answers anyway (as an agent that ignores its signal would).
    const controller = new AbortController();
    const calls: string[] = [];
    const ignoring = (id: string, onPropose?: () => void): Agent => {
      const base = scripted(id, ['42']);
      return {
        ...base,
        propose: async (request) => {
          calls.push(`propose:${id}`);
          onPropose?.();
          return base.propose(request);
        },
        revise: async (request) => {
          calls.push(`revise:${id}`);
          return base.revise(request);
        },
      };
    };
    const reputation = createBetaModel({ agents: ['a', 'b'] });
    const before = reputation.snapshot();
    const sink = createMemoryTraceSink();
    const run = runDebate({
      team: [ignoring('a', () => controller.abort(new Error('stop'))), ignoring('b')],
      task,
      rounds: 2,
      aggregator: createPluralityAggregator(),
      reputation,
      rng: createRng(1),
      tracer: createTracer({ sink }),
      signal: controller.signal,
    });
    await expect(run).rejects.toThrow('stop');
    expect(calls).toEqual(['propose:a', 'propose:b']);
    expect(reputation.snapshot()).toEqual(before);
    expect(sink.spans.find((span) => span.data.type === 'task')?.error).toBe('stop');

    // A signal aborted before the call: nothing is selected or asked.
    calls.length = 0;
    await expect(
      runDebate({
        team: [ignoring('a'), ignoring('b')],
        task,
        aggregator: createPluralityAggregator(),
        rng: createRng(1),
        signal: controller.signal,
      }),
    ).rejects.toThrow('stop');
    expect(calls).toEqual([]);
  });

  it('refuses bad rounds and k', async () => {
    const team = [scripted('a', ['1'])];
    await expect(
      runDebate({ team, task, rounds: -1, aggregator: createPluralityAggregator(), rng: createRng(1) }),
    ).rejects.toThrow(InvalidArgumentError);
    await expect(
      runDebate({ team, task, k: 2, aggregator: createPluralityAggregator(), rng: createRng(1) }),
    ).rejects.toThrow(/k must be an integer in \[1, 1\]/);
  });
});
