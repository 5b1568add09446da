// RAPS (arXiv 2602.08009) as a registered protocol (`protocol: { type: raps, ... }` in a team file):
// one persisted session (runRapsSession's runner), its agents in this process (`transport: inproc`)
// or each in its own process over NATS (`transport: nats`, against a nats-server the run starts or
// `natsUrl`), the compared aggregators on the final answers, and the spend against broadcast.
import { InvalidArgumentError } from '../../core/errors.js';
import type { NatsServerProcess } from '../../transport/nats-server.js';
import type { Transport } from '../../transport/transport.js';
import { priceOfCall } from '../drf/expected-cost-ledger.js';
import { comparedMethodFigures, type Protocol, type ProtocolRunInput } from '../protocol.js';
import {
  createRapsSessionRunner,
  RAPS_METHOD,
  rapsCompareAggregators,
  type RapsTaskRecord,
} from './run-raps-session.js';
import { natsStreamName } from './wire.js';
import { deleteFinishedRapsRun, deleteRapsDurables } from './raps-durables.js';
import { rapsTeamConfigSchema, type RapsTeamConfig } from './raps-protocol-schema.js';

export { rapsTeamConfigSchema, type RapsTeamConfig } from './raps-protocol-schema.js';

/**
 * RAPS over a live team. Every agent works on every task, so a team file's top-level `k` (agents
 * per task) has no meaning for it and is refused (`topK` sets the recipients per publication).
 */
export const rapsProtocol: Protocol<RapsTeamConfig, RapsTaskRecord> = {
  type: 'raps',
  description: 'RAPS: reputation-aware publish/subscribe with a Beta watchdog (arXiv 2602.08009)',
  configSchema: rapsTeamConfigSchema,
  methods: { names: rapsCompareAggregators, defaults: [] },
  checkTeam({ config, agentIds, k }) {
    if (k !== undefined)
      return {
        field: 'k',
        message:
          'RAPS has every agent work on every task, so there is no team size to pick; remove k (protocol.topK sets the recipients per publication)',
      };
    if (config.topK > agentIds.length - 1 && agentIds.length > 1)
      return {
        field: 'protocol.topK',
        message: `more recipients per publication than the ${agentIds.length - 1} other agents; use topK <= ${agentIds.length - 1}`,
      };
    if (config.natsUrl !== undefined && config.transport !== 'nats')
      return {
        field: 'protocol.natsUrl',
        message: `given with transport ${config.transport}; set transport: nats or drop natsUrl`,
      };
    for (const agentId of Object.keys(config.subscriptions)) {
      if (!agentIds.includes(agentId))
        return {
          field: `protocol.subscriptions.${agentId}`,
          message: `no agent has that id; use one of ${agentIds.join(', ')}`,
        };
    }
    return undefined;
  },
  create(input) {
    const { agents, config, methods, prices } = input;
    let release: ((finished: boolean) => Promise<void>) | undefined;
    // Set once the session's runner went through its tasks (not interrupted, budget not run out).
    let finished = false;
    return {
      sessions: [
        {
          method: RAPS_METHOD,
          async open() {
            const wired = await wireAgents(input);
            release = wired.release;
            // `type`, `transport` and `natsUrl` chose and wired the session above; the rest is its protocol.
            const { type: _type, transport: _transport, natsUrl: _natsUrl, ...settings } = config;
            const runner = createRapsSessionRunner({
              runId: input.runId,
              team: input.team,
              agents: agents.map((agent) => agent.identity),
              hostAgents: wired.hostAgents,
              // The hosted agents' failure reports are redacted as the agent processes redact theirs.
              ...(input.redact === undefined ? {} : { redact: input.redact }),
              ...(wired.transport === undefined ? {} : { transport: wired.transport }),
              wireRunId: wired.wireRunId,
              protocol: settings,
              compare: methods,
              seed: input.seed,
              grade: input.grade,
              reputationStart: input.reputationStart,
            });
            return {
              ...runner,
              async run(runInput) {
                await runner.run(runInput);
                finished = true;
              },
            };
          },
          async close() {
            await release?.(finished);
          },
        },
      ],
      report: ({ sessions, ledger }) => {
        const records = sessions.flatMap((session) => session.records);
        const resumed = sessions.reduce((sum, session) => sum + session.resumedTasks, 0);
        return {
          methods: comparedMethodFigures(RAPS_METHOD, records, resumed, methods),
          spend: rapsSpend(records, config.topK, ledger, (agentId) => prices[agentId] ?? {}, input),
        };
      },
    };
  },
};

/**
 * The session's agents: hosted here (`inproc`), or each in its own process on a NATS server (one the
 * run starts, or `natsUrl`) when the host can start agent processes.
 */
