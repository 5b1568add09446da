import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.js';
import type { Task } from '../../core/task.js';
import { createMemoryTraceSink, createTracer } from '../../core/trace.js';
import { createDrfModel } from '../../reputation/drf.js';
import { createUcbSelector } from '../../selection/ucb.js';
import { fakeReputation, scriptedAgent } from './_testing/fakes.js';
import type { RatingSource } from './rating-source.js';
import { runDrf } from './run-drf.js';

const task: Task = { id: 't0', kind: 'number', prompt: 'q0' };

describe('runDrfRound: what the round reports', () => {
  it('gives one selection reason per pool agent when below-threshold agents are kept eligible but not picked', async () => {
    // Threshold 0.5: only a (0.9) reaches it. minEligible 3 keeps the best two of the rest, c (0.3)
    // and b (0.2), eligible; d (0.1) is filtered. k = 1: the UCB picks a (all untried, best δ·r).
    const pool = ['a', 'b', 'c', 'd'].map((id) => scriptedAgent(id, { t0: '1' }));
    const sink = createMemoryTraceSink();
    const result = await runDrf({
      pool,
      tasks: [task],
      k: 1,
      minEligible: 3,
      threshold: 0.5,
      selector: createUcbSelector({ threshold: 0 }),
      reputation: fakeReputation({ a: 0.9, b: 0.2, c: 0.3, d: 0.1 }),
      rng: createRng(1),
      tracer: createTracer({ sink }),
    });
    const [round] = result.rounds;
    expect(round?.team).toEqual(['a']);
    expect(round?.fallback).toBe(true);
    expect(round?.excluded).toEqual(['d']);
    const reasonIds = round?.selectionReasons.map((reason) => reason.agentId) ?? [];
    expect([...reasonIds].sort()).toEqual(['a', 'b', 'c', 'd']);
    // A kept agent's reason is the selector's, with the filter's note added.
    const kept = round?.selectionReasons.find((reason) => reason.agentId === 'c');
    expect(kept?.components?.exploitation).toBeCloseTo(0.7 * 0.3, 12);
    expect(kept?.note).toMatch(/^ucb: not selected; .*below threshold 0.5 but kept eligible \(minEligible 3\)$/);
    const selection = sink.spans.find((span) => span.data.type === 'selection')?.data;
    expect(selection?.type === 'selection' && selection.reasons.map((reason) => reason.agentId).sort()).toEqual([
      'a',
      'b',
      'c',
      'd',
    ]);
  });

  it('keeps the same below-threshold agents eligible whatever the order of the pool (ties by agent id)', async () => {
    // Reputations from few levels, so ties among the agents below the threshold are common. A selector
    // that takes every candidate shows the eligible set; excluded = the filtered rest.
    const ids = ['e', 'b', 'd', 'a', 'c', 'f'];
    const takeAll = {
      name: 'all-candidates',
      select: ({ pool: candidates }: { pool: readonly { id: string }[] }) => ({
        selected: candidates.map((candidate) => candidate.id),
        excluded: [],
        reasons: [],
      }),
    };
    // Second method: sort the below-threshold ids by (reputation desc, id asc) and keep the first
    // minEligible − |above| of them.
    const expectedEligible = (reputation: Record<string, number>, minEligible: number) => {
      const above = ids.filter((id) => (reputation[id] as number) >= 0.5);
      const below = ids
        .filter((id) => (reputation[id] as number) < 0.5)
        .sort((left, right) => (reputation[right] as number) - (reputation[left] as number) || (left < right ? -1 : 1));
      return [...above, ...below.slice(0, Math.max(0, minEligible - above.length))].sort();
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(0.1, 0.2, 0.6), { minLength: ids.length, maxLength: ids.length }),
        fc.integer({ min: 1, max: ids.length }),
        fc.shuffledSubarray(ids, { minLength: ids.length, maxLength: ids.length }),
        async (levels, minEligible, order) => {
          const reputation = Object.fromEntries(ids.map((id, index) => [id, levels[index] as number]));
          const round = async (poolOrder: readonly string[]) =>
            (
              await runDrf({
                pool: poolOrder.map((id) => scriptedAgent(id, { t0: '1' })),
                tasks: [task],
                k: ids.length,
                minEligible,
                threshold: 0.5,
                selector: takeAll,
                reputation: fakeReputation(reputation),
                rng: createRng(1),
              })
            ).rounds[0];
          const [given, shuffled] = [await round(ids), await round(order)];
          const eligible = expectedEligible(reputation, minEligible);
          expect([...(given?.team ?? [])].sort()).toEqual(eligible);
          expect([...(shuffled?.team ?? [])].sort()).toEqual(eligible);
          expect([...(shuffled?.excluded ?? [])].sort()).toEqual([...(given?.excluded ?? [])].sort());
          expect(shuffled?.fallback).toBe(given?.fallback);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('picks the same team and records the same selection event for the same seed whatever the order of the pool', async () => {
    // UCB with tieBreak 'random' draws one rng() per candidate in the order it is offered. With no
    // costs and reputations from few levels, untried agents tie on score and δ·r, so those draws
    // decide; the round offers candidates in agent-id order, so a reordered pool sees the same draws.
    const ids = ['e', 'b', 'd', 'a', 'c', 'f'];
    const tasks: Task[] = ['t0', 't1', 't2'].map((id) => ({ id, kind: 'number', prompt: id }));
    const seededShuffle = (items: readonly string[], seed: number): string[] => {
      // Fisher–Yates driven by a seeded stream.
      const rng = createRng(seed);
      const shuffled = [...items];
      for (let index = shuffled.length - 1; index > 0; index -= 1) {
        const other = Math.floor(rng() * (index + 1));
        [shuffled[index], shuffled[other]] = [shuffled[other] as string, shuffled[index] as string];
      }
      return shuffled;
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(0.4, 0.6, 0.8), { minLength: ids.length, maxLength: ids.length }),
        fc.integer({ min: 1, max: ids.length - 1 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        async (levels, k, shuffleSeed, seed) => {
          const reputation = Object.fromEntries(ids.map((id, index) => [id, levels[index] as number]));
          const run = async (poolOrder: readonly string[]) => {
            const sink = createMemoryTraceSink();
            const result = await runDrf({
              pool: poolOrder.map((id) => scriptedAgent(id, { t0: '1', t1: id < 'c' ? '1' : '2', t2: '2' })),
              tasks,
              k,
              threshold: 0.5,
              selector: createUcbSelector({ threshold: 0, tieBreak: 'random' }),
              reputation: fakeReputation(reputation),
              rng: createRng(seed),
              tracer: createTracer({ sink }),
            });
            return {
              teams: result.rounds.map((round) => round.team),
              selections: sink.spans.filter((span) => span.data.type === 'selection').map((span) => span.data),
            };
          };
          const [given, shuffled] = [await run(ids), await run(seededShuffle(ids, shuffleSeed))];
          expect(shuffled.teams).toEqual(given.teams);
          expect(shuffled.selections).toEqual(given.selections);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('keeps the kept-eligible reason for agents the selector gives no reason for', async () => {
    // A selector that explains nothing: the filter's reasons still cover the kept and filtered agents.
    const pool = ['a', 'b', 'c'].map((id) => scriptedAgent(id, { t0: '1' }));
    const result = await runDrf({
      pool,
      tasks: [task],
      k: 1,
      minEligible: 2,
      threshold: 0.5,
      selector: {
        name: 'silent',
        select: ({ pool: candidates }) => ({ selected: [candidates[0]?.id as string], excluded: [], reasons: [] }),
      },
      reputation: fakeReputation({ a: 0.9, b: 0.2, c: 0.1 }),
      rng: createRng(1),
    });
    expect(result.rounds[0]?.selectionReasons.map((reason) => [reason.agentId, reason.note])).toEqual([
      ['c', 'excluded: reputation 0.1000 < threshold 0.5'],
      ['b', 'below threshold 0.5 but kept eligible: only 1 agents above it, minEligible 2'],
    ]);
  });

  it('writes why a proposal failed into its proposal event', async () => {
    const pool = [
      scriptedAgent('a', { t0: '1' }),
      scriptedAgent('b', { t0: '1' }),
      scriptedAgent('down', { t0: '1' }, { failPropose: true }),
    ];
    const sink = createMemoryTraceSink();
    const result = await runDrf({
      pool,
      tasks: [task],
      k: 3,
      threshold: 0,
      selector: createUcbSelector({ threshold: 0 }),
      reputation: fakeReputation(),
      rng: createRng(1),
      tracer: createTracer({ sink }),
    });
    expect(result.rounds[0]?.failures).toEqual([
      { agentId: 'down', act: 'propose', message: 'ProviderError: down is down' },
    ]);
    const proposals = sink.spans.filter((span) => span.data.type === 'proposal');
    expect(proposals.map((span) => [span.data.type === 'proposal' && span.data.agentId, span.error])).toEqual([
      ['a', undefined],
      ['b', undefined],
      ['down', 'ProviderError: down is down'],
    ]);
  });

  it('records a rating source reply that is out of range or names the wrong agents as a failed act, and goes on', async () => {
    // A custom source: c's ratings score 1.5; b's rating of a claims to be about c. Everything else agrees (1).
    const source: RatingSource = {
      name: 'custom',
      async rate({ rater, task: rated, proposal }) {
        const raterId = rater.identity.id;
        const ratee = raterId === 'b' && proposal.agentId === 'a' ? 'c' : proposal.agentId;
        const score = raterId === 'c' ? 1.5 : 1;
        return {
          value: { rater: raterId, ratee, taskId: rated.id, score },
          usage: { inputTokens: 0, outputTokens: 0, cost: 0, cached: false },
        };
      },
    };
    const pool = ['a', 'b', 'c'].map((id) => scriptedAgent(id, { t0: '1' }));
    const result = await runDrf({
      pool,
      tasks: [task],
      k: 3,
      threshold: 0,
      selector: createUcbSelector({ threshold: 0 }),
      reputation: createDrfModel({ agents: ['a', 'b', 'c'] }),
      ratingSource: source,
      rng: createRng(1),
    });
    const [round] = result.rounds;
    expect(round?.failures.map((failure) => [failure.agentId, failure.ratee])).toEqual([
      ['b', 'a'],
      ['c', 'a'],
      ['c', 'b'],
    ]);
    expect(round?.failures[0]?.message).toMatch(/rating for rater b -> ratee c on task t0, expected b -> a on t0/);
    expect(round?.failures[1]?.message).toMatch(/score must be in \[0, 1\], got 1.5/);
    // The accepted ratings: a -> b, a -> c, b -> c, all 1. Eq. 6 with equal R: w_b = w_c = 1 ≥ w0 = 0.5, so by Eq. 7
    // R = 0.5 + 0.7·(1 − 0.5)·(1 − 0.5) = 0.675 for b and c; a is rated by nobody and keeps 0.5.
    expect(round?.ratings.map((rating) => `${rating.rater}->${rating.ratee}`)).toEqual(['a->b', 'a->c', 'b->c']);
    expect(round?.reputationAfter.a).toBeCloseTo(0.5, 12);
    expect(round?.reputationAfter.b).toBeCloseTo(0.675, 12);
    expect(round?.reputationAfter.c).toBeCloseTo(0.675, 12);
  });
});
