// MiniRep response analyzer: a public-evidence score per proposal from what the other proposals say,
// S_i = Σ_m β_m · f_m(i), with β = (0.45, 0.25, 0.15, 0.10, 0.05) over cohort agreement, cross-model
// agreement, leave-one-group-out plurality agreement, self-consistency and entropy × validity.
// Agreement as evidence of correctness: Condorcet jury theorem (List & Goodin 2001); counting clone
// groups once against correlated errors: Kim et al. 2025 ("Correlated errors in
// large language models", ICML 2025); self-consistency: Wang et al. 2023 (ICLR); answer entropy as a confidence
// signal: Kuhn et al. 2023 (semantic entropy, ICLR).
import type { AgentId, AgentIdentity } from '../core/agent-identity.js';
import { InvalidArgumentError } from '../core/errors.js';
import type { Proposal } from '../core/proposal.js';
import type { Task } from '../core/task.js';
import { assertKnownOptions, defineOptionKeys } from '../core/validate.js';
import {
  checkBehaviour,
  countAnswers,
  type BehaviourCheckOptions,
  knownBehaviourCheckOptions,
} from './minirep-behaviour.js';
import { compareKeys } from './plurality.js';
import { verifySync, assertVerdict, type Verdicts, type Verifier } from './verifier.js';

/** The five β weights: cohort, cross-model, leave-one-group-out, self-consistency, entropy × validity. */
export type MiniRepBeta = readonly [number, number, number, number, number];

/** MiniRep's default β = (0.45, 0.25, 0.15, 0.10, 0.05). */
export const defaultMiniRepBeta: MiniRepBeta = [0.45, 0.25, 0.15, 0.1, 0.05];

/** Options of {@link analyzeProposals}. */
export interface AnalyzerOptions extends BehaviourCheckOptions {
  /** Feature weights, each ≥ 0, summing to 1. @default [0.45, 0.25, 0.15, 0.10, 0.05] */
  beta?: MiniRepBeta;
  /** Share of the current quality taken from the verifier when it gives an estimate, in [0, 1]. @default 0.5 */
  verifierWeight?: number;
}

/** The five public-evidence features of one proposal, each in [0, 1]. */
export interface ProposalFeatures {
  /** Share of the other agents with the same answer. */
  readonly cohort: number;
  /** Mean over the other clone groups of the share of their members with the same answer. */
  readonly crossModel: number;
  /** 1 if the answer is the plurality once the agent's own clone group is removed (1/t if tied t ways). */
  readonly leaveOneGroupOut: number;
  /** Share of the agent's own earlier-round answers equal to this one; 1 without history. */
  readonly selfConsistency: number;
  /** validity × (1 − normalised answer entropy of the task). */
  readonly entropyValidity: number;
}

/** The analyzer's view of one proposal. */
export interface ProposalAnalysis {
  readonly agentId: AgentId;
  /** Clone group (the agent's `model`). */
  readonly group: string;
  readonly answer: string | null;
  /** The answer parsed. */
  readonly valid: boolean;
  readonly features: ProposalFeatures;
  /** S_i = Σ β_m f_m, in [0, 1]. */
  readonly publicEvidence: number;
  /** Verifier estimate in [0, 1], when a verifier gave one. */
  readonly verifierEstimate: number | undefined;
  /** Current quality in [0, 1]: public evidence, blended with the verifier estimate when present. */
  readonly quality: number;
  /** Suspicion after the flag cap, in [0, 1]. */
  readonly suspicion: number;
  readonly flagged: boolean;
  /** The behaviour check's findings alone (empty when nothing was found). */
  readonly findings: readonly string[];
  /** Why: features, verifier, behaviour findings (empty when analyzed with `notes: false`). */
  readonly reasons: readonly string[];
}

/** The analyzer's view of one task. */
export interface TaskAnalysis {
  readonly taskId: string;
  /** One entry per proposal, in agent-id order. */
  readonly proposals: readonly ProposalAnalysis[];
  /** Normalised Shannon entropy of the parseable answers, in [0, 1] (0 = all agree). */
  readonly entropy: number;
  /** Maximum number of flags on this task, ⌈0.3 · n⌉ by default. */
  readonly flagCap: number;
}

