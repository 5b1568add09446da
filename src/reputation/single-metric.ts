// Single-metric baseline: one exponentially weighted moving average of task success per agent,
// q ← (1 − η)·q + η·success, used both to select agents and to weight their votes (the
// "single quality score" baseline that DRF and MiniRep compare against).
import type { AgentId } from '../core/agent-identity.js';
import { resolveOptions } from '../core/options.js';
import { assertInRange, assertKnownOptions, defineOptionKeys } from '../core/validate.js';
import {
  assertModelOptions,
  formatScore,
  readAgentNumbers,
  readEvidenceCounts,
  readObject,
  readSnapshotEnvelope,
  RosterReputationModel,
  writeAgentNumbers,
} from './_shared.js';
import type { Evidence, ReputationSnapshot, ScoreExplanation } from './reputation-model.js';
import { validateEvidenceBatch } from './validate-evidence.js';

/** Options of the single-metric model. */
export interface SingleMetricOptions {
  /** Learning rate η in (0, 1]: weight of the newest outcome. @default 0.2 */
  readonly eta?: number;
  /** Quality q0 in [0, 1] before any evidence (and for agents added later). @default 0.5 */
  readonly initialQuality?: number;
}

/** Default single-metric parameters (η = 0.2, q0 = 0.5). */
export const singleMetricDefaults: Required<SingleMetricOptions> = { eta: 0.2, initialQuality: 0.5 };

/**
 * One exponential-average step: q ← (1 − η)·q + η·success. Stays in [0, 1] when q, success ∈ [0, 1]
 * and η ∈ (0, 1].
 *
 * @example
 * updateQuality(0.5, 1, 0.2); // 0.8·0.5 + 0.2·1 = 0.6
 */
export function updateQuality(quality: number, success: number, eta: number): number {
  // q ← (1 − η)·q + η·success
  return (1 - eta) * quality + eta * success;
}

/** Validates single-metric options and merges them over {@link singleMetricDefaults}. */
export function resolveSingleMetricOptions(
  options: SingleMetricOptions | undefined,
  parameter = 'options',
): Required<SingleMetricOptions> {
  const resolved = resolveOptions<SingleMetricOptions>(singleMetricDefaults, {
    eta: options?.eta,
    initialQuality: options?.initialQuality,
  });
  assertInRange(`${parameter}.eta`, resolved.eta, 0, 1, { minExclusive: true, hint: 'pass e.g. { eta: 0.2 }' });
  assertInRange(`${parameter}.initialQuality`, resolved.initialQuality, 0, 1, {
    hint: 'pass e.g. { initialQuality: 0.5 }',
  });
  return resolved;
}

const knownSingleMetricOptions = defineOptionKeys<{ agents: unknown } & SingleMetricOptions>()([
  'agents',
  'eta',
  'initialQuality',
]);

/**
 * Single-metric reputation: q_j ← (1 − η)·q_j + η·success for every `outcome` about agent j (with or
 * without an observer), in batch order. `rating`, `behaviour` and `witness` evidence are ignored.
 * score(j) = q_j, and the same number is the selection score and, normalised, the vote weight.
 */
export class SingleMetricReputationModel extends RosterReputationModel {
  readonly name = 'single-metric';
  #parameters: Required<SingleMetricOptions>;
  #quality = new Map<AgentId, number>();

  constructor(options: { agents: readonly AgentId[] } & SingleMetricOptions) {
    assertKnownOptions('options', options, knownSingleMetricOptions, 'new SingleMetricReputationModel');
    const { agents, ...modelOptions } = options;
    const parameters = resolveSingleMetricOptions(modelOptions);
    super(agents);
    this.#parameters = parameters;
  }

  /** The model's parameters η and q0. */
  get parameters(): Required<SingleMetricOptions> {
    return { ...this.#parameters };
  }

  observe(evidence: readonly Evidence[]): void {
    validateEvidenceBatch(evidence, this.roster);
    for (const item of evidence) {
      if (item.type !== 'outcome') continue;
      this.#quality.set(item.subject, updateQuality(this.score(item.subject), item.success, this.#parameters.eta));
      this.countEvidence(item.subject);
    }
  }

  score(agentId: AgentId): number {
    this.roster.require(agentId);
    return this.#quality.get(agentId) ?? this.#parameters.initialQuality;
  }

  explain(agentId: AgentId): ScoreExplanation {
    const quality = this.score(agentId);
    const evidenceCount = this.evidenceCount(agentId);
    return {
      agentId,
      score: quality,
      components: { quality, eta: this.#parameters.eta },
      evidenceCount,
      summary: `${agentId}: exponentially averaged quality ${formatScore(quality)} over ${evidenceCount} outcomes (η = ${this.#parameters.eta})`,
    };
  }

  snapshot(): ReputationSnapshot {
    return this.wrapSnapshot({
      parameters: { ...this.#parameters },
      quality: writeAgentNumbers(this.roster.list(), this.#quality),
    });
  }

  /** Replaces agents, qualities and parameters with the snapshot's. */
  restore(snapshot: ReputationSnapshot): void {
    const { agents, state } = readSnapshotEnvelope(snapshot, this.name);
    const parameters = resolveSingleMetricOptions(
      readObject(state.parameters, 'snapshot.state.parameters') as SingleMetricOptions,
      'snapshot.state.parameters',
    );
    const quality = readAgentNumbers(state.quality, 'snapshot.state.quality', agents, 0, 1);
    const evidenceCounts = readEvidenceCounts(state.evidenceCounts, 'snapshot.state.evidenceCounts', agents);
    this.#parameters = parameters;
    this.#quality = quality;
    this.replaceRoster(agents, evidenceCounts);
  }
}

/**
 * Creates a single-metric reputation model over `agents` (see {@link SingleMetricReputationModel}).
 *
 * @example
 * const model = createSingleMetricModel({ agents: ['a1', 'a2'] });
 * model.observe([{ type: 'outcome', taskId: 't1', subject: 'a1', success: 1 }]);
 * model.score('a1'); // 0.8·0.5 + 0.2·1 = 0.6
 */
export function createSingleMetricModel(
  options: { agents: readonly AgentId[] } & SingleMetricOptions,
): SingleMetricReputationModel {
  assertModelOptions(options);
  assertKnownOptions('options', options, knownSingleMetricOptions, 'createSingleMetricModel');
  return new SingleMetricReputationModel(options);
}
