// Kamvar, Schlosser & Garcia-Molina 2003, "The EigenTrust Algorithm for Reputation Management in
// P2P Networks" (WWW 2003), Algorithm 2 (basic EigenTrust with pre-trusted peers):
//   c_ij = max(s_ij, 0) / Σ_j max(s_ij, 0),   t^(k+1) = (1 − a)·Cᵀ t^(k) + a·p,   t^(0) = p.
import type { AgentId } from '../core/agent-identity.js';
import { ConvergenceError, InvalidArgumentError } from '../core/errors.js';
import { resolveOptions } from '../core/options.js';
import { assertFinite, assertInRange, assertInteger, assertKnownOptions, defineOptionKeys } from '../core/validate.js';
import {
  type AgentRoster,
  assertModelOptions,
  describe,
  formatScore,
  readAgentId,
  readArray,
  readEvidenceCounts,
  readNumber,
  readObject,
  readSnapshotEnvelope,
  RosterReputationModel,
} from './_shared.js';
import type { Evidence, ReputationSnapshot, ScoreExplanation } from './reputation-model.js';
import { validateEvidenceBatch } from './validate-evidence.js';

/** Iteration parameters of EigenTrust. */
export interface EigenTrustOptions {
  /** Weight a on the pre-trust vector, in (0, 1]; a = 1 returns p itself. @default 0.15 */
  readonly alpha?: number;
  /** Converged when the L1 change Σ_i |t_i^(k+1) − t_i^(k)| < ε; ε > 0. @default 1e-9 */
  readonly epsilon?: number;
  /**
   * Iteration budget, an integer ≥ 1. The L1 change shrinks by a factor ≤ (1 − a) per step from at
   * most 2, so reaching ε needs k > ln(ε/2) / ln(1 − a): about 132 steps for a = 0.15 and ε = 1e-9,
   * more than the 100 often quoted, hence 1000 (enough down to a ≈ 0.021 at ε = 1e-9).
   * @default 1000
   */
  readonly maxIterations?: number;
}

/** Input of the pure {@link eigentrust} function. */
export interface EigenTrustInput extends EigenTrustOptions {
  /** Square matrix of local trust s_ij (row i = truster, column j = trustee); entries may be negative. */
  readonly localTrust: readonly (readonly number[])[];
  /** Pre-trust weights p_i ≥ 0 with a positive sum; normalised to sum 1 by the function. */
  readonly preTrust: readonly number[];
}

/** Global trust with the iterations it took. */
export interface EigenTrustResult {
  /** Global trust vector t, ≥ 0, summing to 1. */
  readonly trust: number[];
  /** Iterations performed. */
  readonly iterations: number;
  /** L1 change of the last iteration (< ε). */
  readonly residual: number;
}

/** Default EigenTrust parameters (a = 0.15, ε = 1e-9, 1000 iterations). */
export const eigentrustDefaults: Required<EigenTrustOptions> = { alpha: 0.15, epsilon: 1e-9, maxIterations: 1000 };

/**
 * Validates EigenTrust iteration parameters and merges them over {@link eigentrustDefaults}.
 * a outside (0, 1] throws `InvalidArgumentError`.
 */
export function resolveEigenTrustOptions(
  options: EigenTrustOptions | undefined,
  parameter = '',
): Required<EigenTrustOptions> {
  const prefix = parameter === '' ? '' : `${parameter}.`;
  const resolved = resolveOptions<EigenTrustOptions>(eigentrustDefaults, {
    alpha: options?.alpha,
    epsilon: options?.epsilon,
    maxIterations: options?.maxIterations,
  });
  assertInRange(`${prefix}alpha`, resolved.alpha, 0, 1, {
    minExclusive: true,
    hint: 'a is the weight on pre-trusted agents; pass e.g. { alpha: 0.15 }',
  });
  assertInRange(`${prefix}epsilon`, resolved.epsilon, 0, Infinity, {
    minExclusive: true,
    maxExclusive: true,
    hint: 'pass e.g. { epsilon: 1e-9 }',
  });
  assertInteger(
    `${prefix}maxIterations`,
    resolved.maxIterations,
    1,
    Number.MAX_SAFE_INTEGER,
    'pass e.g. { maxIterations: 1000 }',
  );
  return resolved;
}

