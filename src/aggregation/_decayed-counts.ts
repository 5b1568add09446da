// Per-agent decayed counts behind MiniRep-LO's and MiniRep-DS's histories:
//   c_i ← λ·c_i + y,  n_i ← λ·n_i + 1,  p_i = (c_i + a₀) / (n_i + a₀ + b₀)
import type { AgentId } from '../core/agent-identity.js';
import { InvalidArgumentError } from '../core/errors.js';
import { assertInRange } from '../core/validate.js';

/** Persisted counts: [agent, decayed sum of observations c, decayed number of observations n], sorted by agent. */
export interface DecayedCountsSnapshot {
  readonly schemaVersion: 1;
  readonly agents: ReadonlyArray<readonly [AgentId, number, number]>;
}

/** Decayed per-agent counts with a Beta(a₀, b₀) prior. */
export interface DecayedCounts {
  /** p = (c + a₀)/(n + a₀ + b₀); the prior mean for an agent never observed. */
  probability(agentId: AgentId): number;
  /** c ← λ·c + value, n ← λ·n + 1 (the caller checks the value). */
  add(agentId: AgentId, value: number): void;
  snapshot(): DecayedCountsSnapshot;
  /** Replaces every count (errors name the snapshot's producer, the `name` given at creation). */
  restore(snapshot: DecayedCountsSnapshot): void;
}

/**
 * Checks λ ∈ (0, 1] and a₀, b₀ > 0, naming them `${name}.decay`, `${name}.priorAgree`, `${name}.priorDisagree`.
 *
 * @example
 * const counts = createDecayedCounts('posteriorHistory', { decay: 0.95, priorAgree: 2, priorDisagree: 2 });
 * counts.add('a', 1);
 * counts.probability('a'); // (1 + 2)/(1 + 4) = 0.6
 */
export function createDecayedCounts(
  name: string,
  { decay, priorAgree, priorDisagree }: { decay: number; priorAgree: number; priorDisagree: number },
): DecayedCounts {
  assertInRange(`${name}.decay`, decay, 0, 1, { minExclusive: true, hint: 'pass e.g. { decay: 0.95 }' });
  for (const [field, value] of [
    ['priorAgree', priorAgree],
    ['priorDisagree', priorDisagree],
  ] as const)
    assertInRange(`${name}.${field}`, value, 0, 1e6, { minExclusive: true, hint: `pass e.g. { ${field}: 2 }` });
  const counts = new Map<AgentId, { agree: number; seen: number }>();
  return {
    probability(agentId) {
      const state = counts.get(agentId);
      return ((state?.agree ?? 0) + priorAgree) / ((state?.seen ?? 0) + priorAgree + priorDisagree);
    },
    add(agentId, value) {
      let state = counts.get(agentId);
      if (state === undefined) {
        state = { agree: 0, seen: 0 };
        counts.set(agentId, state);
      }
      state.agree = decay * state.agree + value;
      state.seen = decay * state.seen + 1;
    },
    snapshot: () => ({
      schemaVersion: 1,
      agents: [...counts]
        .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
        .map(([agentId, state]) => [agentId, state.agree, state.seen] as const),
    }),
    restore(snapshot) {
      if (
        snapshot === null ||
        typeof snapshot !== 'object' ||
        snapshot.schemaVersion !== 1 ||
        !Array.isArray(snapshot.agents)
      ) {
        throw new InvalidArgumentError({
          parameter: 'snapshot',
          value: snapshot,
          message: `snapshot must come from ${name}.snapshot() (schemaVersion 1)`,
        });
      }
      const restored = new Map<AgentId, { agree: number; seen: number }>();
      snapshot.agents.forEach((entry, index) => {
        // A non-array entry used to throw a bare TypeError, and numeric strings passed the range check
        // ("0.5" >= 0) and were later concatenated into p instead of added.
        if (
          !Array.isArray(entry) ||
          typeof entry[0] !== 'string' ||
          entry[0].length === 0 ||
          typeof entry[1] !== 'number' ||
          !Number.isFinite(entry[1]) ||
          typeof entry[2] !== 'number' ||
          !Number.isFinite(entry[2])
        )
          throw new InvalidArgumentError({
            parameter: `snapshot.agents[${index}]`,
            value: entry,
            message: `snapshot.agents[${index}] must be [agent id, decayed sum of observations, decayed number of observations] with finite numbers, from ${name}.snapshot()`,
          });
      });
      for (const [agentId, agree, seen] of snapshot.agents) {
        if (!(agree >= 0 && seen >= agree))
          throw new InvalidArgumentError({
            parameter: `snapshot.agents.${agentId}`,
            value: [agree, seen],
            message: 'each agent needs 0 ≤ the decayed sum of observations ≤ the decayed number of observations',
          });
        restored.set(agentId, { agree, seen });
      }
      counts.clear();
      for (const [agentId, state] of restored) counts.set(agentId, state);
    },
  };
}
