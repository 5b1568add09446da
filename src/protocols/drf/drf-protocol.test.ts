// DRF end to end with the real `drf` reputation model and the `ucb` selector (UCB with cost; its own
// threshold is 0 because runDrf filters).
const ucb = (variant: 'corrected' | 'printed' = 'corrected') =>
  createUcbSelector({ delta: 0.7, threshold: 0, variant });
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.js';
import type { Task } from '../../core/task.js';
import { createDrfModel, drfLegacyParameters } from '../../reputation/drf.js';
import { scriptedAgent } from './_testing/fakes.js';
import { createUcbSelector } from '../../selection/ucb.js';
import { agreementRatingSource } from './rating-source.js';
import { runDrf } from './run-drf.js';

const tasks = (count: number): Task[] =>
  Array.from({ length: count }, (_, index) => ({ id: `t${index}`, kind: 'number', prompt: `q${index}` }));
const constant = (count: number, answer: string) => Object.fromEntries(tasks(count).map((task) => [task.id, answer]));
const ids = (count: number) => Array.from({ length: count }, (_, index) => `a${index}`);

describe('DRF protocol with the drf model and UCB with cost', () => {
  it('computes three rounds by hand: ratings -> Eq. 6 -> Eq. 7/8 -> UCB scores', async () => {
    // Pool a, b, c, d with prices 0.2, 0.4, 0.6, 0.8; the ucb selector scales them by the largest,
    // c = 0.25, 0.5, 0.75, 1. k = 4, so every round asks everyone and the UCB scores can be checked
    // in the selection reasons. drf: R = 0.5, w0 = 0.5, β = 0.2, R0 = 1, corrected rules with the
    // pre-issue-14 options (drfLegacyParameters: Eq. 7 stepped by β, Eq. 8 ÷ w0; the default rules
    // are pinned by hand in src/reputation/drf.test.ts); UCB δ = 0.7; ratings = agreement.
    //
    // Round 1 answers: a, b, d '4'; c '5'. Ratings: a, b, d rate each other 1 and c 0; c rates all 0.
    //   Eq. 6 (all R = 0.5, so the plain mean): w_a = w_b = w_d = (1 + 1 + 0)/3 = 2/3, w_c = 0.
    //   Eq. 7: R_a = 0.5 + 0.2·(2/3 − 0.5)·(1 − 0.5) = 0.5 + 1/60 = 31/60 = 0.516667 (also b, d).
    //   Eq. 8 (corrected): R_c = 0.5·(1 − 0.2·(0.5 − 0)/0.5) = 0.4.
    //   Team answer: '4' with 0.5 + 0.5 + 0.5 = 1.5 against '5' with 0.5.
    // Round 2 selection, t = 2, n_i = 1: x = sqrt(2·ln 2 / 1) = 1.177410.
    //   S_a = 0.7·31/60 − 0.3·0.25 + 1.177410 = 0.361667 − 0.075 + 1.177410 = 1.464077
    //   S_b = 0.361667 − 0.15 + 1.177410 = 1.389077;  S_c = 0.7·0.4 − 0.225 + 1.177410 = 1.232410
    //   S_d = 0.361667 − 0.3 + 1.177410 = 1.239077
    // Round 2 answers: a, b, c '7'; d '8'.
    //   Eq. 6: w_a = (R_b + R_c)/(R_b + R_c + R_d) = (31 + 24)/(31 + 24 + 31) = 55/86 = 0.639535 (= w_b);
    //   w_c = (R_a + R_b)/(R_a + R_b + R_d) = 62/93 = 2/3; w_d = 0.
    //   Eq. 7: R_a = 31/60 + 0.2·(55/86 − 0.5)·(1 − 31/60) = 0.516667 + 0.2·0.139535·0.483333 = 0.530155;
    //   R_c = 0.4 + 0.2·(2/3 − 0.5)·(1 − 0.4) = 0.42. Eq. 8: R_d = 31/60·0.8 = 0.413333.
    //   Team answer: '7' with 31/60 + 31/60 + 0.4 = 1.433333 against '8' with 0.516667.
    // Round 3 selection, t = 3, n_i = 2: x = sqrt(2·ln 3 / 2) = sqrt(1.098612) = 1.048147.
    //   S_a = 0.7·0.530155 − 0.075 + 1.048147 = 0.371109 − 0.075 + 1.048147 = 1.344256;  S_b = 1.269256
    //   S_c = 0.7·0.42 − 0.225 + 1.048147 = 1.117147;   S_d = 0.7·0.413333 − 0.3 + 1.048147 = 1.037480
    const answers = { a: ['4', '7', '1'], b: ['4', '7', '1'], c: ['5', '7', '1'], d: ['4', '8', '1'] } as const;
    const prices = { a: 0.2, b: 0.4, c: 0.6, d: 0.8 } as const;
    const pool = (['a', 'b', 'c', 'd'] as const).map((id) =>
      scriptedAgent(id, { t0: answers[id][0], t1: answers[id][1], t2: answers[id][2] }, { cost: prices[id] }),
    );
    const result = await runDrf({
      pool,
      tasks: tasks(3),
      k: 4,
      costNormalization: 'none',
      ratingSource: agreementRatingSource(),
      selector: ucb(),
      reputation: createDrfModel({ agents: ['a', 'b', 'c', 'd'], ...drfLegacyParameters }),
      rng: createRng(7),
    });
    const [first, second, third] = result.rounds;
    expect(first?.reputationAfter.a).toBeCloseTo(31 / 60, 12);
    expect(first?.reputationAfter.c).toBeCloseTo(0.4, 12);
    expect(first?.decision.support).toEqual({ '4': expect.closeTo(1.5, 12), '5': expect.closeTo(0.5, 12) });
    const scores = (round: typeof second) =>
      Object.fromEntries((round?.selectionReasons ?? []).map((reason) => [reason.agentId, reason.weight]));
    expect(scores(second)).toEqual({
      a: expect.closeTo(1.464077, 5),
      b: expect.closeTo(1.389077, 5),
      c: expect.closeTo(1.23241, 5),
      d: expect.closeTo(1.239077, 5),
    });
    expect(second?.reputationAfter.a).toBeCloseTo(0.530155, 6);
    expect(second?.reputationAfter.b).toBeCloseTo(0.530155, 6);
    expect(second?.reputationAfter.c).toBeCloseTo(0.42, 12);
    expect(second?.reputationAfter.d).toBeCloseTo(0.413333, 6);
    expect(second?.decision.answer).toBe('7');
    expect(second?.decision.support['7']).toBeCloseTo(1.433333, 6);
    expect(scores(third)).toEqual({
      a: expect.closeTo(1.344256, 5),
      b: expect.closeTo(1.269256, 5),
      c: expect.closeTo(1.117147, 5),
      d: expect.closeTo(1.03748, 5),
    });
  });

  it('under equal reputation selects the expensive agent with the printed rule and the cheap one with the corrected rule', async () => {
    // k = 1: a team of one gets no ratings, so reputations stay equal (0.5). Prices 0.1 and 0.9 are
    // scaled by the largest: c = 1/9 and 1. Rounds 1–2 try both agents; in round 3 (t = 3, n = 1
    // each, x = sqrt(2·ln 3) = 1.482304):
    //   printed:   S_cheap = 0.35 + 0.3/9 + 1.482304 = 1.865637 < S_dear = 0.35 + 0.3 + 1.482304 = 2.132304
    //   corrected: S_cheap = 0.35 − 0.3/9 + 1.482304 = 1.798970 > S_dear = 0.35 − 0.3 + 1.482304 = 1.532304
    const run = (variant: 'printed' | 'corrected') =>
      runDrf({
        pool: [
          scriptedAgent('cheap', constant(3, '1'), { cost: 0.1 }),
          scriptedAgent('dear', constant(3, '1'), { cost: 0.9 }),
        ],
        tasks: tasks(3),
        k: 1,
        costNormalization: 'none',
        selector: ucb(variant),
        reputation: createDrfModel({ agents: ['cheap', 'dear'] }),
        rng: createRng(3),
      });
    const printed = await run('printed');
    const corrected = await run('corrected');
    expect(new Set(printed.rounds.slice(0, 2).map((round) => round.team[0]))).toEqual(new Set(['cheap', 'dear']));
    expect(printed.rounds[2]?.team).toEqual(['dear']);
    expect(corrected.rounds[2]?.team).toEqual(['cheap']);
    expect(printed.rounds[2]?.selectionReasons.find((reason) => reason.agentId === 'dear')?.weight).toBeCloseTo(
      2.132304,
      5,
    );
    expect(corrected.rounds[2]?.selectionReasons.find((reason) => reason.agentId === 'cheap')?.weight).toBeCloseTo(
      1.79897,
      5,
    );
  });

  it('tries every agent before exploiting any (property over pool size, k, prices and reputation)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 9 }),
        fc.integer({ min: 1, max: 9 }),
        fc.integer(),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 9, maxLength: 9 }),
        async (size, rawK, seed, prices) => {
          const k = Math.min(size, rawK);
          const names = ids(size);
          const rounds = Math.ceil(size / k);
          const result = await runDrf({
            pool: names.map((id, index) =>
              scriptedAgent(id, constant(rounds, index % 2 === 0 ? '1' : '2'), { cost: prices[index] as number }),
            ),
            tasks: tasks(rounds),
            k,
            threshold: 0,
            selector: ucb(),
            reputation: createDrfModel({ agents: names }),
            rng: createRng(seed),
          });
          // The first ⌊size/k⌋ rounds pick distinct agents; after ⌈size/k⌉ rounds everyone was on a team.
          const early = result.rounds.slice(0, Math.floor(size / k)).flatMap((round) => round.team);
          expect(new Set(early).size).toBe(early.length);
          expect(new Set(result.rounds.flatMap((round) => round.team))).toEqual(new Set(names));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('stops selecting an agent whose reputation falls below the filter threshold', async () => {
    // 'bad' always disagrees, so every round it is on the team it is rated 0 and the corrected Eq. 8
    // takes β·(w0 − 0)·R = 0.2·0.5·R off, i.e. multiplies by 0.9:
    //   0.5 → 0.45 → 0.405 → 0.3645 → 0.32805 → 0.295245 < 0.3 after five rated rounds.
    const count = 30;
    const names = ['g1', 'g2', 'g3', 'g4', 'bad'];
    const pool = names.map((id) => scriptedAgent(id, constant(count, id === 'bad' ? '9' : '1')));
    const result = await runDrf({
      pool,
      tasks: tasks(count),
      k: 3,
      threshold: 0.3,
      ratingSource: agreementRatingSource(),
      selector: ucb(),
      reputation: createDrfModel({ agents: names }),
      rng: createRng(11),
    });
    const onTeam = result.rounds.map((round) => round.team.includes('bad'));
    expect(onTeam.filter(Boolean)).toHaveLength(5);
    const lastSelected = onTeam.lastIndexOf(true);
    expect(result.rounds[lastSelected]?.reputationAfter.bad).toBeCloseTo(0.295245, 12);
    for (const round of result.rounds.slice(lastSelected + 1)) {
      expect(round.team).not.toContain('bad');
      expect(round.excluded).toContain('bad');
    }
    expect(result.excluded).toEqual(['bad']);
  });

  it('gives colluding raters nothing once the rater-credibility defence is on', async () => {
    // x, y answer wrong ('9') and rate each other 1, everyone else 0; h1–h4 answer '1' and rate by agreement.
    const count = 40;
    const names = ['h1', 'h2', 'h3', 'h4', 'x', 'y'];
    const run = (defence: 'none' | 'rater-credibility') =>
      runDrf({
        pool: names.map((id) =>
          id === 'x' || id === 'y'
            ? scriptedAgent(id, constant(count, '9'), {
                rateAs: (ratee) => (ratee === (id === 'x' ? 'y' : 'x') ? 1 : 0),
              })
            : scriptedAgent(id, constant(count, '1')),
        ),
        tasks: tasks(count),
        k: 4,
        defence,
        selector: ucb(),
        reputation: createDrfModel({ agents: names }),
        rng: createRng(5),
      });
    const plain = await run('none');
    const defended = await run('rater-credibility');
    for (const colluder of ['x', 'y']) {
      // With the default rules the colluders end below the threshold 0.3 either way (plain 0.280,
      // defended 0.296: the defence excludes them sooner, so they also stop decaying sooner).
      expect(defended.reputation[colluder]).toBeLessThan(0.3);
      for (const honest of ['h1', 'h2', 'h3', 'h4'])
        expect(defended.reputation[colluder]).toBeLessThan(defended.reputation[honest] as number);
      expect(defended.excluded).toContain(colluder);
    }
    const selections = (result: typeof plain, agentId: string) =>
      result.rounds.filter((round) => round.team.includes(agentId)).length;
    expect(selections(defended, 'x') + selections(defended, 'y')).toBeLessThanOrEqual(
      selections(plain, 'x') + selections(plain, 'y'),
    );
  });

  it('excludes an agent every peer rates 0 after five rounds with the default rules and threshold (docs/drf.md)', async () => {
    // Default drf model: R = 0.5, w0 = 0.5, β = 0.2. z answers '2', a and b answer '1', and peers rate
    // by agreement, so w_z = 0 every round and Eq. 8 (corrected) gives R ← R − β·(w0 − 0)·R = 0.9·R:
    //   0.45, 0.405, 0.3645, 0.32805, 0.295245 — below the threshold 0.3 first after round 5.
    const count = 6;
    const pool = [
      scriptedAgent('a', constant(count, '1')),
      scriptedAgent('b', constant(count, '1')),
      scriptedAgent('z', constant(count, '2')),
    ];
    const result = await runDrf({
      pool,
      tasks: tasks(5),
      k: 3,
      threshold: 0.3,
      selector: ucb(),
      reputation: createDrfModel({ agents: ['a', 'b', 'z'] }),
      rng: createRng(1),
    });
    const expected = [0.45, 0.405, 0.3645, 0.32805, 0.295245];
    result.rounds.forEach((round, index) => {
      expect(round.reputationAfter.z).toBeCloseTo(expected[index] as number, 12);
    });
    expect(result.rounds[3]?.reputationAfter.z).toBeGreaterThanOrEqual(0.3);
    expect(result.excluded).toEqual(['z']);
  });

  it('gives the same result for the same seed, and the same teams whatever the pool order (property)', async () => {
    // Threshold 0 filters nobody, so every choice is the UCB's (ties by id) and the plurality's (ties
    // by team order, which the UCB fixes); per-round costs are drawn per (seed, agent, round).
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 5 }).chain((size) =>
          fc.record({
            answers: fc.array(fc.array(fc.constantFrom('1', '2', '3', null), { minLength: 5, maxLength: 5 }), {
              minLength: size,
              maxLength: size,
            }),
            prices: fc.array(fc.constantFrom(0, 0.5, 1, 2), { minLength: size, maxLength: size }),
            order: fc.array(fc.double({ noNaN: true }), { minLength: size, maxLength: size }),
            k: fc.integer({ min: 1, max: size }),
            costModel: fc.constantFrom('per-agent' as const, 'per-round' as const),
            defence: fc.constantFrom('none' as const, 'rater-credibility' as const),
          }),
        ),
        async ({ answers, prices, order, k, costModel, defence }) => {
          const makePool = () =>
            answers.map((list, index) =>
              scriptedAgent(`g${index}`, Object.fromEntries(list.map((answer, task) => [`t${task}`, answer])), {
                cost: prices[index] as number,
              }),
            );
          const run = (pool: ReturnType<typeof makePool>) =>
            runDrf({
              pool,
              tasks: tasks(5),
              k,
              threshold: 0,
              costModel,
              costSeed: 5,
              defence,
              selector: ucb(),
              reputation: createDrfModel({ agents: pool.map((agent) => agent.identity.id) }),
              ratingSource: agreementRatingSource(),
              rng: createRng(3),
            });
          const first = await run(makePool());
          expect(await run(makePool())).toEqual(first);
          const shuffled = makePool()
            .map((agent, index) => ({ agent, key: order[index] as number }))
            .sort((left, right) => left.key - right.key)
            .map(({ agent }) => agent);
          const reordered = await run(shuffled);
          expect(reordered.rounds.map((round) => round.team)).toEqual(first.rounds.map((round) => round.team));
          expect(reordered.rounds.map((round) => round.teamCosts)).toEqual(
            first.rounds.map((round) => round.teamCosts),
          );
          expect(reordered.rounds.map((round) => round.decision.answer)).toEqual(
            first.rounds.map((round) => round.decision.answer),
          );
          for (const [agentId, score] of Object.entries(first.reputation))
            expect(reordered.reputation[agentId]).toBeCloseTo(score, 12);
        },
      ),
      { numRuns: 60 },
    );
  });
});
