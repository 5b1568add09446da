import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { vetoedProposals, type VerdictRuleEntry } from './minirep-verdict-rule.js';

const entry = (
  agentId: string,
  verdict: number | undefined,
  extra: Partial<VerdictRuleEntry> = {},
): VerdictRuleEntry => ({
  agentId,
  valid: true,
  flagged: false,
  verdict,
  quality: 0.5,
  ...extra,
});

describe('vetoedProposals', () => {
  const entries = [
    entry('a', 0, { quality: 0.4 }),
    entry('b', 0.2, { quality: 0.1 }),
    entry('c', 0, { quality: 0.3 }),
    entry('d', 0, { flagged: true }),
    entry('e', 1, { flagged: true }),
    entry('f', 0, { valid: false }),
    entry('g', undefined),
  ];

  it('paper: only a judged-wrong proposal the behaviour check flagged', () => {
    expect([...vetoedProposals({ rule: 'paper', flagCap: 3, entries })]).toEqual(['d']);
  });

  it('capped veto: flagged ones count against ⌈0.3n⌉, the rest by lowest verdict, then quality', () => {
    // cap 3, 2 flagged (d, e) → room for 1 more: verdict 0 beats 0.2; among a and c (verdict 0) c has the lower quality.
    expect([...vetoedProposals({ rule: 'capped-veto', flagCap: 3, entries })].sort()).toEqual(['c', 'd']);
    // cap 4 → room for 2: c, then a.
    expect([...vetoedProposals({ rule: 'capped-veto', flagCap: 4, entries })].sort()).toEqual(['a', 'c', 'd']);
  });

  it('never cuts more than the cap, never an unjudged or unparseable proposal, and paper ⊆ flagged (property)', () => {
    const arbitraryEntry = fc.record({
      valid: fc.boolean(),
      flagged: fc.boolean(),
      verdict: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
      quality: fc.double({ min: 0, max: 1, noNaN: true }),
    });
    fc.assert(
      fc.property(fc.array(arbitraryEntry, { minLength: 1, maxLength: 20 }), (raw) => {
        const list = raw.map((fields, index) => ({ agentId: `x${index}`, ...fields }));
        const flagCap = Math.ceil(0.3 * list.length - 1e-9);
        const flagged = list.filter((item) => item.valid && item.flagged);
        const byId = new Map(list.map((item) => [item.agentId, item]));
        for (const rule of ['paper', 'capped-veto'] as const) {
          const vetoed = vetoedProposals({ rule, flagCap, entries: list });
          for (const id of vetoed) {
            const item = byId.get(id);
            expect(item?.valid).toBe(true);
            expect(item?.verdict).toBeLessThan(0.5);
            if (rule === 'paper') expect(item?.flagged).toBe(true);
          }
          // The analyzer keeps its flags within the cap; with that, vetoes stay within it too.
          if (flagged.length <= flagCap) expect(vetoed.size).toBeLessThanOrEqual(flagCap);
        }
      }),
      { seed: 3, numRuns: 300 },
    );
  });
});
