// Internal helpers shared by the reputation models: the agent roster, weight normalisation and
// snapshot readers. Not re-exported.
import { assertAgentId, type AgentId } from '../core/agent-identity.js';
import { InvalidArgumentError, NotFoundError } from '../core/errors.js';
import { assertNonEmptyString } from '../core/validate.js';
import type { Evidence, ReputationModel, ReputationSnapshot, ScoreExplanation } from './reputation-model.js';

/** Ordered set of agent ids with typed errors for unknown and duplicate ids. */
export class AgentRoster {
  readonly #ids: AgentId[] = [];
  readonly #index = new Map<AgentId, number>();

  /** Builds a roster from a non-empty list of unique, non-empty ids. */
  static from(agents: readonly AgentId[], parameter = 'agents'): AgentRoster {
    if (!Array.isArray(agents) || agents.length === 0) {
      throw new InvalidArgumentError({
        parameter,
        value: agents,
        message: `${parameter} must be a non-empty list of agent ids, got ${describe(agents)}; pass e.g. { agents: ['a1', 'a2'] }`,
      });
    }
    const roster = new AgentRoster();
    agents.forEach((agentId, index) => roster.add(agentId, `${parameter}[${index}]`));
    return roster;
  }

  /** Appends an agent; throws `InvalidArgumentError` for an empty, reserved ({@link assertAgentId}) or duplicate id. */
  add(agentId: AgentId, parameter = 'agentId'): void {
    assertAgentId(parameter, agentId);
    if (this.#index.has(agentId)) {
      throw new InvalidArgumentError({
        parameter,
        value: agentId,
        message: `${parameter}: agent id ${JSON.stringify(agentId)} is already registered; agent ids must be unique`,
      });
    }
    this.#index.set(agentId, this.#ids.length);
    this.#ids.push(agentId);
  }

  /** Whether the agent is registered. */
  has(agentId: AgentId): boolean {
    return this.#index.has(agentId);
  }

  /** Position of a known agent; throws `NotFoundError` naming `parameter` otherwise. */
  indexOf(agentId: AgentId, parameter = 'agentId'): number {
    const index = this.#index.get(agentId);
    if (index === undefined) throw unknownAgent(agentId, parameter);
    return index;
  }

  /** Throws `NotFoundError` unless the agent is registered. */
  require(agentId: AgentId, parameter = 'agentId'): void {
    this.indexOf(agentId, parameter);
  }

  /** Number of registered agents. */
  get size(): number {
    return this.#ids.length;
  }

