import type { AgentId } from '../../core/agent-identity.js';
import type { RapsContext } from './_raps-context.js';
import { witnessReports } from './watchdog.js';

/** Counters of one round's witness checks. */
export interface WitnessOutput {
  /** Witness reports checked. */
  readonly witnessChecks: number;
  /** Reports refused by the deviation test. */
  readonly witnessRejected: number;
}

/**
 * Step 4: second-hand witness checks. Each observer asks the witnesses it heard from this round
 * for their first-hand counts (see {@link witnessReports}); the Beta model accepts a report iff
 * D = |E_w − E_i| / sqrt(Var_w + Var_i) < δ and merges it with discount ω. Writes a `witness`
 * event per report. Does nothing with `witness: false`.
 */
export function witnessStep(
  context: RapsContext,
  taskId: string,
  round: number,
  heardFrom: ReadonlyMap<AgentId, ReadonlySet<AgentId>>,
): WitnessOutput {
  const { model, settings, totals, emit } = context;
  let witnessChecks = 0;
  let witnessRejected = 0;
  if (settings.witness) {
    const reports = witnessReports({
      model,
      order: context.order,
      heardFrom,
      behaviour: settings.witnessBehaviour,
      maxWitnesses: settings.maxWitnesses,
      firstHand: context.firstHand,
      reported: context.reported,
      minDirectEvidence: settings.witnessMinDirectEvidence,
      subjectMinDirectEvidence: settings.witnessSubjectMinDirectEvidence,
      tau: context.tau,
    });
    for (const report of reports) {
      const check = model.assessWitness(report);
      model.observe([report]);
      witnessChecks++;
      if (!check.accepted) witnessRejected++;
      emit({
        schemaVersion: 1,
        type: 'witness',
        taskId,
        round,
        observer: report.observer,
        witness: report.witness,
        subject: report.subject,
        deviation: check.deviation,
        accepted: check.accepted,
      });
    }
  }
  totals.witnessChecks += witnessChecks;
  totals.witnessRejected += witnessRejected;
  return { witnessChecks, witnessRejected };
}
