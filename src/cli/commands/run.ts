// `repute run <team.yaml>`: a live team debates a task file with every listed method, persisting
// each finished task, so an interrupted run resumes where it stopped.
import { defineCommand } from 'citty';
import { allDebateMethodNames, createDebateMethod, type DebateMethodName } from '../../protocols/debate/methods.js';
import { runDebateSession, type DebateTaskRecord } from '../../protocols/debate/run-debate-session.js';
import { loadTasks } from '../../tasks/load-tasks.js';
import { checkTeamApiKeys, createLiveTeam, teamIdentities } from './_live-team.js';
import { RunFailedError } from '../../core/errors.js';
import { allowedEnvNames } from '../../llm/key-policy.js';
import type { ReputationModel } from '../../core/reputation-model.js';
import { interruptSignal } from '../_contract.js';
import { assertStoreFolderWritable } from '../../store/_store-folder.js';
import { openLockedStore } from './_run-lock.js';
import { agentEndpoint, badRepliesByAgent, createFailureBudget, describeHosts } from './_run-failures.js';
import {
  createProgressBar,
  createReferenceGrader,
  deriveRunId,
  fileDigest,
  formatUsageLine,
  parseIntegerFlag,
  parseListFlag,
  parseReputationFlag,
  runUsage,
  type RunUsage,
} from './_shared.js';
import { readTeamFile } from './_team-file.js';
import { describeConcurrentUpdate, shareTeamReputation } from './_team-reputation.js';

/** Summary of one `repute run`, printed with `--json`. */
export interface RunSummary {
  readonly schemaVersion: 1;
  readonly runId: string;
  readonly team: string;
  readonly store: string;
  readonly tasks: number;
  /** `completed` when every task of every method has a result, else `failed`. */
  readonly status: 'completed' | 'failed';
  /** Per method: tasks with a result (`done`, of which `resumed` from an earlier invocation), tasks that failed, accuracy, and acts that failed inside finished tasks (unusable replies). */
  readonly methods: Record<
    string,
    {
      readonly done: number;
      readonly resumed: number;
      readonly failed: number;
      readonly accuracy: number | null;
      readonly failures: number;
    }
  >;
  /** Bad replies per agent in this invocation (acts with no answer after a repair prompt; their tasks failed). */
  readonly badReplies: Record<string, number>;
  readonly usage: RunUsage;
}

