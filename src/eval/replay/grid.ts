import type { AgentId, AgentIdentity } from '../../core/agent-identity.js';
import { cloneGroups } from '../../core/agent-identity.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { createRng, deriveSeed, sample, shuffle } from '../../core/rng.js';
import type { AttackName, CompositionName, Condition, PlacementName } from './types.js';
import { attackNames, compositionNames, placementNames } from './types.js';

/** Team size of every grid composition. */
export const teamSize = 10;
/** Corrupted members per attacked condition of a 10-agent team: ⌈0.3 · 10⌉. */
export const attackerCount = 3;
/** Share of a team that is corrupted in every attacked condition (3 of 10; 12 of a 40-agent pool). */
export const attackerShare = 0.3;
/**
 * Size of the strong and weak tiers the seeded `all-strong`, `all-weak` and `7s3w` teams are drawn
 * from (ours): the ⌈1.5 · 10⌉ = 15 best- and worst-ranked agents (the whole pool when it is smaller).
 */
export const tierSize = 15;

/** Corrupted members of a team of `size`: ⌈0.3 · size⌉ (3 of 10). */
export function attackersFor(size: number): number {
  // ⌈0.3·n⌉, guarded against 0.3·10 = 3.0000000000000004
  return Math.ceil(attackerShare * size - 1e-9);
}
/** Clone groups the random composition includes whole (at most 3 members each), where the pool has them. */
export const randomCloneGroups = 2;

/**
 * Builds the teams from a pool ranked best first, every one seeded:
 * - `all-strong`: 10 drawn from the {@link tierSize} best-ranked agents;
 * - `all-weak`: 10 drawn from the {@link tierSize} worst-ranked;
 * - `7s3w`: 7 drawn from the strong tier and 3 from the weak tier;
 * - `random`: {@link randomCloneGroups} clone groups with ≥ 2 members drawn at random (up to 3
 *   members each), filled up with agents drawn uniformly from the rest;
 * - `pool`: every agent of the pool (not seeded).
 * Each team is returned best-ranked first.
 */
export function buildCompositions(pool: readonly AgentIdentity[], seed: number): Record<CompositionName, AgentId[]> {
  if (pool.length < teamSize) {
    throw new InvalidArgumentError({
      parameter: 'pool',
      value: pool.length,
      message: `compositions need at least ${teamSize} agents, got ${pool.length}; use a dataset with 10 or more agents`,
    });
  }
  const ids = pool.map((agent) => agent.id);
  const rank = new Map(ids.map((id, index) => [id, index]));
  const byRank = (team: AgentId[]) =>
    team.slice().sort((left, right) => (rank.get(left) ?? 0) - (rank.get(right) ?? 0));
  const tier = Math.min(ids.length, tierSize);
  const strong = ids.slice(0, tier);
  const weak = ids.slice(ids.length - tier);
  const drawFrom = (label: string, from: readonly AgentId[], count: number, taken: readonly AgentId[] = []) =>
    sample(
      createRng(deriveSeed(seed, 'composition', label)),
      from.filter((id) => !taken.includes(id)),
      count,
    );
  const strongSeven = drawFrom('7s3w/strong', strong, 7);
  const weakThree = drawFrom('7s3w/weak', weak, 3, strongSeven);
  const rng = createRng(deriveSeed(seed, 'composition', 'random'));
  const groups = [...cloneGroups(pool).values()].filter((members) => members.length >= 2);
  const chosen: AgentId[] = [];
  for (const members of shuffle(rng, groups).slice(0, randomCloneGroups)) {
    for (const member of shuffle(rng, members).slice(0, 3)) if (chosen.length < teamSize) chosen.push(member);
  }
  const rest = ids.filter((id) => !chosen.includes(id));
  chosen.push(...sample(rng, rest, teamSize - chosen.length));
  return {
    'all-strong': byRank(drawFrom('all-strong', strong, teamSize)),
    'all-weak': byRank(drawFrom('all-weak', weak, teamSize)),
    '7s3w': byRank([...strongSeven, ...weakThree]),
    random: byRank(chosen),
    pool: ids.slice(),
  };
}

/**
 * The corrupted members of a team (best-ranked first), m = ⌈0.3·n⌉ of n: B = the m best-ranked,
 * W = the m worst, R1/R2 = seeded random m. B and W follow the seed through the seeded teams.
 */
export function placeAttackers(
  team: readonly AgentId[],
  placement: PlacementName,
  seed: number,
  composition: CompositionName,
): AgentId[] {
  const count = attackersFor(team.length);
  if (placement === 'B') return team.slice(0, count);
  if (placement === 'W') return team.slice(team.length - count);
  const picked = new Set(sample(createRng(deriveSeed(seed, 'placement', composition, placement)), team, count));
  return team.filter((agent) => picked.has(agent));
}

/**
 * The full grid in a fixed order: per composition, its clean run, then every placement × attack.
 * With the defaults (the paper's four compositions) that is 4 clean + 4 × 4 × 7 = 112 attacked
 * conditions; `pool` adds 1 + 28.
 *
 * @example
 * const conditions = buildGrid(prepared.agents, 2027);
 * conditions.length; // 116
 */
export function buildGrid(
  pool: readonly AgentIdentity[],
  seed: number,
  {
    attacks = attackNames,
    compositions = compositionNames,
    placements = placementNames,
  }: {
    attacks?: readonly AttackName[];
    compositions?: readonly CompositionName[];
    placements?: readonly PlacementName[];
  } = {},
): Condition[] {
  const teams = buildCompositions(pool, seed);
  const conditions: Condition[] = [];
  for (const composition of compositions) {
    const team = teams[composition];
    conditions.push({
      index: conditions.length,
      id: `${composition}/clean`,
      composition,
      placement: null,
      attack: null,
      team,
      attackers: [],
    });
    for (const placement of placements) {
      const attackers = placeAttackers(team, placement, seed, composition);
      for (const attack of attacks) {
        conditions.push({
          index: conditions.length,
          id: `${composition}/${placement}/${attack}`,
          composition,
          placement,
          attack,
          team,
          attackers,
        });
      }
    }
  }
  return conditions;
}
