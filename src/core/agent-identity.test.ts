import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AgentIdentity, validateTeam } from './agent-identity.js';
import { InvalidArgumentError } from './errors.js';

describe('validateTeam', () => {
  it('refuses a repeated id at its first repeat, in short teams (pair by pair) and long ones (a set) alike', () => {
    // Second method: the first index whose id an earlier agent already has, found with indexOf.
    const firstRepeat = (ids: readonly string[]) => ids.findIndex((id, index) => ids.indexOf(id) < index);
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'), { minLength: 1, maxLength: 40 }),
        (ids) => {
          const team: AgentIdentity[] = ids.map((id) => ({ id, model: 'm' }));
          const repeat = firstRepeat(ids);
          if (repeat === -1) {
            expect(() => validateTeam(team)).not.toThrow();
            return;
          }
          let caught: unknown;
          try {
            validateTeam(team, 'pool');
          } catch (error) {
            caught = error;
          }
          expect(caught).toBeInstanceOf(InvalidArgumentError);
          expect((caught as InvalidArgumentError).parameter).toBe(`pool[${repeat}].id`);
          expect((caught as Error).message).toContain(`duplicate agent id ${JSON.stringify(ids[repeat])}`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('accepts 17 and more distinct agents (the set path)', () => {
    const team = Array.from({ length: 40 }, (_, index) => ({ id: `agent-${index}`, model: `m${index % 3}` }));
    expect(() => validateTeam(team)).not.toThrow();
  });
});