  /** A copy of the ids in registration order. */
  list(): readonly AgentId[] {
    return [...this.#ids];
  }

  /** The ids in registration order without a copy, for read-only loops inside the models. */
  get ids(): readonly AgentId[] {
    return this.#ids;
  }
}

/** The `NotFoundError` every model throws for an id it does not know. */
export function unknownAgent(agentId: unknown, parameter: string): NotFoundError {
  return new NotFoundError({
    entity: 'agent',
    id: String(agentId),
    message: `${parameter}: unknown agent id ${JSON.stringify(agentId)}; register it first (createReputationModel({ agents }) or model.addAgent(id))`,
  });
}

/**
 * Resolves the ids a `weights()` call covers: all agents by default, otherwise a non-empty list of
 * distinct known ids.
 */
export function resolveWeightIds(roster: AgentRoster, agentIds: readonly AgentId[] | undefined): readonly AgentId[] {
  if (agentIds === undefined) return roster.ids;
  // A short list of distinct known ids passes without a Set or field names; anything else takes the
  // full check below, which throws the named error.
  if (Array.isArray(agentIds) && agentIds.length > 0 && agentIds.length <= 32) {
    let plain = true;
    for (let index = 0; plain && index < agentIds.length; index++) {
      const agentId = agentIds[index] as AgentId;
      plain = roster.has(agentId);
      for (let before = 0; plain && before < index; before++) plain = agentIds[before] !== agentId;
    }
    if (plain) return agentIds;
  }
  if (!Array.isArray(agentIds) || agentIds.length === 0) {
    throw new InvalidArgumentError({
      parameter: 'agentIds',
      value: agentIds,
      message: `agentIds must be a non-empty list of known agent ids, got ${describe(agentIds)}; omit it to weight every agent`,
    });
  }
  const seen = new Set<AgentId>();
  agentIds.forEach((agentId, index) => {
    roster.require(agentId, `agentIds[${index}]`);
    if (seen.has(agentId)) {
      throw new InvalidArgumentError({
        parameter: `agentIds[${index}]`,
        value: agentId,
        message: `agentIds[${index}]: agent id ${JSON.stringify(agentId)} is listed twice; list each agent once`,
      });
    }
    seen.add(agentId);
  });
  return agentIds;
}

/**
 * Normalises non-negative values to weights that sum to 1: w_i = v_i / Σ_j v_j, uniform 1/n when
 * Σ_j v_j = 0.
 */
export function normalizeWeights(
  agentIds: readonly AgentId[],
  valueOf: (agentId: AgentId) => number,
): Record<AgentId, number> {
  const count = agentIds.length;
  const values = new Array<number>(count);
  let total = 0;
  for (let index = 0; index < count; index++) {
    const value = Math.max(0, valueOf(agentIds[index] as AgentId));
    values[index] = value;
    total += value;
  }
  const weights: Record<AgentId, number> = {};
  for (let index = 0; index < count; index++) {
    // w_i = v_i / Σ_j v_j  (uniform 1/n if Σ_j v_j = 0)
    weights[agentIds[index] as AgentId] = total > 0 ? (values[index] as number) / total : 1 / count;
  }
  return weights;
}

/** Builds the `scores()` record from a per-agent score function. */
export function collectScores(
  agentIds: readonly AgentId[],
  scoreOf: (agentId: AgentId) => number,
): Record<AgentId, number> {
  const scores: Record<AgentId, number> = {};
  for (const agentId of agentIds) scores[agentId] = scoreOf(agentId);
  return scores;
}

/**
 * Checks a snapshot's envelope (schemaVersion 1, model name, agent list) and returns its agents and
 * state object.
 */
export function readSnapshotEnvelope(
  snapshot: ReputationSnapshot,
  model: string,
): { agents: AgentRoster; state: Record<string, unknown> } {
  if (snapshot === null || typeof snapshot !== 'object') {
    throw new InvalidArgumentError({
      parameter: 'snapshot',
      value: snapshot,
      message: `snapshot must be an object from model.snapshot(), got ${describe(snapshot)}`,
    });
  }
  if (snapshot.schemaVersion !== 1) {
    throw new InvalidArgumentError({
      parameter: 'snapshot.schemaVersion',
      value: snapshot.schemaVersion,
      message: `snapshot.schemaVersion must be 1, got ${describe(snapshot.schemaVersion)}; this version of repute reads schemaVersion 1 snapshots only`,
    });
  }
  if (snapshot.model !== model) {
    throw new InvalidArgumentError({
      parameter: 'snapshot.model',
      value: snapshot.model,
      message: `snapshot.model is ${describe(snapshot.model)} but this is a ${JSON.stringify(model)} model; restore it into createReputationModel(${JSON.stringify(snapshot.model)}, ...)`,
    });
  }
  const agents = AgentRoster.from(snapshot.agents as AgentId[], 'snapshot.agents');
  return { agents, state: readObject(snapshot.state, 'snapshot.state') };
}

/** Reads a plain object field of a snapshot. */
export function readObject(value: unknown, parameter: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidArgumentError({
      parameter,
      value,
      message: `${parameter} must be an object, got ${describe(value)}; pass a snapshot produced by model.snapshot()`,
    });
  }
  return value as Record<string, unknown>;
}

/** Reads an array field of a snapshot. */
export function readArray(value: unknown, parameter: string, length?: number): unknown[] {
  if (!Array.isArray(value) || (length !== undefined && value.length !== length)) {
    throw new InvalidArgumentError({
      parameter,
      value,
      message: `${parameter} must be an array${length === undefined ? '' : ` of length ${length}`}, got ${describe(value)}; pass a snapshot produced by model.snapshot()`,
    });
  }
  return value;
}

/** Reads a finite number in [min, max] from a snapshot. */
export function readNumber(value: unknown, parameter: string, min = -Infinity, max = Infinity): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new InvalidArgumentError({
      parameter,
      value,
      message: `${parameter} must be a finite number in [${min}, ${max}], got ${describe(value)}; pass a snapshot produced by model.snapshot()`,
    });
  }
  return value;
}

/** Reads a count from a snapshot: an integer ≥ 0 (a count of tasks, flags or evidence). */
export function readCount(value: unknown, parameter: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidArgumentError({
      parameter,
      value,
      message: `${parameter} must be an integer >= 0 (a count), got ${describe(value)}; pass a snapshot produced by model.snapshot()`,
    });
  }
  return value;
}

/** Reads a known agent id from a snapshot. */
export function readAgentId(value: unknown, parameter: string, agents: AgentRoster): AgentId {
  assertNonEmptyString(parameter, value);
  agents.require(value, parameter);
  return value;
}

/** Short printable form of any value for error messages. */
export function describe(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (value === undefined) return 'undefined';
  try {
    const text = JSON.stringify(value);
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
  } catch {
    return String(value);
  }
}

/** Reads the evidence-count table kept by every model (`[[agentId, count], ...]`). */
export function readEvidenceCounts(value: unknown, parameter: string, agents: AgentRoster): Map<AgentId, number> {
  return readAgentNumbers(value, parameter, agents, 0);
}

