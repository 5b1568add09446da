// RAPS Bayesian Reputation overlay (Li et al. 2026, arXiv 2602.08009): every agent keeps a local
// watchdog, a Beta belief Beta(1 + r, 1 + s) about each peer. First-hand: after i receives j's
// message, i's audit updates r_ij ← λ r_ij + reliable, s_ij ← λ s_ij + (1 − reliable). Second-hand:
// a witness w reports its counts about s; i accepts the report iff
// D = |E_w − E_i| / sqrt(Var_w + Var_i) < δ and then merges it with discount ω; the report also
// updates i's trust belief about w. The equations live in the `beta` reputation model.
import type { AgentId } from '../../core/agent-identity.js';
import type { OutcomeEvidence, WitnessEvidence } from '../../reputation/reputation-model.js';
import { betaBelief, type BetaReputationModel } from '../../reputation/beta.js';

/** One audit verdict: `auditor` judged `subject`'s message `messageId`. */
export interface AuditRecord {
  /** Agent that received the message and audited it. */
  readonly auditor: AgentId;
  /** Agent that sent the audited message. */
  readonly subject: AgentId;
  /** Id of the audited message. */
  readonly messageId: string;
  /** The auditor's verdict: true when it judged the message reliable (counts as success 1, else 0). */
  readonly reliable: boolean;
  /** The auditor's justification of the verdict (`''` when it gave none). */
  readonly reason: string;
}

/** How a witness reports: truthfully, or with its counts swapped (praises whom it distrusts and vice versa). */
export type WitnessBehaviour = 'honest' | 'inverted';

/**
 * First-hand evidence from audits, in a canonical order (auditor, then message id), so that the
 * decayed beliefs do not depend on the order in which verdicts arrived over the network.
 */
export function auditEvidence(
  audits: readonly AuditRecord[],
  taskId: string,
  order: readonly AgentId[],
): OutcomeEvidence[] {
  const rank = new Map(order.map((agentId, index) => [agentId, index]));
  return (
    audits
      .slice()
      .sort(
        (left, right) =>
          (rank.get(left.auditor) ?? 0) - (rank.get(right.auditor) ?? 0) ||
          (left.messageId < right.messageId ? -1 : left.messageId > right.messageId ? 1 : 0),
      )
      // success = 1 for reliable, 0 for unreliable: r ← λr + success, s ← λs + (1 − success)
      .map((audit) => ({
        type: 'outcome',
        taskId,
        observer: audit.auditor,
        subject: audit.subject,
        success: audit.reliable ? 1 : 0,
      }))
  );
}

/**
 * Second-hand reports for one round: each observer asks at most `maxWitnesses` of the agents it
 * heard from this round and still trusts (E_observer[w] ≥ τ; the most trusted first, ties in
 * roster order) for their counts about every other agent they have evidence on. All reports are
 * read before any is applied, observers in roster order. An `inverted` witness swaps positive and
 * negative (bad-mouthing / ballot stuffing).
 *
 * With `firstHand`, witnesses report only their first-hand counts (audits), never what they merged
 * from others, as in the watchdog systems RAPS builds on (Buchegger & Le Boudec's deviation test
 * with first-hand publication): second-hand evidence then never travels further, so it cannot
 * echo back and inflate beliefs. With `reported`, a witness repeats a report to an observer only
 * when its counts changed since the last one (the map is updated).
 */
