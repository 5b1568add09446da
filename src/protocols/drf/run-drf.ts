// DRF: LLM-agent Dynamic Reputation Filtering (Lou et al. 2025, arXiv 2509.05764). One round per
// task: filter agents below the reputation threshold, pick a team of k by UCB with cost (Eq. 9),
// let the team propose, let every member rate every other member's proposal (the k-layer rating
// network), decide by reputation-weighted plurality, and update reputation from the ratings
// (Eqs. 6–8, in the reputation model).
import type { Agent } from '../../agents/agent.js';
import { validateTeam } from '../../core/agent-identity.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { resolveOptions } from '../../core/options.js';
import type { Rng } from '../../core/rng.js';
import type { Task } from '../../core/task.js';
import { createTracer, type Tracer } from '../../core/trace.js';
import {
  assertInRange,
  assertInteger,
  assertKnownOptions,
  assertOneOf,
  defineOptionKeys,
} from '../../core/validate.js';
import type { ReputationModel } from '../../reputation/reputation-model.js';
import type { Selector } from '../../selection/selector.js';
import { createCostLedger, type CostSource } from './cost-ledger.js';
import { runDrfRound, type DrfDefence, type DrfOutcome, type DrfRoundRecord, type DrfRoundState } from './drf-round.js';
import { agentRatingSource, type RatingSource } from './rating-source.js';
import { credibilityWeight } from './rater-credibility.js';

/** Protocol options of DRF (the reputation model and selector carry their own: w0, β, R0, δ). */
export interface DrfProtocolOptions {
  /** Team size k: agents selected per task, an integer in [1, pool size]. @default 3 */
  readonly k?: number;
  /** Filter threshold: agents whose reputation score (in [0, 1]) is below it are excluded. @default 0.3 */
  readonly threshold?: number;
  /**
   * Fewest agents kept eligible for selection: when fewer are at or above the threshold, the
   * best-reputed of the rest stay eligible (recorded as `fallback`). 1 gives DRF's strict filter,
   * under which a team can shrink to one agent that nobody rates any more. @default k
   */
  readonly minEligible?: number;
  /** Collusion defence applied to ratings before they reach the reputation model. @default 'none' */
  readonly defence?: DrfDefence;
  /** Smallest credibility weight κ a rater can have, in [0, 1]. @default 0.01 */
  readonly credibilityFloor?: number;
  /** Where the cost c_i of UCB selection comes from: price per call, token ledger, or ledger when it has spend. @default 'auto' */
  readonly costSource?: CostSource;
  /** Cost scale handed to the selector: divided by the pool's largest cost (`max`, so c_i ∈ [0, 1]) or as is. @default 'max' */
  readonly costNormalization?: 'max' | 'none';
  /**
   * Where the cost c_i^t of Eq. 9 comes from: `'per-agent'` (a fixed price or the ledger, see
   * `costSource`) or `'per-round'`, a fresh draw c_i^t ~ U(0, 1) per agent and round as in the
   * paper's Section 5.1, seeded by `costSeed` (the simulated setting; live runs use real spend).
   * @default 'per-agent'
   */
  readonly costModel?: DrfCostModel;
  /** Seed of the per-round cost draws; draw (i, t) uses its own stream from (seed, agent, round). @default 0 */
  readonly costSeed?: number | string;
}

/** How DRF's cost term c_i^t is obtained: one cost per agent, or a U(0, 1) draw per agent and round. */
export type DrfCostModel = 'per-agent' | 'per-round';

