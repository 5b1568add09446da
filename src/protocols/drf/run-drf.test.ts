import { describe, expect, it } from 'vitest';
import { createLiveAgent, type CompletionRequest } from '../../agents/live-agent.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { createRng } from '../../core/rng.js';
import type { Task } from '../../core/task.js';
import { createMemoryTraceSink, createTracer } from '../../core/trace.js';
import { fakeReputation, greedySelector, scriptedAgent } from './_testing/fakes.js';
import { agreementRatingSource } from './rating-source.js';
import { runDrf, type RunDrfInput } from './run-drf.js';

const tasks = (count: number): Task[] =>
  Array.from({ length: count }, (_, index) => ({ id: `t${index}`, kind: 'number', prompt: `q${index}` }));
const constant = (count: number, answer: string | null) =>
  Object.fromEntries(tasks(count).map((task) => [task.id, answer]));

/** runDrf with threshold 0, the greedy selector, fake reputations (0.5 each) and seed 1, unless `input` says otherwise. */
const runWithFakes = (input: Pick<RunDrfInput, 'pool' | 'tasks' | 'k'> & Partial<RunDrfInput>) =>
  runDrf({ threshold: 0, selector: greedySelector(), reputation: fakeReputation(), rng: createRng(1), ...input });

describe('runDrf (against fake model and selector)', () => {
  it('runs one round by hand: k proposals, k(k-1) ratings, Eq. 6 weights, weighted plurality, traced events', async () => {
    // a, b answer 4, c answers 5. Reputation a 0.9, b 0.6, c 0.3; greedy selector, k = 3, no costs.
    // Agreement ratings: a->b 1, a->c 0, b->a 1, b->c 0, c->a 0, c->b 0.
    // Fake Eq. 6 (weights = raters' scores): p_a = (0.6·1 + 0.3·0)/0.9 = 2/3; p_b = (0.9·1 + 0.3·0)/1.2 = 0.75;
    // p_c = (0.9·0 + 0.6·0)/1.5 = 0. New score = 0.5·old + 0.5·p: a 0.45 + 1/3 = 0.78333..., b 0.3 + 0.375 = 0.675, c 0.15.
    // Team answer: '4' has 0.9 + 0.6 = 1.5 against '5' with 0.3.
    const pool = [scriptedAgent('a', { t0: '4' }), scriptedAgent('b', { t0: '4' }), scriptedAgent('c', { t0: '5' })];
    const sink = createMemoryTraceSink();
    const result = await runWithFakes({
      pool,
      tasks: tasks(1),
      k: 3,
      reputation: fakeReputation({ a: 0.9, b: 0.6, c: 0.3 }),
      tracer: createTracer({ sink }),
    });
    const [round] = result.rounds;
    expect(round?.team).toEqual(['a', 'b', 'c']);
    expect(round?.ratings).toHaveLength(6);
    expect(round?.calls).toBe(9);
    expect(round?.decision.answer).toBe('4');
    expect(round?.decision.support).toEqual({ '4': expect.closeTo(1.5, 12), '5': expect.closeTo(0.3, 12) });
    expect(round?.reputationAfter.a).toBeCloseTo(0.45 + 1 / 3, 12);
    expect(round?.reputationAfter.b).toBeCloseTo(0.675, 12);
    expect(round?.reputationAfter.c).toBeCloseTo(0.15, 12);
    expect(round?.reputationBefore).toEqual({ a: 0.9, b: 0.6, c: 0.3 });
    const types = sink.spans.map((span) => span.data.type);
    expect(types.filter((type) => type === 'rating')).toHaveLength(6);
    expect(types.filter((type) => type === 'proposal')).toHaveLength(3);
    expect(types).toContain('selection');
    expect(types).toContain('vote');
    expect(types).toContain('reputation-update');
    expect(types.at(-1)).toBe('task');
  });

  it('stops selecting an agent once its reputation falls below the threshold', async () => {
    // c always disagrees with a and b, so each round it is rated 0 its score halves: 0.7 -> 0.35 -> 0.175 < 0.2.
    // d (0.25) is eligible but ranks below c until c is filtered out in round 2.
    const count = 6;
    const pool = [
      scriptedAgent('a', constant(count, '1')),
      scriptedAgent('b', constant(count, '1')),
      scriptedAgent('c', constant(count, '2')),
      scriptedAgent('d', constant(count, '1')),
    ];
    const selector = greedySelector();
    const result = await runWithFakes({
      pool,
      tasks: tasks(count),
      k: 3,
      threshold: 0.2,
      selector,
      reputation: fakeReputation({ a: 0.5, b: 0.5, c: 0.7, d: 0.25 }),
    });
    const firstExcluded = result.rounds.findIndex((round) => round.excluded.includes('c'));
    expect(firstExcluded).toBe(2);
    expect(result.rounds[2]?.team).toEqual(['a', 'b', 'd']);
    for (const round of result.rounds.slice(firstExcluded)) {
      expect(round.team).not.toContain('c');
      expect(round.selectionReasons.find((reason) => reason.agentId === 'c')?.note).toMatch(
        /excluded: reputation .* < threshold 0.2/,
      );
    }
    for (const offered of selector.offered.slice(firstExcluded)) expect(offered).not.toContain('c');
    expect(result.excluded).toContain('c');
  });

  it('keeps the best-reputed below-threshold agents eligible up to minEligible, and shrinks the team under the strict filter', async () => {
    // Reputations a 0.5, b 0.25, c 0.1 with threshold 0.3: only a is above it. k = 2.
    // Default minEligible = k = 2: b (best of the rest) is kept eligible -> team a, b, round marked fallback.
    // minEligible = 1 (strict): only a is eligible -> a team of one, no ratings, 1 call.
    const pool = [scriptedAgent('a', { t0: '1' }), scriptedAgent('b', { t0: '1' }), scriptedAgent('c', { t0: '1' })];
    const run = (minEligible?: number) =>
      runWithFakes({
        pool,
        tasks: tasks(1),
        k: 2,
        threshold: 0.3,
        ...(minEligible === undefined ? {} : { minEligible }),
        reputation: fakeReputation({ a: 0.5, b: 0.25, c: 0.1 }),
      });
    const kept = (await run()).rounds[0];
    expect(kept?.team).toEqual(['a', 'b']);
    expect(kept?.fallback).toBe(true);
    expect(kept?.excluded).toEqual(['c']);
    expect(kept?.selectionReasons.find((reason) => reason.agentId === 'b')?.note).toMatch(
      /below threshold 0.3 but kept eligible/,
    );
    const strict = (await run(1)).rounds[0];
    expect(strict?.team).toEqual(['a']);
    expect(strict?.excluded).toEqual(['b', 'c']);
    expect(strict?.calls).toBe(1);
    expect(strict?.ratings).toEqual([]);
  });

  it('issues every act of a round concurrently and records failed acts without stopping', async () => {
    const pool = [
      scriptedAgent('a', { t0: '1' }),
      scriptedAgent('b', { t0: '1' }),
      scriptedAgent('down', { t0: '1' }, { failPropose: true }),
    ];
    const result = await runWithFakes({
      pool,
      tasks: tasks(1),
      k: 3,
    });
    const [round] = result.rounds;
    expect(round?.failures).toEqual([{ agentId: 'down', act: 'propose', message: 'ProviderError: down is down' }]);
    expect(round?.proposals.find((proposal) => proposal.agentId === 'down')?.answer).toBeNull();
    expect(round?.decision.answer).toBe('1');
  });

  it('uses the token ledger for cost when agents report spend, and the price otherwise', async () => {
    // cheap-price agent spends 5 per act; expensive-price agent spends nothing -> its price 2 is used.
    const pool = [
      scriptedAgent('p', { t0: '1', t1: '1' }, { cost: 0.1, spend: 5 }),
      scriptedAgent('q', { t0: '1', t1: '1' }, { cost: 2 }),
    ];
    const result = await runWithFakes({
      pool,
      tasks: tasks(2),
      k: 2,
      costNormalization: 'none',
    });
    expect(result.rounds[0]?.teamCosts).toEqual({ p: 0.1, q: 2 });
    expect(result.rounds[1]?.teamCosts).toEqual({ p: 5, q: 2 });
    expect(result.ledger.p).toEqual({ calls: 4, cost: 20, inputTokens: 0, outputTokens: 0 });
    expect(result.rounds[0]?.spend).toBe(10);
  });

  it('rates replayed proposals by agreement without calling Agent.rate', async () => {
    const pool = [scriptedAgent('a', { t0: '1' }), scriptedAgent('b', { t0: '2' })];
    const result = await runWithFakes({
      pool,
      tasks: tasks(1),
      k: 2,
      ratingSource: agreementRatingSource(),
    });
    expect(result.rounds[0]?.ratings.map((rating) => rating.score)).toEqual([0, 0]);
    expect(pool[0]?.calls).toEqual(['propose:t0']);
  });

  it('discounts colluding raters with the rater-credibility defence', async () => {
    // x and y are wrong (answer 9) and rate each other 1 and everyone else 0; h1..h3 answer 1 and rate by agreement.
    const count = 8;
    const colluder = (id: string, partner: string) =>
      scriptedAgent(id, constant(count, '9'), { rateAs: (ratee) => (ratee === partner ? 1 : 0) });
    const run = async (defence: 'none' | 'rater-credibility') => {
      const pool = [
        colluder('x', 'y'),
        colluder('y', 'x'),
        scriptedAgent('h1', constant(count, '1')),
        scriptedAgent('h2', constant(count, '1')),
        scriptedAgent('h3', constant(count, '1')),
      ];
      return runWithFakes({
        pool,
        tasks: tasks(count),
        k: 5,
        defence,
      });
    };
    const plain = await run('none');
    const defended = await run('rater-credibility');
    for (const agentId of ['x', 'y']) {
      expect(defended.reputation[agentId]).toBeLessThan(plain.reputation[agentId] as number);
      for (const honest of ['h1', 'h2', 'h3'])
        expect(defended.reputation[agentId]).toBeLessThan(defended.reputation[honest] as number);
    }
    expect(defended.credibility?.x).toBe(0.01);
    expect(defended.credibility?.h1).toBeGreaterThan(0.5);
  });

  it('works with live agents: ratings come from the judging prompt and cost from the token ledger', async () => {
    // Each live agent answers from a script and, asked to rate, replies with a JSON score; usage
    // costs 0.01 per act for x and 0.03 for y, so the ledger gives them those per-call costs.
    const live = (id: string, answer: string, score: number, cost: number) => {
      const calls: CompletionRequest[] = [];
      const agent = createLiveAgent({
        identity: { id, model: id, cost: 1 },
        complete: async (request) => {
          calls.push(request);
          const text =
            request.context.act === 'rate'
              ? JSON.stringify({ score, reason: `${id} judged it` })
              : JSON.stringify({ reasoning: 'worked', answer });
          return { text, usage: { inputTokens: 10, outputTokens: 5, cost, cached: false } };
        },
      });
      return { agent, calls };
    };
    const x = live('x', '42', 0.9, 0.01);
    const y = live('y', '41', 0.2, 0.03);
    const result = await runWithFakes({
      pool: [x.agent, y.agent],
      tasks: tasks(2),
      k: 2,
      costNormalization: 'none',
    });
    const [first, second] = result.rounds;
    expect(first?.ratings).toEqual([
      { rater: 'x', ratee: 'y', taskId: 't0', score: 0.9, reason: 'x judged it' },
      { rater: 'y', ratee: 'x', taskId: 't0', score: 0.2, reason: 'y judged it' },
    ]);
    expect(x.calls.map((call) => call.context.act)).toEqual(['propose', 'rate', 'propose', 'rate']);
    // Round 0 uses the price (1 each); round 1 the ledger mean: 2 acts · 0.01 / 2 and 2 · 0.03 / 2.
    expect(first?.teamCosts).toEqual({ x: 1, y: 1 });
    expect(second?.teamCosts).toEqual({ x: expect.closeTo(0.01, 12), y: expect.closeTo(0.03, 12) });
    expect(first?.spend).toBeCloseTo(0.08, 12);
  });

  it('refuses bad options with typed errors naming the field', async () => {
    const pool = [scriptedAgent('a', {}), scriptedAgent('b', {})];
    const base = { pool, tasks: tasks(1), selector: greedySelector(), reputation: fakeReputation(), rng: createRng(1) };
    await expect(runDrf({ ...base, k: 3 })).rejects.toThrow(/k must be an integer in \[1, 2\], got 3/);
    await expect(runDrf({ ...base, k: 2, threshold: 1.5 })).rejects.toThrow(InvalidArgumentError);
    await expect(runDrf({ ...base, k: 2, defence: 'median' as never })).rejects.toThrow(
      /defence must be 'none' or 'rater-credibility'/,
    );
    await expect(runDrf({ ...base, k: 2, tasks: [tasks(1)[0] as Task, tasks(1)[0] as Task] })).rejects.toThrow(
      /duplicate task id "t0"/,
    );
    await expect(runDrf({ ...base, k: 1, pool: [pool[0]!, pool[0]!] })).rejects.toThrow(/duplicate agent id "a"/);
  });
});
