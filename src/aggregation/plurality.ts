// Plurality voting (Condorcet 1785; List & Goodin 2001, "Epistemic democracy: generalizing the
// Condorcet jury theorem"): the answer with the most (weighted) votes wins.
import type { AgentId } from '../core/agent-identity.js';
import { InvalidArgumentError } from '../core/errors.js';
import type { WeightReason } from '../core/trace.js';
import { validateProposals } from './_proposals.js';
import type { AggregationInput, Aggregator, Decision } from './aggregator.js';

/** One vote for {@link tallyVotes}: an answer key (`null` = unparseable) and its weight ≥ 0. */
export interface Vote {
  readonly agentId: AgentId;
  readonly answer: string | null;
  readonly weight: number;
}

/** Result of {@link tallyVotes}. */
export interface Tally {
  /** Winning answer key, or `null` when no parseable vote carries weight. */
  readonly answer: string | null;
  /** Total weight per answer key (parseable answers only). */
  readonly support: Record<string, number>;
}

/**
 * Weighted plurality over answer keys: support(a) = Σ_{i: a_i = a} w_i; the winner maximises support.
 * Unparseable votes (`answer === null`) never win and add no support. Weights are summed in agent-id
 * order, so the result does not depend on the order of `votes`. Ties (exactly equal support) go to the
 * answer key that sorts first by UTF-16 code units (`'-15' < '15' < 'a'`), which is arbitrary but
 * deterministic. If every parseable vote has weight 0, the answer is `null`.
 *
 * @example
 * tallyVotes([{ agentId: 'a', answer: '4', weight: 1 }, { agentId: 'b', answer: '5', weight: 2 }]).answer; // '5'
 */
export function tallyVotes(votes: readonly Vote[]): Tally {
  return tallyOrdered(sortVotes(votes));
}

/** The votes in agent-id order (a new array). */
function sortVotes<T extends Vote>(votes: readonly T[]): T[] {
  return votes.slice().sort((left, right) => compareKeys(left.agentId, right.agentId));
}

/** {@link tallyVotes} on votes already in agent-id order. */
function tallyOrdered(ordered: readonly Vote[]): Tally {
  const support: Record<string, number> = {};
  for (let index = 0; index < ordered.length; index++) {
    const vote = ordered[index] as Vote;
    if (typeof vote.weight !== 'number' || !Number.isFinite(vote.weight) || vote.weight < 0) {
      throw new InvalidArgumentError({
        parameter: `votes[${index}].weight`,
        value: vote.weight,
        message: `vote weight of agent ${JSON.stringify(vote.agentId)} must be a finite number >= 0, got ${String(vote.weight)}; pass non-negative weights`,
      });
    }
    if (vote.answer === null) continue;
    // support(a) = Σ_{i: a_i = a} w_i
    support[vote.answer] = (support[vote.answer] ?? 0) + vote.weight;
  }
  return { answer: pickWinner(support), support };
}

/** The key with the largest positive support; exact ties go to the key that sorts first. */
export function pickWinner(support: Readonly<Record<string, number>>): string | null {
  let best: string | null = null;
  let bestSupport = 0;
  for (const key of Object.keys(support).sort(compareKeys)) {
    const value = support[key] ?? 0;
    if (value > bestSupport) {
      best = key;
      bestSupport = value;
    }
  }
  return best;
}

/** Plain code-unit string order, used for every deterministic tie-break in aggregation. */
export function compareKeys(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

function decide(
  input: AggregationInput,
  weightOf: (agentId: AgentId) => number,
  noteOf: (agentId: AgentId) => string,
): Decision {
  validateProposals(input);
  const votes = input.proposals.map((proposal) => ({
    agentId: proposal.agentId,
    answer: proposal.answer,
    weight: weightOf(proposal.agentId),
  }));
  // One sort serves the tally and the reasons (both in agent-id order).
  const ordered = sortVotes(votes);
  const tally = tallyOrdered(ordered);
  const reasons: WeightReason[] = ordered.map((vote) => ({
    agentId: vote.agentId,
    weight: vote.answer === null ? 0 : vote.weight,
    components: { input: vote.weight, valid: vote.answer === null ? 0 : 1 },
    note: vote.answer === null ? 'unparseable answer: no vote' : noteOf(vote.agentId),
  }));
  return { taskId: input.task.id, answer: tally.answer, support: tally.support, reasons };
}

/**
 * Unweighted plurality: every parseable proposal is one vote; `input.weights` is ignored. Ties go to
 * the answer key that sorts first (see {@link tallyVotes}).
 *
 * @example
 * const decision = createPluralityAggregator().aggregate({ task, proposals, agents });
 */
export function createPluralityAggregator(): Aggregator {
  return {
    name: 'plurality',
    aggregate: (input) =>
      decide(
        input,
        () => 1,
        () => 'one vote',
      ),
  };
}

/**
 * Weighted plurality by `input.weights` (missing agents weigh 0; omitted weights = equal). When every
 * parseable proposal weighs 0 the decision falls back to unweighted plurality, so a team whose
 * weights all collapsed still answers; the reasons say so.
 *
 * @example
 * createWeightedPluralityAggregator().aggregate({ task, proposals, agents, weights: { a: 0.7, b: 0.3 } });
 */
export function createWeightedPluralityAggregator(): Aggregator {
  return {
    name: 'weighted-plurality',
    aggregate(input) {
      const weights = input.weights;
      if (weights === undefined)
        return decide(
          input,
          () => 1,
          () => 'equal weights (none given)',
        );
      for (const agentId of Object.keys(weights)) {
        const weight = weights[agentId];
        if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0) {
          throw new InvalidArgumentError({
            parameter: `input.weights.${agentId}`,
            value: weight,
            message: `weight of agent ${JSON.stringify(agentId)} must be a finite number >= 0, got ${String(weight)}`,
          });
        }
      }
      const total = (input.proposals ?? []).reduce(
        (sum, proposal) => sum + (proposal.answer === null ? 0 : (weights[proposal.agentId] ?? 0)),
        0,
      );
      if (total === 0)
        return decide(
          input,
          () => 1,
          () => 'all weights 0: fell back to one vote each',
        );
      return decide(
        input,
        (agentId) => weights[agentId] ?? 0,
        (agentId) => (agentId in weights ? 'input weight' : 'no input weight: 0'),
      );
    },
  };
}
