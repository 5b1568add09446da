import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../agents/agent.js';
import { createPluralityAggregator } from '../../aggregation/plurality.js';
import { InvalidArgumentError } from '../../core/errors.js';
import type { Task } from '../../core/task.js';
import { createMemoryTraceSink, createTracer } from '../../core/trace.js';
import { createBetaModel } from '../../reputation/beta.js';
import { concludeDebate, debateTaskRecord, gatherDebate, type GatherDebateInput } from './debate-task.js';

const task: Task = { id: 't1', kind: 'number', prompt: 'What is 6 × 7?' };

/** An agent that proposes `answer` and rates a proposal 1 when it says 42; counts its rate calls. */
function fixed(id: string, answer: string, calls: { rate: number }): Agent {
  const usage = { inputTokens: 10, outputTokens: 5, cost: 0.001, cached: false };
  return {
    identity: { id, model: `model-${id}` },
    kind: 'simulated',
    propose: async () => ({
      value: { agentId: id, taskId: task.id, round: 0, text: `answer ${answer}`, answer },
      usage,
    }),
    revise: async ({ round }) => ({ value: { agentId: id, taskId: task.id, round, text: answer, answer }, usage }),
    rate: async ({ proposal }) => {
      calls.rate++;
      return {
        value: { rater: id, ratee: proposal.agentId, taskId: task.id, score: proposal.answer === '42' ? 1 : 0 },
        usage,
      };
    },
    audit: async () => ({ value: { reliable: true, reason: 'ok' }, usage }),
    refineSubscription: async ({ current }) => ({ value: current, usage }),
  };
}

function gatherInput(team: readonly Agent[], tracer = createTracer()): GatherDebateInput {
  return { team, task, rounds: 0, k: team.length, scores: {}, ratings: false, rng: () => 0, tracer, parentId: null };
}

describe('gatherDebate and concludeDebate', () => {
  const calls = { rate: 0 };
  const team = [fixed('a', '42', calls), fixed('b', '42', calls), fixed('c', '40', calls)];

  it('counts evidence only from the agents in evidenceFrom', async () => {
    const sink = createMemoryTraceSink();
    const tracer = createTracer({ sink });
    const reputation = createBetaModel({ agents: ['a', 'b', 'c'] });
    const gathered = await gatherDebate(gatherInput(team, tracer));
    const result = concludeDebate(gathered, {
      aggregator: createPluralityAggregator(),
      reputation,
      evidenceFrom: new Set(['a', 'c']),
      tracer,
      parentId: null,
    });
    // Plurality: 42 (a, b) beats 40 (c). Beta, E = (r + 1) / (r + s + 2): a agreed → (1 + 1) / 3 = 2/3;
    // c disagreed → 1 / 3; b gave no evidence and stays at the prior 1 / 2.
    expect(result.decision.answer).toBe('42');
    expect(result.reputationAfter.a).toBeCloseTo(2 / 3, 12);
    expect(result.reputationAfter.b).toBeCloseTo(1 / 2, 12);
    expect(result.reputationAfter.c).toBeCloseTo(1 / 3, 12);
    expect(sink.spans.filter((span) => span.data.type === 'reputation-update')).toHaveLength(1);
  });

  it('leaves reputation alone and writes no update when no agent gives evidence', async () => {
    const sink = createMemoryTraceSink();
    const tracer = createTracer({ sink });
    const reputation = createBetaModel({ agents: ['a', 'b', 'c'] });
    const gathered = await gatherDebate(gatherInput(team, tracer));
    const result = concludeDebate(gathered, {
      aggregator: createPluralityAggregator(),
      reputation,
      evidenceFrom: new Set(),
      tracer,
      parentId: null,
    });
    expect(result.reputationBefore).toEqual({ a: 0.5, b: 0.5, c: 0.5 });
    expect(result.reputationAfter).toEqual({ a: 0.5, b: 0.5, c: 0.5 });
    expect(sink.spans.some((span) => span.data.type === 'reputation-update')).toBe(false);
    // The stored record: the Propose answers, plurality support 2 : 1, no grader → correct null.
    expect(debateTaskRecord(result)).toEqual({
      schemaVersion: 1,
      taskId: 't1',
      answer: '42',
      correct: null,
      participants: ['a', 'b', 'c'],
      excluded: [],
      answers: { a: '42', b: '42', c: '40' },
      support: { '42': 2, '40': 1 },
      reputation: { a: 0.5, b: 0.5, c: 0.5 },
      failures: 0,
    });
  });

  it("goes on with checkProposed's round, and a refusal there stops before any rating call", async () => {
    calls.rate = 0;
    const voided = await gatherDebate({
      ...gatherInput(team),
      ratings: true,
      checkProposed: (round) => ({
        ...round,
        proposals: round.proposals.map((proposal) =>
          proposal.agentId === 'a' ? { ...proposal, answer: null } : proposal,
        ),
      }),
    });
    expect(voided.rounds[0]?.map((proposal) => proposal.answer)).toEqual([null, '42', '40']);
    // 3 raters × 2 ratees each.
    expect(calls.rate).toBe(6);
    calls.rate = 0;
    const refusing = gatherDebate({
      ...gatherInput(team),
      ratings: true,
      checkProposed: () => {
        throw new InvalidArgumentError({ parameter: 'reply', value: null, message: 'refused' });
      },
    });
    await expect(refusing).rejects.toThrow('refused');
    expect(calls.rate).toBe(0);
  });

  it('are the steps the served team runs: team-service has no selection, vote or update of its own', () => {
    const source = readFileSync(new URL('../../server/team-service.ts', import.meta.url), 'utf8');
    expect(source).toContain("from '../protocols/debate/debate-task.js'");
    for (const step of ['select-participants', 'propose-step', 'rate-step', 'decide-step', 'update-reputation-step'])
      expect(source).not.toContain(`/debate/${step}.js'`);
  });
});
