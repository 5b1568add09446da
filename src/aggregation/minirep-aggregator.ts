// MiniRep robust aggregation: reputation-weighted plurality over a diverse pool with clone-group
// capping. Weighting votes by estimated reliability follows Nitzan & Paroush 1982 (optimal weighted
// majority, w ∝ log p/(1−p), approximated here by a monotone reliability weight); discounting
// correlated voters follows Kaniovski & Zaigraev 2011 ("Optimal jury design for homogeneous juries
// with correlated votes") and the Sybil-proof capping of Douceur 2002; limiting each identity
// group's share of the pool follows Byzantine-robust aggregation practice (Blanchard et al. 2017).
//   w_i = v_i · H_i^γ · (κ + Q_i)/(1 + κ) · (1 − r_i) · φ_f^[flagged] · φ_c^[cooldown] · φ_s^[risk ≥ θ] · φ_v^[judged wrong]
//   (γ, κ) become (γ_x, κ_x) once some feedback quality differed from agreement with the decided answer
//   support(a) = Σ_groups [ max_{i∈g, a_i=a} w_i + ε · Σ_{other i∈g, a_i=a} w_i ]
import type { AgentId } from '../core/agent-identity.js';
import { InvalidArgumentError } from '../core/errors.js';
import { definedOnly } from '../core/options.js';
import type { WeightReason } from '../core/trace.js';
import { assertInRange, assertInteger, assertKnownOptions, defineOptionKeys } from '../core/validate.js';
import type { BehaviourEvidence, ReputationModel } from '../core/reputation-model.js';
import type { AggregationInput, Aggregator, Decision } from './aggregator.js';
import {
  createBlocTracker,
  type BlocOptions,
  type BlocSnapshot,
  type BlocTracker,
  knownBlocOptions,
} from './minirep-bloc.js';
import {
  analyzeProposals,
  type AnalyzerOptions,
  type ProposalAnalysis,
  type TaskAnalysis,
  knownAnalyzerOptions,
} from './minirep-analyzer.js';
import { validateProposals } from './_proposals.js';
import {
  createPeerHistory,
  peerAgreement,
  type PeerHistory,
  type PeerHistoryOptions,
  type PeerHistorySnapshot,
  knownPeerHistoryOptions,
} from './minirep-peer-history.js';
import {
  createPosteriorHistory,
  type PosteriorEntry,
  type PosteriorHistory,
  type PosteriorHistoryOptions,
  type PosteriorHistorySnapshot,
  knownPosteriorHistoryOptions,
} from './minirep-posterior-history.js';
import {
  createEvidenceShrinkage,
  type EvidenceShrinkage,
  type EvidenceShrinkageOptions,
  type EvidenceShrinkageSnapshot,
  knownEvidenceShrinkageOptions,
  shrinkTowardsMean,
  widenedPoolSize,
} from './minirep-shrinkage.js';
import {
  type CloneInference,
  type CloneInferenceOptions,
  type CloneInferenceSnapshot,
  createCloneInference,
  type InferredClone,
  knownCloneInferenceOptions,
} from './minirep-clone-inference.js';
import { noSupport, supportRecord } from './_keyed-record.js';
import { compareKeys, winnerOf } from './plurality.js';
import type { Verifier } from './verifier.js';
import { assertVerdictRule, vetoedProposals, type VerdictRule } from './minirep-verdict-rule.js';
import {
  answerPosterior,
  argmaxAnswer,
  createVerifierReliability,
  knownVerifierReliabilityOptions,
  type VerifierReliability,
  type VerifierReliabilityOptions,
  type VerifierReliabilitySnapshot,
  cappedSupport,
  gatedAnswer,
  verdictsByAnswer,
  verifierGateOpen,
} from './minirep-verifier-bayes.js';

/** Options of {@link createMiniRepAggregator}. */
export interface MiniRepAggregatorOptions extends AnalyzerOptions {
  /** The reputation model giving each agent's history (the `minirep` model, or any model). */
  model: ReputationModel;
  /** Agents aggregated per task (the pool size), ≥ 1; fewer when fewer are available. @default 7 */
  k?: number;
  /**
   * A synchronous verifier asked on every proposal that `input.verdicts` does not cover; its verdict
   * is blended into current quality and a proposal judged wrong is down-weighted by `rejectedFactor`.
   * For an asynchronous one (LLM judge, sandbox) collect `verifyProposals` first and pass `verdicts`.
   * @default undefined
   */
  verifier?: Verifier;
  /**
   * Factor φ_v in [0, 1] on a proposal the verifier judged wrong (verdict < 0.5) before aggregation,
   * where `verdictRule` applies it; 0 excludes it. Tuned on the tuning split (docs/minirep.md). @default 0.05
   */
  rejectedFactor?: number;
  /**
   * Where φ_v applies (`minirep-verdict-rule.ts`): `'paper'` = only to a judged-wrong proposal the
   * behaviour check also flagged (a verdict alone does not flag a parse-valid proposal; flags capped
   * at ⌈0.3·n⌉); `'capped-veto'` (ours) = to judged-wrong proposals without a finding too, within the
   * same cap. The verdict enters current quality either way. @default 'paper'
   */
  verdictRule?: VerdictRule;
  /**
   * How a verdict enters the decision on a task that has verdicts: `'factor'` = the paper's design
   * (current quality, and φ_v where `verdictRule` applies it); `'likelihood'` = MiniRep-VB (ours): the
   * verifier is one more annotator whose sensitivity and specificity are learnt online without labels
   * (`minirep-verifier-bayes.ts`); each answer's score is the clone-capped sum of the agents' log-odds
   * vote weights ln(p/((1 − p)·q)) (a leave-one-out posterior history, as MiniRep-DS, with the
   * verdicts in every agent's evidence) times MiniRep's robustness factors, plus the verdict's
   * log-likelihood ratio; φ_v is not applied. Tasks without verdicts are decided as under `'factor'`.
   * @default 'factor'
   */
  verifierEvidence?: 'factor' | 'likelihood';
  /** Options of MiniRep-VB's verifier reliability (`verifierEvidence: 'likelihood'`). @default {} */
  verifierReliability?: VerifierReliabilityOptions;
  /**
   * MiniRep-VG's gate (ours; only with `verifierEvidence: 'likelihood'`): when the verifier is
   * decisive, Δ = LLR(accept) − LLR(reject) ≥ margin · C ({@link verifierGateOpen}), the answer is the
   * best-scoring one among those the verifier accepts (every answer it judged, pooled or not), and
   * over all answers only when it accepts none. `false`: MiniRep-VB's argmax. @default false
   */
  verifierGate?: false | { readonly margin?: number };
  /** Extra weight ε in [0, 1] of each clone beyond the strongest one backing the same answer. @default 0.1 */
  epsilon?: number;
  /** Clone groups the pool covers at least, when the candidates span that many. @default 3 */
  minGroups?: number;
  /** Agents of one clone group the pool holds at most, ≥ 1. @default 3 */
  maxPerGroup?: number;
  /** Exponent γ ≥ 0 on historical quality H (higher = trust history more). @default 0.5 */
  historyExponent?: number;
  /**
   * Exponent γ_x ≥ 0 on H used once the feedback has proved to be external: some agent's feedback
   * quality differed from its agreement with the decided answer (a verifier or the truth, not
   * consensus), so history is evidence independent of MiniRep's own decisions. @default 2
   */
  informedHistoryExponent?: number;
  /** Offset κ_x ≥ 0 used instead of κ once the feedback has proved to be external (see `informedHistoryExponent`). @default 2 */
  informedQualityOffset?: number;
  /** Offset κ ≥ 0 that keeps proposals with little current support in play. @default 0.5 */
  qualityOffset?: number;
  /** Factor φ_f in [0, 1] on a flagged proposal. @default 0.05 */
  flaggedFactor?: number;
  /** Factor φ_c in [0, 1] on an agent in cooldown. @default 0.1 */
  cooldownFactor?: number;
  /** Model risk θ in [0, 1] from which an agent counts as highly suspicious. @default 0.5 */
  suspicionThreshold?: number;
  /** Factor φ_s in [0, 1] on a highly suspicious agent. @default 0.1 */
  suspiciousFactor?: number;
  /** History assumed for agents the model does not know, in [0, 1]. @default 0.5 */
  unknownHistory?: number;
  /** Coordinated-bloc check across tasks ({@link createBlocTracker}); `false` turns it off. @default {} */
  bloc?: BlocOptions | false;
  /**
   * Where the history factor of the weight comes from: `'ema'` = H^γ from the model's slow/fast
   * quality averages (the MiniRep paper's design); `'log-odds'` = MiniRep-LO (ours): the log-odds of
   * a reliability learnt from agreement with the other clone groups, or from external feedback once
   * there is any ({@link createPeerHistory}); `'posterior'` = MiniRep-DS (ours): the vote weight
   * ln(p/((1 − p)·q)) of a reliability learnt from each proposal's leave-one-out posterior given the
   * other clone groups' weighted votes, or from external feedback once there is any
   * ({@link createPosteriorHistory}). @default 'ema'
   */
  history?: 'ema' | 'log-odds' | 'posterior';
  /** Options of the log-odds history (`history: 'log-odds'`). @default {} */
  peerHistory?: PeerHistoryOptions;
  /** Options of the posterior history (`history: 'posterior'`, MiniRep-DS). @default {} */
  posteriorHistory?: PosteriorHistoryOptions;
  /** Offset κ_ds ≥ 0 of the current-quality factor under `history: 'posterior'`. @default 8 */
  posteriorQualityOffset?: number;
  /** Offset κ_lo ≥ 0 of the current-quality factor (κ_lo + Q)/(1 + κ_lo) under `history: 'log-odds'`. @default 2 */
  logOddsQualityOffset?: number;
  /**
   * What consensus feedback (no external quality: `feedback(decision)`, or qualities equal to agreement
   * with the decided answer) scores each agent against: `'decision'` = the decided answer (the paper's
   * design); `'rest-of-team'` (ours, MiniRep-RT) = the answer the other agents' final vote weights
   * (`decision.reasons`, the agent's own left out) put first, ties all counting, so that an agent's own
   * weight never earns it history; agreement with the decided answer when the others weigh nothing.
   * External feedback (a verifier, the truth) is used as given either way. @default 'decision'
   */
  consensusTarget?: 'decision' | 'rest-of-team';
  /**
   * Evidence shrinkage (ours, issue 36; `false` = the paper's design): under consensus feedback each
   * agent's history factor is pulled towards the team's mean factor by how weak the label-free
   * evidence separating the agents is (empirical-Bayes keep share s_i = τ̂²/(τ̂² + c·σ_i²) of agreement
   * with the other clone groups' plurality; {@link createEvidenceShrinkage}), and the pool widens
   * towards the whole team as s̄ falls, so that without such evidence MiniRep is a plain vote. Once
   * feedback proves external it stops (s_i = 1). @default false
   */
  shrinkage?: EvidenceShrinkageOptions | false;
  /**
   * Clone inference (ours, issue 36; `false` = the paper's design, clone groups are the declared
   * models only): pairs of agents whose agreement across tasks exceeds what conditional independence
   * given their accuracies predicts (a robust rank-one fit of the pairwise agreement rates, by a
   * margin the pair's Wilson lower bound must reach; {@link createCloneInference}) are merged into one
   * clone group, which the clone cap, the pool's diversity and every per-group signal then treat as one
   * model. Learnt from the answers alone (no feedback), so it works the same under any feedback. @default false
   */
  inferClones?: CloneInferenceOptions | false;
  /**
   * Decided tasks, ≥ 1, whose analysis the aggregator keeps for `feedback` and `analysis(taskId)`.
   * A caller that gives each task's feedback right after its decision (the replay) needs 1, and
   * analyses that are dropped at once are also cheaper for the garbage collector. @default 64
   */
  recentTasks?: number;
}

