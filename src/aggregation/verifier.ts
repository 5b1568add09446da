import type { AgentId } from '../core/agent-identity.js';
import { InvalidArgumentError } from '../core/errors.js';
import type { Proposal } from '../core/proposal.js';
import type { Task } from '../core/task.js';

/** What a {@link Verifier} judges: one proposal on one task (never a reference answer). */
export interface VerifyRequest {
  /** The task as decision paths see it. */
  readonly task: Task;
  /** The proposal to judge. */
  readonly proposal: Proposal;
}

/**
 * A correctness judge for one proposal: a simulated verifier of known sensitivity and specificity
 * (`createSimulatedVerifier`), an LLM judge over any AI SDK model (`createLlmJudgeVerifier` in
 * `repute/llm`), or unit tests run in the sandbox (`createExecutionVerifier`). MiniRep reads its
 * verdicts before aggregation (to down-weight proposals judged wrong), and the same verdicts are the
 * post-task quality assessment every stateful method learns from. It sees the {@link Task} only,
 * never a reference answer.
 *
 * `verify` may answer synchronously (simulated, rule-based) or with a promise (LLM, sandbox); use
 * {@link verifyProposals} to collect verdicts for a task either way.
 *
 * @example
 * const verifier: Verifier = { name: 'parses', verify: ({ proposal }) => (proposal.answer === null ? 0 : undefined) };
 */
export interface Verifier {
  /** Short name shown in reasons and reports, e.g. `simulated(0.85/0.8)`. */
  readonly name: string;
  /**
   * The verifier's measured error rates, when known (a team file's `verifier.calibration`, measured
   * on labelled tasks): `minirep-vg` starts from them instead of learning them. Absent: unknown.
   */
  readonly calibration?: VerifierCalibration;
  /** Estimated probability in [0, 1] that the proposal is correct, or `undefined` for no opinion. */
  verify(request: VerifyRequest): number | undefined | PromiseLike<number | undefined>;
}

/**
 * A verifier's error rates as the simulated verifier and the replay state them: sensitivity =
 * P(judged wrong | wrong), specificity = P(judged right | right), each in (0, 1).
 */
export interface VerifierCalibration {
  readonly sensitivity: number;
  readonly specificity: number;
}

/** Verdicts of a verifier on one task's proposals: agent → estimated probability of being correct, in [0, 1]. */
export type Verdicts = Readonly<Record<AgentId, number>>;

/**
 * Throws {@link InvalidArgumentError} unless `estimate` is `undefined` or a number in [0, 1].
 * Every consumer of verdicts calls it, so a faulty verifier fails where it answered.
 */
export function assertVerdict(
  estimate: unknown,
  { verifier, agentId, taskId }: { verifier: string; agentId: AgentId; taskId: string },
): asserts estimate is number | undefined {
  if (estimate === undefined) return;
  if (typeof estimate !== 'number' || !Number.isFinite(estimate) || estimate < 0 || estimate > 1) {
    throw new InvalidArgumentError({
      parameter: 'verifier.verify',
      value: estimate,
      message: `verifier ${verifier} returned ${String(estimate)} for agent ${agentId} on task ${taskId}; verdicts must be a number in [0, 1] or undefined (no opinion)`,
    });
  }
}

/**
 * Runs a verifier over a task's proposals, concurrently, and returns the verdicts it gave (agents
 * with no opinion are left out). Pass the result as `verdicts` to the aggregator and reuse it as the
 * post-task quality, so each proposal is judged once.
 *
 * @example
 * const verdicts = await verifyProposals({ verifier, task, proposals });
 * const decision = aggregator.aggregate({ task, proposals, agents, verdicts });
 * model.observe(aggregator.feedback(decision, 'verifier'));
 */
export async function verifyProposals({
  verifier,
  task,
  proposals,
}: {
  verifier: Verifier;
  task: Task;
  proposals: readonly Proposal[];
}): Promise<Verdicts> {
  const estimates = await Promise.all(proposals.map(async (proposal) => verifier.verify({ task, proposal })));
  const verdicts: Record<AgentId, number> = {};
  proposals.forEach((proposal, index) => {
    const estimate = estimates[index];
    assertVerdict(estimate, { verifier: verifier.name, agentId: proposal.agentId, taskId: task.id });
    if (estimate !== undefined) verdicts[proposal.agentId] = estimate;
  });
  return verdicts;
}

/**
 * Calls a verifier that must answer synchronously (inside a synchronous aggregation); a promise is
 * refused with an error that says how to judge asynchronously instead.
 */
export function verifySync(verifier: Verifier, request: VerifyRequest): number | undefined {
  const estimate = verifier.verify(request);
  if (
    estimate !== null &&
    typeof estimate === 'object' &&
    typeof (estimate as PromiseLike<unknown>).then === 'function'
  ) {
    throw new InvalidArgumentError({
      parameter: 'verifier',
      value: verifier.name,
      message: `verifier ${verifier.name} answers asynchronously and cannot run inside aggregate(); collect its verdicts first with await verifyProposals({ verifier, task, proposals }) and pass them as aggregate({ ..., verdicts })`,
    });
  }
  assertVerdict(estimate, { verifier: verifier.name, agentId: request.proposal.agentId, taskId: request.task.id });
  return estimate as number | undefined;
}