/** Input of {@link runDrf}. */
export interface RunDrfInput extends DrfProtocolOptions {
  /** Candidate agents (live, simulated or replayed); ids must be unique. */
  readonly pool: readonly Agent[];
  /** Tasks in order; one DRF round per task. */
  readonly tasks: readonly Task[];
  /** UCB selector with cost (`createSelector('ucb', ...)`); any `Selector` works. */
  readonly selector: Selector;
  /** Reputation model fed the rating network (`createReputationModel('drf', ...)`); pool agents are registered if missing. */
  readonly reputation: ReputationModel;
  /** Randomness for selection tie-breaks. */
  readonly rng: Rng;
  /** Where selection, proposal, rating, vote and reputation-update events go. @default a no-op tracer */
  readonly tracer?: Tracer;
  /** Where ratings come from. @default agentRatingSource() (Agent.rate) */
  readonly ratingSource?: RatingSource;
  /** How a proposal turned out, for rater credibility. @default agreement with the team answer (consensus) */
  readonly outcome?: DrfOutcome;
  /** Equality of canonical answer keys. @default string equality */
  readonly sameAnswer?: (left: string, right: string) => boolean;
  /** Aborts the run between and during rounds. */
  readonly signal?: AbortSignal;
  /** Called after every round with its record (progress, persistence). */
  readonly onRound?: (record: DrfRoundRecord) => void;
}

/** Result of a DRF run. Persistable: carries `schemaVersion`. */
export interface DrfRunResult {
  /** Shape version of this record; always 1. */
  readonly schemaVersion: 1;
  /** One record per task, in order. */
  readonly rounds: readonly DrfRoundRecord[];
  /** Final reputation score per agent, in [0, 1]. */
  readonly reputation: Readonly<Record<string, number>>;
  /** Agents below the threshold at the end of the run. */
  readonly excluded: readonly string[];
  /** Final rater credibility κ per agent (only with the defence). */
  readonly credibility?: Readonly<Record<string, number>>;
  /** Acts per agent and spend from the agents' usage. */
  readonly ledger: Readonly<Record<string, { calls: number; cost: number; inputTokens: number; outputTokens: number }>>;
  /** Total acts (proposals + ratings) over the run. */
  readonly calls: number;
}

/** Defaults of the DRF protocol options (`runDrf`, a team file's `protocol: { type: drf }`). */
export const drfProtocolDefaults: Readonly<Required<DrfProtocolOptions>> = {
  k: 3,
  minEligible: 0,
  threshold: 0.3,
  defence: 'none',
  credibilityFloor: 0.01,
  costSource: 'auto',
  costNormalization: 'max',
  costModel: 'per-agent',
  costSeed: 0,
};

/** Resolves and validates DRF protocol options against a pool size. */
export function resolveDrfProtocolOptions(options: DrfProtocolOptions, poolSize: number): Required<DrfProtocolOptions> {
  const merged = resolveOptions(drfProtocolDefaults, {
    k: options.k,
    minEligible: options.minEligible,
    threshold: options.threshold,
    defence: options.defence,
    credibilityFloor: options.credibilityFloor,
    costSource: options.costSource,
    costNormalization: options.costNormalization,
    costModel: options.costModel,
    costSeed: options.costSeed,
  });
  const resolved = { ...merged, minEligible: options.minEligible ?? merged.k };
  assertInteger('k', resolved.k, 1, poolSize, `k is the team size and cannot exceed the pool of ${poolSize}`);
  assertInteger(
    'minEligible',
    resolved.minEligible,
    1,
    poolSize,
    'pass 1 for the strict filter or k (default) to keep a full team eligible',
  );
  assertInRange('threshold', resolved.threshold, 0, 1, {
    hint: 'agents whose reputation score is below it are excluded; pass e.g. 0.2',
  });
  assertInRange('credibilityFloor', resolved.credibilityFloor, 0, 1);
  assertOneOf('defence', resolved.defence, ['none', 'rater-credibility']);
  assertOneOf('costSource', resolved.costSource, ['price', 'ledger', 'auto']);
  assertOneOf('costNormalization', resolved.costNormalization, ['max', 'none']);
  assertOneOf('costModel', resolved.costModel, ['per-agent', 'per-round'], '(c_i^t ~ U(0, 1), Section 5.1)');
  if (typeof resolved.costSeed !== 'number' && typeof resolved.costSeed !== 'string') {
    throw new InvalidArgumentError({
      parameter: 'costSeed',
      value: resolved.costSeed,
      message: `costSeed must be a number or string, got ${JSON.stringify(resolved.costSeed)}`,
    });
  }
  return resolved;
}