/** Throws unless β has five finite non-negative entries summing to 1 (± 1e-9). */
export function validateBeta(beta: unknown, parameter = 'beta'): asserts beta is MiniRepBeta {
  const ok =
    Array.isArray(beta) &&
    beta.length === 5 &&
    beta.every((value) => typeof value === 'number' && Number.isFinite(value) && value >= 0);
  const sum = ok ? (beta as number[]).reduce((total, value) => total + value, 0) : Number.NaN;
  if (!ok || Math.abs(sum - 1) > 1e-9) {
    throw new InvalidArgumentError({
      parameter,
      value: beta,
      message: `${parameter} must be 5 non-negative numbers summing to 1 (cohort, cross-model, leave-one-group-out, self-consistency, entropy×validity), got ${JSON.stringify(beta)}; pass e.g. [0.45, 0.25, 0.15, 0.1, 0.05]`,
    });
  }
}

/**
 * Normalised Shannon entropy of a distribution of answer counts: H = −Σ p log p / log m over the m
 * parseable proposals (0 when m ≤ 1 or all agree, 1 when all m differ).
 */
export function normalizedAnswerEntropy(counts: ReadonlyMap<string, number>): number {
  const total = [...counts.values()].reduce((sum, count) => sum + count, 0);
  if (total <= 1) return 0;
  let entropy = 0;
  for (const count of counts.values()) {
    const share = count / total;
    // H = −Σ p log p
    entropy -= share * Math.log(share);
  }
  // H_norm = H / log m: the maximum is reached when all m answers differ
  return Math.min(1, Math.max(0, entropy / Math.log(total)));
}

const knownAnalyzeInput = defineOptionKeys<Parameters<typeof analyzeProposals>[0]>()([
  'task',
  'proposals',
  'agents',
  'history',
  'verifier',
  'verdicts',
  'options',
  'extraFindings',
  'notes',
]);

/**
 * Analyzes every proposal of a task: five public-evidence features, their β-weighted score, an
 * optional verifier estimate, and the behaviour check (flags capped at ⌈0.3 · n⌉). Pure: the same
 * input gives the same output whatever the order of `proposals`.
 *
 * Features of proposal i with answer a_i in clone group g_i (n proposals, unparseable answers count
 * in n but agree with nobody):
 * - cohort = |{j ≠ i : a_j = a_i}| / (n − 1)  (0.5 when n = 1);
 * - crossModel = mean over clone groups h ≠ g_i of |{j ∈ h : a_j = a_i}| / |h|  (0.5 with no other group);
 * - leaveOneGroupOut = 1/t if a_i is among the t answers tied for plurality once g_i is removed, else 0
 *   (0.5 if nothing parseable remains);
 * - selfConsistency = share of i's earlier-round answers (in `history`) equal to a_i; 1 without history;
 * - entropyValidity = valid_i · (1 − H_norm), H_norm the normalised entropy of the task's answers.
 * Validity also gates: an unparseable proposal scores 0 on every feature, so S_i = 0.
 * quality_i = (1 − γ) · S_i + γ · v_i when the verifier gives v_i, else S_i (γ = `verifierWeight`).
 *
 * @example
 * const analysis = analyzeProposals({ task, proposals, agents });
 * analysis.proposals.map((entry) => [entry.agentId, entry.publicEvidence]);
 */
