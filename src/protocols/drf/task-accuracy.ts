// DRF (arXiv 2509.05764) Eq. 2 where the paper uses it: the accuracy A_i^t of each team member on
// each task, from its task score w_i^t (the round score of Eq. 6) and the task's score threshold
// w_0^t (Definition 3). The objective (Eq. 4) and the paper's reporting are stated in terms of it;
// we report each agent's mean A over the rounds it was rated in and the team's mean A per round.
import type { AgentId } from '../../core/agent-identity.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { drfTaskAccuracy, type DrfVariant } from '../../reputation/drf.js';
import type { DrfRoundRecord } from './drf-round.js';

/** Eq. 2 accuracies of a DRF run. */
export interface DrfTaskAccuracyReport {
  /** Eq. 2 form used: printed |w0 − w| / w0, or corrected 1 − |w0 − w| / w0. */
  readonly variant: DrfVariant;
  /** Score threshold w_0^t in (0, 1] (the same for every task in our protocol). */
  readonly threshold: number;
  /** Each agent's mean A_i^t over the rounds it received a rating in, in [0, 1]; agents never rated are absent. */
  readonly meanByAgent: Readonly<Record<AgentId, number>>;
  /** Mean over rounds of the team's mean A_i^t (rounds where nobody was rated are skipped), in [0, 1]; null when no round had a rated member. */
  readonly meanTeamAccuracy: number | null;
}

/**
 * Eq. 2 over a run's rounds: A_i^t = |w0 − w_i^t| / w0 (printed) or 1 − |w0 − w_i^t| / w0 (corrected)
 * for every rated team member of every round, averaged per agent and per round. Throws when a
 * round carries no `taskScores` (a record written before issue 41).
 *
 * @example
 * const report = drfTaskAccuracies(result.rounds, { threshold: 0.5, variant: 'printed' });
 * report.meanByAgent.a1; // mean |0.5 − w| / 0.5 over a1's rounds
 */
export function drfTaskAccuracies(
  rounds: readonly DrfRoundRecord[],
  { threshold, variant = 'corrected' }: { readonly threshold: number; readonly variant?: DrfVariant },
): DrfTaskAccuracyReport {
  const sums = new Map<AgentId, { sum: number; count: number }>();
  let teamSum = 0;
  let teamRounds = 0;
  for (const round of rounds) {
    if (round.taskScores === undefined)
      throw new InvalidArgumentError({
        parameter: 'rounds',
        value: round.round,
        message: `round ${round.round} (task ${round.taskId}) has no taskScores; Eq. 2 needs the round scores that runDrf records since issue 41, so rerun the rounds`,
      });
    let roundSum = 0;
    let rated = 0;
    for (const [agentId, taskScore] of Object.entries(round.taskScores)) {
      // Eq. 2: A_i^t from w_i^t against w_0^t
      const accuracy = drfTaskAccuracy({ taskScore, threshold, variant });
      const entry = sums.get(agentId) ?? { sum: 0, count: 0 };
      sums.set(agentId, { sum: entry.sum + accuracy, count: entry.count + 1 });
      roundSum += accuracy;
      rated += 1;
    }
    if (rated > 0) {
      teamSum += roundSum / rated;
      teamRounds += 1;
    }
  }
  const meanByAgent: Record<AgentId, number> = {};
  for (const [agentId, { sum, count }] of sums) meanByAgent[agentId] = sum / count;
  return { variant, threshold, meanByAgent, meanTeamAccuracy: teamRounds === 0 ? null : teamSum / teamRounds };
}
