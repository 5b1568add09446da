import type { AgentId, AgentIdentity } from '../../core/agent-identity.js';
import type { AnswerKind } from '../../core/answers/answer-kind.js';

/** The seven attacks of the replay grid. */
export type AttackName = 'RAND' | 'STRONG' | 'DIV' | 'ARITH' | 'BOUND' | 'ONOFF' | 'ADAPT';

/** All attacks, in report order. */
export const attackNames: readonly AttackName[] = ['RAND', 'STRONG', 'DIV', 'ARITH', 'BOUND', 'ONOFF', 'ADAPT'];

/** Team compositions of the grid (`pool`: every agent of the dataset as one team). */
export type CompositionName = 'all-strong' | 'all-weak' | '7s3w' | 'random' | 'pool';

/** The paper's four compositions, in report order: the default grid. */
export const compositionNames: readonly CompositionName[] = ['all-strong', 'all-weak', '7s3w', 'random'];

/** Every composition `--compositions` accepts, in report order. */
export const allCompositionNames: readonly CompositionName[] = ['all-strong', 'all-weak', '7s3w', 'random', 'pool'];

/** Which ⌈0.3·n⌉ of the n team members are corrupted: best-ranked, worst-ranked, or seeded random. */
export type PlacementName = 'B' | 'W' | 'R1' | 'R2';

/** All placements, in report order. */
export const placementNames: readonly PlacementName[] = ['B', 'W', 'R1', 'R2'];

/** Post-task feedback every stateful method receives. */
export type FeedbackMode = 'consensus' | 'verifier' | 'truth';

/** All feedback modes. */
export const feedbackModes: readonly FeedbackMode[] = ['consensus', 'verifier', 'truth'];

/** Which verifier judges the proposals of a replay: none, the seeded simulated one, or a recorded model as judge (`judge:<agent>`). */
export type VerifierKind = 'none' | 'simulated' | 'judge';

/** All verifier kinds of the replay. */
export const verifierKinds: readonly VerifierKind[] = ['none', 'simulated', 'judge'];

/**
 * The simulated verifier's error model: `correlated` (the default; one verdict per task and answer,
 * errors rising with how many agents share a wrong answer and with the task's difficulty, see
 * `replay-verifier.ts`) or `independent` (the former model: an independent draw per condition and proposal).
 */
export type VerifierModel = 'correlated' | 'independent';

/** All simulated verifier models. */
export const verifierModels: readonly VerifierModel[] = ['correlated', 'independent'];

/** The replay's verifier: its kind and, for `simulated`, its model and error rates. */
export interface ReplayVerifierSettings {
  /** `none`, `simulated` (see `model`), or `judge` (a recorded model of the dataset; see `judge`). */
  readonly kind: VerifierKind;
  /** Error model of the simulated verifier. */
  readonly model: VerifierModel;
  /** The judging agent of a `judge` verifier (taken out of the pool); `undefined` otherwise. */
  readonly judge?: string | undefined;
  /** P(judged wrong | wrong), in [0, 1]. */
  readonly sensitivity: number;
  /** P(judged right | right), in [0, 1]. */
  readonly specificity: number;
}

/** Score of one answer key against the reference: exact match and sample F1, both in [0, 1]. */
export interface KeyScore {
  /** Exact match with the reference, in [0, 1] (1 = match). */
  readonly exact: number;
  /** Sample F1 against the reference, in [0, 1]. */
  readonly f1: number;
}

/**
 * One sampled task, prepared for replay: canonical answer keys per pool agent and the score of every
 * honest key. Only the harness holds `reference` and `scores`; decision paths get a `Task`.
 */
export interface PreparedTask {
  /** Task id from the dataset. */
  readonly id: string;
  /** Answer kind, which decides how keys are canonicalised and scored. */
  readonly kind: AnswerKind;
  /** Task prompt (`''` when the dataset has none). */
  readonly prompt: string;
  /** Reference answer that decisions are scored against; harness-only. */
  readonly reference: string;
  /** Number of options of a `choice` task. */
  readonly options?: number;
  /** Canonical key per pool agent index (`null` = unparseable or missing). */
  readonly keys: readonly (string | null)[];
  /** Raw text per pool agent index (`''` when missing). */
  readonly texts: readonly string[];
  /** Whether the pool agent has a record for the task (absent = counted as unparseable). */
  readonly present: readonly boolean[];
  /** Score of every honest key seen on the task (from the dataset's flags, or equivalence). */
  readonly scores: Readonly<Record<string, KeyScore>>;
}

