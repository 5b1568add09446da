// Internal test helper: a replay fixture prepared over all its tasks, with the full condition grid
// and consensus settings without a verifier, and a selector that takes everyone. Shared by the replay
// harness tests (run-replay, plan-grid, run-condition); kept out of the package.
import { createDefaultAnswerOps } from '../eval/replay/default-answer-ops.js';
import { generateReplayFixture } from '../eval/replay/fixture.js';
import { buildGrid } from '../eval/replay/grid.js';
import { prepareReplay } from '../eval/replay/prepare.js';
import type { Condition, MethodRun } from '../eval/replay/types.js';
import type { Selector } from '../selection/selector.js';

/**
 * Prepares `tasks` tasks of the replay fixture made with seed `fixtureSeed` (split `all`), builds the
 * 116-condition grid and the condition settings (consensus feedback, no verifier), all with `seed`.
 */
export function prepareFixtureGrid({ fixtureSeed, seed, tasks }: { fixtureSeed: number; seed: number; tasks: number }) {
  const ops = createDefaultAnswerOps();
  const { prepared } = prepareReplay({
    dataset: generateReplayFixture({ seed: fixtureSeed, tasks }),
    ops,
    seed,
    tasks,
    split: 'all',
  });
  const conditions = buildGrid(prepared.agents, seed);
  const settings = {
    seed,
    feedback: 'consensus' as const,
    verifier: { kind: 'none' as const, model: 'correlated' as const, sensitivity: 0.85, specificity: 0.8 },
  };
  return { ops, prepared, conditions, settings };
}

/** The condition with id `id`; throws naming it when the grid has none. */
export function findCondition(conditions: readonly Condition[], id: string): Condition {
  const condition = conditions.find((candidate) => candidate.id === id);
  if (condition === undefined) throw new Error(`missing ${id}`);
  return condition;
}

/** A test selector under which every agent of the pool takes part (no reasons), so the harness is checked on its own. */
export const everyoneSelector: Selector = {
  name: 'all',
  select: ({ pool }) => ({ selected: pool.map((agent) => agent.id), excluded: [], reasons: [] }),
};

/**
 * A method's run of one condition for summary tests: per-task scores `f1` (exact = f1), no active
 * task unless `active` says so, every count 0 unless given in `extra`.
 */
export function methodRun(
  method: string,
  f1: readonly number[],
  { active, ...extra }: Partial<Omit<MethodRun, 'active'>> & { active?: readonly number[] } = {},
): MethodRun {
  return {
    method,
    f1: Float64Array.from(f1),
    exact: Float64Array.from(f1),
    active: Uint8Array.from(active ?? f1.map(() => 0)),
    poolExpTasks: 0,
    payloadHitTasks: 0,
    nextExclTasks: 0,
    nextExclEligible: 0,
    weightShareSum: 0,
    weightShareCount: 0,
    attackerWeight: new Float64Array(0),
    honestWeight: new Float64Array(0),
    proposals: 0,
    ...extra,
  };
}
