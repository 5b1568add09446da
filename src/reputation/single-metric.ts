// Single-metric baseline: one exponentially weighted moving average of task success per agent,
// q ← (1 − η)·q + η·success, used both to select agents and to weight their votes (the
// "single quality score" baseline that DRF and MiniRep compare against).
import type { AgentId } from '../core/agent-identity.js';
import { InvalidArgumentError } from '../core/errors.js';
import { resolveOptions } from '../core/options.js';
import { assertInRange } from '../core/validate.js';
import {
  AgentRoster,
  collectScores,
  normalizeWeights,
  readAgentId,
  readArray,
  readEvidenceCounts,
  readNumber,
  readObject,
  readSnapshotEnvelope,
  resolveWeightIds,
  writeEvidenceCounts,
} from './_shared.js';
import type { Evidence, ReputationModel, ReputationSnapshot, ScoreExplanation } from './reputation-model.js';
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
export function resolveSingleMetricOptions(options: SingleMetricOptions | undefined, parameter = 'options'): Required<SingleMetricOptions> {
  const resolved = resolveOptions<SingleMetricOptions>(singleMetricDefaults, { eta: options?.eta, initialQuality: options?.initialQuality });
  assertInRange(`${parameter}.eta`, resolved.eta, 0, 1, { minExclusive: true, hint: 'pass e.g. { eta: 0.2 }' });
  assertInRange(`${parameter}.initialQuality`, resolved.initialQuality, 0, 1, { hint: 'pass e.g. { initialQuality: 0.5 }' });
  return resolved;
}

/**
 * Single-metric reputation: q_j ← (1 − η)·q_j + η·success for every `outcome` about agent j (with or
 * without an observer), in batch order. `rating`, `behaviour` and `witness` evidence are ignored.
 * score(j) = q_j, and the same number is the selection score and, normalised, the vote weight.
 */
export class SingleMetricReputationModel implements ReputationModel {
  readonly name = 'single-metric';
  #parameters: Required<SingleMetricOptions>;
  #roster: AgentRoster;
  #quality = new Map<AgentId, number>();
  #evidenceCounts = new Map<AgentId, number>();

  constructor({ agents, ...options }: { agents: readonly AgentId[] } & SingleMetricOptions) {
    this.#parameters = resolveSingleMetricOptions(options);
    this.#roster = AgentRoster.from(agents);
  }

  /** The model's parameters η and q0. */
  get parameters(): Required<SingleMetricOptions> {
    return { ...this.#parameters };
  }

  agentIds(): readonly AgentId[] {
    return this.#roster.list();
  }

  addAgent(agentId: AgentId): void {
    this.#roster.add(agentId);
  }

  observe(evidence: readonly Evidence[]): void {
    validateEvidenceBatch(evidence, this.#roster);
    for (const item of evidence) {
      if (item.type !== 'outcome') continue;
      this.#quality.set(item.subject, updateQuality(this.score(item.subject), item.success, this.#parameters.eta));
      this.#evidenceCounts.set(item.subject, (this.#evidenceCounts.get(item.subject) ?? 0) + 1);
    }
  }

  score(agentId: AgentId): number {
    this.#roster.require(agentId);
    return this.#quality.get(agentId) ?? this.#parameters.initialQuality;
  }

  scores(): Record<AgentId, number> {
    return collectScores(this.#roster.list(), (agentId) => this.score(agentId));
  }

  weights(agentIds?: readonly AgentId[]): Record<AgentId, number> {
    return normalizeWeights(resolveWeightIds(this.#roster, agentIds), (agentId) => this.score(agentId));
  }

  explain(agentId: AgentId): ScoreExplanation {
    const quality = this.score(agentId);
    const evidenceCount = this.#evidenceCounts.get(agentId) ?? 0;
    return {
      agentId,
      score: quality,
      components: { quality, eta: this.#parameters.eta },
      evidenceCount,
      summary: `${agentId}: exponentially averaged quality ${Number(quality.toFixed(4))} over ${evidenceCount} outcomes (η = ${this.#parameters.eta})`,
    };
  }

  snapshot(): ReputationSnapshot {
    const agents = this.#roster.list();
    return {
      schemaVersion: 1,
      model: this.name,
      agents,
      state: {
        parameters: { ...this.#parameters },
        quality: agents.filter((agentId) => this.#quality.has(agentId)).map((agentId) => [agentId, this.#quality.get(agentId)]),
        evidenceCounts: writeEvidenceCounts(agents, this.#evidenceCounts),
      },
    };
  }

  /** Replaces agents, qualities and parameters with the snapshot's. */
  restore(snapshot: ReputationSnapshot): void {
    const { agents, state } = readSnapshotEnvelope(snapshot, this.name);
    const parameters = resolveSingleMetricOptions(readObject(state.parameters, 'snapshot.state.parameters') as SingleMetricOptions, 'snapshot.state.parameters');
    const quality = new Map<AgentId, number>();
    readArray(state.quality, 'snapshot.state.quality').forEach((entry, index) => {
      const pair = readArray(entry, `snapshot.state.quality[${index}]`, 2);
      quality.set(readAgentId(pair[0], `snapshot.state.quality[${index}][0]`, agents), readNumber(pair[1], `snapshot.state.quality[${index}][1]`, 0, 1));
    });
    const evidenceCounts = readEvidenceCounts(state.evidenceCounts, 'snapshot.state.evidenceCounts', agents);
    this.#parameters = parameters;
    this.#roster = agents;
    this.#quality = quality;
    this.#evidenceCounts = evidenceCounts;
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
export function createSingleMetricModel(options: { agents: readonly AgentId[] } & SingleMetricOptions): SingleMetricReputationModel {
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError({ parameter: 'options', value: options, message: `options must be an object like { agents: ['a1', 'a2'] }, got ${String(options)}` });
  }
  return new SingleMetricReputationModel(options);
}
