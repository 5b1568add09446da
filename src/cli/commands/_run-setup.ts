// What `repute run` and `repute worker` both derive from a team file and their flags: the team, its
// protocol and methods, the tasks, the run's configuration and its id. A worker started on another
// machine with the same team file and flags therefore joins the same run.
import { allowedEnvNames } from '../../llm/key-policy.js';
import type { Protocol, ProtocolRun } from '../../protocols/protocol.js';
import { createEnvRedactor } from '../../llm/env-redactor.js';
import type { Store } from '../../store/store.js';
import { startAgentProcesses } from './_agent-processes.js';
import { getProtocol } from '../../protocols/registry.js';
import { assertStoreFolderWritable } from '../../store/_store-folder.js';
import { loadTasks } from '../../tasks/load-tasks.js';
import { checkTeamApiKeys, createLiveTeam } from './_live-team.js';
import { deriveRunId, fileDigest, parseListFlag, parseReputationFlag } from './_shared.js';
import { readTeamFile, type TeamFile } from './_team-file.js';

/** The flags of `repute run` that name a run (shared by `repute worker`). */
export interface RunSetupArgs {
  readonly team: string;
  readonly 'run-id'?: string | undefined;
  readonly reputation?: string | undefined;
  readonly methods?: string | undefined;
  readonly tasks?: string | undefined;
  readonly store?: string | undefined;
  readonly 'allow-env'?: string | undefined;
}

/** A run as the team file and flags define it. */
export interface RunSetup {
  readonly team: TeamFile;
  readonly protocol: Protocol;
  readonly methods: readonly string[];
  readonly reputationStart: 'continue' | 'fresh';
  readonly tasks: Awaited<ReturnType<typeof loadTasks>>;
  /** The run's configuration (hashed into the default run id). */
  readonly config: unknown;
  readonly runId: string;
}

/**
 * Reads the team file and the flags into a run: validated in the order `repute run` always did
 * (reputation flag, team file, store folder, API keys, methods), before anything is written.
 */
export async function prepareRun(args: RunSetupArgs): Promise<RunSetup> {
  const allowEnv = allowedEnvNames(args['allow-env']);
  // For debate, DRF and RAPS teams alike, checked before the team file is read.
  parseReputationFlag(args.reputation, 'continue');
  const team = readTeamFile(args.team, {
    ...(args.tasks === undefined ? {} : { tasks: args.tasks }),
    ...(args.store === undefined ? {} : { store: args.store }),
    allowEnv,
  });
  // Before the lock, which is written beside the store (openStore checks again for every writer).
  assertStoreFolderWritable(team.store);
  // A missing API key stops the run here, before the store file is created.
  checkTeamApiKeys(team);
  const protocol = getProtocol(team.protocol.type);
  const methods = parseListFlag('methods', args.methods, protocol.methods.names, team.methods);
  const reputationStart = parseReputationFlag(args.reputation, team.reputation);
  const tasks = await loadTasks(team.tasks);
  const configInput = {
    team: team.name,
    agents: team.agents.map((agent) => ({
      id: agent.id,
      provider: agent.provider,
      model: agent.model,
      baseURL: agent.baseURL ?? null,
      price: agent.price ?? null,
    })),
    config: team.protocol,
    methods,
    k: team.k,
    seed: team.seed,
    reputation: reputationStart,
    tasks: fileDigest(team.tasks),
  };
  const config =
    protocol.runConfig?.(configInput) ??
    (({ config: block, k, ...rest }) => ({
      team: rest.team,
      agents: rest.agents,
      protocol: block,
      methods: rest.methods,
      ...(k === undefined ? {} : { k }),
      seed: rest.seed,
      reputation: rest.reputation,
      tasks: rest.tasks,
    }))(configInput);
  const runId = deriveRunId(args['run-id'], config);
  return { team, protocol, methods, reputationStart, tasks, config, runId };
}

/**
 * The protocol's run of a team: its live agents (sharing the store as cache and ledger), its
 * sessions; what `repute run` and each worker build the same way.
 */
export function createProtocolRun({
  team,
  protocol,
  methods,
  runId,
  reputationStart,
  store,
  grade,
}: {
  team: TeamFile;
  protocol: Protocol;
  methods: readonly string[];
  runId: string;
  reputationStart: 'team' | 'prior';
  store: Store;
  grade: (taskId: string, answer: string | null) => boolean | undefined;
}): ProtocolRun {
  return protocol.create({
    agents: createLiveTeam(team, store, runId),
    config: team.protocol,
    methods,
    k: team.k,
    seed: team.seed,
    runId,
    team: team.name,
    reputationStart,
    grade,
    prices: Object.fromEntries(team.agents.map((agent) => [agent.id, agent.price ?? {}])),
    // What the protocol sends or stores is cleared of the team's keys, as agent processes clear theirs.
    redact: createEnvRedactor(team.agents.flatMap((agent) => (agent.apiKeyEnv === undefined ? [] : [agent.apiKeyEnv]))),
    startAgentProcesses: ({ natsUrl, wireRunId }) => startAgentProcesses({ team, runId, natsUrl, wireRunId }),
  });
}
