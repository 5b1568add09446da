// `repute run` for a RAPS team file: agents in this process (`transport: inproc`) or each in its
// own process over NATS (`transport: nats`, against a nats-server the run starts or `natsUrl`).
import type { ChildProcess } from 'node:child_process';
import { priceOfCall } from '../../protocols/drf/expected-cost-ledger.js';
import { createEnvRedactor } from '../../eval/raps-scenarios/_env-redactor.js';
import { natsStreamName } from '../../eval/raps-scenarios/nats-run.js';
import { RAPS_METHOD, runRapsSession, type RapsTaskRecord } from '../../protocols/pubsub/run-raps-session.js';
import type { Task } from '../../core/task.js';
import type { TaskFailure } from '../../protocols/debate/run-debate-session.js';
import type { Store } from '../../store/store.js';
import { startNatsServer, type NatsServerProcess } from '../../transport/nats-server.js';
import { connectNatsTransport } from '../../transport/nats-transport.js';
import { startNodeScript } from '../../transport/_node-script-process.js';
import type { Transport } from '../../transport/transport.js';
import { createLiveTeam, teamIdentities } from './_live-team.js';
import { protocolMethods } from './_protocol-methods.js';
import type { ProtocolRunSummary, ProtocolTeamFile } from './_run-protocol.js';
import type { SpendReport } from './_spend-report.js';

/** Input of {@link runRapsTeam}. */
export interface RunRapsTeamInput {
  readonly team: ProtocolTeamFile & { readonly protocol: { readonly type: 'raps' } };
  readonly store: Store;
  readonly runId: string;
  readonly tasks: readonly Task[];
  readonly methods: readonly string[];
  readonly config: unknown;
  readonly grade: (taskId: string, answer: string | null) => boolean | undefined;
  readonly reputationStart: 'continue' | 'fresh';
  readonly signal: AbortSignal;
  readonly progress: { update(label: string, done: number, total: number): void };
  /** The run's failure budget: `fail` per failed task (throwing stops the run), `succeed` per finished one. */
  readonly budget: { fail(failure: TaskFailure): void; succeed(): void };
}

/** Runs the RAPS session of a team file and returns the summary's methods and spend (booked costs filled in by the caller). */
export async function runRapsTeam(input: RunRapsTeamInput): Promise<{
  methods: ProtocolRunSummary['methods'];
  spend: Omit<SpendReport, 'agents'> & {
    agents: Array<Omit<SpendReport['agents'][number], 'cost' | 'calls' | 'cachedCalls'>>;
  };
}> {
  const { team, store, runId, tasks } = input;
  const protocol = team.protocol as Extract<ProtocolTeamFile['protocol'], { type: 'raps' }>;
  const identities = teamIdentities(team);
  const baseWireRunId = runId.replace(/[^A-Za-z0-9_-]/g, '_');
  let server: NatsServerProcess | undefined;
  let transport: Transport | undefined;
  const nodes: AgentNodeProcess[] = [];
  let resumed = 0;
  try {
    let wireRunId = baseWireRunId;
    let hostAgents = createLiveTeam(team, store, runId);
    if (protocol.transport === 'nats') {
      server = protocol.natsUrl === undefined ? await startNatsServer() : undefined;
      const natsUrl = protocol.natsUrl ?? (server as NatsServerProcess).url;
      // A server that outlives the run may still hold an earlier attempt's streams: use fresh subjects.
      if (protocol.natsUrl !== undefined)
        wireRunId = `${baseWireRunId}-${process.pid.toString(36)}${Date.now().toString(36)}`;
      transport = await connectNatsTransport({
        servers: natsUrl,
        stream: natsStreamName(wireRunId),
        subjects: [`raps.${wireRunId}.>`],
        name: 'raps-coordinator',
      });
      for (const agent of team.agents)
        nodes.push(spawnAgentNode({ teamFile: team.file, agentId: agent.id, natsUrl, runId, wireRunId }));
      await Promise.all(nodes.map((node) => node.ready));
      hostAgents = [];
    }
    // `type`, `transport` and `natsUrl` chose and wired the session above; the rest is its protocol.
    const { type: _type, transport: _transportKind, natsUrl: _natsUrl, ...rapsProtocol } = protocol;
    const session = await runRapsSession({
      store,
      runId,
      team: team.name,
      kind: 'run',
      agents: identities,
      hostAgents,
      // The hosted agents' failure reports are redacted as the agent processes redact theirs.
      redact: createEnvRedactor(
        team.agents.flatMap((agent) => (agent.apiKeyEnv === undefined ? [] : [agent.apiKeyEnv])),
      ),
      ...(transport === undefined ? {} : { transport }),
      wireRunId,
      tasks,
      protocol: rapsProtocol,
      compare: input.methods,
      seed: team.seed,
      config: input.config,
      grade: input.grade,
      reputationStart: input.reputationStart === 'fresh' ? 'prior' : 'team',
      signal: input.signal,
      onTaskFailure: (failure) => input.budget.fail(failure),
      onProgress: (event) => {
        if (event.resumed) resumed++;
        else input.budget.succeed();
        input.progress.update(RAPS_METHOD, event.done, event.total);
      },
    });
    return {
      methods: protocolMethods(RAPS_METHOD, session.records, resumed, input.methods),
      spend: rapsSpend(session.records, team, store, runId),
    };
  } finally {
    for (const node of nodes) await node.stop();
    await transport?.close();
    await server?.dispose();
  }
}

