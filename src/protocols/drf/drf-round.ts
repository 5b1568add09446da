// One DRF round (arXiv 2509.05764): filter → UCB selection with cost → proposals → k-layer rating
// network → reputation-weighted team answer → reputation update. `runDrf` wires these rounds.
import type { Acted, Agent } from '../../agents/agent.js';
import type { Decision } from '../../aggregation/aggregator.js';
import type { AgentId, AgentIdentity } from '../../core/agent-identity.js';
import type { Proposal } from '../../core/proposal.js';
import { validateRating, type Rating } from '../../core/rating.js';
import { createRng, deriveSeed, type Rng } from '../../core/rng.js';
import type { Task } from '../../core/task.js';
import type { Span, Tracer, WeightReason } from '../../core/trace.js';
import { drfRoundScores } from '../../reputation/drf.js';
import type { Evidence, ReputationModel } from '../../reputation/reputation-model.js';
import { compareIds } from '../../selection/_validate.js';
import type { Selector } from '../../selection/selector.js';
import { recordRating } from '../_record-rating.js';
import type { CostLedger } from './cost-ledger.js';
import type { RatingSource } from './rating-source.js';
import { credibilityWeight, discountRatings, updateCredibility, type CredibilityState } from './rater-credibility.js';
import { decideTeamAnswer } from './team-answer.js';

/** Collusion defence applied to the rating network before it reaches the reputation model. */
export type DrfDefence = 'none' | 'rater-credibility';

/** How a team member's proposal turned out, in [0, 1], for rater credibility. */
export type DrfOutcome = (input: {
  readonly task: Task;
  readonly proposal: Proposal;
  readonly decision: Decision;
}) => number | Promise<number>;

/** An act that failed (provider error, malformed reply); the round went on without it. */
export interface DrfFailure {
  /** Agent whose act failed. */
  readonly agentId: AgentId;
  /** Which act failed: its proposal, or one of its ratings. */
  readonly act: 'propose' | 'rate';
  /** For `rate`: whose proposal was being rated. */
  readonly ratee?: AgentId;
  /** Error name and message, or why the reply was rejected. */
  readonly message: string;
}

/** Everything one DRF round decided, and why. Persistable: carries `schemaVersion`. */
export interface DrfRoundRecord {
  /** Shape version of this record; always 1. */
  readonly schemaVersion: 1;
  /** 0-based round index (one round per task). */
  readonly round: number;
  /** Id of the task this round answered. */
  readonly taskId: string;
  /** Selected team, best first. */
  readonly team: readonly AgentId[];
  /** Agents filtered out (reputation below the threshold) or excluded by the selector. */
  readonly excluded: readonly AgentId[];
  /** True when fewer than `minEligible` agents were above the threshold and the best-reputed of the rest were kept eligible. */
  readonly fallback: boolean;
  /** Selector reasons (UCB score components) plus one filter reason per excluded agent. */
  readonly selectionReasons: readonly WeightReason[];
  /** Cost c_i^t of each team member as used for selection (before normalisation): price/ledger per call, or this round's U(0, 1) draw. */
  readonly teamCosts: Readonly<Record<AgentId, number>>;
  /** Each team member's proposal answer, in team order; `null` when it gave none or failed. */
  readonly proposals: ReadonlyArray<{ readonly agentId: AgentId; readonly answer: string | null }>;
  /** Ratings as the raters gave them. */
  readonly ratings: readonly Rating[];
  /** Ratings as the reputation model received them (after the defence; equal to `ratings` without one). */
  readonly appliedRatings: readonly Rating[];
  /** Rater credibility κ used this round (only with `defence: 'rater-credibility'`). */
  readonly credibility?: Readonly<Record<AgentId, number>>;
  /**
   * Task score w_i^t of each rated team member (DRF Eq. 6 on the applied ratings, weighted by the
   * reputation scores before the round), in [0, 1]: the input of Eq. 2's accuracy (`drfTaskAccuracy`).
   * Absent in records written before issue 41.
   */
  readonly taskScores?: Readonly<Record<AgentId, number>>;
  /** Reputation score per agent before this round's update, in [0, 1]. */
  readonly reputationBefore: Readonly<Record<AgentId, number>>;
  /** Reputation score per agent after this round's update, in [0, 1]. */
  readonly reputationAfter: Readonly<Record<AgentId, number>>;
  /** Team answer (`null` when no proposal had one) and each answer's support, the summed pre-round reputation of its proposers. */
  readonly decision: { readonly answer: string | null; readonly support: Readonly<Record<string, number>> };
  /** Acts issued this round: k proposals plus k·(k − 1) ratings (failed acts included). */
  readonly calls: number;
  /** Spend this round from the agents' usage (0 for simulated and replayed agents). */
  readonly spend: number;
  /** Acts that failed this round; the round went on without them. */
  readonly failures: readonly DrfFailure[];
}

