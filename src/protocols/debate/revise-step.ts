import type { Agent } from '../../agents/agent.js';
import type { Proposal } from '../../core/proposal.js';
import type { Task } from '../../core/task.js';
import type { Tracer } from '../../core/trace.js';
import { guardAct } from './_act.js';
import { collectRound, type RoundOutput } from './propose-step.js';

/**
 * Step 3 (once per debate round): every participant revises after seeing its peers' latest
 * proposals, all calls at once. Writes one `proposal` event per agent and one `debate-round` event
 * with every answer of the round.
 */
export async function reviseStep({
  agents,
  task,
  round,
  latest,
  tracer,
  signal,
  visible,
  parentId = null,
}: {
  agents: readonly Agent[];
  task: Task;
  round: number;
  /** The previous round's proposals, one per agent in `agents` order. */
  latest: readonly Proposal[];
  tracer: Tracer;
  /** Agents whose proposals peers may see; omitted = everyone's. */
  visible?: ReadonlySet<string>;
  signal?: AbortSignal;
  parentId?: string | null;
}): Promise<RoundOutput> {
  const results = await Promise.all(
    agents.map((agent, index) => {
      const own = latest[index] as Proposal;
      const peers = latest.filter(
        (peer, other) => other !== index && (visible === undefined || visible.has(peer.agentId)),
      );
      return guardAct(
        agent.identity.id,
        task.id,
        'revise',
        round,
        () => agent.revise(signal ? { task, round, own, peers, signal } : { task, round, own, peers }),
        signal,
      );
    }),
  );
  const output = collectRound(results, agents, task, round, tracer, parentId);
  tracer.record(
    {
      type: 'debate-round',
      taskId: task.id,
      round,
      answers: Object.fromEntries(output.proposals.map((proposal) => [proposal.agentId, proposal.answer])),
    },
    parentId,
  );
  return output;
}
