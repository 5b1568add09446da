import { describe, expect, it } from 'vitest';
import { createRng, deriveSeed } from '../../core/rng.js';
import type { Task } from '../../core/task.js';
import { scriptedAgent } from './_testing/fakes.js';
import { createDrfParts } from './drf-parts.js';
import { agreementRatingSource, complementRatingSource, type RatingSource } from './rating-source.js';
import { runDrf } from './run-drf.js';
import { drfTaskAccuracies } from './task-accuracy.js';

const tasks = (count: number): Task[] =>
  Array.from({ length: count }, (_, index) => ({ id: `t${index}`, kind: 'number', prompt: `q${index}` }));
const rater = scriptedAgent('r', {});
const proposal = (answer: string | null) => ({ agentId: 'p', taskId: 't0', round: 0, text: '', answer });
const rateWith = async (source: RatingSource, own: string | null, peer: string | null) =>
  (
    await source.rate({
      rater,
      task: tasks(1)[0] as Task,
      proposal: proposal(peer),
      own: { ...proposal(own), agentId: 'r' },
    })
  ).value.score;

describe('agreement ratings (ours) and the complement option (ours)', () => {
  it("rates a peer 1 − d, d exact or relative to the rater's answer; Eq. 2 is not applied to ratings", async () => {
    // exact: same key d = 0 → 1; different key d = 1 → 0
    expect(await rateWith(agreementRatingSource(), '10', '10')).toBe(1);
    expect(await rateWith(agreementRatingSource(), '10', '8')).toBe(0);
    // relative: reference 10, answer 8: d = |10 − 8| / 10 = 0.2 → 0.8
    expect(await rateWith(agreementRatingSource({ distance: 'relative' }), '10', '8')).toBeCloseTo(0.8, 15);
    // non-numeric keys fall back to exact; unparsed peer 0, rater without answer 0.5
    expect(await rateWith(agreementRatingSource({ distance: 'relative' }), 'x', 'y')).toBe(0);
    expect(await rateWith(agreementRatingSource({ distance: 'relative' }), '10', null)).toBe(0);
    expect(await rateWith(agreementRatingSource({ distance: 'relative' }), null, '10')).toBe(0.5);
    expect(() => agreementRatingSource({ distance: 'cosine' as never })).toThrow(
      expect.objectContaining({ parameter: 'distance' }),
    );
    // the old `variant` key (Eq. 2 read as a rating transformation) is refused, not silently ignored
    expect(() => agreementRatingSource({ variant: 'printed' } as never)).toThrow(/variant/);
  });

  it('complementRatingSource replaces a rating s by 1 − s', async () => {
    // s = 0.8 (relative rating above) → 1 − 0.8 = 0.2; same answer 1 → 0
    const relative = agreementRatingSource({ distance: 'relative' });
    expect(await rateWith(complementRatingSource(relative), '10', '8')).toBeCloseTo(0.2, 15);
    expect(await rateWith(complementRatingSource(agreementRatingSource()), '10', '10')).toBe(0);
  });
});