export function witnessReports({
  model,
  order,
  heardFrom,
  behaviour = {},
  maxWitnesses = 3,
  firstHand,
  reported,
  minDirectEvidence = 0,
  subjectMinDirectEvidence = 0,
  tau = 0.4,
}: {
  model: Pick<BetaReputationModel, 'counts' | 'isTrusted' | 'belief' | 'isCredible' | 'trustOf'>;
  order: readonly AgentId[];
  heardFrom: ReadonlyMap<AgentId, ReadonlySet<AgentId>>;
  behaviour?: Readonly<Record<AgentId, WitnessBehaviour>>;
  maxWitnesses?: number;
  firstHand?: Pick<BetaReputationModel, 'counts'>;
  reported?: Map<string, string>;
  /**
   * Ours, not RAPS: consult a witness only when the observer's own first-hand evidence about it
   * (r + s of its audits, in `firstHand`) is at least this and its first-hand E ≥ τ; a witness
   * trusted only through accepted reports is not asked. 0 = off (requires `firstHand`). @default 0
   */
  minDirectEvidence?: number;
  /**
   * Ours, not RAPS: report about a subject only to an observer whose own first-hand evidence about
   * it (r + s of its audits, in `firstHand`) is at least this; a withheld report is not remembered
   * in `reported`, so it comes once the observer has audited the subject. 0 = off (requires
   * `firstHand`). @default 0
   */
  subjectMinDirectEvidence?: number;
  /** τ of the first-hand gate (the model's τ). @default 0.4 */
  tau?: number;
}): WitnessEvidence[] {
  const source = firstHand ?? model;
  const directlyTrusted = (observer: AgentId, witness: AgentId): boolean => {
    if (minDirectEvidence <= 0 || firstHand === undefined) return true;
    const counts = firstHand.counts(observer, witness);
    // gate: r_d + s_d ≥ m and E_d = (1 + r_d) / (2 + r_d + s_d) ≥ τ, first-hand counts only
    return counts.positive + counts.negative >= minDirectEvidence && betaBelief(counts).expectation >= tau;
  };
  const reports: WitnessEvidence[] = [];
  for (const observer of order) {
    const heard = heardFrom.get(observer);
    if (!heard) continue;
    const chosen = order
      .filter(
        (witness) =>
          heard.has(witness) &&
          witness !== observer &&
          model.isCredible(observer, witness) &&
          directlyTrusted(observer, witness),
      )
      .map((witness, index) => ({ witness, index, trust: model.trustOf(observer, witness).expectation }))
      .sort((left, right) => right.trust - left.trust || left.index - right.index)
      .slice(0, maxWitnesses)
      .sort((left, right) => left.index - right.index)
      .map((entry) => entry.witness);
    for (const witness of chosen) {
      for (const subject of order) {
        if (subject === observer || subject === witness) continue;
        if (subjectMinDirectEvidence > 0 && firstHand !== undefined) {
          // subject gate: r_d + s_d ≥ m on the observer's own audits of the subject
          const own = firstHand.counts(observer, subject);
          if (own.positive + own.negative < subjectMinDirectEvidence) continue;
        }
        const counts = source.counts(witness, subject);
        if (counts.positive + counts.negative === 0) continue;
        if (reported) {
          const key = `${observer}\u0000${witness}\u0000${subject}`;
          const value = `${counts.positive},${counts.negative}`;
          if (reported.get(key) === value) continue;
          reported.set(key, value);
        }
        const inverted = behaviour[witness] === 'inverted';
        reports.push({
          type: 'witness',
          observer,
          witness,
          subject,
          positive: inverted ? counts.negative : counts.positive,
          negative: inverted ? counts.positive : counts.negative,
        });
      }
    }
  }
  return reports;
}

/**
 * Reputation of each agent in its peers' eyes: the mean over observers i ≠ j of E_i[j]
 * (0.5 for everyone before any evidence). With `informedOnly` (ours, not RAPS) the mean runs only
 * over observers that hold evidence about j (r_ij + s_ij > 0, first- or second-hand), so that the
 * Beta(1, 1) priors of peers who never heard j do not pull its reputation towards 0.5; 0.5 when
 * nobody holds evidence.
 */
export function peerReputation(
  model: Pick<BetaReputationModel, 'belief' | 'counts'>,
  order: readonly AgentId[],
  { informedOnly = false }: { informedOnly?: boolean } = {},
): Record<AgentId, number> {
  const reputation: Record<AgentId, number> = {};
  for (const subject of order) {
    let sum = 0;
    let count = 0;
    for (const observer of order) {
      if (observer === subject) continue;
      if (informedOnly) {
        const counts = model.counts(observer, subject);
        if (counts.positive + counts.negative === 0) continue;
      }
      // rep(j) = (1 / |I_j|) Σ_{i ∈ I_j} E_i[j], I_j = all i ≠ j (or those with evidence about j)
      sum += model.belief(observer, subject).expectation;
      count++;
    }
    reputation[subject] = count === 0 ? 0.5 : sum / count;
  }
  return reputation;
}
