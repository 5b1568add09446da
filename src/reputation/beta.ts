// Jøsang & Ismail 2002, "The Beta Reputation System" (15th Bled eCommerce Conference):
//   E[p] = α / (α + β) with α = r + 1, β = s + 1, forgetting r ← λ·r + success, s ← λ·s + failure.
// Second-hand evidence follows the RAPS watchdog (arXiv 2602.08009): a witness report is accepted
// only if its deviation from the local belief, |E_w − E_l| / sqrt(Var_w + Var_l), is below δ; an
// accepted report is merged with discount ω after subtracting the Beta(1, 1) prior.
import type { AgentId } from '../core/agent-identity.js';
import { InvalidArgumentError } from '../core/errors.js';
import { resolveOptions } from '../core/options.js';
import { assertInRange, assertKnownOptions, defineOptionKeys } from '../core/validate.js';
import {
  RosterReputationModel,
  readArray,
  readEvidenceCounts,
  readNumber,
  readObject,
  readSnapshotEnvelope,
  readAgentId,
} from './_shared.js';
import type { Evidence, ReputationSnapshot, ScoreExplanation, WitnessEvidence } from './reputation-model.js';
import { validateEvidenceBatch } from './validate-evidence.js';

/**
 * Beta evidence counts above the Beta(1, 1) prior: the belief is Beta(1 + positive, 1 + negative).
 * Both are (decayed, possibly fractional) counts ≥ 0.
 */
export interface BetaCounts {
  /** Decayed count of successes r ≥ 0. */
  readonly positive: number;
  /** Decayed count of failures s ≥ 0. */
  readonly negative: number;
}

/** A Beta belief about an agent's probability of good behaviour, with its mean and variance. */
export interface BetaBelief {
  /** α = 1 + r, ≥ 1. */
  readonly alpha: number;
  /** β = 1 + s, ≥ 1. */
  readonly beta: number;
  /** E = α / (α + β), in (0, 1). */
  readonly expectation: number;
  /** Var = αβ / ((α + β)² (α + β + 1)), in (0, 1/12]. */
  readonly variance: number;
}

/** Outcome of the RAPS witness check on one report. */
export interface WitnessCheck {
  /** D = |E_w − E_l| / sqrt(Var_w + Var_l), ≥ 0. */
  readonly deviation: number;
  /** True when D < δ: the report is merged and counts as a success for the witness. */
  readonly accepted: boolean;
}

/** Options of the Beta reputation model. */
export interface BetaModelOptions {
  /** Forgetting factor λ in [0, 1] applied to a belief's counts at each update (1 = never forget). @default 0.9 */
  readonly lambda?: number;
  /** Witness deviation threshold δ > 0: a report with D ≥ δ is refused. @default 1.5 */
  readonly delta?: number;
  /** Discount ω in [0, 1] on an accepted witness report's counts. @default 0.3 */
  readonly omega?: number;
  /** Trust threshold τ in [0, 1]: `isTrusted` is E ≥ τ. @default 0.4 */
  readonly tau?: number;
  /**
   * Where the outcome of a witness check goes. `'separate'` (RAPS): a belief of its own,
   * `trust_of(observer, witness)` (is its testimony credible), apart from `reputation_of`, the
   * first-hand belief that routing and decisions read; a refused report updates only trust_of.
   * `'shared'` (the behaviour before issue 14): the check's success or failure is counted in the
   * same belief as the witness's work. @default 'separate'
   */
  readonly witnessCredibility?: 'separate' | 'shared';
}

/** Default Beta model parameters (λ = 0.9, δ = 1.5, ω = 0.3, τ = 0.4, separate witness credibility). */
export const betaDefaults: Required<BetaModelOptions> = {
  lambda: 0.9,
  delta: 1.5,
  omega: 0.3,
  tau: 0.4,
  witnessCredibility: 'separate',
};

/** No evidence: the Beta(1, 1) prior. */
export const emptyBetaCounts: BetaCounts = Object.freeze({ positive: 0, negative: 0 });