/** Defaults of the numeric {@link MiniRepAggregatorOptions}. */
export const miniRepAggregatorDefaults = {
  k: 7,
  epsilon: 0.1,
  minGroups: 3,
  maxPerGroup: 3,
  historyExponent: 0.5,
  informedHistoryExponent: 2,
  qualityOffset: 0.5,
  informedQualityOffset: 2,
  flaggedFactor: 0.05,
  cooldownFactor: 0.1,
  suspicionThreshold: 0.5,
  suspiciousFactor: 0.1,
  unknownHistory: 0.5,
  rejectedFactor: 0.05,
  logOddsQualityOffset: 2,
  posteriorQualityOffset: 8,
  recentTasks: 64,
} as const;

type Settings = { -readonly [Key in keyof typeof miniRepAggregatorDefaults]: number };

/** One proposal's weight and its parts, as computed by {@link miniRepWeight}. */
export interface MiniRepWeightParts {
  /** Historical quality H in [0, 1] from the model. */
  readonly history: number;
  /** Current quality Q in [0, 1] from the analyzer. */
  readonly quality: number;
  /** Risk r = max(model risk, current suspicion) in [0, 1]. */
  readonly risk: number;
  readonly flagged: boolean;
  /** Cooldown tasks left (> 0 = in cooldown). */
  readonly cooldown: number;
  /** The model risk reached the suspicion threshold θ. */
  readonly suspicious: boolean;
  /** A verifier judged the proposal wrong (verdict < 0.5) before aggregation. */
  readonly rejected: boolean;
  /** The final weight w ≥ 0 before pooling and group capping. */
  readonly weight: number;
}

/**
 * w = v · H^γ · (κ + Q)/(1 + κ) · (1 − r) · φ_f^[flagged] · φ_c^[cooldown] · φ_s^[risk ≥ θ] · φ_v^[judged wrong],
 * with v = 1 for a parseable answer, else 0, and "judged wrong" = a verifier verdict below 0.5.
 *
 * @example
 * // H = 0.8, Q = 0.5, no risk: √0.8 · (0.5 + 0.5)/1.5 = 0.894427 · 2/3 = 0.596285
 * miniRepWeight({ valid: true, history: 0.8, quality: 0.5, modelRisk: 0, suspicion: 0, flagged: false, cooldown: 0 });
 */
export function miniRepWeight(
  input: {
    valid: boolean;
    history: number;
    quality: number;
    modelRisk: number;
    suspicion: number;
    flagged: boolean;
    cooldown: number;
    verdict?: number | undefined;
    /** A history factor that replaces H^γ (MiniRep-LO's log-odds weight). */
    historyWeight?: number | undefined;
  },
  settings: Pick<
    Settings,
    | 'historyExponent'
    | 'qualityOffset'
    | 'flaggedFactor'
    | 'cooldownFactor'
    | 'suspicionThreshold'
    | 'suspiciousFactor'
    | 'rejectedFactor'
  > = miniRepAggregatorDefaults,
): MiniRepWeightParts {
  const risk = Math.max(input.modelRisk, input.suspicion);
  const suspicious = input.modelRisk >= settings.suspicionThreshold;
  const rejected = input.verdict !== undefined && input.verdict < 0.5;
  let weight = 0;
  if (input.valid) {
    // w = H^γ · (κ + Q)/(1 + κ) · (1 − r)
    weight =
      (input.historyWeight ?? input.history ** settings.historyExponent) *
      ((settings.qualityOffset + input.quality) / (1 + settings.qualityOffset)) *
      (1 - risk);
    if (input.flagged) weight *= settings.flaggedFactor;
    if (input.cooldown > 0) weight *= settings.cooldownFactor;
    if (suspicious) weight *= settings.suspiciousFactor;
    if (rejected) weight *= settings.rejectedFactor;
  }
  return {
    history: input.history,
    quality: input.quality,
    risk,
    flagged: input.flagged,
    cooldown: input.cooldown,
    suspicious,
    rejected,
    weight: Math.max(0, weight),
  };
}

/**
 * Clone-group capping: within each (clone group, answer) the heaviest member counts fully and every
 * other member counts ε of its weight, so the group's support for an answer is
 * max_i w_i + ε · (Σ_i w_i − max_i w_i). Returns each agent's factor (1 or ε). Adding a clone whose
 * weight does not exceed the group's current maximum raises that support by exactly ε times its weight.
 *
 * @example
 * capGroups([{ agentId: 'a', group: 'g', answer: '1', weight: 0.6 }, { agentId: 'b', group: 'g', answer: '1', weight: 0.5 }], 0.1);
 * // a → 1, b → 0.1: support 0.6 + 0.1·0.5 = 0.65
 */