/** Mutable state carried between rounds by {@link runDrf}. */
export interface DrfRoundState {
  /** Rater credibility records accumulated over the rounds so far (used by `defence: 'rater-credibility'`). */
  credibility: CredibilityState;
}

/** Resolved inputs of one round. */
export interface DrfRoundInput {
  /** 0-based round index (one round per task). */
  readonly round: number;
  /** The task this round answers. */
  readonly task: Task;
  /** Candidate agents; ids are unique. */
  readonly pool: readonly Agent[];
  /** Team size: agents selected per task, an integer ≥ 1 (capped at the eligible count). */
  readonly k: number;
  /** Filter threshold in [0, 1]: agents whose reputation score is below it are excluded. */
  readonly threshold: number;
  /** Fewest agents kept eligible, an integer ≥ 1; below-threshold agents fill the gap best-reputed first. */
  readonly minEligible: number;
  /** Selector that picks the team from the eligible agents (UCB with cost in DRF). */
  readonly selector: Selector;
  /** Reputation model read before the round and fed the applied ratings after it. */
  readonly reputation: ReputationModel;
  /** Seeded random source handed to the selector. */
  readonly rng: Rng;
  /** Where selection, proposal, rating, vote and reputation-update events go. */
  readonly tracer: Tracer;
  /** Where each member's ratings of the other members' proposals come from. */
  readonly ratingSource: RatingSource;
  /** Ledger that records each act's usage and supplies the cost per call c_i for selection. */
  readonly ledger: CostLedger;
  /** Cost scale handed to the selector: divided by the pool's largest cost (`max`, so c_i ∈ [0, 1]) or as is. */
  readonly costNormalization: 'max' | 'none';
  /** Where c_i^t comes from: per agent (ledger/price) or a seeded U(0, 1) draw per agent and round. @default 'per-agent' */
  readonly costModel?: 'per-agent' | 'per-round';
  /** Seed of the per-round cost draws. @default 0 */
  readonly costSeed?: number | string;
  /** Collusion defence applied to ratings before they reach the reputation model. */
  readonly defence: DrfDefence;
  /** Smallest credibility weight κ a rater can have, in [0, 1]. */
  readonly credibilityFloor: number;
  /** How a proposal turned out, in [0, 1]; `undefined` means agreement with the team answer (1 or 0). */
  readonly outcome: DrfOutcome | undefined;
  /** Equality of canonical answer keys. */
  readonly sameAnswer: (left: string, right: string) => boolean;
  /** Aborts the round: passed to every act and checked once proposals and ratings settle; `undefined` for none. */
  readonly signal: AbortSignal | undefined;
  /** State carried between rounds; the round replaces `state.credibility` when the defence is on. */
  readonly state: DrfRoundState;
}