/**
 * Expected value of Beta(α, β): E = α / (α + β).
 *
 * @example
 * betaExpectation(8, 3); // 8 / 11
 */
export function betaExpectation(alpha: number, beta: number): number {
  // E = x / (x + y)
  return alpha / (alpha + beta);
}

/** Variance of Beta(α, β): Var = αβ / ((α + β)² (α + β + 1)). */
export function betaVariance(alpha: number, beta: number): number {
  const total = alpha + beta;
  // Var = x·y / ((x + y)^2 (x + y + 1))
  return (alpha * beta) / (total * total * (total + 1));
}

/**
 * The belief Beta(1 + r, 1 + s) for counts (r, s) above the Beta(1, 1) prior, with E and Var.
 *
 * @example
 * betaBelief({ positive: 7, negative: 2 }).expectation; // (7 + 1) / (7 + 2 + 2) = 8 / 11
 */
export function betaBelief(counts: BetaCounts): BetaBelief {
  // α = r + 1, β = s + 1  (Jøsang & Ismail 2002, Beta(1, 1) prior)
  const alpha = counts.positive + 1;
  const beta = counts.negative + 1;
  return { alpha, beta, expectation: betaExpectation(alpha, beta), variance: betaVariance(alpha, beta) };
}

/**
 * One first-hand update with forgetting: r ← λ·r + success, s ← λ·s + (1 − success).
 *
 * λ multiplies the counts above the prior, never the prior itself, so that α, β ≥ 1 always and a
 * belief that stops receiving evidence fades back towards Beta(1, 1) (E → 0.5) instead of towards
 * the improper Beta(0, 0). In terms of α = 1 + r this is α ← 1 + λ(α − 1) + success. Returns new
 * counts; the input is not changed.
 */
export function updateBetaCounts(counts: BetaCounts, success: number, lambda: number): BetaCounts {
  return {
    // x − 1 ← λ(x − 1) + success
    positive: lambda * counts.positive + success,
    // y − 1 ← λ(y − 1) + (1 − success)
    negative: lambda * counts.negative + (1 - success),
  };
}

/**
 * RAPS deviation of a witness report from the local belief:
 * D = |E_w − E_l| / sqrt(Var_w + Var_l), both beliefs built on the Beta(1, 1) prior.
 */
export function witnessDeviation(local: BetaCounts, witness: BetaCounts): number {
  const localBelief = betaBelief(local);
  const witnessBelief = betaBelief(witness);
  // D = |E_w − E_local| / sqrt(Var_w + Var_local)
  return (
    Math.abs(witnessBelief.expectation - localBelief.expectation) /
    Math.sqrt(witnessBelief.variance + localBelief.variance)
  );
}

/** Applies the RAPS witness test: accepted iff D < δ (so D ≥ δ marks the witness untrusted). */
export function checkWitnessReport({
  local,
  witness,
  delta,
}: {
  local: BetaCounts;
  witness: BetaCounts;
  delta: number;
}): WitnessCheck {
  const deviation = witnessDeviation(local, witness);
  // untrusted iff D ≥ δ
  return { deviation, accepted: deviation < delta };
}

/**
 * Merges an accepted witness report into the local counts with discount ω, after subtracting the
 * prior from the witness's belief: r ← r + ω·(x_w − 1), s ← s + ω·(y_w − 1). The witness's counts
 * are already above the prior (x_w − 1 = positive), so this adds ω·positive and ω·negative.
 */
export function mergeWitnessCounts(local: BetaCounts, witness: BetaCounts, omega: number): BetaCounts {
  return {
    // r ← r + ω·(x_w − 1)
    positive: local.positive + omega * witness.positive,
    // s ← s + ω·(y_w − 1)
    negative: local.negative + omega * witness.negative,
  };
}