describe('createDrfParts', () => {
  // a, b, c answer '1', d answers '2'; k = 4; all R = 0.5, so Eq. 6 is the plain mean.
  const run = (options: Partial<Parameters<typeof createDrfParts>[0]>) => {
    const pool = ['a', 'b', 'c', 'd'].map((id) => scriptedAgent(id, { t0: id === 'd' ? '2' : '1' }));
    return runDrf({
      pool,
      tasks: tasks(1),
      k: 4,
      rng: createRng(1),
      ...createDrfParts({ agents: ['a', 'b', 'c', 'd'], ratingSource: agreementRatingSource(), ...options }),
    });
  };

  it('runs one round with Eqs. 8 and 9 printed or corrected; the ratings are the same in both (by hand)', async () => {
    // ratings: same answer 1, different 0 (both variants). w_a = (1 + 1 + 0)/3 = 2/3, w_d = 0.
    //   a: Eq. 7, 0.5 + 0.7·(2/3 − 0.5)·(1 − 0.5) = 0.5 + 0.7/12 = 0.558333...
    //   d corrected Eq. 8: 0.5 − 0.2·(0.5 − 0)·0.5 = 0.45;  printed Eq. 8: 0.5 − 0·0.5·0.2 = 0.5
    const corrected = (await run({ variant: 'corrected' })).rounds[0];
    expect(corrected?.reputationAfter.a).toBeCloseTo(0.5 + 0.7 / 12, 12);
    expect(corrected?.reputationAfter.d).toBeCloseTo(0.45, 12);
    const printed = (await run({ variant: 'printed' })).rounds[0];
    expect(printed?.ratings).toEqual(corrected?.ratings);
    expect(printed?.taskScores?.a).toBeCloseTo(2 / 3, 12);
    expect(printed?.taskScores?.d).toBe(0);
    expect(printed?.reputationAfter.a).toBeCloseTo(0.5 + 0.7 / 12, 12);
    expect(printed?.reputationAfter.d).toBe(0.5);
    // each equation alone: Eq. 8 printed alone gives the printed model's numbers
    const eq8 = (await run({ variant: 'corrected', equations: { eq8: 'printed' } })).rounds[0];
    expect(eq8?.reputationAfter.d).toBe(0.5);
    expect(() => createDrfParts({ agents: ['a'], equations: { eq2: 'printed' } as never })).toThrow(/eq2/);
  });

  it('complementRatings (ours) reproduces the pre-issue-41 reading of Eq. 2 (by hand)', async () => {
    // complemented: same answer 0, different 1.  w_a = (0 + 0 + 1)/3 = 1/3, w_d = 1.
    //   a: printed Eq. 8, 0.5 − (1/3)·0.5·0.2 = 0.5 − 1/30 = 0.466666...
    //   d: Eq. 7, 0.5 + 0.7·(1 − 0.5)·0.5 = 0.675
    const old = (await run({ variant: 'printed', complementRatings: true })).rounds[0];
    expect(old?.reputationAfter.a).toBeCloseTo(0.5 - 1 / 30, 12);
    expect(old?.reputationAfter.d).toBeCloseTo(0.675, 12);
    expect(old?.ratings.every((rating) => rating.reason?.startsWith('complemented'))).toBe(true);
  });

  it("reports Eq. 2's accuracy from the round's task scores (by hand)", async () => {
    // w_a = w_b = w_c = 2/3, w_d = 0, w0 = 0.5:
    //   printed   A_a = |0.5 − 2/3| / 0.5 = 1/3,  A_d = |0.5 − 0| / 0.5 = 1
    //   corrected A_a = 1 − 1/3 = 2/3,            A_d = 0
    //   team mean: printed (3·1/3 + 1)/4 = 0.5; corrected (3·2/3 + 0)/4 = 0.5
    const { rounds } = await run({});
    const printed = drfTaskAccuracies(rounds, { threshold: 0.5, variant: 'printed' });
    expect(printed.meanByAgent.a).toBeCloseTo(1 / 3, 12);
    expect(printed.meanByAgent.d).toBeCloseTo(1, 12);
    expect(printed.meanTeamAccuracy).toBeCloseTo(0.5, 12);
    const corrected = drfTaskAccuracies(rounds, { threshold: 0.5 });
    expect(corrected.meanByAgent.a).toBeCloseTo(2 / 3, 12);
    expect(corrected.meanByAgent.d).toBe(0);
    // w0 = 0.8: A_a printed |0.8 − 2/3| / 0.8 = (2/15)/0.8 = 1/6
    expect(drfTaskAccuracies(rounds, { threshold: 0.8, variant: 'printed' }).meanByAgent.a).toBeCloseTo(1 / 6, 12);
    const { taskScores: _dropped, ...old } = rounds[0] as NonNullable<(typeof rounds)[0]>;
    expect(() => drfTaskAccuracies([old], { threshold: 0.5 })).toThrow(/taskScores/);
  });
});

describe('per-round costs (Section 5.1)', () => {
  it('draws c_i^t ~ U(0, 1) per agent and round from the cost seed', async () => {
    const pool = ['a', 'b'].map((id) => scriptedAgent(id, { t0: '1', t1: '1', t2: '1' }, { cost: 0.5 }));
    const run = (costModel: 'per-agent' | 'per-round') =>
      runDrf({
        pool,
        tasks: tasks(3),
        k: 2,
        costModel,
        costSeed: 9,
        costNormalization: 'none',
        rng: createRng(1),
        ...createDrfParts({ agents: ['a', 'b'], ratingSource: agreementRatingSource() }),
      });
    const perRound = await run('per-round');
    perRound.rounds.forEach((round, index) => {
      for (const agentId of ['a', 'b']) {
        // c_i^t is the first draw of the stream (9, 'drf-cost', agent, round)
        expect(round.teamCosts[agentId]).toBe(createRng(deriveSeed(9, 'drf-cost', agentId, index))());
      }
    });
    expect(new Set(perRound.rounds.map((round) => round.teamCosts.a)).size).toBe(3);
    const perAgent = await run('per-agent');
    expect(perAgent.rounds.map((round) => round.teamCosts.a)).toEqual([0.5, 0.5, 0.5]);
    await expect(run('hourly' as never)).rejects.toThrow(expect.objectContaining({ parameter: 'costModel' }));
  });
});