export function analyzeProposals(input: {
  task: Task;
  proposals: readonly Proposal[];
  agents: readonly AgentIdentity[];
  history?: readonly Proposal[] | undefined;
  /** A synchronous verifier, asked for proposals that `verdicts` does not cover. */
  verifier?: Verifier | undefined;
  /** Verdicts collected before aggregation ({@link verifyProposals}); they take precedence over `verifier`. */
  verdicts?: Verdicts | undefined;
  options?: AnalyzerOptions;
  /** Findings of checks across tasks (the coordinated-bloc check), merged into the behaviour check. */
  extraFindings?: ReadonlyMap<AgentId, { suspicion: number; reason: string }> | undefined;
  /** Whether to write each proposal's `reasons` (`false`: empty; every number is the same). @default true */
  notes?: boolean;
}): TaskAnalysis {
  assertKnownOptions('', input, knownAnalyzeInput, 'analyzeProposals');
  const {
    task,
    proposals,
    agents,
    history = [],
    verifier,
    verdicts,
    options = {},
    extraFindings,
    notes = true,
  } = input;
  assertKnownOptions('options', options, knownAnalyzerOptions, 'analyzeProposals');
  // The behaviour check gets its own options only (it refuses the others).
  const { beta: givenBeta, verifierWeight: givenWeight, ...behaviourOptions } = options;
  const beta = givenBeta ?? defaultMiniRepBeta;
  validateBeta(beta, 'options.beta');
  const verifierWeight = givenWeight ?? 0.5;
  if (!Number.isFinite(verifierWeight) || verifierWeight < 0 || verifierWeight > 1) {
    throw new InvalidArgumentError({
      parameter: 'options.verifierWeight',
      value: verifierWeight,
      message: `options.verifierWeight must be in [0, 1], got ${verifierWeight}; pass e.g. 0.5`,
    });
  }
  const groupOf = new Map<AgentId, string>(agents.map((agent) => [agent.id, agent.model]));
  for (const proposal of proposals) {
    if (!groupOf.has(proposal.agentId)) {
      throw new InvalidArgumentError({
        parameter: 'agents',
        value: proposal.agentId,
        message: `agent ${JSON.stringify(proposal.agentId)} made a proposal on task ${task.id} but is missing from agents; pass its identity { id, model } so its clone group is known`,
      });
    }
  }
  const ordered = proposals.slice().sort((left, right) => compareKeys(left.agentId, right.agentId));
  const n = ordered.length;
  const counts = countAnswers(ordered);
  const entropy = normalizedAnswerEntropy(counts);
  // Clone groups in first-seen order: member count and parseable answer counts of each.
  const groups = new Map<string, GroupTally>();
  const groupList: GroupTally[] = [];
  for (const proposal of ordered) {
    const group = groupOf.get(proposal.agentId) as string;
    let tally = groups.get(group);
    if (tally === undefined) {
      tally = { size: 0, answers: new Map<string, number>() };
      groups.set(group, tally);
      groupList.push(tally);
    }
    tally.size += 1;
    if (proposal.answer !== null) tally.answers.set(proposal.answer, (tally.answers.get(proposal.answer) ?? 0) + 1);
  }
  // The distinct answers and their counts, in first-seen order (as `counts` iterates them).
  const answerKeys = [...counts.keys()];
  const answerCounts = answerKeys.map((key) => counts.get(key) as number);
  const tallies: TaskTallies = { n, counts, answerKeys, answerCounts, groups: groupList, entropy };
  const findings = new Map(
    checkBehaviour({ proposals: ordered, history, options: behaviourOptions, extra: extraFindings }).map((finding) => [
      finding.agentId,
      finding,
    ]),
  );

  const analyses = ordered.map((proposal): ProposalAnalysis => {
    const group = groupOf.get(proposal.agentId) as string;
    const answer = proposal.answer;
    const valid = answer !== null;
    const features = valid
      ? computeFeatures(proposal, answer, groups.get(group) as GroupTally, tallies, history)
      : zeroFeatures;
    // S_i = Σ_m β_m · f_m(i)
    const publicEvidence = clamp01(
      beta[0] * features.cohort +
        beta[1] * features.crossModel +
        beta[2] * features.leaveOneGroupOut +
        beta[3] * features.selfConsistency +
        beta[4] * features.entropyValidity,
    );
    const given =
      verdicts !== undefined && Object.hasOwn(verdicts, proposal.agentId) ? verdicts[proposal.agentId] : undefined;
    if (given !== undefined) assertVerdict(given, { verifier: 'verdicts', agentId: proposal.agentId, taskId: task.id });
    const estimate = given ?? (verifier === undefined ? undefined : verifySync(verifier, { task, proposal }));
    // quality = (1 − γ) · S + γ · v when the verifier has an opinion
    const quality =
      estimate === undefined ? publicEvidence : (1 - verifierWeight) * publicEvidence + verifierWeight * estimate;
    const finding = findings.get(proposal.agentId);
    const reasons = notes
      ? describeAnalysis({ valid, publicEvidence, features, estimate, given, verifier, finding })
      : [];
    return {
      agentId: proposal.agentId,
      group,
      answer,
      valid,
      features,
      publicEvidence,
      verifierEstimate: estimate,
      quality: clamp01(quality),
      suspicion: finding?.suspicion ?? 0,
      flagged: finding?.flagged ?? false,
      findings: finding?.reasons ?? [],
      reasons,
    };
  });
  return {
    taskId: task.id,
    proposals: analyses,
    entropy,
    flagCap: Math.max(0, Math.ceil((options.flagCapFraction ?? 0.3) * n - 1e-9)),
  };
}

/** A clone group's size and the counts of its members' parseable answers. */
interface GroupTally {
  size: number;
  readonly answers: Map<string, number>;
}