/**
 * Normalises a pre-trust vector: p_i / Σ_j p_j. Throws unless entries are finite, ≥ 0, with a
 * positive sum.
 */
export function normalizePreTrust(preTrust: readonly number[], size?: number): number[] {
  if (!Array.isArray(preTrust) || preTrust.length === 0 || (size !== undefined && preTrust.length !== size)) {
    throw new InvalidArgumentError({
      parameter: 'preTrust',
      value: preTrust,
      message: `preTrust must be an array of ${size ?? 'n ≥ 1'} non-negative numbers (one per agent), got ${describe(preTrust)}`,
    });
  }
  preTrust.forEach((value, index) => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new InvalidArgumentError({
        parameter: `preTrust[${index}]`,
        value,
        message: `preTrust[${index}] must be a finite number >= 0, got ${String(value)}`,
      });
    }
  });
  const total = preTrust.reduce((sum, value) => sum + value, 0);
  if (!(total > 0)) {
    throw new InvalidArgumentError({
      parameter: 'preTrust',
      value: preTrust,
      message: `preTrust must have a positive sum, got ${describe(preTrust)}; give at least one agent positive pre-trust, e.g. all 1s for uniform`,
    });
  }
  // p_i ← p_i / Σ_j p_j
  return preTrust.map((value) => value / total);
}

/**
 * Row-normalised local trust C: c_ij = max(s_ij, 0) / Σ_j max(s_ij, 0); a row with no positive
 * entry is replaced by the (normalised) pre-trust vector p. Returns a new matrix.
 */
export function normalizeLocalTrust(
  localTrust: readonly (readonly number[])[],
  preTrust: readonly number[],
): number[][] {
  return localTrust.map((row) => {
    const positive = row.map((value) => Math.max(value, 0));
    const total = positive.reduce((sum, value) => sum + value, 0);
    // c_ij = max(s_ij, 0) / Σ_j max(s_ij, 0); row with Σ = 0 → p
    return total > 0 ? positive.map((value) => value / total) : [...preTrust];
  });
}

const knownEigenTrustInput = defineOptionKeys<EigenTrustInput>()([
  'localTrust',
  'preTrust',
  'alpha',
  'epsilon',
  'maxIterations',
]);

/**
 * Runs EigenTrust and reports the iterations it took; see {@link eigentrust}.
 * Throws `ConvergenceError` when the budget runs out; it never returns an unconverged iterate.
 */
export function computeEigentrust(input: EigenTrustInput): EigenTrustResult {
  if (input === null || typeof input !== 'object') {
    throw new InvalidArgumentError({
      parameter: 'input',
      value: input,
      message: `eigentrust takes an object { localTrust, preTrust, alpha?, epsilon?, maxIterations? }, got ${describe(input)}`,
    });
  }
  assertKnownOptions('input', input, knownEigenTrustInput, 'computeEigentrust');
  const { alpha, epsilon, maxIterations } = resolveEigenTrustOptions(input);
  const size = validateLocalTrust(input.localTrust);
  const preTrust = normalizePreTrust(input.preTrust, size);
  const normalized = new Float64Array(size * size);
  normalizeLocalTrust(input.localTrust, preTrust).forEach((row, index) => normalized.set(row, index * size));
  return iterateEigentrust(normalized, Float64Array.from(preTrust), { alpha, epsilon, maxIterations });
}

/**
 * The power iteration of {@link computeEigentrust} on an already row-normalised C, stored row-major
 * (c_ij at `normalized[i·n + j]`), with a normalised p. No validation: the caller guarantees the
 * inputs. Every sum runs in the same order as the textbook loops (Σ_i over rows from 0; the L1
 * change over agents from 0), so the iterates are the same to the last bit.
 */