/** Runs one DRF round on one task and returns its record; mutates only the models and `state`. */
export async function runDrfRound(input: DrfRoundInput): Promise<DrfRoundRecord> {
  const { task, tracer, reputation } = input;
  const taskSpan = tracer.start({ type: 'task', taskId: task.id });
  try {
    const reputationBefore = reputation.scores();
    const selection = selectTeam(input, reputationBefore, taskSpan);
    const members = selection.team.map((agentId) => input.pool.find((agent) => agent.identity.id === agentId) as Agent);
    const failures: DrfFailure[] = [];
    let spend = 0;
    const account = (agentId: AgentId, acted: Acted<unknown>) => {
      input.ledger.record(agentId, acted.usage);
      spend += acted.usage.cost;
    };

    const proposals = await collectProposals(input, members, failures, account, taskSpan);
    const ratings = await collectRatings(input, members, proposals, failures, account, taskSpan);

    const decision = decideTeamAnswer({
      taskId: task.id,
      proposals,
      weights: reputationBefore,
      sameAnswer: input.sameAnswer,
    });
    tracer.record(
      { type: 'vote', taskId: task.id, answer: decision.answer, support: decision.support, reasons: decision.reasons },
      taskSpan.id,
    );

    let appliedRatings: Rating[] = ratings;
    let credibility: Record<AgentId, number> | undefined;
    if (input.defence === 'rater-credibility') {
      const outcomes: Record<AgentId, number> = {};
      for (const proposal of proposals) {
        outcomes[proposal.agentId] = input.outcome
          ? await input.outcome({ task, proposal, decision })
          : proposal.answer !== null && decision.answer !== null && input.sameAnswer(proposal.answer, decision.answer)
            ? 1
            : 0;
      }
      input.state.credibility = updateCredibility(input.state.credibility, ratings, outcomes);
      credibility = Object.fromEntries(
        members.map((agent) => [
          agent.identity.id,
          credibilityWeight(input.state.credibility[agent.identity.id], input.credibilityFloor),
        ]),
      );
      appliedRatings = discountRatings(ratings, reputationBefore, credibility);
    }

    // Eq. 6: w_j = Σ_i R_i·s_ij / Σ_i R_i over the applied ratings (the task score Eq. 2 reads)
    const taskScores = drfRoundScores({ reputations: reputationBefore, ratings: appliedRatings });
    const evidence: Evidence[] = appliedRatings.map((rating) => ({ type: 'rating', rating }));
    reputation.observe(evidence);
    const reputationAfter = reputation.scores();
    tracer.record(
      { type: 'reputation-update', taskId: task.id, before: reputationBefore, after: reputationAfter },
      taskSpan.id,
    );

    return {
      schemaVersion: 1,
      round: input.round,
      taskId: task.id,
      team: selection.team,
      excluded: selection.excluded,
      fallback: selection.fallback,
      selectionReasons: selection.reasons,
      teamCosts: Object.fromEntries(selection.team.map((agentId) => [agentId, selection.costs[agentId] ?? 0])),
      proposals: proposals.map((proposal) => ({ agentId: proposal.agentId, answer: proposal.answer })),
      ratings,
      appliedRatings,
      ...(credibility === undefined ? {} : { credibility }),
      taskScores,
      reputationBefore,
      reputationAfter,
      decision: { answer: decision.answer, support: decision.support },
      calls: members.length + members.length * (members.length - 1),
      spend,
      failures,
    };
  } catch (error) {
    tracer.end(taskSpan, error);
    throw error;
  } finally {
    if (taskSpan.endedAt === undefined) tracer.end(taskSpan);
  }
}

interface TeamChoice {
  readonly team: AgentId[];
  readonly excluded: AgentId[];
  readonly fallback: boolean;
  readonly reasons: WeightReason[];
  readonly costs: Record<AgentId, number>;
}