async function wireAgents(input: ProtocolRunInput<RapsTeamConfig>): Promise<{
  hostAgents: ProtocolRunInput<RapsTeamConfig>['agents'];
  transport: Transport | undefined;
  wireRunId: string;
  /** Stops the agent processes and the server, deleting the wire run's consumers (and, once `finished`, its stream). */
  release: (finished: boolean) => Promise<void>;
}> {
  const { config, runId } = input;
  const baseWireRunId = runId.replace(/[^A-Za-z0-9_-]/g, '_');
  if (config.transport !== 'nats')
    return { hostAgents: input.agents, transport: undefined, wireRunId: baseWireRunId, release: async () => {} };
  const start = input.startAgentProcesses;
  if (start === undefined)
    throw new InvalidArgumentError({
      parameter: 'startAgentProcesses',
      value: undefined,
      message:
        'protocol raps with transport nats runs each agent in its own process, and this host cannot start agent processes; use transport: inproc, or run the team with repute run',
    });
  let server: NatsServerProcess | undefined;
  let transport: Transport | undefined;
  let processes: { stop(): Promise<void> } | undefined;
  let wireRunId = baseWireRunId;
  const release = async (finished: boolean) => {
    await processes?.stop();
    // The wire run ends with the session (a rerun uses fresh subjects): its consumers are deleted on
    // a server that outlives it, and its stream too once the session finished (an interrupted one
    // keeps it). A consumer that cannot be deleted now expires after the transport's inactive
    // threshold; a private server takes them with it.
    if (config.natsUrl !== undefined && transport !== undefined) {
      const agentIds = input.agents.map((agent) => agent.identity.id);
      if (finished) await deleteFinishedRapsRun(transport, wireRunId, agentIds).catch(() => undefined);
      else await deleteRapsDurables(transport, wireRunId, agentIds).catch(() => 0);
    }
    await transport?.close();
    await server?.dispose();
  };
  try {
    const { startNatsServer } = await import('../../transport/nats-server.js');
    const { connectNatsTransport } = await import('../../transport/nats-transport.js');
    server = config.natsUrl === undefined ? await startNatsServer() : undefined;
    const natsUrl = config.natsUrl ?? (server as NatsServerProcess).url;
    // A server that outlives the run may still hold an earlier attempt's streams: use fresh subjects.
    wireRunId =
      config.natsUrl === undefined
        ? baseWireRunId
        : `${baseWireRunId}-${process.pid.toString(36)}${Date.now().toString(36)}`;
    transport = await connectNatsTransport({
      servers: natsUrl,
      stream: natsStreamName(wireRunId),
      subjects: [`raps.${wireRunId}.>`],
      name: 'raps-coordinator',
    });
    processes = await start({ natsUrl, wireRunId });
    return { hostAgents: [], transport, wireRunId, release };
  } catch (error) {
    await release(false);
    throw error;
  }
}

/**
 * RAPS spend: every agent works on every task; the list price of each agent's booked calls is its
 * price times its tokens. The full-team counterfactual is broadcast (no routing): every
 * publication delivered to, and audited by, all n − 1 others, each extra audit priced at the
 * run's mean list price of an audit call.
 */
function rapsSpend(
  records: readonly RapsTaskRecord[],
  topK: number,
  entries: ReadonlyArray<{ agentId: string | null; act: string | null; inputTokens: number; outputTokens: number }>,
  priceOf: (agentId: string) => Parameters<typeof priceOfCall>[0],
  input: ProtocolRunInput<RapsTeamConfig>,
) {
  const agents = input.agents.map(({ identity }) => {
    const own = entries.filter((entry) => entry.agentId === identity.id);
    return {
      agentId: identity.id,
      inputTokens: own.reduce((sum, entry) => sum + entry.inputTokens, 0),
      outputTokens: own.reduce((sum, entry) => sum + entry.outputTokens, 0),
      listCost: own.reduce(
        (sum, entry) => sum + priceOfCall(priceOf(identity.id), entry.inputTokens, entry.outputTokens),
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
          (sum, entry) => sum + priceOfCall(priceOf(entry.agentId ?? ''), entry.inputTokens, entry.outputTokens),
          0,
        ) / audits.length;
  const extraAudits = records.reduce((sum, record) => sum + (record.broadcast - record.routed), 0);
  const routed = records.reduce((sum, record) => sum + record.routed, 0);
  const broadcast = records.reduce((sum, record) => sum + record.broadcast, 0);
  return {
    agents,
    methods: [
      { method: RAPS_METHOD, listCost, note: `${routed} of ${broadcast} broadcast deliveries routed (topK ${topK})` },
    ],
    fullTeam: {
      agents: input.agents.length,
      listCost: listCost + extraAudits * meanAudit,
      note: 'broadcast: every publication audited by all other agents',
    },
  };
}
