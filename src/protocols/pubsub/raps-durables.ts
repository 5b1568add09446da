// The durable consumers of one RAPS run on its transport, and their deletion once the run is over
// (with the run's stream once it finished). They outlive a single `runRaps` call on purpose: a
// session calls runRaps again on the same wire run after a failed task, and a node process that
// crashes resumes its inbox where it stopped.
import type { AgentId } from '../../core/agent-identity.js';
import { subjectToken } from '../../transport/subject.js';
import type { Transport } from '../../transport/transport.js';

/** Durable consumer names of one RAPS run: the coordinator's two and one per agent node. */
export function rapsDurables(runId: string) {
  return {
    /** The coordinator's consumer of the publications. */
    publications: `coordinator-pub-${runId}`,
    /** The coordinator's consumer of the reports. */
    reports: `coordinator-report-${runId}`,
    /** An agent node's consumer of its command inbox (one stream per run, so the run id is not in it). */
    node: (agentToken: string) => `node-${agentToken}`,
  };
}

/**
 * Deletes every durable consumer of the run `runId` (the coordinator's and each agent's node) once
 * nothing will resume it: call it after the run's last `runRaps` and after its agent processes have
 * stopped (a node still attached would be cut off). Resolves to the number that existed.
 *
 * @example
 * await deleteRapsDurables(transport, wireRunId, agents.map((agent) => agent.id));
 */
export async function deleteRapsDurables(
  transport: Transport,
  runId: string,
  agentIds: readonly AgentId[],
): Promise<number> {
  const names = rapsDurables(runId);
  let deleted = 0;
  for (const durable of [
    names.publications,
    names.reports,
    ...agentIds.map((agentId) => names.node(subjectToken(agentId))),
  ])
    if (await transport.deleteDurable(durable)) deleted++;
  return deleted;
}

/**
 * Deletes what a finished RAPS run leaves on its transport: its durable consumers (as
 * {@link deleteRapsDurables}), then the stream that `transport` was connected to, the run's own
 * (`RAPS_<run>` on NATS, see `natsStreamName`, with every message of the run). Call it once the
 * run's last `runRaps` has returned and its agent processes have stopped; a run that stopped early
 * (interrupted, or failed) keeps its stream, so only {@link deleteRapsDurables} applies then.
 * Afterwards the transport can only be closed. Resolves to the number of consumers that existed and
 * whether the stream existed.
 *
 * @example
 * const transport = await connectNatsTransport({ servers, stream: natsStreamName(wireRunId), subjects: [`raps.${wireRunId}.>`] });
 * // ... the run finishes, its agent processes stop ...
 * await deleteFinishedRapsRun(transport, wireRunId, agents.map((agent) => agent.id)); // { durables: 5, stream: true }
 */
export async function deleteFinishedRapsRun(
  transport: Transport,
  runId: string,
  agentIds: readonly AgentId[],
): Promise<{ durables: number; stream: boolean }> {
  const durables = await deleteRapsDurables(transport, runId, agentIds);
  return { durables, stream: await transport.deleteStream() };
}