const knownRunDrfInput = defineOptionKeys<RunDrfInput>()([
  'pool',
  'tasks',
  'selector',
  'reputation',
  'rng',
  'tracer',
  'ratingSource',
  'outcome',
  'sameAnswer',
  'signal',
  'onRound',
  'k',
  'threshold',
  'minEligible',
  'defence',
  'credibilityFloor',
  'costSource',
  'costNormalization',
  'costModel',
  'costSeed',
]);

/**
 * Runs DRF over a task list, one round per task, and returns every round's record. Acts within a
 * round run concurrently (all proposals, then all k·(k − 1) ratings); a failed act is recorded in
 * the round's `failures` and the round goes on without it.
 *
 * @example
 * const result = await runDrf({
 *   pool, tasks, k: 3,
 *   selector: createSelector('ucb', { delta: 0.7 }),
 *   reputation: createReputationModel('drf'),
 *   rng: createRng(2027),
 * });
 * result.rounds[0].team; // ['a3', 'a1', 'a5']
 */
export async function runDrf(input: RunDrfInput): Promise<DrfRunResult> {
  assertKnownOptions('', input, knownRunDrfInput, 'runDrf');
  const identities = input.pool.map((agent) => agent.identity);
  validateTeam(identities, 'pool');
  const options = resolveDrfProtocolOptions(input, identities.length);
  if (!Array.isArray(input.tasks)) {
    throw new InvalidArgumentError({
      parameter: 'tasks',
      value: input.tasks,
      message: 'tasks must be an array of tasks; pass e.g. [{ id: "t1", kind: "number", prompt: "2+2?" }]',
    });
  }
  const seen = new Set<string>();
  input.tasks.forEach((task, index) => {
    if (typeof task?.id !== 'string' || task.id.length === 0)
      throw new InvalidArgumentError({
        parameter: `tasks[${index}].id`,
        value: task?.id,
        message: `tasks[${index}].id must be a non-empty string`,
      });
    if (seen.has(task.id))
      throw new InvalidArgumentError({
        parameter: `tasks[${index}].id`,
        value: task.id,
        message: `duplicate task id ${JSON.stringify(task.id)}; DRF runs one round per task`,
      });
    seen.add(task.id);
  });
  const known = new Set(input.reputation.agentIds());
  for (const identity of identities) if (!known.has(identity.id)) input.reputation.addAgent(identity.id);

  const tracer = input.tracer ?? createTracer();
  const ledger = createCostLedger(identities, options.costSource);
  const state: DrfRoundState = { credibility: {} };
  const ratingSource = input.ratingSource ?? agentRatingSource();
  const sameAnswer = input.sameAnswer ?? ((left: string, right: string) => left === right);
  const rounds: DrfRoundRecord[] = [];
  for (const [round, task] of input.tasks.entries()) {
    input.signal?.throwIfAborted();
    const record = await runDrfRound({
      round,
      task,
      pool: input.pool,
      k: options.k,
      threshold: options.threshold,
      minEligible: options.minEligible,
      selector: input.selector,
      reputation: input.reputation,
      rng: input.rng,
      tracer,
      ratingSource,
      ledger,
      costNormalization: options.costNormalization,
      costModel: options.costModel,
      costSeed: options.costSeed,
      defence: options.defence,
      credibilityFloor: options.credibilityFloor,
      outcome: input.outcome,
      sameAnswer,
      signal: input.signal,
      state,
    });
    rounds.push(record);
    input.onRound?.(record);
  }
  const reputation = input.reputation.scores();
  return {
    schemaVersion: 1,
    rounds,
    reputation,
    excluded: identities
      .map((identity) => identity.id)
      .filter((agentId) => (reputation[agentId] ?? 0) < options.threshold),
    ...(options.defence === 'rater-credibility'
      ? {
          credibility: Object.fromEntries(
            identities.map((identity) => [
              identity.id,
              credibilityWeight(state.credibility[identity.id], options.credibilityFloor),
            ]),
          ),
        }
      : {}),
    ledger: ledger.totals(),
    calls: rounds.reduce((sum, record) => sum + record.calls, 0),
  };
}