/** What every proposal's features read of the task, counted once. */
interface TaskTallies {
  /** Proposals, parseable or not. */
  readonly n: number;
  /** Proposals per parseable answer. */
  readonly counts: ReadonlyMap<string, number>;
  /** `counts` as two parallel lists, in its order. */
  readonly answerKeys: readonly string[];
  readonly answerCounts: readonly number[];
  /** Clone groups in first-seen order. */
  readonly groups: readonly GroupTally[];
  /** Normalised answer entropy of the task. */
  readonly entropy: number;
}

const zeroFeatures: ProposalFeatures = {
  cohort: 0,
  crossModel: 0,
  leaveOneGroupOut: 0,
  selfConsistency: 0,
  entropyValidity: 0,
};

function computeFeatures(
  proposal: Proposal,
  answer: string,
  ownGroup: GroupTally,
  { n, counts, answerKeys, answerCounts, groups, entropy }: TaskTallies,
  history: readonly Proposal[],
): ProposalFeatures {
  // cohort = |{j ≠ i : a_j = a_i}| / (n − 1)
  const cohort = n > 1 ? ((counts.get(answer) ?? 1) - 1) / (n - 1) : 0.5;

  // crossModel = mean_{h ≠ g_i} |{j ∈ h : a_j = a_i}| / |h|   (each clone group counted once)
  let groupShares = 0;
  let otherGroups = 0;
  for (const tally of groups) {
    if (tally === ownGroup) continue;
    otherGroups += 1;
    groupShares += (tally.answers.get(answer) ?? 0) / tally.size;
  }
  const crossModel = otherGroups > 0 ? groupShares / otherGroups : 0.5;

  // leaveOneGroupOut = [a_i ∈ argmax_a |{j ∉ g_i : a_j = a}|] / (number of tied answers)
  // |{j ∉ g_i : a_j = a}| = count(a) − count of a within g_i
  const own = ownGroup.answers;
  let top = 0;
  let tied = 0;
  for (let index = 0; index < answerKeys.length; index++) {
    const rest = (answerCounts[index] as number) - (own.get(answerKeys[index] as string) ?? 0);
    if (rest <= 0) continue;
    if (rest > top) {
      top = rest;
      tied = 1;
    } else if (rest === top) tied += 1;
  }
  let leaveOneGroupOut = 0.5;
  if (top > 0) leaveOneGroupOut = counts.get(answer)! - (own.get(answer) ?? 0) === top ? 1 / tied : 0;

  // selfConsistency = share of the agent's earlier-round answers equal to a_i (1 without history)
  const earlier =
    history.length === 0
      ? history
      : history.filter((entry) => entry.agentId === proposal.agentId && entry.round < proposal.round);
  const selfConsistency =
    earlier.length === 0 ? 1 : earlier.filter((entry) => entry.answer === answer).length / earlier.length;

  // entropyValidity = valid · (1 − H_norm)
  const entropyValidity = 1 - entropy;
  return { cohort, crossModel, leaveOneGroupOut, selfConsistency, entropyValidity };
}

/** The text behind one proposal's analysis: its features, the verifier's estimate and the behaviour findings. */
function describeAnalysis({
  valid,
  publicEvidence,
  features,
  estimate,
  given,
  verifier,
  finding,
}: {
  valid: boolean;
  publicEvidence: number;
  features: ProposalFeatures;
  estimate: number | undefined;
  given: number | undefined;
  verifier: Verifier | undefined;
  finding: { readonly reasons: readonly string[] } | undefined;
}): string[] {
  return [
    valid
      ? `public evidence ${publicEvidence.toFixed(3)} (cohort ${features.cohort.toFixed(2)}, cross-model ${features.crossModel.toFixed(2)}, leave-one-group-out ${features.leaveOneGroupOut.toFixed(2)}, self-consistency ${features.selfConsistency.toFixed(2)}, entropy×validity ${features.entropyValidity.toFixed(2)})`
      : 'unparseable answer: public evidence 0',
    ...(estimate === undefined
      ? []
      : [
          `${given !== undefined ? 'verifier verdict' : `${verifier?.name ?? 'verifier'} estimate`} ${estimate.toFixed(3)}`,
        ]),
    ...(finding?.reasons ?? []),
  ];
}

function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}

/** The keys of this module's options, for assertKnownOptions (`tsc` fails when the type gains an unlisted key). */
export const knownAnalyzerOptions = defineOptionKeys<AnalyzerOptions>()([
  'beta',
  'verifierWeight',
  ...knownBehaviourCheckOptions,
]);
