import type { AgentId, AgentIdentity } from '../../core/agent-identity.js';
import { cloneGroups } from '../../core/agent-identity.js';
import { createRng, deriveSeed, sample } from '../../core/rng.js';
import type { SimulatedAgentProfile } from './simulated-team.js';

/** Team shapes drawn from a recorded pool (ranked best first). */
export type RecordedShapeName = 'one-strong' | 'two-strong' | 'mostly-weak' | 'clones' | 'honest-minority' | 'random';

/** Every recorded shape, in report order. */
export const recordedShapeNames: readonly RecordedShapeName[] = [
  'one-strong',
  'two-strong',
  'mostly-weak',
  'clones',
  'honest-minority',
  'random',
];

/** Simulated profiles (the seeded simulator), each defined at any team size. */
export type SimulatedShapeName = 'always-wrong' | 'coinciding-errors' | 'near-clones' | 'flat' | 'steep';

/** Every simulated profile, in report order. */
export const simulatedShapeNames: readonly SimulatedShapeName[] = [
  'always-wrong',
  'coinciding-errors',
  'near-clones',
  'flat',
  'steep',
];

/** The three small teams of issue 36, with their fixed sizes (also run live in the core suite). */
export const issueTeams: Readonly<Record<string, readonly SimulatedAgentProfile[]>> = {
  // right 100 %, 80 %, 35 % (its errors share the always-wrong answer half the time), 0 %
  'issue-4': [
    { id: 'right', accuracy: 1 },
    { id: 'good', accuracy: 0.8 },
    { id: 'weak', accuracy: 0.35, sharedWrong: 0.5 },
    { id: 'wrong', accuracy: 0, sharedWrong: 1 },
  ],
  'issue-3-wrong': [
    { id: 'right', accuracy: 1 },
    { id: 'good', accuracy: 0.8 },
    { id: 'wrong', accuracy: 0, sharedWrong: 1 },
  ],
  'issue-3-weak': [
    { id: 'right', accuracy: 1 },
    { id: 'good', accuracy: 0.8 },
    { id: 'weak', accuracy: 0.35 },
  ],
};

/** Evenly spaced values from `high` down to `low` (one value: `high`). */
function spread(count: number, high: number, low: number): number[] {
  return Array.from({ length: count }, (_, index) => high - ((high - low) * index) / Math.max(1, count - 1));
}

const agentId = (index: number) => `s${String(index).padStart(2, '0')}`;

/**
 * The agents of a simulated profile at `size` (≥ 3):
 * - `always-wrong`: one agent always wrong (always the task's common wrong answer), the rest 0.9 down to 0.5;
 * - `coinciding-errors`: 0.8 down to 0.4, wrong answers the common one 70 % of the time;
 * - `near-clones`: ⌈n/2⌉ agents copy one 0.7 agent 90 % of the time, under distinct model names
 *   (undeclared clones), the rest 0.75 down to 0.45;
 * - `flat`: every agent 0.6; `steep`: 0.95 down to 0.15 (both with 20 % / 30 % shared errors).
 */
export function simulatedProfiles(shape: SimulatedShapeName, size: number): SimulatedAgentProfile[] {
  switch (shape) {
    case 'always-wrong':
      return [
        ...spread(size - 1, 0.9, 0.5).map((accuracy, index) => ({ id: agentId(index), accuracy, sharedWrong: 0.3 })),
        { id: agentId(size - 1), accuracy: 0, sharedWrong: 1 },
      ];
    case 'coinciding-errors':
      return spread(size, 0.8, 0.4).map((accuracy, index) => ({ id: agentId(index), accuracy, sharedWrong: 0.7 }));
    case 'near-clones': {
      const clones = Math.ceil(size / 2);
      const rest = spread(size - clones, 0.75, 0.45);
      return Array.from({ length: size }, (_, index) =>
        index === 0
          ? { id: agentId(0), accuracy: 0.7, sharedWrong: 0.2 }
          : index < clones
            ? { id: agentId(index), accuracy: 0.7, sharedWrong: 0.2, copies: { agent: agentId(0), rate: 0.9 } }
            : { id: agentId(index), accuracy: rest[index - clones] ?? 0.5, sharedWrong: 0.2 },
      );
    }
    case 'flat':
      return Array.from({ length: size }, (_, index) => ({ id: agentId(index), accuracy: 0.6, sharedWrong: 0.2 }));
    case 'steep':
      return spread(size, 0.95, 0.15).map((accuracy, index) => ({ id: agentId(index), accuracy, sharedWrong: 0.3 }));
  }
}

/**
 * A team of `size` drawn from a pool ranked best first (seeded), best-ranked first; undefined when
 * the pool cannot hold the shape. The strong tier is the best quarter of the pool (at least 2
 * agents), the weak tier every agent outside it:
 * - `one-strong`: 1 strong, the rest weak; `two-strong`: 2 strong, the rest weak;
 * - `mostly-weak`: ⌊n/4⌋ strong, the rest weak;
 * - `honest-minority`: ⌈n/2⌉ − 1 strong (a minority, right more often), the rest from the worst-ranked;
 * - `clones`: the largest clone group (all of it, up to n), the rest drawn from the others;
 * - `random`: n drawn uniformly.
 */
export function buildRecordedTeam(
  shape: RecordedShapeName,
  pool: readonly AgentIdentity[],
  size: number,
  seed: number,
): AgentId[] | undefined {
  if (size > pool.length) return undefined;
  const ids = pool.map((agent) => agent.id);
  const rank = new Map(ids.map((id, index) => [id, index]));
  const byRank = (team: AgentId[]) => team.sort((left, right) => (rank.get(left) ?? 0) - (rank.get(right) ?? 0));
  const rng = createRng(deriveSeed(seed, 'zoo-team', shape, size));
  const tier = Math.max(2, Math.ceil(ids.length / 4));
  const strong = ids.slice(0, tier);
  const weak = ids.slice(tier);
  const mixed = (strongCount: number, weakFrom: readonly AgentId[]): AgentId[] | undefined => {
    if (strongCount > strong.length || size - strongCount > weakFrom.length) return undefined;
    return byRank([...sample(rng, strong, strongCount), ...sample(rng, weakFrom, size - strongCount)]);
  };
  switch (shape) {
    case 'one-strong':
      return mixed(1, weak);
    case 'two-strong':
      return mixed(2, weak);
    case 'mostly-weak':
      return mixed(Math.floor(size / 4), weak);
    case 'honest-minority': {
      const strongCount = Math.ceil(size / 2) - 1;
      // The weak majority comes from the worst-ranked half of the weak tier (when it is large enough).
      const worst = weak.slice(Math.max(0, weak.length - Math.max(size - strongCount, Math.ceil(weak.length / 2))));
      return mixed(strongCount, worst);
    }
    case 'clones': {
      const groups = [...cloneGroups(pool).values()].sort(
        (left, right) => right.length - left.length || ((left[0] ?? '') < (right[0] ?? '') ? -1 : 1),
      );
      const largest = groups[0];
      if (largest === undefined || largest.length < 2) return undefined;
      const members = largest.slice(0, size);
      const rest = ids.filter((id) => !members.includes(id));
      return byRank([...members, ...sample(rng, rest, size - members.length)]);
    }
    case 'random':
      return byRank(sample(rng, ids, size));
  }
}
