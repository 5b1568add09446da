// Plurality voting (Condorcet 1785; List & Goodin 2001, "Epistemic democracy: generalizing the
// Condorcet jury theorem"): the answer with the most (weighted) votes wins.
import type { AgentId } from '../core/agent-identity.js';
import { InvalidArgumentError } from '../core/errors.js';
import type { Proposal } from '../core/proposal.js';
import type { WeightReason } from '../core/trace.js';
import { noSupport, supportRecord } from './_keyed-record.js';
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
  // Summed in a map (any key, `constructor` and `__proto__` included), then written out in first-vote order.
  const sums = new Map<string, number>();
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
    sums.set(vote.answer, (sums.get(vote.answer) ?? 0) + vote.weight);
  }
  const support = supportRecord(sums);
  return { answer: pickWinner(support), support };
}

/** The key with the largest positive support; exact ties go to the key that sorts first. */
export function pickWinner(support: Readonly<Record<string, number>>): string | null {
  let best: string | null = null;
  let bestSupport = 0;
  // One pass instead of sorting the keys: a key replaces the best when it has more support, or the
  // same positive support and sorts first (what a scan of the sorted keys with `>` would keep).
  for (const key of Object.keys(support)) {
    const value = support[key] ?? 0;
    if (value > bestSupport || (value === bestSupport && best !== null && compareKeys(key, best) < 0)) {
      best = key;
      bestSupport = value;
    }
  }
  return best;
}

/**
 * {@link pickWinner} over support sums kept in a map: the key with the largest positive sum, exact ties
 * to the key that sorts first. The order of the map does not matter.
 */
export function winnerOf(sums: ReadonlyMap<string, number>): string | null {
  let best: string | null = null;
  let bestSupport = 0;
  for (const key of sums.keys()) {
    const value = sums.get(key) as number;
    if (value > bestSupport || (value === bestSupport && best !== null && compareKeys(key, best) < 0)) {
      best = key;
      bestSupport = value;
    }
  }
  return best;
}

/** An agent's own weight in a record (missing, or only inherited like `constructor`: 0). */
function weightIn(weights: Readonly<Record<AgentId, number>>, agentId: AgentId): number {
  return Object.hasOwn(weights, agentId) ? (weights[agentId] ?? 0) : 0;
}

/** Plain code-unit string order, used for every deterministic tie-break in aggregation. */
export function compareKeys(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * The agent-id order of a list of proposals (positions into it), remembered for the next call: an
 * aggregator in a task loop usually sees the same agents in the same order on every task.
 */
interface OrderMemo {
  ids: AgentId[];
  order: number[];
}

function agentOrder(proposals: readonly { readonly agentId: AgentId }[], memo: OrderMemo): readonly number[] {
  const count = proposals.length;
  const { ids } = memo;
  let same = ids.length === count;
  for (let index = 0; same && index < count; index++) same = ids[index] === (proposals[index] as Proposal).agentId;
  if (same) return memo.order;
  // Stable insertion sort by agent id (validated unique; the same order as sortVotes' stable sort).
  const order: number[] = [];
  for (let index = 0; index < count; index++) {
    const id = (proposals[index] as Proposal).agentId;
    let at = order.length;
    while (at > 0 && compareKeys((proposals[order[at - 1] as number] as Proposal).agentId, id) > 0) at--;
    order.splice(at, 0, index);
  }
  memo.ids = proposals.map((proposal) => proposal.agentId);
  memo.order = order;
  return order;
}

function decide(
  input: AggregationInput,
  weightOf: (agentId: AgentId) => number,
  noteOf: (agentId: AgentId) => string,
  memo: OrderMemo,
): Decision {
  validateProposals(input);
  const proposals = input.proposals;
  const count = proposals.length;
  // One order serves the tally and the reasons (both in agent-id order), as tallyVotes sums them.
  const order = agentOrder(proposals, memo);
  const sums = new Map<string, number>();
  const reasons: WeightReason[] = new Array(count);
  for (let position = 0; position < count; position++) {
    const at = order[position] as number;
    const { agentId, answer } = proposals[at] as Proposal;
    // weightOf is a pure lookup, so reading it in agent-id order is the same as in proposal order.
    const weight = weightOf(agentId);
    if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0) {
      throw new InvalidArgumentError({
        parameter: `votes[${position}].weight`,
        value: weight,
        message: `vote weight of agent ${JSON.stringify(agentId)} must be a finite number >= 0, got ${String(weight)}; pass non-negative weights`,
      });
    }
    if (answer !== null) {
      // support(a) = Σ_{i: a_i = a} w_i
      sums.set(answer, (sums.get(answer) ?? 0) + weight);
    }
    reasons[position] = {
      agentId,
      weight: answer === null ? 0 : weight,
      components: { input: weight, valid: answer === null ? 0 : 1 },
      note: answer === null ? 'unparseable answer: no vote' : noteOf(agentId),
    };
  }
  // The support record gets its keys in first-vote order, as the running sums would have added them.
  const support = input.support === false ? noSupport : supportRecord(sums);
  return { taskId: input.task.id, answer: winnerOf(sums), support, reasons };
}

/**
 * Unweighted plurality: every parseable proposal is one vote; `input.weights` is ignored. Ties go to
 * the answer key that sorts first (see {@link tallyVotes}).
 *
 * @example
 * const decision = createPluralityAggregator().aggregate({ task, proposals, agents });
 */
export function createPluralityAggregator(): Aggregator {
  const memo: OrderMemo = { ids: [], order: [] };
  return {
    name: 'plurality',
    aggregate: (input) =>
      decide(
        input,
        () => 1,
        () => 'one vote',
        memo,
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
  const memo: OrderMemo = { ids: [], order: [] };
  return {
    name: 'weighted-plurality',
    aggregate(input) {
      const weights = input.weights;
      if (weights === undefined)
        return decide(
          input,
          () => 1,
          () => 'equal weights (none given)',
          memo,
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
        (sum, proposal) => sum + (proposal.answer === null ? 0 : weightIn(weights, proposal.agentId)),
        0,
      );
      if (total === 0)
        return decide(
          input,
          () => 1,
          () => 'all weights 0: fell back to one vote each',
          memo,
        );
      return decide(
        input,
        (agentId) => weightIn(weights, agentId),
        (agentId) => (Object.hasOwn(weights, agentId) ? 'input weight' : 'no input weight: 0'),
        memo,
      );
    },
  };
}