export function capGroups(
  entries: ReadonlyArray<{ agentId: AgentId; group: string; answer: string | null; weight: number }>,
  epsilon: number,
): Map<AgentId, number> {
  const factors = new Map<AgentId, number>();
  // One bucket per (group, answer), in first-seen order, found through a group → answer index.
  const buckets: Array<Array<{ agentId: AgentId; weight: number }>> = [];
  const index = new Map<string, Map<string, Array<{ agentId: AgentId; weight: number }>>>();
  for (const entry of entries) {
    if (entry.answer === null) {
      factors.set(entry.agentId, 0);
      continue;
    }
    let byAnswer = index.get(entry.group);
    if (byAnswer === undefined) {
      byAnswer = new Map();
      index.set(entry.group, byAnswer);
    }
    const bucket = byAnswer.get(entry.answer);
    if (bucket) bucket.push(entry);
    else {
      const created = [entry];
      byAnswer.set(entry.answer, created);
      buckets.push(created);
    }
  }
  for (const bucket of buckets) {
    bucket.sort((left, right) => right.weight - left.weight || compareKeys(left.agentId, right.agentId));
    bucket.forEach((member, index) => factors.set(member.agentId, index === 0 ? 1 : epsilon));
  }
  return factors;
}

/**
 * Chooses the pool: candidates ranked by weight (ties by agent id); first the best agent of each of
 * the `minGroups` strongest clone groups (fewer if the candidates span fewer groups), then the rest by
 * weight, never more than `maxPerGroup` agents of one group, up to k agents. Returns ids in pick order.
 */
export function selectDiversePool(
  candidates: ReadonlyArray<{ agentId: AgentId; group: string; weight: number }>,
  { k, minGroups, maxPerGroup }: { k: number; minGroups: number; maxPerGroup: number },
): AgentId[] {
  const ranked = candidates
    .slice()
    .sort((left, right) => right.weight - left.weight || compareKeys(left.agentId, right.agentId));
  const pool: AgentId[] = [];
  const perGroup = new Map<string, number>();
  const take = (entry: { agentId: AgentId; group: string }): void => {
    pool.push(entry.agentId);
    perGroup.set(entry.group, (perGroup.get(entry.group) ?? 0) + 1);
  };
  for (const entry of ranked) {
    if (pool.length >= Math.min(k, minGroups)) break;
    if (!perGroup.has(entry.group)) take(entry);
  }
  for (const entry of ranked) {
    if (pool.length >= k) break;
    if (pool.includes(entry.agentId) || (perGroup.get(entry.group) ?? 0) >= maxPerGroup) continue;
    take(entry);
  }
  return pool;
}

/**
 * Builds the `behaviour` evidence batch for the `minirep` model once a task's answer is fixed: one
 * record per analyzed proposal with its validity, flag, suspicion (0 unless flagged) and quality.
 * Quality is, per agent: `quality[agentId]` when `quality` is a record (the harness's per-agent
 * feedback: agreement with the decided answer, a verifier estimate, or truth); the analyzer's
 * verifier estimate when `quality` is `'verifier'` (agreement where the verifier gave none); and
 * otherwise agreement with the fixed answer: 1 if the proposal's answer equals it, else 0.
 *
 * @example
 * model.observe(minirepFeedback({ analysis, answer: decision.answer }));
 */
export function minirepFeedback({
  analysis,
  answer,
  quality,
}: {
  analysis: TaskAnalysis;
  answer: string | null;
  quality?: Readonly<Record<AgentId, number>> | 'agreement' | 'verifier' | undefined;
}): BehaviourEvidence[] {
  if (quality !== undefined && typeof quality !== 'string') {
    const known = new Set(analysis.proposals.map((entry) => entry.agentId));
    for (const [agentId, value] of Object.entries(quality)) {
      if (!known.has(agentId)) {
        throw new InvalidArgumentError({
          parameter: `quality.${agentId}`,
          value,
          message: `quality names agent ${JSON.stringify(agentId)}, which made no proposal on task ${analysis.taskId}; pass quality only for proposing agents`,
        });
      }
      assertInRange(`quality.${agentId}`, value, 0, 1, {
        hint: 'quality is agreement, a verifier estimate or correctness in [0, 1]',
      });
    }
  } else if (quality !== undefined && quality !== 'agreement' && quality !== 'verifier') {
    throw new InvalidArgumentError({
      parameter: 'quality',
      value: quality,
      message: `quality must be a per-agent record, 'agreement' or 'verifier', got ${JSON.stringify(quality)}`,
    });
  }
  return analysis.proposals.map((entry) => {
    const agreement = answer !== null && entry.answer === answer ? 1 : 0;
    const value =
      typeof quality === 'object'
        ? ((Object.hasOwn(quality, entry.agentId) ? quality[entry.agentId] : undefined) ?? agreement)
        : quality === 'verifier'
          ? (entry.verifierEstimate ?? agreement)
          : agreement;
    return {
      type: 'behaviour',
      taskId: analysis.taskId,
      subject: entry.agentId,
      valid: entry.valid,
      flagged: entry.flagged,
      risk: entry.flagged ? entry.suspicion : 0,
      quality: value,
    };
  });
}

/**
 * MiniRep-RT's consensus target (ours): per proposal, 1 when its answer is among the answers the
 * OTHER proposals' final vote weights put first (ties all count), else 0; `undefined` (agreement with
 * the decided answer applies) when the others weigh nothing. Weights are `reasons[j].weight` by
 * agent, as the decision applied them (pool, clone cap, flags). Pure.
 *
 * @example
 * restOfTeamAgreement(
 *   [{ agentId: 'a', answer: '1' }, { agentId: 'b', answer: '2' }, { agentId: 'c', answer: '3' }],
 *   [{ agentId: 'a', weight: 0.4 }, { agentId: 'b', weight: 0.3 }, { agentId: 'c', weight: 0.2 }],
 * ); // a: others put '2' first → 0; b: '1' → 0; c: '1' → 0
 */
export function restOfTeamAgreement(
  proposals: readonly { readonly agentId: AgentId; readonly answer: string | null }[],
  reasons: readonly { readonly agentId: AgentId; readonly weight: number }[],
): (number | undefined)[] {
  const weightOf = new Map<AgentId, number>();
  for (const reason of reasons) weightOf.set(reason.agentId, Math.max(0, reason.weight));
  const support = new Map<string, number>();
  for (const proposal of proposals)
    if (proposal.answer !== null)
      support.set(proposal.answer, (support.get(proposal.answer) ?? 0) + (weightOf.get(proposal.agentId) ?? 0));
  return proposals.map((proposal) => {
    const own = proposal.answer === null ? 0 : (weightOf.get(proposal.agentId) ?? 0);
    // Σ_{j ≠ i, a_j = a} w_j for every answer a: the agent's own weight taken off its answer.
    let top = 0;
    for (const [answer, total] of support) top = Math.max(top, answer === proposal.answer ? total - own : total);
    if (top <= 1e-12) return undefined;
    if (proposal.answer === null) return 0;
    const mine = (support.get(proposal.answer) ?? 0) - own;
    return mine >= top - 1e-12 ? 1 : 0;
  });
}

/** Persisted state of a MiniRep aggregator. */
export interface MiniRepAggregatorSnapshot {
  readonly schemaVersion: 1;
  readonly bloc: BlocSnapshot | undefined;
  /** Tasks with external feedback seen (absent = 0). */
  readonly externalFeedback?: number;
  /** The log-odds history under `history: 'log-odds'` (absent otherwise). */
  readonly peerHistory?: PeerHistorySnapshot;
  /** The posterior history under `history: 'posterior'` (absent otherwise). */
  readonly posteriorHistory?: PosteriorHistorySnapshot;
  /** The evidence counts of the evidence shrinkage (absent when it is off). */
  readonly shrinkage?: EvidenceShrinkageSnapshot;
  /** The pairwise agreement counts of the clone inference (absent when it is off). */
  readonly cloneInference?: CloneInferenceSnapshot;
  /** MiniRep-VB's agent history and verifier reliability under `verifierEvidence: 'likelihood'` (absent otherwise). */
  readonly verifierBayes?: {
    readonly history: PosteriorHistorySnapshot;
    readonly verifier: VerifierReliabilitySnapshot;
  };
}

