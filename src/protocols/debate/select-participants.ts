import type { AgentId, AgentIdentity } from '../../core/agent-identity.js';
import type { Rng } from '../../core/rng.js';
import type { Tracer } from '../../core/trace.js';
import type { Selection, Selector } from '../../selection/selector.js';

/**
 * Step 1: picks who takes part. Without a selector everyone does, in team order, each with the
 * reason `no selector: everyone takes part`. Writes one `selection` event.
 */
export function selectParticipants({
  pool,
  reputation,
  selector,
  k,
  rng,
  tracer,
  taskId,
  parentId = null,
}: {
  pool: readonly AgentIdentity[];
  reputation: Readonly<Record<AgentId, number>>;
  selector?: Selector;
  k: number;
  rng: Rng;
  tracer: Tracer;
  taskId: string;
  parentId?: string | null;
}): Selection {
  const selection: Selection = selector
    ? selector.select({ pool, reputation, k, rng })
    : {
        selected: pool.map((agent) => agent.id),
        excluded: [],
        reasons: pool.map((agent) => ({
          agentId: agent.id,
          weight: 1,
          ...(reputation[agent.id] === undefined ? {} : { components: { reputation: reputation[agent.id] as number } }),
          note: 'no selector: everyone takes part',
        })),
      };
  tracer.record(
    {
      type: 'selection',
      taskId,
      round: 0,
      selected: selection.selected,
      excluded: selection.excluded,
      reasons: selection.reasons,
    },
    parentId,
  );
  return selection;
}