export default defineCommand({
  meta: {
    name: 'run',
    description:
      'Run a live team (YAML: agents, protocol, methods, tasks file) against its endpoints; a rerun redoes failed and missing tasks and reuses the rest',
  },
  args: {
    team: { type: 'positional', description: 'Team file (YAML), see examples/team.yaml', required: true },
    'run-id': {
      type: 'string',
      description: 'Run id (default: derived from the team file and tasks, so a rerun resumes)',
      valueHint: 'ID',
    },
    reputation: {
      type: 'string',
      description:
        "Where reputation starts: 'continue' (the team's saved state) or 'fresh' (the prior); overrides the file",
      valueHint: 'continue|fresh',
    },
    methods: {
      type: 'string',
      description: `Comma-separated methods, overrides the file (${allDebateMethodNames.join(',')})`,
      valueHint: 'LIST',
    },
    tasks: {
      type: 'string',
      description: "Task file (JSON Lines); overrides the team file's tasks and may lie outside its folder",
      valueHint: 'FILE',
    },
    store: {
      type: 'string',
      description:
        "SQLite store file or postgres:// URL; overrides the team file's store and may lie outside its folder",
      valueHint: 'FILE',
    },
    'allow-env': {
      type: 'string',
      description:
        "Comma-separated key variables the team file may send to its endpoints (also REPUTE_ALLOW_ENV); without it only a provider's own key goes, to its official host",
      valueHint: 'NAMES',
    },
    'max-failures': {
      type: 'string',
      description: 'Stop the run after this many tasks in a row failed the same way (same endpoint and status)',
      default: '3',
      valueHint: 'N',
    },
    json: { type: 'boolean', description: 'Print the summary as JSON to stdout', default: false },
  },
  async run({ args }) {
    const allowEnv = allowedEnvNames(args['allow-env']);
    const maxFailures = parseIntegerFlag('max-failures', args['max-failures'], 3, 1);
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
    if (team.protocol.type !== 'debate') {
      // DRF and RAPS teams: same flags and guarantees, protocol-specific sessions and report.
      const { runProtocolTeam } = await import('./_run-protocol.js');
      await runProtocolTeam({ ...team, protocol: team.protocol }, args);
      return;
    }
    const protocol = team.protocol;
    const methods = parseListFlag('methods', args.methods, allDebateMethodNames, team.methods as DebateMethodName[]);
    const reputationStart = parseReputationFlag(args.reputation, team.reputation);
    const tasks = await loadTasks(team.tasks);
    const config = {
      team: team.name,
      agents: team.agents.map((agent) => ({
        id: agent.id,
        provider: agent.provider,
        model: agent.model,
        baseURL: agent.baseURL ?? null,
      })),
      rounds: protocol.rounds,
      methods,
      k: team.k ?? null,
      seed: team.seed,
      reputation: reputationStart,
      tasks: fileDigest(team.tasks),
    };
    const runId = deriveRunId(args['run-id'], config);
    const signal = interruptSignal();
    const { lock, store } = openLockedStore(team.store, runId);
    const grade = createReferenceGrader(tasks);
    let agents: ReturnType<typeof createLiveTeam>;
    try {
      agents = createLiveTeam(team, store, runId);
    } catch (error) {
      store.close();
      lock.release();
      throw error;
    }
    const identities = teamIdentities(team);
    const progress = createProgressBar();
    const summary: Record<string, RunSummary['methods'][string]> = {};
    const budget = createFailureBudget({
      runId,
      maxFailures,
      endpoints: new Map(team.agents.map((agent) => [agent.id, agentEndpoint(agent)])),
    });
    process.stderr.write(
      `run ${runId}: ${agents.length} agents, ${tasks.length} tasks, methods ${methods.join(', ')}, store ${team.store}\n`,
    );
    process.stderr.write(`run ${runId}: ${describeHosts(team)}\n`);
    try {
      for (const name of methods) {
        const createMethod = () =>
          createDebateMethod(name, { agents: identities, ...(team.k === undefined ? {} : { k: team.k }) });
        const method = createMethod();
        // A server of the same team may update its saved reputation meanwhile: merge, never overwrite.
        const shared = shareTeamReputation({
          store,
          runId,
          team: team.name,
          name,
          agentIds: identities.map((identity) => identity.id),
          start: reputationStart === 'fresh' ? 'prior' : 'team',
          // A fresh method of the same name has a model of the same kind.
          ...(method.reputation
            ? { replay: { model: method.reputation, create: () => createMethod().reputation as ReputationModel } }
            : {}),
          onConcurrentUpdate: (update) =>
            process.stderr.write(`run ${runId}: ${describeConcurrentUpdate(team.name, update)}\n`),
        });
        let resumed = 0;
        const session = await runDebateSession({
          store: shared.store,
          runId,
          team: team.name,
          kind: 'run',
          agents,
          tasks: tasks.map((item) => item.task),
          method: shared.model ? { ...method, reputation: shared.model } : method,
          rounds: protocol.rounds,
          seed: team.seed,
          config,
          grade,
          reputationStart: reputationStart === 'fresh' ? 'prior' : 'team',
          recordUsage: false,
          signal,
          onTaskFailure: (failure) => budget.fail(failure),
          onProgress: (event) => {
            if (event.resumed) resumed++;
            else budget.succeed();
            progress.update(name, event.done, event.total);
          },
        });
        summary[name] = {
          done: session.records.length,
          resumed,
          failed: session.failed.length,
          accuracy: accuracyOf(session.records),
          failures: session.records.reduce((sum, record) => sum + record.failures, 0),
        };
      }
      store.setRunStatus(runId, budget.failed.length === 0 ? 'completed' : 'failed');
    } catch (error) {
      // A failure before the first session created the run leaves no run to mark (see _run-protocol.ts).
      if (store.getRun(runId) !== undefined) store.setRunStatus(runId, signal.aborted ? 'interrupted' : 'failed');
      progress.finish();
      for (const line of budget.summaryLines()) process.stderr.write(`repute run: ${line}\n`);
      store.close();
      lock.release();
      throw error;
    }
    progress.finish();
    const usage = runUsage(store, runId);
    const status = budget.failed.length === 0 ? 'completed' : 'failed';
    const result: RunSummary = {
      schemaVersion: 1,
      runId,
      team: team.name,
      store: team.store,
      tasks: tasks.length,
      status,
      methods: summary,
      badReplies: badRepliesByAgent(budget.failed),
      usage,
    };
    store.close();
    lock.release();
    process.stdout.write(args.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatRunSummary(result)}\n`);
    if (budget.failed.length > 0) {
      for (const line of budget.summaryLines()) process.stderr.write(`repute run: ${line}\n`);
      const total = tasks.length * methods.length;
      throw new RunFailedError({
        runId,
        failedTasks: budget.failed.length,
        message: `${budget.failed.length} of ${total} tasks failed (no result stored for them); run ${runId} is marked failed. Fix the cause above and rerun the same command: it redoes only the failed and missing tasks and reuses the cached successes`,
      });
    }
  },
});

function accuracyOf(records: readonly DebateTaskRecord[]): number | null {
  const graded = records.filter((record) => record.correct !== null);
  return graded.length === 0 ? null : graded.filter((record) => record.correct === true).length / graded.length;
}

/** The table `repute run` prints. */
export function formatRunSummary(summary: RunSummary): string {
  const lines = [
    `run ${summary.runId} (team ${summary.team}, ${summary.tasks} tasks): ${summary.status}`,
    '',
    `${'method'.padEnd(15)}${'done'.padStart(6)}${'resumed'.padStart(9)}${'failed'.padStart(8)}${'accuracy'.padStart(10)}${'failed acts'.padStart(13)}`,
  ];
  for (const [name, method] of Object.entries(summary.methods)) {
    lines.push(
      `${name.padEnd(15)}${String(method.done).padStart(6)}${String(method.resumed).padStart(9)}${String(method.failed).padStart(8)}${(method.accuracy === null ? 'n/a' : `${(method.accuracy * 100).toFixed(1)}%`).padStart(10)}${String(method.failures).padStart(13)}`,
    );
  }
  const bad = Object.entries(summary.badReplies);
  if (bad.length > 0)
    lines.push(
      '',
      `bad replies (tasks failed, a rerun asks again): ${bad.map(([agent, count]) => `${agent} ${count}`).join(', ')}`,
    );
  lines.push('', formatUsageLine(summary.usage));
  return lines.join('\n');
}
