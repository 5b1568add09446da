// Internal test helper: a replay fixture prepared over all its tasks, with the full condition grid
// and consensus settings without a verifier, and a selector that takes everyone. Shared by the replay
// harness tests (run-replay, plan-grid, run-condition); kept out of the package.
import { createDefaultAnswerOps } from '../eval/replay/default-answer-ops.js';
import { generateReplayFixture } from '../eval/replay/fixture.js';
import { buildGrid } from '../eval/replay/grid.js';
import { prepareReplay } from '../eval/replay/prepare.js';
import type { Condition } from '../eval/replay/types.js';
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
    verifier: { kind: 'none' as const, sensitivity: 0.85, specificity: 0.8 },
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
