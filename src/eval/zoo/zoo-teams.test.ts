import { describe, expect, it } from 'vitest';
import type { AgentIdentity } from '../../core/agent-identity.js';
import { buildRecordedTeam, recordedShapeNames, simulatedProfiles, simulatedShapeNames } from './zoo-teams.js';

// 20 agents ranked best first: r00 .. r19; r10, r11, r12 are clones of model 'm', the rest their own model.
const pool: AgentIdentity[] = Array.from({ length: 20 }, (_, index) => {
  const id = `r${String(index).padStart(2, '0')}`;
  return { id, model: index >= 10 && index <= 12 ? 'm' : id };
});
// Strong tier: the best quarter, ⌈20/4⌉ = 5 agents (r00..r04).
const strong = new Set(['r00', 'r01', 'r02', 'r03', 'r04']);
const strongIn = (team: readonly string[]) => team.filter((id) => strong.has(id)).length;

describe('buildRecordedTeam', () => {
  it('draws each shape with its number of strong members, distinct and best-ranked first', () => {
    for (const size of [3, 4, 7, 10]) {
      const teams = Object.fromEntries(
        recordedShapeNames.map((shape) => [shape, buildRecordedTeam(shape, pool, size, 1) as string[]]),
      );
      for (const team of Object.values(teams)) {
        expect(team).toHaveLength(size);
        expect(new Set(team).size).toBe(size);
        expect(team).toEqual(team.slice().sort());
      }
      expect(strongIn(teams['one-strong'] ?? [])).toBe(1);
      expect(strongIn(teams['two-strong'] ?? [])).toBe(2);
      expect(strongIn(teams['mostly-weak'] ?? [])).toBe(Math.floor(size / 4));
      // ⌈n/2⌉ − 1 strong: 1 of 3, 1 of 4, 3 of 7, 4 of 10 (but at most the 5 of the tier).
      expect(strongIn(teams['honest-minority'] ?? [])).toBe(Math.ceil(size / 2) - 1);
      // The clone group r10..r12, whole up to n.
      expect(teams.clones?.filter((id) => ['r10', 'r11', 'r12'].includes(id))).toHaveLength(Math.min(3, size));
    }
  });

  it('returns undefined when the pool cannot hold the shape, and is seeded', () => {
    expect(buildRecordedTeam('random', pool, 21, 1)).toBeUndefined();
    // honest-minority of 20 needs ⌈20/2⌉ − 1 = 9 strong agents; the tier holds 5.
    expect(buildRecordedTeam('honest-minority', pool, 20, 1)).toBeUndefined();
    expect(buildRecordedTeam('random', pool, 7, 5)).toEqual(buildRecordedTeam('random', pool, 7, 5));
    expect(
      buildRecordedTeam(
        'clones',
        pool.map((agent) => ({ id: agent.id, model: agent.id })),
        5,
        1,
      ),
    ).toBeUndefined();
  });
});

describe('simulatedProfiles', () => {
  it('gives every profile n agents with rates in [0, 1] at every size', () => {
    for (const shape of simulatedShapeNames)
      for (const size of [3, 4, 5, 10, 40]) {
        const profiles = simulatedProfiles(shape, size);
        expect(profiles).toHaveLength(size);
        expect(new Set(profiles.map((profile) => profile.id)).size).toBe(size);
        for (const profile of profiles) {
          expect(profile.accuracy).toBeGreaterThanOrEqual(0);
          expect(profile.accuracy).toBeLessThanOrEqual(1);
        }
      }
    // always-wrong: exactly one agent at 0; steep: 0.95 down to 0.15 evenly (5 agents: step 0.2).
    expect(simulatedProfiles('always-wrong', 5).filter((profile) => profile.accuracy === 0)).toHaveLength(1);
    expect(simulatedProfiles('steep', 5).map((profile) => profile.accuracy)).toEqual(
      [0.95, 0.75, 0.55, 0.35, 0.15].map((value) => expect.closeTo(value, 12)),
    );
    // near-clones: ⌈7/2⌉ = 4 agents, the first and the 3 that copy it.
    expect(simulatedProfiles('near-clones', 7).filter((profile) => profile.copies !== undefined)).toHaveLength(3);
  });
});
