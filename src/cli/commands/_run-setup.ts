// What `repute run` and `repute worker` both derive from a team file and their flags: the team, its
// protocol and methods, the tasks, the run's configuration and its id. A worker started on another
// machine with the same team file and flags therefore joins the same run.
import { InvalidArgumentError } from '../../core/errors.js';
import { createTaskGrader, type TaskGrader } from '../../eval/sandbox/task-grader.js';
import type { LlmCallRecord } from '../../llm/index.js';
import { createEnvRedactor } from '../../llm/env-redactor.js';
import { allowedEnvNames } from '../../llm/key-policy.js';
import type { Protocol, ProtocolRun } from '../../protocols/protocol.js';
import { getProtocol } from '../../protocols/registry.js';
import { forwardSessionStore, type SessionStore } from '../../protocols/session.js';
import { assertStoreFolderWritable } from '../../store/_store-folder.js';
import type { Store } from '../../store/store.js';
import { loadTasks } from '../../tasks/load-tasks.js';
import { startAgentProcesses } from './_agent-processes.js';
import { checkTeamApiKeys, createLiveTeam, createTeamVerifier } from './_live-team.js';
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
  /** Grades decided answers (references, and code tests in the sandbox). */
  readonly grader: TaskGrader;
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
  const needVerifier = methods.filter((method) => protocol.methods.verifierOnly?.includes(method) === true);
  if (team.verifier === undefined && needVerifier.length > 0)
    throw new InvalidArgumentError({
      parameter: '--methods',
      value: args.methods,
      message: `${needVerifier.join(', ')} needs a verifier, and ${team.file} has no verifier section; add one (docs/agents.md, Verifiers) or leave the method out`,
    });
  const reputationStart = parseReputationFlag(args.reputation, team.reputation);
  const tasks = await loadTasks(team.tasks);
  // Code tasks with tests need the sandbox: without it the run stops here, before any request.
  const grader = createTaskGrader({ tasks, file: team.tasks });
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
    ...(team.verifier === undefined ? {} : { verifier: team.verifier }),
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
      ...(rest.verifier === undefined ? {} : { verifier: rest.verifier }),
    }))(configInput);
  const runId = deriveRunId(args['run-id'], config);
  return { team, protocol, methods, reputationStart, tasks, grader, config, runId };
}

/**
 * The protocol's run of a team: its live agents (sharing the store as cache and ledger), its
 * verifier, its sessions; what `repute run` and each worker build the same way.
 */
export function createProtocolRun({
  team,
  protocol,
  methods,
  runId,
  reputationStart,
  store,
  grader,
  onCall,
  onVerifier,
}: {
  team: TeamFile;
  protocol: Protocol;
  methods: readonly string[];
  runId: string;
  reputationStart: 'team' | 'prior';
  store: Store;
  grader: TaskGrader;
  onCall?: ((record: LlmCallRecord) => void) | undefined;
  onVerifier?: ((name: string) => void) | undefined;
}): ProtocolRun {
  const verifier = createTeamVerifier(team, store, runId);
  if (verifier !== undefined) onVerifier?.(verifier.verifier.name);
  return protocol.create({
    ...(verifier === undefined ? {} : { verifier: verifier.verifier, verifierId: verifier.id }),
    agents: createLiveTeam(team, store, runId, onCall === undefined ? {} : { onCall }),
    config: team.protocol,
    methods,
    k: team.k,
    seed: team.seed,
    runId,
    team: team.name,
    reputationStart,
    grade: (taskId, answer) => grader.grade(taskId, answer),
    prices: Object.fromEntries(team.agents.map((agent) => [agent.id, agent.price ?? {}])),
    // What the protocol sends or stores is cleared of the team's keys, as agent processes clear theirs.
    redact: createEnvRedactor(team.agents.flatMap((agent) => (agent.apiKeyEnv === undefined ? [] : [agent.apiKeyEnv]))),
    startAgentProcesses: ({ natsUrl, wireRunId }) => startAgentProcesses({ team, runId, natsUrl, wireRunId }),
  });
}

/** The session's store, with each task's `code-tests` events (its sandbox grades) written with its result. */
export function withGradeEvents(store: SessionStore, grader: TaskGrader): SessionStore {
  return forwardSessionStore(store, {
    ...(store.recordTaskFailure === undefined
      ? {}
      : {
          recordTaskFailure: (input: Parameters<NonNullable<SessionStore['recordTaskFailure']>>[0]) => {
            grader.takeEvents(input.taskId);
            return store.recordTaskFailure?.(input);
          },
        }),
    recordTaskResult: (input) =>
      store.recordTaskResult({
        ...input,
        events: [...(input.events ?? []), ...grader.takeEvents(input.taskId).map((data) => ({ data }))],
      }),
  });
}
