import type { ChildProcess } from 'node:child_process';
import type { Agent } from '../../agents/agent.js';
import { connectNatsTransport } from '../../transport/nats-transport.js';
import { startNodeScript } from '../../transport/_node-script-process.js';
import { startNatsServer, type NatsServerProcess } from '../../transport/nats-server.js';
import type { Transport } from '../../transport/transport.js';
import type { RapsEvent } from '../../protocols/pubsub/events.js';
import { startRapsNode } from '../../protocols/pubsub/node.js';
import { deleteFinishedRapsRun, deleteRapsDurables } from '../../protocols/pubsub/raps-durables.js';
import type { RapsResult } from '../../protocols/pubsub/run-raps.js';
import { createEnvRedactor } from '../../llm/env-redactor.js';
import { ignore, raceAbort } from '../../core/_race-abort.js';
import { assertKnownOptions, defineOptionKeys } from '../../core/validate.js';
import {
  createRapsScenario,
  knownScenarioParameters,
  runRapsScenario,
  type RapsScenario,
  type RapsScenarioName,
  type RapsScenarioParameters,
} from './scenarios.js';

import { natsStreamName } from '../../protocols/pubsub/wire.js';

export { natsStreamName };

const knownServeNodeOptions = defineOptionKeys<Parameters<typeof serveRapsNodeOverNats>[0]>()([
  'servers',
  'runId',
  'agent',
  'secretEnv',
  'onStop',
]);

/**
 * The body of a RAPS node process: connects to NATS (the run's JetStream stream), starts `agent`'s
 * node on the wire run `runId`, prints `ready <agent>` on stdout, writes agent errors to stderr and,
 * on SIGTERM or SIGINT, stops the node, closes the transport, calls `onStop` and exits with code 0.
 * Its inbox's durable consumer `node-<agent>` stays, however the process stopped: an orchestrator
 * restarts a process with SIGTERM, and the restarted one resumes its inbox where it stopped instead
 * of answering every command again. The run deletes it at its end (`deleteRapsDurables`), the
 * server after the transport's `inactiveThresholdMs` (1 hour) otherwise; `node.leave()` deletes it
 * for an agent that leaves a run for good.
 * The values of the variables in `secretEnv` (and of OPENAI_API_KEY and ANTHROPIC_API_KEY) are
 * removed from every failure the node reports and writes.
 */
export async function serveRapsNodeOverNats(options: {
  servers: string;
  runId: string;
  agent: Agent;
  /** Environment variables holding API keys (a team file's `apiKeyEnv` names). @default [] */
  secretEnv?: readonly string[];
  onStop?: () => void;
}): Promise<void> {
  assertKnownOptions('', options, knownServeNodeOptions, 'serveRapsNodeOverNats');
  const { servers, runId, agent, secretEnv = [], onStop } = options;
  const redact = createEnvRedactor(secretEnv);
  const transport = await connectNatsTransport({
    servers,
    stream: natsStreamName(runId),
    subjects: [`raps.${runId}.>`],
    name: `raps-node-${agent.identity.id}`,
  });
  const node = await startRapsNode({
    transport,
    runId,
    agent,
    redact,
    onError: (error) => process.stderr.write(`${agent.identity.id}: ${redact(error.message)}\n`),
  });
  process.stdout.write(`ready ${agent.identity.id}\n`);
  const shutdown = async () => {
    await node.stop();
    await transport.close();
    onStop?.();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown());
  process.on('SIGINT', () => void shutdown());
}

/** A scenario agent running as a child process (see `node-process.ts`). */
export interface RapsNodeProcess {
  /** The agent the child process hosts. */
  readonly agentId: string;
  /** The Node child process running the node. */
  readonly child: ChildProcess;
  /** Resolves once the node follows its inbox. */
  readonly ready: Promise<void>;
  /** Sends SIGKILL (a crash) and waits for the exit. */
  kill(): Promise<void>;
  /** Sends SIGTERM and waits for the exit. */
  stop(): Promise<void>;
}

const knownSpawnNodeOptions = defineOptionKeys<Parameters<typeof spawnRapsNodeProcess>[0]>()([
  'scenario',
  'parameters',
  'agentId',
  'natsUrl',
  'onStderr',
]);

/**
 * Starts one scenario agent as a separate Node process that joins the run over NATS. The child runs
 * with the current process's loader flags (`--import tsx` under tsx), so it works from source and
 * from the built package.
 *
 * @example
 * const node = spawnRapsNodeProcess({ scenario: 'adversarial', parameters: { seed: 2027 }, agentId: 'agent-1', natsUrl: server.url });
 * await node.ready;
 */
export function spawnRapsNodeProcess(options: {
  scenario: RapsScenarioName;
  parameters: RapsScenarioParameters;
  agentId: string;
  natsUrl: string;
  onStderr?: (text: string) => void;
}): RapsNodeProcess {
  assertKnownOptions('', options, knownSpawnNodeOptions, 'spawnRapsNodeProcess');
  assertKnownOptions('parameters', options.parameters, knownScenarioParameters, 'spawnRapsNodeProcess');
  const { scenario, parameters, agentId, natsUrl, onStderr } = options;
  const args = [
    '--scenario',
    scenario,
    '--agent',
    agentId,
    '--nats',
    natsUrl,
    // `--seed=-3`, not `--seed -3`: parseArgs refuses an option value that starts with a dash.
    `--seed=${parameters.seed ?? 2027}`,
  ];
  if (parameters.runId !== undefined) args.push('--run-id', parameters.runId);
  if (parameters.agentCount !== undefined) args.push('--agent-count', String(parameters.agentCount));
  if (parameters.taskCount !== undefined) args.push('--task-count', String(parameters.taskCount));
  if (parameters.topK !== undefined) args.push('--top-k', String(parameters.topK));
  if (parameters.witness === false) args.push('--no-witness');
  const node = startNodeScript({
    scripts: [new URL('./node-process.js', import.meta.url), new URL('./node-process.ts', import.meta.url)],
    args,
    agentId,
    role: 'node process',
    onStderr,
  });
  return { agentId, ...node };
}