/** Validates Beta model options and merges them over {@link betaDefaults}. */
export function resolveBetaOptions(
  options: BetaModelOptions | undefined,
  parameter = 'options',
): Required<BetaModelOptions> {
  const resolved = resolveOptions<BetaModelOptions>(betaDefaults, options);
  assertInRange(`${parameter}.lambda`, resolved.lambda, 0, 1, { hint: 'pass e.g. { lambda: 0.9 }' });
  assertInRange(`${parameter}.delta`, resolved.delta, 0, Infinity, {
    minExclusive: true,
    maxExclusive: true,
    hint: 'pass e.g. { delta: 1.5 }',
  });
  assertInRange(`${parameter}.omega`, resolved.omega, 0, 1, { hint: 'pass e.g. { omega: 0.3 }' });
  assertInRange(`${parameter}.tau`, resolved.tau, 0, 1, { hint: 'pass e.g. { tau: 0.4 }' });
  if (resolved.witnessCredibility !== 'separate' && resolved.witnessCredibility !== 'shared') {
    throw new InvalidArgumentError({
      parameter: `${parameter}.witnessCredibility`,
      value: resolved.witnessCredibility,
      message: `${parameter}.witnessCredibility must be 'separate' (RAPS trust_of) or 'shared', got ${JSON.stringify(resolved.witnessCredibility)}`,
    });
  }
  return resolved;
}

const knownBetaModelOptions = defineOptionKeys<{ agents: unknown } & BetaModelOptions>()([
  'agents',
  'lambda',
  'delta',
  'omega',
  'tau',
  'witnessCredibility',
]);

/**
 * Beta reputation (Jøsang & Ismail 2002) with forgetting and the RAPS second-hand witness check.
 *
 * State: one belief Beta(1 + r, 1 + s) per (observer, subject), plus a shared `team` observer.
 * Evidence used, in batch order:
 * - `outcome` without observer updates the team's belief about `subject`; with an observer, that
 *   observer's belief: r ← λr + success, s ← λs + (1 − success).
 * - `rating` is first-hand evidence of the rater about the ratee, the same update with success = score.
 * - `witness` runs the RAPS check against the observer's belief about the subject:
 *   D = |E_w − E_l| / sqrt(Var_w + Var_l). If D ≥ δ the report is refused and the observer's
 *   trust_of(witness) takes a failure; otherwise a success, and the report is merged into
 *   reputation_of(subject): r ← r + ω·positive, s ← s + ω·negative (no forgetting on a merge).
 *   trust_of is its own belief (`witnessCredibility: 'separate'`, default) or the same belief as
 *   reputation_of(witness) (`'shared'`).
 * - `behaviour` is ignored.
 *
 * score(agent) = E of the team's belief = (1 + r) / (2 + r + s); weights are scores normalised to
 * sum 1. Peer beliefs are read with `belief(observer, subject)` and `isTrusted(observer, subject)`
 * (E ≥ τ); pass `null` as observer for the team's view.
 */
export class BetaReputationModel extends RosterReputationModel {
  readonly name = 'beta';
  #parameters: Required<BetaModelOptions>;
  #team = new Map<AgentId, BetaCounts>();
  #pairs = new Map<AgentId, Map<AgentId, BetaCounts>>();
  // trust_of: testimony credibility per (observer, witness), used only with witnessCredibility 'separate'.
  #trust = new Map<AgentId, Map<AgentId, BetaCounts>>();

  constructor(options: { agents: readonly AgentId[] } & BetaModelOptions) {
    assertKnownOptions('options', options, knownBetaModelOptions, 'new BetaReputationModel');
    const { agents, ...modelOptions } = options;
    const parameters = resolveBetaOptions(modelOptions);
    super(agents);
    this.#parameters = parameters;
  }

