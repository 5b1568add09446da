import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Evidence } from '../../reputation/reputation-model.js';
import {
  declaredVerifierCalibration,
  replayMethods,
  replayMethodNames,
  resolveReplayMethods,
  verifierReplayMethodNames,
} from './methods.js';

const team = ['a', 'b', 'c', 'd'].map((id, index) => ({ id, model: `m${index % 3}` }));
const agent = fc.constantFrom('a', 'b', 'c', 'd');

/** One task's feedback as the replay harness sends it: outcomes, behaviour records, then ratings. */
const taskBatch = (taskId: string) =>
  fc
    .tuple(
      fc.array(fc.tuple(agent, fc.constantFrom(0, 1)), { minLength: 1, maxLength: 4 }),
      fc.array(fc.tuple(agent, fc.boolean(), fc.boolean(), fc.double({ min: 0, max: 1, noNaN: true })), {
        maxLength: 4,
      }),
      fc.array(fc.tuple(agent, agent, fc.constantFrom(0, 1)), { minLength: 1, maxLength: 12 }),
    )
    .map(([outcomes, behaviours, ratings]): Evidence[] => [
      ...outcomes.map(([subject, success]): Evidence => ({ type: 'outcome', taskId, subject, success })),
      ...behaviours.map(
        ([subject, valid, flagged, quality]): Evidence => ({
          type: 'behaviour',
          taskId,
          subject,
          valid,
          flagged,
          risk: flagged ? 0.5 : 0,
          quality,
        }),
      ),
      ...ratings
        .filter(([rater, ratee]) => rater !== ratee)
        .map(([rater, ratee, score]): Evidence => ({ type: 'rating', rating: { rater, ratee, taskId, score } })),
    ]);

/** The replay kind of an evidence item: an outcome with an observer is an observation. */
const kindOf = (item: Evidence) => (item.type === 'outcome' && item.observer !== undefined ? 'observation' : item.type);