/** A MiniRep aggregator; it also remembers its last analyses so that `feedback` can build evidence. */
export interface MiniRepAggregator extends Aggregator {
  readonly name: 'minirep';
  /** The analysis behind the last decision on `taskId`, if it is among the last `recentTasks` (64) decided tasks. */
  analysis(taskId: string): TaskAnalysis | undefined;
  feedback(
    decision: Decision,
    quality?: Readonly<Record<AgentId, number>> | 'agreement' | 'verifier',
  ): BehaviourEvidence[];
  /**
   * Tasks so far whose feedback was external (some agent's quality differed from its agreement with
   * the decided answer); from the first one on, γ_x and κ_x replace γ and κ.
   */
  externalFeedbackTasks(): number;
  /** The bloc tracker's state (`undefined` when the check is off) and the external-feedback count. */
  snapshot(): MiniRepAggregatorSnapshot;
  /** Restores a state from {@link MiniRepAggregator.snapshot}. */
  restore(snapshot: MiniRepAggregatorSnapshot): void;
}

/**
 * Creates the MiniRep robust aggregator. Per task it (1) analyzes every proposal (public evidence,
 * verifier, behaviour flags), (2) weights each agent by {@link miniRepWeight} from the model's history
 * H (`explain().components.history`, else `score`), risk (`components.risk`) and cooldown
 * (`components.cooldown`), (3) picks a diverse pool of k agents ({@link selectDiversePool}), and (4)
 * takes the weighted plurality over the pool with clone groups capped ({@link capGroups}). If every
 * pooled weight is 0, each pooled parseable proposal weighs 1 instead. `input.weights`, when given,
 * only restricts the pool to agents with a positive weight. It never updates the model: after the
 * answer is fixed, pass `aggregator.feedback(decision, quality)` to `model.observe`.
 *
 * @example
 * const model = createMiniRepModel({ agents: team.map((agent) => agent.id) });
 * const aggregator = createMiniRepAggregator({ model, k: 7 });
 * const decision = aggregator.aggregate({ task, proposals, agents: team });
 * model.observe(aggregator.feedback(decision));
 */