function iterateEigentrust(
  normalized: Float64Array,
  preTrust: Float64Array,
  { alpha, epsilon, maxIterations }: Required<EigenTrustOptions>,
): EigenTrustResult {
  const size = preTrust.length;
  const damping = 1 - alpha;
  // t^(0) = p; two buffers swap roles each iteration.
  let trust = Float64Array.from(preTrust);
  let next = new Float64Array(size);
  let residual = Infinity;
  for (let iteration = 1; iteration <= maxIterations; iteration++) {
    for (let column = 0; column < size; column++) {
      let incoming = 0;
      // (Cᵀ t)_j = Σ_i c_ij t_i
      for (let row = 0, at = column; row < size; row++, at += size)
        incoming += (normalized[at] as number) * (trust[row] as number);
      // t_j^(k+1) = (1 − a)·(Cᵀ t^(k))_j + a·p_j
      next[column] = damping * incoming + alpha * (preTrust[column] as number);
    }
    // δ = ‖t^(k+1) − t^(k)‖₁ (summed left to right from 0)
    residual = 0;
    for (let index = 0; index < size; index++) residual += Math.abs((next[index] as number) - (trust[index] as number));
    const previous = trust;
    trust = next;
    next = previous;
    if (residual < epsilon) return { trust: Array.from(trust), iterations: iteration, residual };
  }
  throw new ConvergenceError({
    iterations: maxIterations,
    residual,
    message: `eigentrust did not converge in ${maxIterations} iterations (L1 change ${residual} >= epsilon ${epsilon}); raise maxIterations (about ln(epsilon/2)/ln(1 - alpha) are needed) or alpha`,
  });
}

/**
 * EigenTrust global trust (Kamvar et al. 2003): iterates t ← (1 − a)·Cᵀt + a·p from t = p until the
 * L1 change is below ε, where c_ij = max(s_ij, 0) / Σ_j max(s_ij, 0) and rows with no positive
 * trust fall back to p. The result is ≥ 0 and sums to 1; scaling a truster's whole row of s by a
 * positive factor does not change it. Throws `InvalidArgumentError` for a non-square or non-finite
 * `localTrust`, a bad `preTrust`, a outside (0, 1], and `ConvergenceError` when `maxIterations`
 * runs out.
 *
 * @example
 * eigentrust({ localTrust: [[0, 1], [1, 0]], preTrust: [1, 1] }); // [0.5, 0.5]
 */
export function eigentrust(input: EigenTrustInput): number[] {
  if (input !== null && typeof input === 'object')
    assertKnownOptions('input', input, knownEigenTrustInput, 'eigentrust');
  return computeEigentrust(input).trust;
}

function validateLocalTrust(localTrust: readonly (readonly number[])[]): number {
  if (!Array.isArray(localTrust) || localTrust.length === 0) {
    throw new InvalidArgumentError({
      parameter: 'localTrust',
      value: localTrust,
      message: `localTrust must be a non-empty square matrix (number[][], row = truster), got ${describe(localTrust)}`,
    });
  }
  const size = localTrust.length;
  localTrust.forEach((row, rowIndex) => {
    if (!Array.isArray(row) || row.length !== size) {
      throw new InvalidArgumentError({
        parameter: `localTrust[${rowIndex}]`,
        value: row,
        message: `localTrust[${rowIndex}] must have ${size} entries (the matrix is square), got ${describe(row)}`,
      });
    }
    row.forEach((value, column) => assertFinite(`localTrust[${rowIndex}][${column}]`, value));
  });
  return size;
}

/** Options of the EigenTrust reputation model. */
export interface EigenTrustModelOptions extends EigenTrustOptions {
  /**
   * Pre-trusted agents, sharing p uniformly. Agents added later are not pre-trusted.
   * @default every agent (uniform p, including agents added later)
   */
  readonly preTrusted?: readonly AgentId[];
}

const knownEigenTrustModelOptions = defineOptionKeys<{ agents: unknown } & EigenTrustModelOptions>()([
  'agents',
  'preTrusted',
  'alpha',
  'epsilon',
  'maxIterations',
]);