/** The replay input shared by all workers: the ranked pool and the sampled tasks in order. */
export interface PreparedReplay {
  /** Shape version of this record; always 1. */
  readonly schemaVersion: 1;
  /** Pool agents, best-ranked first. */
  readonly agents: readonly AgentIdentity[];
  /** Accuracy of each pool agent on all dataset tasks (ranking basis), aligned with `agents`. */
  readonly accuracy: readonly number[];
  /** Sampled tasks in replay order. */
  readonly tasks: readonly PreparedTask[];
  /** The judge of a `judge:<agent>` verifier, taken out of `agents`: its id and its key per sampled task. */
  readonly judge?: { readonly agent: string; readonly keys: readonly (string | null)[] };
}

/** One cell of the grid: a team, its corrupted members and an attack (or none: clean). */
export interface Condition {
  /** Position in the grid (merge key across workers). */
  readonly index: number;
  /** Stable id, e.g. `all-strong/B/RAND` or `all-strong/clean`. */
  readonly id: string;
  /** Which team composition the condition uses. */
  readonly composition: CompositionName;
  /** Which members are corrupted, or `null` for a clean run. */
  readonly placement: PlacementName | null;
  /** The attack the corrupted members run, or `null` for a clean run. */
  readonly attack: AttackName | null;
  /** Team members (10, or the whole pool for `pool`), best-ranked first. */
  readonly team: readonly AgentId[];
  /** Corrupted members (⌈0.3·n⌉: 3 of 10), empty for clean runs. */
  readonly attackers: readonly AgentId[];
}

/**
 * What one method did in one condition, in additive form so workers can be merged. The counters
 * follow the MiniRep paper's §C.3 (see `metrics.ts` for the definitions and our choices).
 */
export interface MethodRun {
  /** Name of the replay method, as in `ReplayMethod.name`. */
  readonly method: string;
  /** Sample F1 of the decision per task (equals exact match for single-answer kinds). */
  readonly f1: Float64Array;
  /** Exact match of the decision per task. */
  readonly exact: Float64Array;
  /** Per task, 1 when the attack was active (≥ 1 attacker proposed a payload), else 0; the same for every method of a condition. */
  readonly active: Uint8Array;
  /** Active-attack tasks on which ≥ 1 payload entered the aggregation pool (PoolExp numerator; its denominator is Σ active). */
  poolExpTasks: number;
  /** Of those, tasks whose decided answer equals a payload (PayloadHit numerator; denominator `poolExpTasks`). */
  payloadHitTasks: number;
  /** Active-attack tasks t with a later active-attack task t′ whose pool holds none of t's attackers (NextExcl numerator). */
  nextExclTasks: number;
  /** Active-attack tasks t that have a later active-attack task t′ (NextExcl denominator). */
  nextExclEligible: number;
  /** Ours (today's PoolExp before v2): Σ over active tasks of the attackers' share of the decision weight. */
  weightShareSum: number;
  /** Active tasks whose participants had positive total weight; denominator of `weightShareSum`. */
  weightShareCount: number;
  /** Mean normalised pre-task weight of the attackers per task (empty in clean conditions). */
  readonly attackerWeight: Float64Array;
  /** Mean normalised pre-task weight of the honest members per task (empty in clean conditions). */
  readonly honestWeight: Float64Array;
  /** Proposals evaluated (participants' proposals aggregated). */
  proposals: number;
}

/** Results of one condition for every method. */
export interface ConditionResult {
  /** Position of the condition in the grid, as in {@link Condition.index}. */
  readonly index: number;
  /** One run per method, in the order the methods were given. */
  readonly runs: readonly MethodRun[];
  /** Team proposals that were missing from the dataset (counted as unparseable) in this condition. */
  readonly missing: number;
  /**
   * ADAPT only, when asked for (`reportAttacks`): the attack MiniRep's run chose on each task, for
   * replaying the condition's other methods elsewhere.
   */
  readonly attacks?: readonly AttackPlan[];
}

/** The attack's effect on one task: whether it fired and each attacker's payload key. */
export interface AttackPlan {
  /** True when the attack fired on this task (false without attackers, before task 30 for ONOFF/ADAPT, off-phase ONOFF tasks, and ADAPT tasks where the rule chose nobody). */
  readonly active: boolean;
  /** Attacker → payload key; empty when inactive. Payloads are never equivalent to the reference. */
  readonly payloads: Readonly<Record<AgentId, string>>;
}