export function createMiniRepAggregator(options: MiniRepAggregatorOptions): MiniRepAggregator {
  if (
    options === null ||
    typeof options !== 'object' ||
    options.model === undefined ||
    typeof options.model.score !== 'function'
  ) {
    throw new InvalidArgumentError({
      parameter: 'options.model',
      value: options?.model,
      message: 'options.model must be a ReputationModel; pass e.g. { model: createMiniRepModel({ agents }) }',
    });
  }
  const owner = 'createMiniRepAggregator';
  assertKnownOptions('options', options, knownMiniRepAggregatorOptions, owner);
  // The nested parts' options too, whether or not `history` uses them: a misspelt key is a mistake either way.
  if (options.bloc !== false) assertKnownOptions('options.bloc', options.bloc, knownBlocOptions, owner);
  assertKnownOptions('options.peerHistory', options.peerHistory, knownPeerHistoryOptions, owner);
  assertKnownOptions('options.posteriorHistory', options.posteriorHistory, knownPosteriorHistoryOptions, owner);
  if (options.shrinkage !== undefined && options.shrinkage !== false)
    assertKnownOptions('options.shrinkage', options.shrinkage, knownEvidenceShrinkageOptions, owner);
  if (options.inferClones !== undefined && options.inferClones !== false)
    assertKnownOptions('options.inferClones', options.inferClones, knownCloneInferenceOptions, owner);
  assertKnownOptions(
    'options.verifierReliability',
    options.verifierReliability,
    knownVerifierReliabilityOptions,
    owner,
  );
  const settings = resolveSettings(options);
  const { model, verifier } = options;
  const verdictRule = options.verdictRule ?? 'paper';
  assertVerdictRule(verdictRule);
  const analyzerOptions: AnalyzerOptions = definedOnly({
    beta: options.beta,
    verifierWeight: options.verifierWeight,
    overrideSuspicion: options.overrideSuspicion,
    falseClaimSuspicion: options.falseClaimSuspicion,
    flipSuspicion: options.flipSuspicion,
    flagCapFraction: options.flagCapFraction,
  });
  // Fail at construction, not on the first task, when β or the verifier weight is bad.
  analyzeProposals({
    task: { id: 'options-check', kind: 'exact', prompt: '' },
    proposals: [],
    agents: [],
    options: analyzerOptions,
  });
  const analyses = new Map<string, TaskAnalysis>();
  const tracker: BlocTracker | undefined = options.bloc === false ? undefined : createBlocTracker(options.bloc ?? {});

  const consensusTarget = options.consensusTarget ?? 'decision';
  if (consensusTarget !== 'decision' && consensusTarget !== 'rest-of-team') {
    throw new InvalidArgumentError({
      parameter: 'options.consensusTarget',
      value: consensusTarget,
      message: `options.consensusTarget must be 'decision' (the paper's design) or 'rest-of-team' (MiniRep-RT), got ${JSON.stringify(consensusTarget)}`,
    });
  }
  const historyMode = options.history ?? 'ema';
  if (historyMode !== 'ema' && historyMode !== 'log-odds' && historyMode !== 'posterior') {
    throw new InvalidArgumentError({
      parameter: 'options.history',
      value: historyMode,
      message: `options.history must be 'ema' (the paper's design), 'log-odds' (MiniRep-LO) or 'posterior' (MiniRep-DS), got ${JSON.stringify(historyMode)}`,
    });
  }
  const peerHistory = historyMode === 'log-odds' ? createPeerHistory(options.peerHistory ?? {}) : undefined;
  const posteriorHistory =
    historyMode === 'posterior'
      ? createPosteriorHistory({ epsilon: settings.epsilon, ...options.posteriorHistory })
      : undefined;
  const shrinkage =
    options.shrinkage === undefined || options.shrinkage === false
      ? undefined
      : createEvidenceShrinkage(options.shrinkage);
  const cloneInference =
    options.inferClones === undefined || options.inferClones === false
      ? undefined
      : createCloneInference(options.inferClones);
  const verifierEvidence = options.verifierEvidence ?? 'factor';
  if (verifierEvidence !== 'factor' && verifierEvidence !== 'likelihood') {
    throw new InvalidArgumentError({
      parameter: 'options.verifierEvidence',
      value: verifierEvidence,
      message: `options.verifierEvidence must be 'factor' (the paper's design) or 'likelihood' (MiniRep-VB), got ${JSON.stringify(verifierEvidence)}`,
    });
  }
  const verifierBayes: VerifierBayesState | undefined =
    verifierEvidence === 'likelihood'
      ? {
          history: createPosteriorHistory({ epsilon: settings.epsilon, ...options.posteriorHistory }),
          reliability: createVerifierReliability(options.verifierReliability ?? {}),
          tasks: new Map(),
          gateMargin: resolveGateMargin(options.verifierGate),
        }
      : undefined;
  if (verifierBayes === undefined && options.verifierGate !== undefined && options.verifierGate !== false)
    throw new InvalidArgumentError({
      parameter: 'options.verifierGate',
      value: options.verifierGate,
      message:
        "options.verifierGate needs options.verifierEvidence 'likelihood' (MiniRep-VG is MiniRep-VB with a gate)",
    });
  const state: MiniRepState = {
    shrinkage,
    cloneInference,
    settings,
    model,
    verifier,
    verdictRule,
    analyzerOptions,
    analyses,
    tracker,
    direct: directHistorySource(model),
    externalFeedback: 0,
    peerHistory,
    posteriorHistory,
    posteriorEntries: new Map(),
    verifierBayes,
    informedSettings: {
      ...settings,
      historyExponent: settings.informedHistoryExponent,
      qualityOffset: settings.informedQualityOffset,
    },
    logOddsSettings: { ...settings, qualityOffset: settings.logOddsQualityOffset },
    posteriorSettings: { ...settings, qualityOffset: settings.posteriorQualityOffset },
  };
  return {
    name: 'minirep',
    analysis: (taskId) => analyses.get(taskId),
    aggregate: (input: AggregationInput): Decision => aggregateMiniRep(state, input),
    externalFeedbackTasks: () => state.externalFeedback,
    snapshot: () => ({
      schemaVersion: 1,
      bloc: tracker?.snapshot(),
      externalFeedback: state.externalFeedback,
      ...(peerHistory === undefined ? {} : { peerHistory: peerHistory.snapshot() }),
      ...(posteriorHistory === undefined ? {} : { posteriorHistory: posteriorHistory.snapshot() }),
      ...(shrinkage === undefined ? {} : { shrinkage: shrinkage.snapshot() }),
      ...(cloneInference === undefined ? {} : { cloneInference: cloneInference.snapshot() }),
      ...(verifierBayes === undefined
        ? {}
        : {
            verifierBayes: {
              history: verifierBayes.history.snapshot(),
              verifier: verifierBayes.reliability.snapshot(),
            },
          }),
    }),
    restore(snapshot) {
      if (snapshot === null || typeof snapshot !== 'object' || snapshot.schemaVersion !== 1) {
        throw new InvalidArgumentError({
          parameter: 'snapshot',
          value: snapshot,
          message: 'snapshot must come from aggregator.snapshot() (schemaVersion 1)',
        });
      }
      const external = snapshot.externalFeedback ?? 0;
      if (!Number.isInteger(external) || external < 0) {
        throw new InvalidArgumentError({
          parameter: 'snapshot.externalFeedback',
          value: external,
          message: 'snapshot.externalFeedback must be an integer >= 0 (tasks with external feedback)',
        });
      }
      // A part this aggregator keeps must be in the snapshot, and a part it does not keep must not be:
      // either way the snapshot comes from an aggregator configured otherwise, and restoring it would
      // keep this one's own state for the missing part (or drop the extra one) without a word.
      const parts: Array<[part: string, kept: boolean, value: unknown, keptBy: string]> = [
        ['bloc', tracker !== undefined, snapshot.bloc, 'the bloc check, on unless options.bloc is false'],
        [
          'peerHistory',
          peerHistory !== undefined,
          snapshot.peerHistory,
          "the log-odds history of options.history 'log-odds'",
        ],
        [
          'posteriorHistory',
          posteriorHistory !== undefined,
          snapshot.posteriorHistory,
          "the posterior history of options.history 'posterior'",
        ],
        ['shrinkage', shrinkage !== undefined, snapshot.shrinkage, 'the evidence shrinkage of options.shrinkage'],
        [
          'cloneInference',
          cloneInference !== undefined,
          snapshot.cloneInference,
          'the clone inference of options.inferClones',
        ],
        [
          'verifierBayes',
          verifierBayes !== undefined,
          snapshot.verifierBayes,
          "MiniRep-VB's history of options.verifierEvidence 'likelihood'",
        ],
      ];
      for (const [part, kept, value, keptBy] of parts) {
        if (kept === (value !== undefined)) continue;
        throw new InvalidArgumentError({
          parameter: `snapshot.${part}`,
          value: value === undefined ? undefined : '(present)',
          message: `snapshot.${part} is ${kept ? 'missing' : 'present'}, but this aggregator keeps ${kept ? 'one' : 'none'} (${keptBy}): the snapshot comes from an aggregator created with other options; restore it into one created with the same options`,
        });
      }
      // All or nothing: each part validates before it replaces its state, but a bad posterior history
      // used to throw after the bloc tracker had already been replaced; put back what was restored.
      const before = {
        bloc: tracker?.snapshot(),
        peerHistory: peerHistory?.snapshot(),
        posteriorHistory: posteriorHistory?.snapshot(),
        shrinkage: shrinkage?.snapshot(),
        cloneInference: cloneInference?.snapshot(),
        verifierHistory: verifierBayes?.history.snapshot(),
        verifierReliability: verifierBayes?.reliability.snapshot(),
      };
      try {
        if (tracker !== undefined && snapshot.bloc !== undefined) tracker.restore(snapshot.bloc);
        if (peerHistory !== undefined && snapshot.peerHistory !== undefined) peerHistory.restore(snapshot.peerHistory);
        if (posteriorHistory !== undefined && snapshot.posteriorHistory !== undefined)
          posteriorHistory.restore(snapshot.posteriorHistory);
        if (shrinkage !== undefined && snapshot.shrinkage !== undefined) shrinkage.restore(snapshot.shrinkage);
        if (cloneInference !== undefined && snapshot.cloneInference !== undefined)
          cloneInference.restore(snapshot.cloneInference);
        if (verifierBayes !== undefined && snapshot.verifierBayes !== undefined) {
          verifierBayes.history.restore(snapshot.verifierBayes.history);
          verifierBayes.reliability.restore(snapshot.verifierBayes.verifier);
        }
      } catch (error) {
        if (tracker !== undefined && before.bloc !== undefined) tracker.restore(before.bloc);
        if (peerHistory !== undefined && before.peerHistory !== undefined) peerHistory.restore(before.peerHistory);
        if (posteriorHistory !== undefined && before.posteriorHistory !== undefined)
          posteriorHistory.restore(before.posteriorHistory);
        if (shrinkage !== undefined && before.shrinkage !== undefined) shrinkage.restore(before.shrinkage);
        if (cloneInference !== undefined && before.cloneInference !== undefined)
          cloneInference.restore(before.cloneInference);
        if (verifierBayes !== undefined && before.verifierHistory !== undefined) {
          verifierBayes.history.restore(before.verifierHistory);
          if (before.verifierReliability !== undefined) verifierBayes.reliability.restore(before.verifierReliability);
        }
        throw error;
      }
      state.externalFeedback = external;
    },
    feedback(
      decision: Decision,
      quality?: Readonly<Record<AgentId, number>> | 'agreement' | 'verifier',
    ): BehaviourEvidence[] {
      const analysis = analyses.get(decision.taskId);
      if (analysis === undefined) {
        throw new InvalidArgumentError({
          parameter: 'decision.taskId',
          value: decision.taskId,
          message: `no MiniRep analysis for task ${JSON.stringify(decision.taskId)}; call feedback with a decision from this aggregator's aggregate(), within ${settings.recentTasks === 1 ? 'the last task' : `${settings.recentTasks} tasks`} (options.recentTasks)`,
        });
      }
      let evidence = minirepFeedback({ analysis, answer: decision.answer, quality });
      // External feedback: some quality differs from agreement with the decided answer (record i is
      // the analysis' proposal i).
      const agreement = (index: number): number => {
        const answer = analysis.proposals[index]?.answer;
        return decision.answer !== null && answer === decision.answer ? 1 : 0;
      };
      if (evidence.some((record, index) => Math.abs(record.quality - agreement(index)) > 1e-9))
        state.externalFeedback++;
      else if (consensusTarget === 'rest-of-team') {
        const target = restOfTeamAgreement(analysis.proposals, decision.reasons);
        evidence = evidence.map((record, index) => ({ ...record, quality: target[index] ?? record.quality }));
      }
      // The evidence shrinkage learns only from label-free peer agreement, and only under consensus feedback.
      if (shrinkage !== undefined && state.externalFeedback === 0) {
        if (shrinkage.signal === 'plurality')
          for (const [agentId, value] of peerAgreement(analysis.proposals)) shrinkage.observe(agentId, value);
        else if (new Set(analysis.proposals.map((entry) => entry.group)).size > 1)
          // f₂: the share of the other clone groups holding the agent's answer (0 when unparseable).
          for (const entry of analysis.proposals)
            shrinkage.observe(entry.agentId, entry.valid ? entry.features.crossModel : 0);
      }
      if (peerHistory !== undefined) {
        // MiniRep-LO learns from external feedback once there is any, else from the other groups.
        if (state.externalFeedback > 0)
          for (const record of evidence) peerHistory.observe(record.subject, record.quality);
        else for (const [agentId, value] of peerAgreement(analysis.proposals)) peerHistory.observe(agentId, value);
      }
      if (posteriorHistory !== undefined) {
        // MiniRep-DS learns from external feedback once there is any, else from the leave-one-out posterior.
        if (state.externalFeedback > 0)
          for (const record of evidence) posteriorHistory.observe(record.subject, record.quality);
        else {
          const entries = state.posteriorEntries.get(decision.taskId) ?? [];
          posteriorHistory.observeTask(entries);
        }
        state.posteriorEntries.delete(decision.taskId);
      }
      const bayesTask = verifierBayes?.tasks.get(decision.taskId);
      if (verifierBayes !== undefined && bayesTask !== undefined) {
        // MiniRep-VB, one online EM step: the E-step is the posterior with the verdicts' LLRs in it.
        const { history, reliability } = verifierBayes;
        const ratios = new Map<string, number>();
        for (const [key, verdict] of bayesTask.verdicts) ratios.set(key, reliability.logLikelihoodRatio(verdict));
        // Each agent: its answer's leave-one-out posterior given the other groups and the verifier.
        history.observeTask(bayesTask.entries, ratios);
        // The verifier: π(a) from every agent's support and its own LLRs, for each answer it judged.
        const scores = new Map<string, number>();
        for (const [key, value] of bayesTask.support) scores.set(key, value + (ratios.get(key) ?? 0));
        for (const [key, ratio] of ratios) if (!scores.has(key)) scores.set(key, ratio);
        const { posterior } = answerPosterior(scores, reliability.noneScore);
        reliability.observe(
          [...bayesTask.verdicts].map(([key, verdict]) => ({ verdict, posterior: posterior.get(key) ?? 0 })),
        );
        // The team precision r: the posterior of the agents' own top answer.
        if (bayesTask.top !== null) reliability.observeTeam(posterior.get(bayesTask.top) ?? 0);
        verifierBayes.tasks.delete(decision.taskId);
      }
      return evidence;
    },
  };
}

