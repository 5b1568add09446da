import type { AgentId, AgentIdentity } from '../../core/agent-identity.js';
import type { Proposal } from '../../core/proposal.js';
import type { Task } from '../../core/task.js';
import type { Tracer } from '../../core/trace.js';
import type { Aggregator, Decision } from '../../aggregation/aggregator.js';

/**
 * Step 4: the aggregator decides from the final proposals, weighted by reputation when a model is
 * plugged in (equal weights otherwise), reading the verifier's verdicts when the team has one.
 * Writes one `vote` event with each weight and why, and the verdicts the aggregator read.
 */
export function decideStep({
  task,
  proposals,
  history,
  agents,
  weights,
  verdicts,
  aggregator,
  tracer,
  parentId = null,
}: {
  task: Task;
  proposals: readonly Proposal[];
  history: readonly Proposal[];
  agents: readonly AgentIdentity[];
  weights?: Readonly<Record<AgentId, number>>;
  /** The verifier's name and its verdicts on `proposals` (collected with `verifyProposals`). @default none */
  verdicts?: { readonly verifier: string; readonly verdicts: Readonly<Record<AgentId, number>> };
  aggregator: Aggregator;
  tracer: Tracer;
  parentId?: string | null;
}): Decision {
  const decision = aggregator.aggregate({
    task,
    proposals,
    agents,
    history,
    ...(weights === undefined ? {} : { weights }),
    ...(verdicts === undefined ? {} : { verdicts: verdicts.verdicts }),
  });
  tracer.record(
    {
      type: 'vote',
      taskId: task.id,
      answer: decision.answer,
      support: decision.support,
      reasons: decision.reasons,
      ...(verdicts === undefined ? {} : { verifier: verdicts.verifier, verdicts: verdicts.verdicts }),
    },
    parentId,
  );
  return decision;
}
