import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Evidence } from '../../reputation/reputation-model.js';
import { replayMethods } from './methods.js';

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

describe('readsRatings', () => {
  const created = Object.keys(replayMethods).map((name) => ({
    name,
    parts: replayMethods[name]?.create({ team, seed: 1 }),
  }));

  it('is false exactly for the models that ignore ratings (their state is the same without them)', () => {
    const blind = created.filter(({ parts }) => parts?.model !== undefined && parts.readsRatings === false);
    expect(blind.map(({ name }) => name).sort()).toEqual(['minirep', 'minirep-ds', 'minirep-lo', 'single-metric']);
    for (const { name } of blind) {
      fc.assert(
        fc.property(
          fc
            .uniqueArray(fc.integer({ min: 0, max: 1e6 }), { minLength: 1, maxLength: 8 })
            .chain((ids) => fc.tuple(...ids.map((id) => taskBatch(`t${id}`)))),
          (batches) => {
            const withRatings = replayMethods[name]?.create({ team, seed: 1 }).model;
            const without = replayMethods[name]?.create({ team, seed: 1 }).model;
            for (const batch of batches) {
              withRatings?.observe(batch);
              without?.observe(batch.filter((item) => item.type !== 'rating'));
            }
            expect(without?.snapshot()).toEqual(withRatings?.snapshot());
          },
        ),
        { seed: 5, numRuns: 40 },
      );
    }
  });

  it('is left on for the models that read ratings (ratings change their state)', () => {
    const readers = created.filter(({ parts }) => parts?.model !== undefined && parts.readsRatings !== false);
    expect(readers.map(({ name }) => name).sort()).toEqual(['beta', 'drf', 'eigentrust']);
    // a rates b 1 and c 0 on one task, with the same outcome for everyone: only the ratings differ.
    const outcomes: Evidence[] = team.map(({ id }) => ({ type: 'outcome', taskId: 't1', subject: id, success: 1 }));
    const ratings: Evidence[] = [
      { type: 'rating', rating: { rater: 'a', ratee: 'b', taskId: 't1', score: 1 } },
      { type: 'rating', rating: { rater: 'a', ratee: 'c', taskId: 't1', score: 0 } },
    ];
    for (const { name } of readers) {
      const withRatings = replayMethods[name]?.create({ team, seed: 1 }).model;
      const without = replayMethods[name]?.create({ team, seed: 1 }).model;
      withRatings?.observe([...outcomes, ...ratings]);
      without?.observe(outcomes);
      expect(without?.snapshot(), name).not.toEqual(withRatings?.snapshot());
    }
  });
});