describe('reads', () => {
  const kinds = ['outcome', 'behaviour', 'rating'] as const;
  const stateful = Object.keys(replayMethods).filter(
    (name) => replayMethods[name]?.create({ team, seed: 1 }).model !== undefined,
  );
  const readsOf = (name: string) => replayMethods[name]?.create({ team, seed: 1 }).reads ?? kinds;

  it('declares what each model reads: of outcomes, behaviour and ratings, sending only the declared kinds leaves the same scores and weights', () => {
    expect(Object.fromEntries(stateful.map((name) => [name, [...readsOf(name)].sort()]))).toEqual({
      'single-metric': ['outcome'],
      beta: ['outcome'],
      eigentrust: ['observation', 'rating'],
      drf: ['observation', 'rating'],
      minirep: ['behaviour', 'outcome'],
      'minirep-veto': ['behaviour', 'outcome'],
      'minirep-lo': ['behaviour', 'outcome'],
      'minirep-ds': ['behaviour', 'outcome'],
      'minirep-vb': ['behaviour', 'outcome'],
      'minirep-vg': ['behaviour', 'outcome'],
      // Not only an economy: the model takes an outcome's success over a behaviour record's quality, and
      // the replay's outcomes under consensus are agreement with the decision, which would override
      // MiniRep-RT's target (the rest of the team). So it is sent its behaviour records only, and the
      // check below, that the undeclared kinds change nothing, does not apply to it.
      'minirep-rt': ['behaviour'],
      'minirep-es': ['behaviour', 'outcome'],
      'minirep-ic': ['behaviour', 'outcome'],
      'minirep-rt-ic-es': ['behaviour'],
      'minirep-ds-ic-es': ['behaviour', 'outcome'],
    });
    for (const name of stateful.filter((method) => method !== 'minirep-rt' && method !== 'minirep-rt-ic-es')) {
      const read = readsOf(name) as readonly string[];
      fc.assert(
        fc.property(
          fc
            .uniqueArray(fc.integer({ min: 0, max: 1e6 }), { minLength: 1, maxLength: 8 })
            .chain((ids) => fc.tuple(...ids.map((id) => taskBatch(`t${id}`)))),
          (batches) => {
            const everything = replayMethods[name]?.create({ team, seed: 1 }).model;
            const declared = replayMethods[name]?.create({ team, seed: 1 }).model;
            for (const batch of batches) {
              everything?.observe(batch);
              declared?.observe(batch.filter((item) => read.includes(kindOf(item))));
              // All the replay reads of a model: scores (selectors) and weights (aggregators).
              expect(declared?.scores(), name).toEqual(everything?.scores());
              expect(declared?.weights(), name).toEqual(everything?.weights());
            }
            // Beta keeps the ratings in per-observer beliefs, which no score or weight reads.
            if (name !== 'beta') expect(declared?.snapshot(), name).toEqual(everything?.snapshot());
          },
        ),
        { seed: 5, numRuns: 40 },
      );
    }
  });

  it('leaves out no kind a model reads: dropping any declared kind changes its state', () => {
    // One task: a is right and b, c, d wrong (behaviour quality 0.5, which the outcomes override in
    // MiniRep); b's proposal flagged; a rates b 1 and c 0; c observes d's success.
    const batch: Evidence[] = [
      ...team.map(({ id }): Evidence => ({ type: 'outcome', taskId: 't1', subject: id, success: id === 'a' ? 1 : 0 })),
      ...team.map(
        ({ id }): Evidence => ({
          type: 'behaviour',
          taskId: 't1',
          subject: id,
          valid: true,
          flagged: id === 'b',
          risk: id === 'b' ? 0.9 : 0,
          quality: 0.5,
        }),
      ),
      { type: 'rating', rating: { rater: 'a', ratee: 'b', taskId: 't1', score: 1 } },
      { type: 'rating', rating: { rater: 'a', ratee: 'c', taskId: 't1', score: 0 } },
      { type: 'outcome', taskId: 't1', subject: 'd', observer: 'c', success: 1 },
    ];
    for (const name of stateful) {
      for (const kind of readsOf(name)) {
        const all = replayMethods[name]?.create({ team, seed: 1 }).model;
        const without = replayMethods[name]?.create({ team, seed: 1 }).model;
        all?.observe(batch);
        without?.observe(batch.filter((item) => kindOf(item) !== kind));
        expect(without?.snapshot(), `${name} without ${kind}`).not.toEqual(all?.snapshot());
      }
    }
  });
});

describe('minirep-vg with a declared verifier calibration', () => {
  it('resolves minirep-vg@SENS:SPEC by name, runs only when named, and refuses rates outside (0, 1)', () => {
    const [method] = resolveReplayMethods(['minirep-vg@0.994:0.948']);
    expect(method?.name).toBe('minirep-vg@0.994:0.948');
    expect(method?.description).toMatch(/declared sensitivity 0.994 \/ specificity 0.948/);
    // The replay's terms (P(judged wrong | wrong) 0.994, P(judged right | right) 0.948) become
    // MiniRep-VB's P(accept | right) 0.948 and P(reject | wrong) 0.994.
    expect(declaredVerifierCalibration('minirep-vg@0.994:0.948')).toEqual({ sensitivity: 0.948, specificity: 0.994 });
    expect(declaredVerifierCalibration('minirep-vb')).toBeUndefined();
    expect(method?.create({ team, seed: 1 }).reads).toEqual(['outcome', 'behaviour']);
    expect(replayMethodNames).not.toContain('minirep-vg');
    expect(verifierReplayMethodNames).not.toContain('minirep-vg');
    expect(() => resolveReplayMethods(['minirep-vg@1:0.9'])).toThrow(/sensitivity must be in \(0, 1\)/);
    expect(() => resolveReplayMethods(['minirep-vg@0.9:0'])).toThrow(/specificity must be in \(0, 1\)/);
    expect(() => resolveReplayMethods(['minirep-vg@0.9'])).toThrow(/unknown replay method/);
  });
});
