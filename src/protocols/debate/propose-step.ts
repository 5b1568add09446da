import type { Agent } from '../../agents/agent.js';
import type { Proposal } from '../../core/proposal.js';
import type { Task } from '../../core/task.js';
import type { Tracer } from '../../core/trace.js';
import { guardAct } from './_act.js';
import type { DebateFailure, DebateUsageEntry } from './types.js';

/** What one round of acts produced. */
export interface RoundOutput {
  readonly proposals: Proposal[];
  readonly usage: DebateUsageEntry[];
  readonly failures: DebateFailure[];
}

/**
 * Step 2: every participant proposes, all calls at once (`Promise.all`), so the round takes as long
 * as its slowest agent. An agent that throws gets an unparseable proposal and a counted failure.
 * Writes one `proposal` event per agent.
 */
export async function proposeStep({
  agents,
  task,
  tracer,
  signal,
  parentId = null,
}: {
  agents: readonly Agent[];
  task: Task;
  tracer: Tracer;
  signal?: AbortSignal;
  parentId?: string | null;
}): Promise<RoundOutput> {
  const results = await Promise.all(
    agents.map((agent) =>
      guardAct(
        agent.identity.id,
        task.id,
        'propose',
        0,
        () => agent.propose(signal ? { task, signal } : { task }),
        signal,
      ),
    ),
  );
  return collectRound(results, agents, task, 0, tracer, parentId);
}

/** Turns guarded results into proposals in agent order, tracing each one. */
export function collectRound(
  results: readonly Awaited<ReturnType<typeof guardAct<Proposal>>>[],
  agents: readonly Agent[],
  task: Task,
  round: number,
  tracer: Tracer,
  parentId: string | null,
): RoundOutput {
  const proposals: Proposal[] = [];
  const usage: DebateUsageEntry[] = [];
  const failures: DebateFailure[] = [];
  results.forEach((result, index) => {
    const agentId = (agents[index] as Agent).identity.id;
    let proposal: Proposal;
    if (result.ok) {
      // Normalise identity fields: an agent cannot speak for another agent, task or round.
      proposal = { ...result.value, agentId, taskId: task.id, round };
      usage.push(result.usage);
    } else {
      proposal = { agentId, taskId: task.id, round, text: `(act failed: ${result.failure.message})`, answer: null };
      failures.push(result.failure);
    }
    proposals.push(proposal);
    const span = tracer.start({ type: 'proposal', taskId: task.id, round, agentId, answer: proposal.answer }, parentId);
    tracer.end(span, result.ok ? undefined : result.failure.message);
  });
  return { proposals, usage, failures };
}