/**
 * EigenTrust (Kamvar et al. 2003) as a reputation model.
 *
 * Local trust accumulates as satisfactory minus unsatisfactory interactions with fractional counts:
 * each `rating` adds s_ij += 2·score − 1 for rater i and ratee j (a score of 1 is one satisfactory
 * interaction, 0 one unsatisfactory), and each `outcome` with an `observer` adds 2·success − 1 to
 * s_observer,subject. Self-ratings (i = j), outcomes without an observer, `behaviour` and `witness`
 * evidence are ignored: EigenTrust has no self-trust and no team-level observation.
 *
 * Global trust t = eigentrust({ localTrust: s, preTrust: p, ... }); score(i) = t_i / max_j t_j (so
 * the most trusted agent scores 1), and weights are t itself (renormalised over the requested ids).
 */
export class EigenTrustReputationModel extends RosterReputationModel {
  readonly name = 'eigentrust';
  #parameters: Required<EigenTrustOptions>;
  #preTrusted: AgentId[] | null;
  // s_ij row-major in roster order (truster i, trustee j, at i·n + j), and which entries evidence or a
  // snapshot has set (a snapshot lists only those). Unset entries hold 0, as a missing s_ij reads.
  #localTrust: Float64Array;
  #stored: Uint8Array;
  // C of the last solve, reused as the next solve's buffer.
  #normalized: Float64Array;
  #cache: { result: EigenTrustResult; maxTrust: number } | null = null;

  constructor(options: { agents: readonly AgentId[] } & EigenTrustModelOptions) {
    assertKnownOptions('options', options, knownEigenTrustModelOptions, 'new EigenTrustReputationModel');
    const { agents, preTrusted, ...modelOptions } = options;
    const parameters = resolveEigenTrustOptions(modelOptions, 'options');
    super(agents);
    this.#parameters = parameters;
    this.#preTrusted = preTrusted === undefined ? null : readPreTrusted(preTrusted, this.roster, 'options.preTrusted');
    const size = this.roster.size;
    this.#localTrust = new Float64Array(size * size);
    this.#stored = new Uint8Array(size * size);
    this.#normalized = new Float64Array(size * size);
  }