  /** The model's parameters λ, δ, ω, τ and where witness credibility is kept. */
  get parameters(): Required<BetaModelOptions> {
    return { ...this.#parameters };
  }

  observe(evidence: readonly Evidence[]): void {
    validateEvidenceBatch(evidence, this.roster);
    for (const item of evidence) {
      if (item.type === 'outcome') this.#firstHand(item.observer ?? null, item.subject, item.success);
      else if (item.type === 'rating') this.#firstHand(item.rating.rater, item.rating.ratee, item.rating.score);
      else if (item.type === 'witness') this.#witness(item);
    }
  }

  score(agentId: AgentId): number {
    this.roster.require(agentId);
    const counts = this.#team.get(agentId) ?? emptyBetaCounts;
    // E of Beta(1 + r, 1 + s), as betaBelief computes it (without the variance)
    return betaExpectation(counts.positive + 1, counts.negative + 1);
  }

  /**
   * The belief of `observer` (or of the team when `observer` is `null`) about `subject`:
   * Beta(α, β) with α = 1 + r, β = 1 + s, E and Var. Unknown ids throw `NotFoundError`.
   */
  belief(observer: AgentId | null, subject: AgentId): BetaBelief {
    return betaBelief(this.#counts(observer, subject));
  }

  /** reputation_of: the belief of `observer` about the reliability of `subject`'s work (= {@link belief}). */
  reputationOf(observer: AgentId | null, subject: AgentId): BetaBelief {
    return this.belief(observer, subject);
  }

  /**
   * trust_of: the belief of `observer` that `witness`'s testimony is credible, from the outcomes of
   * the witness checks (Beta(1 + r, 1 + s) with forgetting λ). With `witnessCredibility: 'shared'`
   * it is the same belief as reputation_of(observer, witness).
   */
  trustOf(observer: AgentId, witness: AgentId): BetaBelief {
    return betaBelief(this.#trustCounts(observer, witness));
  }

  /** True when `observer` finds `witness`'s testimony credible: trust_of E ≥ τ. */
  isCredible(observer: AgentId, witness: AgentId): boolean {
    // credible iff E[trust_of] ≥ τ
    return this.trustOf(observer, witness).expectation >= this.#parameters.tau;
  }

  /** The raw counts (r, s) above the prior behind {@link belief}, e.g. to publish as a witness report. */
  counts(observer: AgentId | null, subject: AgentId): BetaCounts {
    return { ...this.#counts(observer, subject) };
  }

  /** True when `observer` (or the team, for `null`) trusts `subject`: E ≥ τ. */
  isTrusted(observer: AgentId | null, subject: AgentId): boolean {
    // trusted iff E ≥ τ
    return this.belief(observer, subject).expectation >= this.#parameters.tau;
  }

  /**
   * Ours, not Jøsang & Ismail or RAPS: ages one belief towards the Beta(1, 1) prior without new
   * evidence, r ← ρ·r, s ← ρ·s with ρ in [0, 1] (1 = no change, 0 = back to the prior), so that a
   * peer filtered away after an early misjudgement is eventually trusted enough to be re-tested.
   * Changes only (observer, subject); the team's belief when `observer` is `null`.
   *
   * @example
   * model.relaxTowardPrior('a', 'b', 0.5); // (0, 1) -> (0, 0.5): E 1/3 -> 1/2.5 = 0.4
   */
  relaxTowardPrior(observer: AgentId | null, subject: AgentId, factor: number): void {
    assertInRange('factor', factor, 0, 1, { hint: 'pass e.g. 0.8' });
    const counts = this.#counts(observer, subject);
    // r ← ρ·r, s ← ρ·s
    this.#set(observer, subject, { positive: factor * counts.positive, negative: factor * counts.negative });
  }

  /** Runs the witness check on a report without changing any state. */
  assessWitness(report: WitnessEvidence): WitnessCheck {
    validateEvidenceBatch([report], this.roster, 'report');
    return checkWitnessReport({
      local: this.#counts(report.observer, report.subject),
      witness: { positive: report.positive, negative: report.negative },
      delta: this.#parameters.delta,
    });
  }

  explain(agentId: AgentId): ScoreExplanation {
    const counts = this.#counts(null, agentId);
    const belief = betaBelief(counts);
    return {
      agentId,
      score: belief.expectation,
      components: {
        alpha: belief.alpha,
        beta: belief.beta,
        expectation: belief.expectation,
        variance: belief.variance,
        positive: counts.positive,
        negative: counts.negative,
      },
      evidenceCount: this.evidenceCount(agentId),
      summary: `${agentId}: team belief Beta(${format(belief.alpha)}, ${format(belief.beta)}), E = ${format(belief.expectation)}, Var = ${format(belief.variance)} (λ = ${this.#parameters.lambda})`,
    };
  }

  snapshot(): ReputationSnapshot {
    const agents = this.roster.ids;
    const beliefs: Array<{ observer: AgentId | null; subject: AgentId; positive: number; negative: number }> = [];
    for (const subject of agents) {
      const counts = this.#team.get(subject);
      if (counts) beliefs.push({ observer: null, subject, positive: counts.positive, negative: counts.negative });
    }
    for (const observer of agents) {
      const row = this.#pairs.get(observer);
      if (!row) continue;
      for (const subject of agents) {
        const counts = row.get(subject);
        if (counts) beliefs.push({ observer, subject, positive: counts.positive, negative: counts.negative });
      }
    }
    const trust: Array<{ observer: AgentId; witness: AgentId; positive: number; negative: number }> = [];
    for (const observer of agents) {
      const row = this.#trust.get(observer);
      if (!row) continue;
      for (const witness of agents) {
        const counts = row.get(witness);
        if (counts) trust.push({ observer, witness, positive: counts.positive, negative: counts.negative });
      }
    }
    return this.wrapSnapshot({ parameters: { ...this.#parameters }, beliefs, trust });
  }

  /** Replaces agents, beliefs and parameters (λ, δ, ω, τ) with the snapshot's. */
  restore(snapshot: ReputationSnapshot): void {
    const { agents, state } = readSnapshotEnvelope(snapshot, this.name);
    const stored = readObject(state.parameters, 'snapshot.state.parameters') as BetaModelOptions;
    // Snapshots written before issue 14 have no witnessCredibility: they kept witness checks in the shared belief.
    const parameters = resolveBetaOptions(
      stored.witnessCredibility === undefined ? { ...stored, witnessCredibility: 'shared' } : stored,
      'snapshot.state.parameters',
    );
    const trust = new Map<AgentId, Map<AgentId, BetaCounts>>();
    readArray(state.trust ?? [], 'snapshot.state.trust').forEach((entry, index) => {
      const path = `snapshot.state.trust[${index}]`;
      const record = readObject(entry, path);
      const observer = readAgentId(record.observer, `${path}.observer`, agents);
      const witness = readAgentId(record.witness, `${path}.witness`, agents);
      let row = trust.get(observer);
      if (!row) trust.set(observer, (row = new Map()));
      row.set(witness, {
        positive: readNumber(record.positive, `${path}.positive`, 0),
        negative: readNumber(record.negative, `${path}.negative`, 0),
      });
    });
    const team = new Map<AgentId, BetaCounts>();
    const pairs = new Map<AgentId, Map<AgentId, BetaCounts>>();
    readArray(state.beliefs, 'snapshot.state.beliefs').forEach((entry, index) => {
      const path = `snapshot.state.beliefs[${index}]`;
      const record = readObject(entry, path);
      const subject = readAgentId(record.subject, `${path}.subject`, agents);
      const counts = {
        positive: readNumber(record.positive, `${path}.positive`, 0),
        negative: readNumber(record.negative, `${path}.negative`, 0),
      };
      if (record.observer === null) {
        team.set(subject, counts);
      } else {
        const observer = readAgentId(record.observer, `${path}.observer`, agents);
        let row = pairs.get(observer);
        if (!row) pairs.set(observer, (row = new Map()));
        row.set(subject, counts);
      }
    });
    const evidenceCounts = readEvidenceCounts(state.evidenceCounts, 'snapshot.state.evidenceCounts', agents);
    this.#parameters = parameters;
    this.replaceRoster(agents, evidenceCounts);
    this.#team = team;
    this.#pairs = pairs;
    this.#trust = trust;
  }

  #trustCounts(observer: AgentId, witness: AgentId): BetaCounts {
    if (this.#parameters.witnessCredibility === 'shared') return this.#counts(observer, witness);
    this.roster.require(observer, 'observer');
    this.roster.require(witness, 'witness');
    return this.#trust.get(observer)?.get(witness) ?? emptyBetaCounts;
  }

  #counts(observer: AgentId | null, subject: AgentId): BetaCounts {
    if (observer !== null) this.roster.require(observer, 'observer');
    this.roster.require(subject, 'subject');
    const counts = observer === null ? this.#team.get(subject) : this.#pairs.get(observer)?.get(subject);
    return counts ?? emptyBetaCounts;
  }

  #set(observer: AgentId | null, subject: AgentId, counts: BetaCounts): void {
    if (observer === null) {
      this.#team.set(subject, counts);
      return;
    }
    let row = this.#pairs.get(observer);
    if (!row) this.#pairs.set(observer, (row = new Map()));
    row.set(subject, counts);
  }

  #touch(agentId: AgentId): void {
    this.countEvidence(agentId);
  }

  #firstHand(observer: AgentId | null, subject: AgentId, success: number): void {
    // updateBetaCounts in place (observe validated both ids): every stored counts object belongs to
    // one (observer, subject) slot and is handed out only as a copy, so no reader sees it change.
    let row = this.#team;
    if (observer !== null) {
      let pairs = this.#pairs.get(observer);
      if (!pairs) this.#pairs.set(observer, (pairs = new Map()));
      row = pairs;
    }
    let counts = row.get(subject) as { positive: number; negative: number } | undefined;
    if (counts === undefined) row.set(subject, (counts = { positive: 0, negative: 0 }));
    const lambda = this.#parameters.lambda;
    // x − 1 ← λ(x − 1) + success;  y − 1 ← λ(y − 1) + (1 − success)
    counts.positive = lambda * counts.positive + success;
    counts.negative = lambda * counts.negative + (1 - success);
    this.#touch(subject);
  }

  #witness(report: WitnessEvidence): void {
    const { observer, witness, subject } = report;
    const check = checkWitnessReport({
      local: this.#counts(observer, subject),
      witness: { positive: report.positive, negative: report.negative },
      delta: this.#parameters.delta,
    });
    // The report itself is evidence about the witness's testimony: a passing report is a success,
    // a deviating one a failure, in trust_of ('separate') or in the witness's one belief ('shared').
    const credibility = updateBetaCounts(
      this.#trustCounts(observer, witness),
      check.accepted ? 1 : 0,
      this.#parameters.lambda,
    );
    if (this.#parameters.witnessCredibility === 'shared') {
      this.#set(observer, witness, credibility);
      this.#touch(witness);
    } else {
      let row = this.#trust.get(observer);
      if (!row) this.#trust.set(observer, (row = new Map()));
      row.set(witness, credibility);
    }
    if (check.accepted) {
      // Re-read: when witness === subject the trust update above already changed this belief.
      this.#set(observer, subject, mergeWitnessCounts(this.#counts(observer, subject), report, this.#parameters.omega));
      if (subject !== witness) this.#touch(subject);
    }
  }
}

/**
 * Creates a Beta reputation model over `agents` (see {@link BetaReputationModel}).
 *
 * @example
 * const model = createBetaModel({ agents: ['a1', 'a2'], lambda: 0.9 });
 * model.observe([{ type: 'outcome', taskId: 't1', subject: 'a1', success: 1 }]);
 * model.score('a1'); // (1 + 1) / (1 + 0 + 2) = 2 / 3
 */
export function createBetaModel(options: { agents: readonly AgentId[] } & BetaModelOptions): BetaReputationModel {
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError({
      parameter: 'options',
      value: options,
      message: `options must be an object like { agents: ['a1', 'a2'] }, got ${String(options)}`,
    });
  }
  assertKnownOptions('options', options, knownBetaModelOptions, 'createBetaModel');
  return new BetaReputationModel(options);
}

function format(value: number): string {
  return Number(value.toFixed(4)).toString();
}