/** Filters agents below the threshold, then lets the selector (UCB with cost) pick k of the rest. */
function selectTeam(input: DrfRoundInput, reputation: Readonly<Record<AgentId, number>>, parent: Span): TeamChoice {
  const { pool, threshold, ledger } = input;
  const costs: Record<AgentId, number> = Object.fromEntries(
    pool.map((agent) => [
      agent.identity.id,
      input.costModel === 'per-round'
        ? // Section 5.1: c_i^t ~ U(0, 1), one draw per agent and round from its own stream
          createRng(deriveSeed(input.costSeed ?? 0, 'drf-cost', agent.identity.id, input.round))()
        : ledger.costPerCall(agent.identity.id),
    ]),
  );
  const maxCost = Math.max(0, ...Object.values(costs));
  const selectionCost = (agentId: AgentId) =>
    input.costNormalization === 'max' && maxCost > 0 ? (costs[agentId] ?? 0) / maxCost : (costs[agentId] ?? 0);

  const score = (agentId: AgentId) => reputation[agentId] ?? 0;
  const above = pool.filter((agent) => score(agent.identity.id) >= threshold);
  // Best-reputed first; equal reputations in agent-id order (code units), so which of them stays
  // eligible does not depend on the order of the pool.
  const below = pool
    .filter((agent) => score(agent.identity.id) < threshold)
    .sort(
      (left, right) =>
        score(right.identity.id) - score(left.identity.id) || compareIds(left.identity.id, right.identity.id),
    );
  // Too few agents above the threshold: keep the best-reputed of the rest eligible so that the team
  // does not shrink below `minEligible` (with minEligible = 1 this is DRF's strict filter).
  const missing = Math.max(0, Math.min(input.minEligible, pool.length) - above.length);
  const kept = below.slice(0, missing);
  const fallback = kept.length > 0;
  const keptIds = new Set(kept.map((agent) => agent.identity.id));
  const eligible = pool.filter((agent) => score(agent.identity.id) >= threshold || keptIds.has(agent.identity.id));
  const filtered = below.filter((agent) => !keptIds.has(agent.identity.id)).map((agent) => agent.identity.id);
  // Offered in agent-id order: a selector that draws per candidate (UCB or top-k with tieBreak
  // 'random') then picks the same team for the same seed however the pool is listed.
  const candidates: AgentIdentity[] = eligible
    .map((agent) => ({ ...agent.identity, cost: selectionCost(agent.identity.id) }))
    .sort((left, right) => compareIds(left.id, right.id));
  const k = Math.min(input.k, candidates.length);
  const selection = input.selector.select({
    pool: candidates,
    reputation: Object.fromEntries(candidates.map((identity) => [identity.id, score(identity.id)])),
    k,
    rng: input.rng,
  });
  const filterReasons: WeightReason[] = filtered.map((agentId) => ({
    agentId,
    weight: 0,
    components: { reputation: score(agentId), threshold },
    note: `excluded: reputation ${score(agentId).toFixed(4)} < threshold ${threshold}`,
  }));
  // A kept agent the selector explained already has its reason (with the note added below); the
  // filter's own reason covers only kept agents the selector left unexplained.
  const explained = new Set(selection.reasons.map((reason) => reason.agentId));
  const keptReasons: WeightReason[] = kept
    .filter((agent) => !explained.has(agent.identity.id) && !selection.selected.includes(agent.identity.id))
    .map((agent) => ({
      agentId: agent.identity.id,
      weight: 0,
      components: { reputation: score(agent.identity.id), threshold },
      note: `below threshold ${threshold} but kept eligible: only ${above.length} agents above it, minEligible ${input.minEligible}`,
    }));
  const excluded = [...new Set([...filtered, ...selection.excluded])];
  const reasons = [
    ...selection.reasons.map((reason) =>
      keptIds.has(reason.agentId)
        ? {
            ...reason,
            note: `${reason.note ? `${reason.note}; ` : ''}below threshold ${threshold} but kept eligible (minEligible ${input.minEligible})`,
          }
        : reason,
    ),
    ...filterReasons,
    ...keptReasons,
  ];
  input.tracer.record(
    { type: 'selection', taskId: input.task.id, round: input.round, selected: selection.selected, excluded, reasons },
    parent.id,
  );
  return { team: [...selection.selected], excluded, fallback, reasons, costs };
}