/** Options of {@link runRapsScenarioOverNats}. */
export interface RunOverNatsOptions {
  /** Parameters that determine the scenario's team. @default {} */
  readonly parameters?: RapsScenarioParameters;
  /** Server URL; omitted = start a private nats-server (JetStream, temporary store) for the run. */
  readonly natsUrl?: string;
  /** Run every agent as its own child process (true) or as nodes in this process, each over NATS. @default true */
  readonly processes?: boolean;
  /** Receives every RAPS event as it happens. @default no-op */
  readonly onEvent?: (event: RapsEvent) => void;
  /** Time to wait for all replies of one phase, in ms. @default 120000 */
  readonly replyTimeoutMs?: number;
  /**
   * Aborting it (Ctrl-C, SIGTERM) stops the run at once: the node processes and the private
   * nats-server are stopped, its store directory removed, and the promise rejects with the
   * signal's reason. @default never aborts
   */
  readonly signal?: AbortSignal;
}

const knownOverNatsOptions = defineOptionKeys<RunOverNatsOptions>()([
  'parameters',
  'natsUrl',
  'processes',
  'onEvent',
  'replyTimeoutMs',
  'signal',
]);

/**
 * Runs a built-in scenario with the NATS transport: a unique run id (so an existing server's
 * streams never collide), agent nodes as child processes or local nodes, the coordinator here.
 * The outcome equals the in-process run with the same parameters.
 *
 * @example
 * const { result } = await runRapsScenarioOverNats('adversarial', { parameters: { seed: 2027 } });
 */
export async function runRapsScenarioOverNats(
  name: RapsScenarioName,
  options: RunOverNatsOptions = {},
): Promise<{ scenario: RapsScenario; result: RapsResult; natsUrl: string }> {
  assertKnownOptions('options', options, knownOverNatsOptions, 'runRapsScenarioOverNats');
  assertKnownOptions('options.parameters', options.parameters, knownScenarioParameters, 'runRapsScenarioOverNats');
  const { signal } = options;
  signal?.throwIfAborted();
  const runId = `${name}-${options.parameters?.seed ?? 2027}-${Date.now().toString(36)}`;
  const parameters = { ...options.parameters, runId };
  const scenario = createRapsScenario(name, parameters);
  const nodes: RapsNodeProcess[] = [];
  let serverStart: Promise<NatsServerProcess> | undefined;
  let transport: Transport | undefined;
  // Set once the run returned its result: only a finished run deletes its stream.
  let finished = false;
  // Every wait below races the abort: the run itself does not watch the signal, and the cleanup in
  // `finally` must run before the CLI exits, or the children outlive it with PPID 1.
  const untilAborted = <T>(work: Promise<T>): Promise<T> => raceAbort(work, signal);
  try {
    serverStart = options.natsUrl === undefined ? startNatsServer() : undefined;
    const natsUrl = options.natsUrl ?? (await untilAborted(serverStart as Promise<NatsServerProcess>)).url;
    transport = await untilAborted(
      connectNatsTransport({
        servers: natsUrl,
        stream: natsStreamName(runId),
        subjects: [`raps.${runId}.>`],
        name: 'raps-coordinator',
      }),
    );
    const processes = options.processes ?? true;
    if (processes) {
      for (const agent of scenario.agents)
        nodes.push(spawnRapsNodeProcess({ scenario: name, parameters, agentId: agent.identity.id, natsUrl }));
      await untilAborted(Promise.all(nodes.map((node) => node.ready)));
    }
    const { result } = await untilAborted(
      runRapsScenario(name, {
        ...parameters,
        transport,
        hostAgents: !processes,
        replyTimeoutMs: options.replyTimeoutMs ?? 120_000,
        ...(options.onEvent ? { onEvent: options.onEvent } : {}),
      }),
    );
    finished = true;
    return { scenario, result, natsUrl };
  } finally {
    // Processes first (they are what outlives us), each step even if an earlier one failed.
    await Promise.all(nodes.map((node) => stopWithin(node, nodeStopMs)));
    // The run's consumers go with it (its id is unique), and its stream once it finished; a run that
    // stopped early keeps its stream. On a private server everything goes with the server.
    if (transport !== undefined && options.natsUrl !== undefined) {
      const agentIds = scenario.agents.map((agent) => agent.identity.id);
      if (finished) await deleteFinishedRapsRun(transport, runId, agentIds).catch(ignore);
      else await deleteRapsDurables(transport, runId, agentIds).catch(ignore);
    }
    await transport?.close().catch(ignore);
    // A server still starting when the signal came is ours to stop too, once it is up.
    const server = await serverStart?.catch(() => undefined);
    await server?.dispose().catch(ignore);
  }
}

/** How long a node process may take to stop on SIGTERM before it is killed, in ms. */
const nodeStopMs = 3000;

/** Stops a node process with SIGTERM, and with SIGKILL if it has not exited within `ms`. */
async function stopWithin(node: RapsNodeProcess, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const stopped = node.stop().catch(ignore);
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  const outcome = await Promise.race([stopped, late]);
  clearTimeout(timer);
  if (outcome === 'late') await node.kill().catch(ignore);
}
