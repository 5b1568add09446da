// Which proposals MiniRep's verdict factor φ_v applies to: the one place that turns a verifier's
// verdicts into a penalty. The verdict always enters each proposal's current quality (the analyzer
// blends it in); this rule decides only where it also cuts the weight.
//   - `paper` (the MiniRep paper's rule): low estimated correctness alone does not flag a parse-valid
//     proposal, and at most ⌈0.3·n⌉ proposals are flagged per task. So φ_v applies only to a
//     proposal judged wrong that the analyzer's behaviour check also flagged (those flags are already
//     capped at ⌈0.3·n⌉).
//   - `capped-veto` (ours): a proposal judged wrong is cut by φ_v even without a finding, but the
//     cut proposals, flagged ones included, stay within the same ⌈0.3·n⌉ cap: the judged-wrong
//     proposals the analyzer flagged first, then the others by lowest verdict, lowest current quality
//     and input order, while the cap allows.
import type { AgentId } from '../core/agent-identity.js';
import { InvalidArgumentError } from '../core/errors.js';

/** MiniRep's rule for verdicts: the paper's (`paper`) or our capped veto (`capped-veto`). */
export type VerdictRule = 'paper' | 'capped-veto';

/** Every verdict rule. */
export const verdictRules: readonly VerdictRule[] = ['paper', 'capped-veto'];

/** What the rule reads of one analyzed proposal. */
export interface VerdictRuleEntry {
  /** The proposing agent. */
  readonly agentId: AgentId;
  /** Whether the proposal parsed. */
  readonly valid: boolean;
  /** Whether the analyzer's behaviour check flagged it (capped at ⌈0.3·n⌉ by the analyzer). */
  readonly flagged: boolean;
  /** The verifier's estimate in [0, 1], `undefined` without one; below 0.5 = judged wrong. */
  readonly verdict: number | undefined;
  /** Current quality in [0, 1] (public evidence blended with the verdict). */
  readonly quality: number;
}

/** Throws {@link InvalidArgumentError} unless `rule` is a known verdict rule. */
export function assertVerdictRule(rule: unknown): asserts rule is VerdictRule {
  if (!verdictRules.includes(rule as VerdictRule))
    throw new InvalidArgumentError({
      parameter: 'options.verdictRule',
      value: rule,
      message: `options.verdictRule must be one of ${verdictRules.join(', ')}, got ${JSON.stringify(rule)}; pass 'paper' (the MiniRep paper's rule) or 'capped-veto' (ours)`,
    });
}

/**
 * The agents whose proposals take the verdict factor φ_v under `rule`, given the task's flag cap
 * ⌈0.3·n⌉ (`flagCap`). Pure; unparseable proposals are never chosen (they weigh 0 already).
 *
 * @example
 * vetoedProposals({ rule: 'paper', flagCap: 3, entries }); // judged wrong and flagged only
 */
export function vetoedProposals({
  rule,
  flagCap,
  entries,
}: {
  rule: VerdictRule;
  flagCap: number;
  entries: readonly VerdictRuleEntry[];
}): Set<AgentId> {
  const judgedWrong = (entry: VerdictRuleEntry) => entry.valid && entry.verdict !== undefined && entry.verdict < 0.5;
  // Both rules: a judged-wrong proposal the behaviour check flagged (a verdict plus a finding).
  const vetoed = new Set(entries.filter((entry) => judgedWrong(entry) && entry.flagged).map((entry) => entry.agentId));
  if (rule === 'paper') return vetoed;
  const flagged = entries.filter((entry) => entry.valid && entry.flagged).length;
  let room = Math.max(0, flagCap - flagged);
  const rest = entries
    .map((entry, index) => ({ entry, index }))
    .filter(({ entry }) => judgedWrong(entry) && !entry.flagged)
    .sort(
      (left, right) =>
        (left.entry.verdict ?? 0) - (right.entry.verdict ?? 0) ||
        left.entry.quality - right.entry.quality ||
        left.index - right.index,
    );
  for (const { entry } of rest) {
    if (room === 0) break;
    vetoed.add(entry.agentId);
    room--;
  }
  return vetoed;
}
