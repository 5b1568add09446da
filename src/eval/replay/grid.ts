import type { AgentId, AgentIdentity } from '../../core/agent-identity.js';
import { cloneGroups } from '../../core/agent-identity.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { createRng, deriveSeed, sample, shuffle } from '../../core/rng.js';
import type { AttackName, CompositionName, Condition, PlacementName } from './types.js';
import { attackNames, compositionNames, placementNames } from './types.js';

/** Team size of every grid composition. */
export const teamSize = 10;
/** Corrupted members per attacked condition. */
export const attackerCount = 3;
/** Clone groups the random composition includes whole (at most 3 members each), where the pool has them. */
export const randomCloneGroups = 2;

/**
 * Builds the four teams from a pool ranked best first:
 * - `all-strong`: the 10 best-ranked agents;
 * - `all-weak`: the 10 worst-ranked;
 * - `7s3w`: the 7 best and the 3 worst;
 * - `random`: {@link randomCloneGroups} clone groups with ≥ 2 members drawn at random (up to 3
 *   members each), filled up with agents drawn uniformly from the rest, seeded.
 * Each team is returned best-ranked first.
 */
export function buildCompositions(pool: readonly AgentIdentity[], seed: number): Record<CompositionName, AgentId[]> {
  if (pool.length < teamSize) {
    throw new InvalidArgumentError({ parameter: 'pool', value: pool.length, message: `compositions need at least ${teamSize} agents, got ${pool.length}` });
  }
  const ids = pool.map((agent) => agent.id);
  const rank = new Map(ids.map((id, index) => [id, index]));
  const byRank = (team: AgentId[]) => team.slice().sort((left, right) => (rank.get(left) ?? 0) - (rank.get(right) ?? 0));
  const rng = createRng(deriveSeed(seed, 'composition', 'random'));
  const groups = [...cloneGroups(pool).values()].filter((members) => members.length >= 2);
  const chosen: AgentId[] = [];
  for (const members of shuffle(rng, groups).slice(0, randomCloneGroups)) {
    for (const member of shuffle(rng, members).slice(0, 3)) if (chosen.length < teamSize) chosen.push(member);
  }
  const rest = ids.filter((id) => !chosen.includes(id));
  chosen.push(...sample(rng, rest, teamSize - chosen.length));
  return {
    'all-strong': ids.slice(0, teamSize),
    'all-weak': ids.slice(ids.length - teamSize),
    '7s3w': [...ids.slice(0, 7), ...ids.slice(ids.length - 3)],
    random: byRank(chosen),
  };
}

/** The corrupted members of a team (best-ranked first): B = top 3, W = bottom 3, R1/R2 = seeded random 3. */
export function placeAttackers(team: readonly AgentId[], placement: PlacementName, seed: number, composition: CompositionName): AgentId[] {
  if (placement === 'B') return team.slice(0, attackerCount);
  if (placement === 'W') return team.slice(team.length - attackerCount);
  const picked = new Set(sample(createRng(deriveSeed(seed, 'placement', composition, placement)), team, attackerCount));
  return team.filter((agent) => picked.has(agent));
}

/**
 * The full grid in a fixed order: per composition, its clean run, then every placement × attack.
 * With the defaults that is 4 clean + 4 × 4 × 7 = 112 attacked conditions.
 *
 * @example
 * const conditions = buildGrid(prepared.agents, 2027);
 * conditions.length; // 116
 */
export function buildGrid(
  pool: readonly AgentIdentity[],
  seed: number,
  { attacks = attackNames, compositions = compositionNames, placements = placementNames }: { attacks?: readonly AttackName[]; compositions?: readonly CompositionName[]; placements?: readonly PlacementName[] } = {},
): Condition[] {
  const teams = buildCompositions(pool, seed);
  const conditions: Condition[] = [];
  for (const composition of compositions) {
    const team = teams[composition];
    conditions.push({ index: conditions.length, id: `${composition}/clean`, composition, placement: null, attack: null, team, attackers: [] });
    for (const placement of placements) {
      const attackers = placeAttackers(team, placement, seed, composition);
      for (const attack of attacks) {
        conditions.push({ index: conditions.length, id: `${composition}/${placement}/${attack}`, composition, placement, attack, team, attackers });
      }
    }
  }
  return conditions;
}
