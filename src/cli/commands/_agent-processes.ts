// What `repute run` offers protocols whose agents may run apart (`startAgentProcesses` of a
// protocol's run input): each agent of the team file in its own process on a NATS server (see
// `_raps-agent-node.ts`).
import { startNodeScript } from '../../transport/_node-script-process.js';
import type { TeamFile } from './_team-file.js';

/**
 * Starts one agent process per member of `team` on `natsUrl` and resolves once every one is ready;
 * `stop` ends them all.
 */
export async function startAgentProcesses({
  team,
  runId,
  natsUrl,
  wireRunId,
}: {
  team: TeamFile;
  runId: string;
  natsUrl: string;
  wireRunId: string;
}): Promise<{ stop(): Promise<void> }> {
  const nodes = team.agents.map((agent) =>
    startNodeScript({
      scripts: [new URL('./_raps-agent-node.js', import.meta.url), new URL('./_raps-agent-node.ts', import.meta.url)],
      args: [
        '--team',
        team.file,
        '--agent',
        agent.id,
        '--nats',
        natsUrl,
        '--run-id',
        runId,
        '--wire-run-id',
        wireRunId,
      ],
      agentId: agent.id,
      role: 'agent process',
    }),
  );
  const stop = async () => {
    for (const node of nodes) await node.stop();
  };
  try {
    await Promise.all(nodes.map((node) => node.ready));
  } catch (error) {
    await stop();
    throw error;
  }
  return { stop };
}