/** Writes the evidence-count table in roster order. */
export function writeEvidenceCounts(
  agentIds: readonly AgentId[],
  counts: ReadonlyMap<AgentId, number>,
): Array<[AgentId, number]> {
  return writeAgentNumbers(agentIds, counts, 0);
}

/** Reads an `[[agentId, value], ...]` table of a snapshot: known ids, finite values in [min, max]. */
export function readAgentNumbers(
  value: unknown,
  parameter: string,
  agents: AgentRoster,
  min = -Infinity,
  max = Infinity,
): Map<AgentId, number> {
  const table = new Map<AgentId, number>();
  readArray(value, parameter).forEach((entry, index) => {
    const pair = readArray(entry, `${parameter}[${index}]`, 2);
    const agentId = readAgentId(pair[0], `${parameter}[${index}][0]`, agents);
    table.set(agentId, readNumber(pair[1], `${parameter}[${index}][1]`, min, max));
  });
  return table;
}

/**
 * Writes an `[[agentId, value], ...]` table in roster order: every agent with `fallback` for a
 * missing value, or only the agents that have a value when `fallback` is omitted.
 */
export function writeAgentNumbers(
  agentIds: readonly AgentId[],
  values: ReadonlyMap<AgentId, number>,
  fallback?: number,
): Array<[AgentId, number]> {
  if (fallback === undefined)
    return agentIds.filter((agentId) => values.has(agentId)).map((agentId) => [agentId, values.get(agentId)!]);
  return agentIds.map((agentId) => [agentId, values.get(agentId) ?? fallback]);
}

/** Throws `InvalidArgumentError` unless a `create...Model` factory was given an options object. */
export function assertModelOptions(options: unknown): void {
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError({
      parameter: 'options',
      value: options,
      message: `options must be an object like { agents: ['a1', 'a2'] }, got ${String(options)}`,
    });
  }
}

/** A number rounded to 4 decimals for `explain` summaries (`0.54321` → `0.5432`, `1` → `1`). */
export function formatScore(value: number): string {
  return Number(value.toFixed(4)).toString();
}

/**
 * Base of the reputation models that keep a roster and a per-agent evidence count: it implements
 * `agentIds`, `addAgent`, `scores`, `weights` (scores normalised to sum 1, or {@link weightOf}
 * normalised) and the snapshot envelope, so a model only writes its update rule, `score`,
 * `explain` and its own state.
 */
export abstract class RosterReputationModel implements ReputationModel {
  abstract readonly name: string;
  #roster: AgentRoster;
  #evidenceCounts = new Map<AgentId, number>();

  /** Validates `agents`; subclasses validate their options before calling it. */
  protected constructor(agents: readonly AgentId[]) {
    this.#roster = AgentRoster.from(agents);
  }

  abstract observe(evidence: readonly Evidence[]): void;
  abstract score(agentId: AgentId): number;
  abstract explain(agentId: AgentId): ScoreExplanation;
  abstract snapshot(): ReputationSnapshot;
  abstract restore(snapshot: ReputationSnapshot): void;

  agentIds(): readonly AgentId[] {
    return this.#roster.list();
  }

  addAgent(agentId: AgentId): void {
    this.#roster.add(agentId);
  }

  scores(): Record<AgentId, number> {
    return collectScores(this.#roster.ids, (agentId) => this.score(agentId));
  }

  weights(agentIds?: readonly AgentId[]): Record<AgentId, number> {
    return normalizeWeights(resolveWeightIds(this.#roster, agentIds), (agentId) => this.weightOf(agentId));
  }

  /** The non-negative value `weights()` normalises; the score unless a model weights otherwise. */
  protected weightOf(agentId: AgentId): number {
    return this.score(agentId);
  }

  /** The agents, in registration order. */
  protected get roster(): AgentRoster {
    return this.#roster;
  }

  /** Counts `items` (default one) evidence items that touched `agentId`. */
  protected countEvidence(agentId: AgentId, items = 1): void {
    this.#evidenceCounts.set(agentId, (this.#evidenceCounts.get(agentId) ?? 0) + items);
  }

  /** Number of evidence items that touched `agentId` so far. */
  protected evidenceCount(agentId: AgentId): number {
    return this.#evidenceCounts.get(agentId) ?? 0;
  }

  /** The snapshot envelope around a model's `state`, with the evidence counts appended to it. */
  protected wrapSnapshot(state: Record<string, unknown>): ReputationSnapshot {
    const agents = this.#roster.list();
    return {
      schemaVersion: 1,
      model: this.name,
      agents,
      state: { ...state, evidenceCounts: writeEvidenceCounts(agents, this.#evidenceCounts) },
    };
  }

  /** Replaces the roster and evidence counts with a restored snapshot's, after it was fully read. */
  protected replaceRoster(agents: AgentRoster, evidenceCounts: Map<AgentId, number>): void {
    this.#roster = agents;
    this.#evidenceCounts = evidenceCounts;
  }
}