function aggregateMiniRep(state: MiniRepState, declaredInput: AggregationInput): Decision {
  const { settings, model, verifier, analyzerOptions, analyses, tracker } = state;
  validateProposals(declaredInput);
  const notes = declaredInput.notes !== false;
  // Clone inference (ours): agents merged into an inferred group carry that group as their model, so
  // that the clone cap, the pool and the analyzer treat them as one model (the bloc check keeps the
  // declared groups, below).
  let input = declaredInput;
  let inferredReasons: ReadonlyMap<AgentId, InferredClone> | undefined;
  if (state.cloneInference !== undefined) {
    const inferred = state.cloneInference.groups(
      input.agents.map((agent) => ({ agentId: agent.id, group: agent.model })),
    );
    if (input.agents.some((agent) => inferred.groupOf.get(agent.id) !== agent.model)) {
      input = {
        ...input,
        agents: input.agents.map((agent) => ({ ...agent, model: inferred.groupOf.get(agent.id) ?? agent.model })),
      };
      inferredReasons = inferred.reasons;
    }
  }
  const groupOf = new Map(input.agents.map((agent) => [agent.id, agent.model]));
  const entries = input.proposals.map((proposal) => ({
    agentId: proposal.agentId,
    group: groupOf.get(proposal.agentId) ?? proposal.agentId,
    answer: proposal.answer,
  }));
  const blocFindings = new Map<AgentId, { suspicion: number; reason: string }>();
  // The bloc check sees the declared groups: attackers that answer alike are flagged as a bloc
  // whether or not they were also inferred to be clones (an inferred group would hide them from it).
  const declaredGroupOf = new Map(declaredInput.agents.map((agent) => [agent.id, agent.model]));
  const blocEntries =
    input === declaredInput
      ? entries
      : entries.map((entry) => ({ ...entry, group: declaredGroupOf.get(entry.agentId) ?? entry.agentId }));
  const findings = tracker === undefined ? undefined : tracker.assess(blocEntries);
  if (findings !== undefined) {
    for (const finding of findings) {
      if (finding.suspicion > 0) {
        blocFindings.set(finding.agentId, {
          suspicion: finding.suspicion,
          reason: `coordinated bloc: shares answers that few others hold with ${finding.partner} (decayed rate ${finding.rate.toFixed(2)}; a bloc of ${finding.blocSize} clone groups)`,
        });
      }
    }
  }
  const analysis = analyzeProposals({
    task: input.task,
    proposals: input.proposals,
    agents: input.agents,
    history: input.history,
    verifier,
    verdicts: input.verdicts,
    options: analyzerOptions,
    extraFindings: blocFindings,
    notes,
  });
  analyses.delete(analysis.taskId);
  analyses.set(analysis.taskId, analysis);
  if (analyses.size > settings.recentTasks) analyses.delete(analyses.keys().next().value as string);

  const mask = input.weights;
  const parts = new Map<AgentId, MiniRepWeightParts>();
  const known = new Set(model.agentIds());
  // The settings of this task's weights, built once (not per proposal).
  const weightSettings =
    state.peerHistory !== undefined
      ? state.logOddsSettings
      : state.posteriorHistory !== undefined
        ? state.posteriorSettings
        : state.externalFeedback > 0
          ? state.informedSettings
          : settings;
  const posteriorEntries: PosteriorEntry[] = [];
  const unknown = new Set<AgentId>();
  // MiniRep-VB decides a task that has verdicts by log-odds votes plus the verdicts' likelihood ratios.
  const bayes =
    state.verifierBayes !== undefined && analysis.proposals.some((entry) => entry.verifierEstimate !== undefined)
      ? state.verifierBayes
      : undefined;
  const history = bayes?.history ?? state.peerHistory ?? state.posteriorHistory;
  const taskSettings = bayes === undefined ? weightSettings : state.posteriorSettings;
  // The verdict rule picks the proposals φ_v cuts; the others keep the verdict in their quality only.
  // Under MiniRep-VB a verdict counts once, as its likelihood ratio: φ_v cuts nothing.
  const vetoed =
    bayes !== undefined
      ? new Set<AgentId>()
      : vetoedProposals({
          rule: state.verdictRule,
          flagCap: analysis.flagCap,
          entries: analysis.proposals.map((entry) => ({
            agentId: entry.agentId,
            valid: entry.valid,
            flagged: entry.flagged,
            verdict: entry.verifierEstimate,
            quality: entry.quality,
          })),
        });
  // Evidence shrinkage (ours): the history factors of the parseable proposals pulled towards their
  // mean by 1 − s_i, under consensus feedback only.
  const shrinkage = state.externalFeedback === 0 && bayes === undefined ? state.shrinkage : undefined;
  let shrunk: Map<AgentId, number> | undefined;
  let meanShare = 1;
  if (shrinkage !== undefined) {
    const valid = analysis.proposals.filter((entry) => entry.valid);
    const shares = shrinkage.keepShares(valid.map((entry) => entry.agentId));
    shrunk = shrinkTowardsMean(
      valid.map((entry) => ({
        agentId: entry.agentId,
        factor:
          history?.weight(entry.agentId) ??
          historyOf(state, entry.agentId, known).history ** weightSettings.historyExponent,
      })),
      shares,
    );
    if (valid.length > 0)
      meanShare = valid.reduce((sum, entry) => sum + (shares.get(entry.agentId) ?? 0), 0) / valid.length;
  }
  for (const entry of analysis.proposals) {
    const agentState = historyOf(state, entry.agentId, known);
    const weightParts = miniRepWeight(
      {
        valid: entry.valid,
        history: history === undefined ? agentState.history : history.probability(entry.agentId),
        quality: entry.quality,
        modelRisk: agentState.risk,
        suspicion: entry.suspicion,
        flagged: entry.flagged,
        cooldown: agentState.cooldown,
        verdict: vetoed.has(entry.agentId) ? entry.verifierEstimate : undefined,
        historyWeight: shrunk?.get(entry.agentId) ?? history?.weight(entry.agentId),
      },
      taskSettings,
    );
    parts.set(entry.agentId, weightParts);
    if (!agentState.known) unknown.add(entry.agentId);
    if (state.posteriorHistory !== undefined || bayes !== undefined)
      posteriorEntries.push({
        agentId: entry.agentId,
        group: entry.group,
        answer: entry.valid ? entry.answer : null,
        evidence: evidenceFactor(weightParts, settings),
      });
  }
  if (state.posteriorHistory !== undefined && bayes === undefined) {
    state.posteriorEntries.delete(analysis.taskId);
    state.posteriorEntries.set(analysis.taskId, posteriorEntries);
    if (state.posteriorEntries.size > settings.recentTasks)
      state.posteriorEntries.delete(state.posteriorEntries.keys().next().value as string);
  }
  const candidates = analysis.proposals
    .filter((entry) => entry.valid && (mask === undefined || (mask[entry.agentId] ?? 0) > 0))
    .map((entry) => ({ agentId: entry.agentId, group: entry.group, weight: parts.get(entry.agentId)?.weight ?? 0 }));
  const pool = new Set(
    selectDiversePool(
      candidates,
      shrinkage === undefined || !shrinkage.widenPool
        ? settings
        : { ...settings, k: widenedPoolSize(settings.k, candidates.length, meanShare) },
    ),
  );
  const pooled = analysis.proposals.filter((entry) => pool.has(entry.agentId));
  const allZero = pooled.every((entry) => (parts.get(entry.agentId)?.weight ?? 0) === 0);
  const effective = (agentId: AgentId): number => (allZero ? 1 : (parts.get(agentId)?.weight ?? 0));
  const factors = capGroups(
    pooled.map((entry) => ({
      agentId: entry.agentId,
      group: entry.group,
      answer: entry.answer,
      weight: effective(entry.agentId),
    })),
    settings.epsilon,
  );
  // Summed in a map (any key, `constructor` and `__proto__` included), then written out in pool order.
  const sums = new Map<string, number>();
  for (const entry of pooled) {
    if (entry.answer === null) continue;
    // support(a) = Σ_g [max_{i∈g,a_i=a} w_i + ε Σ_{rest} w_i]
    sums.set(
      entry.answer,
      (sums.get(entry.answer) ?? 0) + effective(entry.agentId) * (factors.get(entry.agentId) ?? 0),
    );
  }
  let answer: string | null;
  if (bayes === undefined) answer = winnerOf(sums);
  else {
    // MiniRep-VB: score(a) = support(a) + LLR(v_a); the agents' support is kept for the verifier's M-step.
    const verdicts = verdictsByAnswer(
      analysis.proposals.map((entry) => ({
        answer: entry.valid ? entry.answer : null,
        verdict: entry.verifierEstimate,
      })),
    );
    // The agents' own top answer, and the shared-error floor (ours): support'(a) = −ln(e^(−s) + e^(−C)).
    const top = argmaxAnswer(sums);
    if (bayes.reliability.capConsensus) {
      const cap = bayes.reliability.consensusCap();
      for (const [key, value] of sums) sums.set(key, cappedSupport(value, cap));
    }
    const agentSupport = new Map(sums);
    for (const [key, value] of sums) {
      const verdict = verdicts.get(key);
      // score(a) = support(a) + LLR(v_a)
      if (verdict !== undefined) sums.set(key, value + bayes.reliability.logLikelihoodRatio(verdict));
    }
    answer = argmaxAnswer(sums);
    // MiniRep-VG (ours): a decisive verifier (Δ ≥ margin · C) decides among the answers it accepts.
    const { reliability } = bayes;
    if (
      bayes.gateMargin !== undefined &&
      verifierGateOpen({
        acceptRatio: reliability.logLikelihoodRatio(1),
        rejectRatio: reliability.logLikelihoodRatio(0),
        cap: reliability.consensusCap(),
        margin: bayes.gateMargin,
      })
    )
      answer = gatedAnswer(sums, verdicts, (verdict) => reliability.logLikelihoodRatio(verdict)) ?? answer;
    bayes.tasks.delete(analysis.taskId);
    bayes.tasks.set(analysis.taskId, { entries: posteriorEntries, support: agentSupport, verdicts, top });
    if (bayes.tasks.size > settings.recentTasks) bayes.tasks.delete(bayes.tasks.keys().next().value as string);
  }
  const support = input.support === false ? noSupport : supportRecord(sums);
  const reasons: WeightReason[] = analysis.proposals.map((entry) => {
    const part = parts.get(entry.agentId) as MiniRepWeightParts;
    const inPool = pool.has(entry.agentId);
    const groupCap = inPool ? (factors.get(entry.agentId) ?? 0) : 0;
    const weight = inPool ? effective(entry.agentId) * groupCap : 0;
    const masked = mask !== undefined && (mask[entry.agentId] ?? 0) <= 0;
    const reason: WeightReason = {
      agentId: entry.agentId,
      weight,
      components: {
        history: part.history,
        quality: part.quality,
        risk: entry.suspicion,
        modelRisk: part.risk,
        flagged: part.flagged ? 1 : 0,
        cooldown: part.cooldown,
        groupCap,
        pooled: inPool ? 1 : 0,
        rawWeight: part.weight,
        rejected: part.rejected ? 1 : 0,
        publicEvidence: entry.publicEvidence,
      },
    };
    // The note is most of a reason's cost; callers that read only the numbers skip it (`notes: false`).
    if (!notes) return reason;
    const isKnown = !unknown.has(entry.agentId);
    const note = explainWeight(entry, part, isKnown, inPool, groupCap, allZero, masked);
    const inferredClone = inferredReasons?.get(entry.agentId);
    return {
      ...reason,
      note:
        inferredClone === undefined
          ? note
          : `${note}, inferred clone of ${inferredClone.partner}: agreement ${inferredClone.agreement.toFixed(2)} vs ${inferredClone.expected.toFixed(2)} expected over ${Math.round(inferredClone.tasks)} tasks (group ${groupOf.get(entry.agentId)})`,
    };
  });
  // The answers are label-free evidence of who copies whom; counted with the declared groups.
  if (state.cloneInference !== undefined) {
    const declaredGroup = new Map(declaredInput.agents.map((agent) => [agent.id, agent.model]));
    state.cloneInference.observe(
      declaredInput.proposals.map((proposal) => ({
        agentId: proposal.agentId,
        group: declaredGroup.get(proposal.agentId) ?? proposal.agentId,
        answer: proposal.answer,
      })),
    );
  }
  // The answer is fixed: only now does this task's agreement enter the bloc statistics, with the
  // verifier's verdicts (agreement on an answer it confirmed is not counted as collusion).
  if (tracker !== undefined) {
    if (analysis.proposals.every((entry) => entry.verifierEstimate === undefined)) tracker.record(entries);
    else {
      const verdictOf = new Map(analysis.proposals.map((entry) => [entry.agentId, entry.verifierEstimate]));
      tracker.record(entries.map((entry) => ({ ...entry, verdict: verdictOf.get(entry.agentId) })));
    }
  }
  return { taskId: input.task.id, answer, support, reasons };
}