async function collectProposals(
  input: DrfRoundInput,
  members: readonly Agent[],
  failures: DrfFailure[],
  account: (agentId: AgentId, acted: Acted<unknown>) => void,
  parent: Span,
): Promise<Proposal[]> {
  const { task, signal, tracer } = input;
  const settled = await Promise.allSettled(
    members.map((agent) => agent.propose({ task, ...(signal === undefined ? {} : { signal }) })),
  );
  signal?.throwIfAborted();
  return settled.map((result, index) => {
    const agentId = (members[index] as Agent).identity.id;
    let proposal: Proposal;
    let failure: string | undefined;
    if (
      result.status === 'fulfilled' &&
      result.value.value.agentId === agentId &&
      result.value.value.taskId === task.id
    ) {
      account(agentId, result.value);
      proposal = { ...result.value.value, round: 0 };
    } else {
      const message =
        result.status === 'rejected'
          ? errorMessage(result.reason)
          : `proposal names agent ${result.value.value.agentId} on task ${result.value.value.taskId}, expected ${agentId} on ${task.id}`;
      if (result.status === 'fulfilled') account(agentId, result.value);
      failures.push({ agentId, act: 'propose', message });
      failure = message;
      proposal = { agentId, taskId: task.id, round: 0, text: '', answer: null };
    }
    // The event carries why the act failed, so that a stored run keeps the reason (not only a count).
    const span = tracer.start(
      { type: 'proposal', taskId: task.id, round: 0, agentId, answer: proposal.answer },
      parent.id,
    );
    tracer.end(span, failure);
    return proposal;
  });
}

async function collectRatings(
  input: DrfRoundInput,
  members: readonly Agent[],
  proposals: readonly Proposal[],
  failures: DrfFailure[],
  account: (agentId: AgentId, acted: Acted<unknown>) => void,
  parent: Span,
): Promise<Rating[]> {
  const { task, signal, tracer, ratingSource } = input;
  const jobs: Array<{ rater: Agent; own: Proposal; proposal: Proposal }> = [];
  members.forEach((rater, raterIndex) => {
    proposals.forEach((proposal, proposalIndex) => {
      if (proposalIndex !== raterIndex) jobs.push({ rater, own: proposals[raterIndex] as Proposal, proposal });
    });
  });
  const settled = await Promise.allSettled(
    jobs.map(({ rater, own, proposal }) =>
      ratingSource.rate({ rater, task, proposal, own, ...(signal === undefined ? {} : { signal }) }),
    ),
  );
  signal?.throwIfAborted();
  const ratings: Rating[] = [];
  settled.forEach((result, index) => {
    const job = jobs[index] as (typeof jobs)[number];
    const raterId = job.rater.identity.id;
    if (result.status === 'rejected') {
      failures.push({
        agentId: raterId,
        act: 'rate',
        ratee: job.proposal.agentId,
        message: errorMessage(result.reason),
      });
      return;
    }
    account(raterId, result.value);
    const rating = result.value.value;
    const problem = ratingProblem(rating, raterId, job.proposal.agentId, task.id, ratingSource.name);
    if (problem !== undefined) {
      // Any rating source, not only Agent.rate, may reply out of range or about other agents; such a
      // rating never reaches the reputation model (it would fail the batch or credit the wrong agent).
      failures.push({ agentId: raterId, act: 'rate', ratee: job.proposal.agentId, message: problem });
      return;
    }
    ratings.push(rating);
    recordRating(tracer, task.id, rating, parent.id);
  });
  return ratings;
}

/** Why a rating source's reply cannot enter the rating network, or `undefined` when it can. */
function ratingProblem(
  rating: Rating,
  raterId: AgentId,
  rateeId: AgentId,
  taskId: string,
  source: string,
): string | undefined {
  try {
    validateRating(rating, `rating from ${raterId}`);
  } catch (error) {
    return errorMessage(error);
  }
  if (rating.rater === raterId && rating.ratee === rateeId && rating.taskId === taskId) return undefined;
  return `InvalidArgumentError: rating source ${source} returned a rating for rater ${rating.rater} -> ratee ${rating.ratee} on task ${rating.taskId}, expected ${raterId} -> ${rateeId} on ${taskId}; a rating source must echo the request's ids`;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