  /** The model's iteration parameters and pre-trusted agents (`null` = everyone). */
  get parameters(): Required<EigenTrustOptions> & { preTrusted: readonly AgentId[] | null } {
    return { ...this.#parameters, preTrusted: this.#preTrusted === null ? null : [...this.#preTrusted] };
  }

  override addAgent(agentId: AgentId): void {
    const previous = this.roster.size;
    super.addAgent(agentId);
    // Grow the n×n table to (n + 1)×(n + 1), keeping every s_ij at its (i, j).
    const size = previous + 1;
    const localTrust = new Float64Array(size * size);
    const stored = new Uint8Array(size * size);
    for (let row = 0; row < previous; row++) {
      localTrust.set(this.#localTrust.subarray(row * previous, (row + 1) * previous), row * size);
      stored.set(this.#stored.subarray(row * previous, (row + 1) * previous), row * size);
    }
    this.#localTrust = localTrust;
    this.#stored = stored;
    this.#normalized = new Float64Array(size * size);
    this.#cache = null;
  }

  observe(evidence: readonly Evidence[]): void {
    validateEvidenceBatch(evidence, this.roster);
    // Items per trustee (by roster position), added to the evidence counts once per batch.
    const received = new Uint32Array(this.roster.size);
    for (const item of evidence) {
      if (item.type === 'rating')
        this.#addLocalTrust(item.rating.rater, item.rating.ratee, item.rating.score, received);
      else if (item.type === 'outcome' && item.observer !== undefined)
        this.#addLocalTrust(item.observer, item.subject, item.success, received);
    }
    const agents = this.roster.ids;
    for (let index = 0; index < received.length; index++)
      if ((received[index] as number) > 0) this.countEvidence(agents[index] as AgentId, received[index]);
  }

  /** Global trust t_i (sums to 1 over all agents). */
  globalTrust(agentId: AgentId): number {
    const index = this.roster.indexOf(agentId);
    return this.#solve().result.trust[index]!;
  }

  /** Local trust s_ij accumulated from `truster` about `trustee`. */
  localTrust(truster: AgentId, trustee: AgentId): number {
    this.roster.require(truster, 'truster');
    this.roster.require(trustee, 'trustee');
    return this.#localTrust[this.roster.indexOf(truster) * this.roster.size + this.roster.indexOf(trustee)]!;
  }

  /** The local trust matrix s (rows and columns in `agentIds()` order). */
  localTrustMatrix(): number[][] {
    const size = this.roster.size;
    return Array.from({ length: size }, (_, row) =>
      Array.from(this.#localTrust.subarray(row * size, (row + 1) * size)),
    );
  }

  score(agentId: AgentId): number {
    const trust = this.globalTrust(agentId);
    // score_i = t_i / max_j t_j
    return trust / this.#solve().maxTrust;
  }

  /** Weights are the global trust t renormalised over the requested agents, not the scores. */
  protected override weightOf(agentId: AgentId): number {
    return this.globalTrust(agentId);
  }

  explain(agentId: AgentId): ScoreExplanation {
    const trust = this.globalTrust(agentId);
    const { result, maxTrust } = this.#solve();
    const size = this.roster.size;
    const column = this.roster.indexOf(agentId);
    let received = 0;
    for (let row = 0; row < size; row++) received += this.#localTrust[row * size + column]!;
    const preTrust = this.#preTrustVector()[this.roster.indexOf(agentId)]!;
    return {
      agentId,
      score: trust / maxTrust,
      components: {
        globalTrust: trust,
        maxGlobalTrust: maxTrust,
        preTrust,
        receivedLocalTrust: received,
        iterations: result.iterations,
      },
      evidenceCount: this.evidenceCount(agentId),
      summary: `${agentId}: global trust ${formatScore(trust)} of max ${formatScore(maxTrust)} (pre-trust ${formatScore(preTrust)}, net local trust received ${formatScore(received)}, converged in ${result.iterations} iterations)`,
    };
  }

  snapshot(): ReputationSnapshot {
    const agents = this.roster.ids;
    const size = agents.length;
    const localTrust: Array<{ truster: AgentId; trustee: AgentId; value: number }> = [];
    for (let row = 0; row < size; row++) {
      for (let column = 0; column < size; column++) {
        const at = row * size + column;
        if (this.#stored[at] === 1)
          localTrust.push({ truster: agents[row]!, trustee: agents[column]!, value: this.#localTrust[at]! });
      }
    }
    return this.wrapSnapshot({
      parameters: { ...this.#parameters, preTrusted: this.#preTrusted === null ? null : [...this.#preTrusted] },
      localTrust,
    });
  }

  /** Replaces agents, local trust and parameters with the snapshot's. */
  restore(snapshot: ReputationSnapshot): void {
    const { agents, state } = readSnapshotEnvelope(snapshot, this.name);
    const rawParameters = readObject(state.parameters, 'snapshot.state.parameters');
    const parameters = resolveEigenTrustOptions(rawParameters as EigenTrustOptions, 'snapshot.state.parameters');
    const preTrusted =
      rawParameters.preTrusted === null
        ? null
        : readPreTrusted(rawParameters.preTrusted as AgentId[], agents, 'snapshot.state.parameters.preTrusted');
    const size = agents.size;
    const localTrust = new Float64Array(size * size);
    const stored = new Uint8Array(size * size);
    readArray(state.localTrust, 'snapshot.state.localTrust').forEach((entry, index) => {
      const path = `snapshot.state.localTrust[${index}]`;
      const record = readObject(entry, path);
      const truster = readAgentId(record.truster, `${path}.truster`, agents);
      const trustee = readAgentId(record.trustee, `${path}.trustee`, agents);
      const at = agents.indexOf(truster) * size + agents.indexOf(trustee);
      localTrust[at] = readNumber(record.value, `${path}.value`);
      stored[at] = 1;
    });
    const evidenceCounts = readEvidenceCounts(state.evidenceCounts, 'snapshot.state.evidenceCounts', agents);
    this.#parameters = parameters;
    this.#preTrusted = preTrusted;
    this.#localTrust = localTrust;
    this.#stored = stored;
    this.#normalized = new Float64Array(size * size);
    this.replaceRoster(agents, evidenceCounts);
    this.#cache = null;
  }

  #addLocalTrust(truster: AgentId, trustee: AgentId, success: number, received: Uint32Array): void {
    if (truster === trustee) return;
    const column = this.roster.indexOf(trustee);
    const at = this.roster.indexOf(truster) * this.roster.size + column;
    // s_ij += sat − unsat = success − (1 − success) = 2·success − 1
    this.#localTrust[at] = this.#localTrust[at]! + (2 * success - 1);
    this.#stored[at] = 1;
    received[column] = (received[column] as number) + 1;
    this.#cache = null;
  }

  #preTrustVector(): number[] {
    const agents = this.roster.list();
    if (this.#preTrusted === null) return agents.map(() => 1 / agents.length);
    const preTrusted = new Set(this.#preTrusted);
    return agents.map((agentId) => (preTrusted.has(agentId) ? 1 / preTrusted.size : 0));
  }

  #solve(): { result: EigenTrustResult; maxTrust: number } {
    if (this.#cache === null) {
      // As computeEigentrust({ localTrust: s, preTrust: p, ... }) computes it, without copying s into
      // rows or re-validating it (every s_ij is a finite sum of values in [−1, 1], or a snapshot's finite number).
      const size = this.roster.size;
      const preTrust = normalizePreTrust(this.#preTrustVector(), size);
      const local = this.#localTrust;
      const normalized = this.#normalized;
      for (let row = 0; row < size; row++) {
        const start = row * size;
        let total = 0;
        for (let column = 0; column < size; column++) total += Math.max(local[start + column]!, 0);
        // c_ij = max(s_ij, 0) / Σ_j max(s_ij, 0); row with Σ = 0 → p
        for (let column = 0; column < size; column++)
          normalized[start + column] = total > 0 ? Math.max(local[start + column]!, 0) / total : preTrust[column]!;
      }
      const result = iterateEigentrust(normalized, Float64Array.from(preTrust), this.#parameters);
      this.#cache = { result, maxTrust: Math.max(...result.trust) };
    }
    return this.#cache;
  }
}

/**
 * Creates an EigenTrust reputation model over `agents` (see {@link EigenTrustReputationModel}).
 *
 * @example
 * const model = createEigenTrustModel({ agents: ['a1', 'a2', 'a3'] });
 * model.observe([{ type: 'rating', rating: { rater: 'a1', ratee: 'a2', taskId: 't1', score: 1 } }]);
 * model.weights(); // the global trust vector
 */
export function createEigenTrustModel(
  options: { agents: readonly AgentId[] } & EigenTrustModelOptions,
): EigenTrustReputationModel {
  assertModelOptions(options);
  assertKnownOptions('options', options, knownEigenTrustModelOptions, 'createEigenTrustModel');
  return new EigenTrustReputationModel(options);
}

function readPreTrusted(preTrusted: readonly AgentId[], roster: AgentRoster, parameter: string): AgentId[] {
  if (!Array.isArray(preTrusted) || preTrusted.length === 0) {
    throw new InvalidArgumentError({
      parameter,
      value: preTrusted,
      message: `${parameter} must be a non-empty list of agent ids, got ${describe(preTrusted)}; omit it to pre-trust every agent uniformly`,
    });
  }
  const unique = new Set<AgentId>();
  preTrusted.forEach((agentId, index) => {
    roster.require(agentId, `${parameter}[${index}]`);
    unique.add(agentId);
  });
  return [...unique];
}