/** What one MiniRep aggregator keeps between tasks; {@link aggregateMiniRep} takes it, so its compiled body is shared. */
interface MiniRepState {
  /** The evidence shrinkage (`options.shrinkage`), else undefined. */
  readonly shrinkage: EvidenceShrinkage | undefined;
  /** The clone inference (`options.inferClones`), else undefined. */
  readonly cloneInference: CloneInference | undefined;
  readonly settings: Settings;
  readonly model: ReputationModel;
  readonly verifier: Verifier | undefined;
  /** Where the verdict factor φ_v applies ({@link vetoedProposals}). */
  readonly verdictRule: VerdictRule;
  readonly analyzerOptions: AnalyzerOptions;
  readonly analyses: Map<string, TaskAnalysis>;
  readonly tracker: BlocTracker | undefined;
  /** The `minirep` model exposes H, risk and cooldown directly (see {@link directHistorySource}). */
  readonly direct: DirectHistorySource | undefined;
  /** Tasks whose feedback differed from agreement with the decided answer (external feedback). */
  externalFeedback: number;
  /** MiniRep-LO's log-odds history (`history: 'log-odds'`), else undefined. */
  readonly peerHistory: PeerHistory | undefined;
  /** MiniRep-DS's posterior history (`history: 'posterior'`), else undefined. */
  readonly posteriorHistory: PosteriorHistory | undefined;
  /** The weight settings once feedback proved external (γ_x, κ_x), under MiniRep-LO (κ_lo) and under MiniRep-DS (κ_ds), built once. */
  readonly informedSettings: Settings;
  readonly logOddsSettings: Settings;
  readonly posteriorSettings: Settings;
  /** Per decided task, the proposals and evidence factors the posterior history learns from at feedback. */
  readonly posteriorEntries: Map<string, PosteriorEntry[]>;
  /** MiniRep-VB's parts (`verifierEvidence: 'likelihood'`), else undefined. */
  readonly verifierBayes: VerifierBayesState | undefined;
}

/** MiniRep-VB's state: the agents' posterior history, the verifier's reliability, and per decided task what feedback learns from. */
interface VerifierBayesState {
  readonly history: PosteriorHistory;
  readonly reliability: VerifierReliability;
  readonly tasks: Map<string, VerifierBayesTask>;
  /** MiniRep-VG's gate margin (`options.verifierGate`), else undefined. */
  readonly gateMargin: number | undefined;
}

