import { describe, expect, it } from 'vitest';
import { createRng, deriveSeed } from '../../core/rng.js';
import type { Task } from '../../core/task.js';
import { scriptedAgent } from './_testing/fakes.js';
import { createDrfParts } from './drf-parts.js';
import { agreementRatingSource, eq2RatingSource, type RatingSource } from './rating-source.js';
import { runDrf } from './run-drf.js';

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

describe('DRF Eq. 2 on the ratings', () => {
  it("rates a peer by 1 − d (corrected) or d (printed), d exact or relative to the rater's answer", async () => {
    // exact: same key d = 0 → 1 (printed 0); different key d = 1 → 0 (printed 1)
    expect(await rateWith(agreementRatingSource(), '10', '10')).toBe(1);
    expect(await rateWith(agreementRatingSource(), '10', '8')).toBe(0);
    expect(await rateWith(agreementRatingSource({ variant: 'printed' }), '10', '10')).toBe(0);
    expect(await rateWith(agreementRatingSource({ variant: 'printed' }), '10', '8')).toBe(1);
    // relative: reference 10, answer 8: d = |10 − 8| / 10 = 0.2 → corrected 0.8, printed 0.2
    expect(await rateWith(agreementRatingSource({ distance: 'relative' }), '10', '8')).toBeCloseTo(0.8, 15);
    expect(await rateWith(agreementRatingSource({ distance: 'relative', variant: 'printed' }), '10', '8')).toBeCloseTo(
      0.2,
      15,
    );
    // non-numeric keys fall back to exact; unparsed peer 0, rater without answer 0.5
    expect(await rateWith(agreementRatingSource({ distance: 'relative' }), 'x', 'y')).toBe(0);
    expect(await rateWith(agreementRatingSource({ distance: 'relative' }), '10', null)).toBe(0);
    expect(await rateWith(agreementRatingSource({ distance: 'relative' }), null, '10')).toBe(0.5);
    expect(() => agreementRatingSource({ distance: 'cosine' as never })).toThrow(
      expect.objectContaining({ parameter: 'distance' }),
    );
  });

  it('eq2RatingSource reads a rating s as distance 1 − s under the printed Eq. 2', async () => {
    // s = 0.8 (relative rating above) → d = 0.2 → printed A = 0.2; corrected returns the source unchanged
    const relative = agreementRatingSource({ distance: 'relative' });
    expect(await rateWith(eq2RatingSource(relative, 'printed'), '10', '8')).toBeCloseTo(0.2, 15);
    expect(eq2RatingSource(relative, 'corrected')).toBe(relative);
  });
});

describe('createDrfParts', () => {
  it('runs one round with every equation printed or corrected (by hand)', async () => {
    // a, b, c answer '1', d answers '2'; k = 4; all R = 0.5, so Eq. 6 is the plain mean.
    // corrected Eq. 2: same answer 1, different 0.  w_a = (1 + 1 + 0)/3 = 2/3, w_d = 0.
    //   a: Eq. 7, 0.5 + 0.7·(2/3 − 0.5)·(1 − 0.5) = 0.5 + 0.7/12 = 0.558333...
    //   d: Eq. 8 corrected, 0.5 − 0.2·(0.5 − 0)·0.5 = 0.45
    // printed Eq. 2: same answer d = 0 → rating 0, different d = 1 → rating 1.  w_a = 1/3, w_d = 1.
    //   a: Eq. 8 printed, 0.5 − (1/3)·0.5·0.2 = 0.5 − 1/30 = 0.466666...
    //   d: Eq. 7, 0.5 + 0.7·(1 − 0.5)·0.5 = 0.675
    const run = (variant: 'corrected' | 'printed') => {
      const pool = ['a', 'b', 'c', 'd'].map((id) => scriptedAgent(id, { t0: id === 'd' ? '2' : '1' }));
      return runDrf({
        pool,
        tasks: tasks(1),
        k: 4,
        rng: createRng(1),
        ...createDrfParts({ agents: ['a', 'b', 'c', 'd'], variant, ratingSource: agreementRatingSource() }),
      });
    };
    const corrected = (await run('corrected')).rounds[0];
    expect(corrected?.reputationAfter.a).toBeCloseTo(0.5 + 0.7 / 12, 12);
    expect(corrected?.reputationAfter.d).toBeCloseTo(0.45, 12);
    const printed = (await run('printed')).rounds[0];
    expect(printed?.reputationAfter.a).toBeCloseTo(0.5 - 1 / 30, 12);
    expect(printed?.reputationAfter.d).toBeCloseTo(0.675, 12);
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