/**
 * RAPS spend: every agent works on every task; the list price of each agent's booked calls is its
 * price times its tokens. The full-team counterfactual is broadcast (no routing): every
 * publication delivered to, and audited by, all n − 1 others, each extra audit priced at the
 * run's mean list price of an audit call.
 */
function rapsSpend(records: readonly RapsTaskRecord[], team: ProtocolTeamFile, store: Store, runId: string) {
  const entries = store.usageEntries({ runId });
  const prices = new Map(team.agents.map((agent) => [agent.id, agent.price ?? {}]));
  const agents = team.agents.map((agent) => {
    const own = entries.filter((entry) => entry.agentId === agent.id);
    return {
      agentId: agent.id,
      inputTokens: own.reduce((sum, entry) => sum + entry.inputTokens, 0),
      outputTokens: own.reduce((sum, entry) => sum + entry.outputTokens, 0),
      listCost: own.reduce(
        (sum, entry) => sum + priceOfCall(prices.get(agent.id) ?? {}, entry.inputTokens, entry.outputTokens),
        0,
      ),
      tasks: records.length,
    };
  });
  const listCost = agents.reduce((sum, agent) => sum + agent.listCost, 0);
  const audits = entries.filter((entry) => entry.act === 'audit');
  const meanAudit =
    audits.length === 0
      ? 0
      : audits.reduce(
          (sum, entry) =>
            sum + priceOfCall(prices.get(entry.agentId ?? '') ?? {}, entry.inputTokens, entry.outputTokens),
          0,
        ) / audits.length;
  const extraAudits = records.reduce((sum, record) => sum + (record.broadcast - record.routed), 0);
  const routed = records.reduce((sum, record) => sum + record.routed, 0);
  const broadcast = records.reduce((sum, record) => sum + record.broadcast, 0);
  return {
    agents,
    methods: [
      {
        method: RAPS_METHOD,
        listCost,
        note: `${routed} of ${broadcast} broadcast deliveries routed (topK ${(team.protocol as { topK: number }).topK})`,
      },
    ],
    fullTeam: {
      agents: team.agents.length,
      listCost: listCost + extraAudits * meanAudit,
      note: 'broadcast: every publication audited by all other agents',
    },
  };
}

/** A team agent running as its own process (see `_raps-agent-node.ts`). */
interface AgentNodeProcess {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  stop(): Promise<void>;
}

function spawnAgentNode({
  teamFile,
  agentId,
  natsUrl,
  runId,
  wireRunId,
}: {
  teamFile: string;
  agentId: string;
  natsUrl: string;
  runId: string;
  wireRunId: string;
}): AgentNodeProcess {
  const node = startNodeScript({
    scripts: [new URL('./_raps-agent-node.js', import.meta.url), new URL('./_raps-agent-node.ts', import.meta.url)],
    args: ['--team', teamFile, '--agent', agentId, '--nats', natsUrl, '--run-id', runId, '--wire-run-id', wireRunId],
    agentId,
    role: 'agent process',
  });
  return { child: node.child, ready: node.ready, stop: node.stop };
}