/** The margin of `options.verifierGate` (undefined when off), checked. */
function resolveGateMargin(gate: MiniRepAggregatorOptions['verifierGate']): number | undefined {
  if (gate === undefined || gate === false) return undefined;
  if (gate === null || typeof gate !== 'object')
    throw new InvalidArgumentError({
      parameter: 'options.verifierGate',
      value: gate,
      message: 'options.verifierGate must be false or { margin }, e.g. { margin: 2 }',
    });
  assertKnownOptions('options.verifierGate', gate, ['margin'], 'createMiniRepAggregator');
  const margin = gate.margin ?? 2;
  assertInRange('options.verifierGate.margin', margin, 0, 100, { hint: 'pass e.g. { margin: 2 }' });
  return margin;
}

/** One decided task of MiniRep-VB: the proposals (for the agents' leave-one-out posteriors), the agents' support and the verdicts per answer. */
interface VerifierBayesTask {
  readonly entries: PosteriorEntry[];
  readonly support: ReadonlyMap<string, number>;
  readonly verdicts: ReadonlyMap<string, number>;
  /** The agents' own top answer (before the floor and the verdicts), for the team precision. */
  readonly top: string | null;
}

/** The factor (1 − r) · φ_f^[flagged] · φ_c^[cooldown] · φ_s^[suspicious] · φ_v^[rejected] of a weight: how much a vote counts as evidence. */
function evidenceFactor(parts: MiniRepWeightParts, settings: Settings): number {
  let factor = 1 - parts.risk;
  if (parts.flagged) factor *= settings.flaggedFactor;
  if (parts.cooldown > 0) factor *= settings.cooldownFactor;
  if (parts.suspicious) factor *= settings.suspiciousFactor;
  if (parts.rejected) factor *= settings.rejectedFactor;
  return Math.max(0, factor);
}

function historyOf(
  state: MiniRepState,
  agentId: AgentId,
  known: ReadonlySet<AgentId>,
): { history: number; risk: number; cooldown: number; known: boolean } {
  const { model, settings, direct } = state;
  if (!known.has(agentId)) return { history: settings.unknownHistory, risk: 0, cooldown: 0, known: false };
  if (direct !== undefined)
    return {
      history: clamp01(direct.history(agentId)),
      risk: clamp01(direct.risk(agentId)),
      cooldown: Math.max(0, direct.cooldown(agentId)),
      known: true,
    };
  const components = model.explain(agentId).components;
  const history = components.history ?? model.score(agentId);
  return {
    history: clamp01(history),
    risk: clamp01(components.risk ?? 0),
    cooldown: Math.max(0, components.cooldown ?? 0),
    known: true,
  };
}

function explainWeight(
  entry: ProposalAnalysis,
  part: MiniRepWeightParts,
  known: boolean,
  inPool: boolean,
  groupCap: number,
  allZero: boolean,
  masked: boolean,
): string {
  if (!entry.valid) return 'unparseable answer: weight 0';
  const parts = [
    `history ${part.history.toFixed(3)}${known ? '' : ' (agent unknown to the model: default)'}`,
    `quality ${part.quality.toFixed(3)}`,
    `risk ${part.risk.toFixed(3)}`,
  ];
  if (part.flagged) parts.push(`flagged (${entry.findings.join('; ')})`);
  if (part.cooldown > 0) parts.push(`in cooldown for ${part.cooldown} more task(s)`);
  if (part.suspicious) parts.push('highly suspicious');
  if (part.rejected) parts.push(`judged wrong by the verifier (${(entry.verifierEstimate ?? 0).toFixed(3)})`);
  if (masked) parts.push('excluded by input weights');
  else if (!inPool) parts.push('not in the pool of k');
  else if (groupCap < 1) parts.push(`clone of a heavier agent with the same answer: counts ${groupCap} of its weight`);
  if (allZero && inPool) parts.push('all pooled weights were 0: one vote each');
  return parts.join(', ');
}

function resolveSettings(options: MiniRepAggregatorOptions): Settings {
  const settings: Settings = { ...miniRepAggregatorDefaults };
  for (const key of Object.keys(miniRepAggregatorDefaults) as Array<keyof Settings>) {
    const value = options[key];
    if (value !== undefined) settings[key] = value;
  }
  assertInteger('options.k', settings.k, 1, Number.MAX_SAFE_INTEGER, 'pass e.g. { k: 7 }');
  assertInteger(
    'options.recentTasks',
    settings.recentTasks,
    1,
    Number.MAX_SAFE_INTEGER,
    'pass e.g. { recentTasks: 64 }',
  );
  assertInteger('options.minGroups', settings.minGroups, 0, Number.MAX_SAFE_INTEGER, 'pass e.g. { minGroups: 3 }');
  assertInteger(
    'options.maxPerGroup',
    settings.maxPerGroup,
    1,
    Number.MAX_SAFE_INTEGER,
    'pass e.g. { maxPerGroup: 3 }',
  );
  for (const key of [
    'epsilon',
    'rejectedFactor',
    'flaggedFactor',
    'cooldownFactor',
    'suspicionThreshold',
    'suspiciousFactor',
    'unknownHistory',
  ] as const) {
    assertInRange(`options.${key}`, settings[key], 0, 1, {
      hint: `pass e.g. { ${key}: ${miniRepAggregatorDefaults[key]} }`,
    });
  }
  assertInRange('options.historyExponent', settings.historyExponent, 0, 100, {
    hint: 'pass e.g. { historyExponent: 0.5 }',
  });
  assertInRange('options.informedHistoryExponent', settings.informedHistoryExponent, 0, 100, {
    hint: 'pass e.g. { informedHistoryExponent: 2 }',
  });
  assertInRange('options.qualityOffset', settings.qualityOffset, 0, 1_000, {
    hint: 'pass e.g. { qualityOffset: 0.5 }',
  });
  assertInRange('options.logOddsQualityOffset', settings.logOddsQualityOffset, 0, 1_000, {
    hint: 'pass e.g. { logOddsQualityOffset: 2 }',
  });
  assertInRange('options.posteriorQualityOffset', settings.posteriorQualityOffset, 0, 1_000, {
    hint: 'pass e.g. { posteriorQualityOffset: 8 }',
  });
  assertInRange('options.informedQualityOffset', settings.informedQualityOffset, 0, 1_000, {
    hint: 'pass e.g. { informedQualityOffset: 1 }',
  });
  return settings;
}

/** H, risk and cooldown read straight from a model (the `minirep` model has them). */
interface DirectHistorySource {
  history(agentId: AgentId): number;
  risk(agentId: AgentId): number;
  cooldown(agentId: AgentId): number;
}

/** The model itself when it is the `minirep` model, whose `history`/`risk`/`cooldown` equal its `explain` components. */
function directHistorySource(model: ReputationModel): DirectHistorySource | undefined {
  const candidate = model as ReputationModel & Partial<DirectHistorySource>;
  if (
    model.name !== 'minirep' ||
    typeof candidate.history !== 'function' ||
    typeof candidate.risk !== 'function' ||
    typeof candidate.cooldown !== 'function'
  )
    return undefined;
  return candidate as ReputationModel & DirectHistorySource;
}

function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}

/** The keys of this module's options, for assertKnownOptions (`tsc` fails when the type gains an unlisted key). */
export const knownMiniRepAggregatorOptions = defineOptionKeys<MiniRepAggregatorOptions>()([
  'model',
  'k',
  'verifier',
  'rejectedFactor',
  'verdictRule',
  'epsilon',
  'minGroups',
  'maxPerGroup',
  'historyExponent',
  'informedHistoryExponent',
  'informedQualityOffset',
  'qualityOffset',
  'flaggedFactor',
  'cooldownFactor',
  'suspicionThreshold',
  'suspiciousFactor',
  'unknownHistory',
  'bloc',
  'history',
  'peerHistory',
  'posteriorHistory',
  'posteriorQualityOffset',
  'logOddsQualityOffset',
  'recentTasks',
  'consensusTarget',
  'shrinkage',
  'inferClones',
  'verifierEvidence',
  'verifierReliability',
  'verifierGate',
  ...knownAnalyzerOptions,
]);
