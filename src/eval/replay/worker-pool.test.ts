import { describe, expect, it } from 'vitest';
import { prepareFixtureGrid } from '../../testing/_test-replay-grid.js';
import { resolveReplayMethods } from './methods.js';
import { planGrid, type GridPlan } from './plan-grid.js';
import { runCondition } from './run-condition.js';
import type { ConditionResult } from './types.js';
import { createWorkerPool } from './worker-pool.js';

const methods = ['majority', 'beta', 'minirep'];

/** What the calling thread computes for condition `index`: every method of `methods`, in one call. */
function replayedHere(
  {
    prepared,
    conditions,
    settings,
  }: Pick<ReturnType<typeof prepareFixtureGrid>, 'prepared' | 'conditions' | 'settings'>,
  index: number,
  planFor: (index: number) => GridPlan,
): ConditionResult {
  return runCondition({
    prepared,
    condition: conditions[index] as never,
    methods: resolveReplayMethods(methods),
    settings,
    plan: planFor(index),
  });
}

describe('createWorkerPool', () => {
  it('serves several seeds with the same workers and returns what the calling thread computes', async () => {
    const pool = createWorkerPool(2);
    try {
      for (const seed of [1, 2]) {
        const { ops, prepared, conditions, settings } = prepareFixtureGrid({ fixtureSeed: 21, seed, tasks: 12 });
        // Three conditions of each seed: a clean one, a fixed attack and ADAPT.
        const picked = [conditions[0], conditions[5], conditions[conditions.length - 1]].map(
          (condition) => condition?.index as number,
        );
        const planFor = (index: number) => planGrid({ prepared, conditions: [conditions[index] as never], seed, ops });
        const results: ConditionResult[] = [];
        const queue = picked.map((index) => ({ index, methods }));
        const { threadCpuMs } = await pool.run(
          { prepared, conditions, methods, seed, feedback: settings.feedback, verifier: settings.verifier },
          () => queue.shift(),
          planFor,
          (result) => results.push(result),
        );
        results.sort((left, right) => left.index - right.index);
        const expected = picked.map((index) => replayedHere({ prepared, conditions, settings }, index, planFor));
        expect(results).toEqual(expected);
        expect(threadCpuMs.length === 0 || threadCpuMs.length === 2).toBe(true);
      }
    } finally {
      await pool.close();
    }
  }, 60_000);

  it('replays the methods each unit names, and asks each lane by its number', async () => {
    const pool = createWorkerPool(2);
    try {
      const seed = 3;
      const { ops, prepared, conditions, settings } = prepareFixtureGrid({ fixtureSeed: 21, seed, tasks: 10 });
      const planFor = (index: number) => planGrid({ prepared, conditions: [conditions[index] as never], seed, ops });
      // Condition 1 cut in two units (minirep; majority and beta), condition 2 whole.
      const queue = [
        { index: 1, methods: ['minirep'] },
        { index: 1, methods: ['majority', 'beta'] },
        { index: 2, methods },
      ];
      const lanes: number[] = [];
      const results: ConditionResult[] = [];
      await pool.run(
        { prepared, conditions, methods, seed, feedback: settings.feedback, verifier: settings.verifier },
        (lane) => {
          lanes.push(lane);
          return queue.shift();
        },
        planFor,
        (result) => results.push(result),
      );
      // Workers 0 and 1 are lanes 1 and 2; each asks twice at the start and once per result.
      expect(new Set(lanes)).toEqual(new Set([1, 2]));
      const runsOf = (index: number) =>
        results
          .filter((result) => result.index === index)
          .flatMap((result) => result.runs)
          .sort((left, right) => methods.indexOf(left.method) - methods.indexOf(right.method));
      const whole = (index: number) => replayedHere({ prepared, conditions, settings }, index, planFor).runs;
      expect(
        results
          .filter((result) => result.index === 1)
          .map((result) => result.runs.length)
          .sort(),
      ).toEqual([1, 2]);
      expect(runsOf(1)).toEqual(whole(1));
      expect(runsOf(2)).toEqual(whole(2));
    } finally {
      await pool.close();
    }
  }, 60_000);

  it('rejects with the worker-side error, then refuses further runs', async () => {
    const pool = createWorkerPool(1);
    try {
      const { prepared, conditions, settings, ops } = prepareFixtureGrid({ fixtureSeed: 21, seed: 1, tasks: 4 });
      const init = {
        prepared,
        conditions,
        methods: ['no-such-method'],
        feedback: settings.feedback,
        verifier: settings.verifier,
        seed: 1,
      };
      const planFor = (index: number) => planGrid({ prepared, conditions: [conditions[index] as never], seed: 1, ops });
      const once = (queue: number[]) => () => {
        const index = queue.shift();
        return index === undefined ? undefined : { index, methods };
      };
      await expect(pool.run(init, once([0]), planFor, () => undefined)).rejects.toMatchObject({
        name: 'InvalidArgumentError',
        message: expect.stringContaining('no-such-method'),
      });
      await expect(pool.run({ ...init, methods }, once([0]), planFor, () => undefined)).rejects.toMatchObject({
        message: expect.stringContaining('no-such-method'),
      });
    } finally {
      await pool.close();
    }
  }, 60_000);
});
