// `repute run <team.yaml>`: a live team runs a task file with its protocol (looked up in the
// registry by the team file's `protocol.type`), persisting each finished task, so an interrupted run
// resumes where it stopped. The protocol's sessions run through the one session loop (runSession).
import { setMaxListeners } from 'node:events';
import { defineCommand } from 'citty';
import { RunFailedError } from '../../core/errors.js';
import type { ProtocolReport, ProtocolSessionResult } from '../../protocols/protocol.js';
import { getProtocol, protocolTypes } from '../../protocols/registry.js';
import { runSession } from '../../protocols/run-session.js';
import type { Store } from '../../store/store.js';
import { teamIdentities } from './_live-team.js';
import { interruptSignal } from '../_contract.js';
import { openLockedStore } from './_run-lock.js';
import { agentEndpoint, badRepliesByAgent, createFailureBudget, describeHosts } from './_run-failures.js';
import { createProgressBar, formatUsageLine, parseIntegerFlag, runUsage, type RunUsage } from './_shared.js';
import { formatSpendTable, type SpendReport } from './_spend-report.js';
import { describeConcurrentUpdate, shareTeamReputation } from './_team-reputation.js';
import { createProtocolRun, prepareRun, withGradeEvents } from './_run-setup.js';
import { createLoggedReputation, FOLD_WAIT_MS, loggedSessionStore } from '../../store/_logged-reputation.js';
import { runOnWorkers } from './_run-workers.js';
import { assertDistributable, parseQueueFlags, queueArgs, runNamingArgs } from './_task-queue.js';
import type { CodeTestsCounts } from '../../eval/sandbox/task-grader.js';

/** Summary of a `repute run` whose protocol reports no spend (debate), printed with `--json`. */
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
  /** Programs of `code` tasks run against their tests in the sandbox in this invocation; present when the tasks have such tests. */
  readonly codeTests?: CodeTestsCounts;
  readonly usage: RunUsage;
}

/** Summary of a `repute run` whose protocol reports its spend (DRF, RAPS), printed with `--json`. */
export interface ProtocolRunSummary {
  readonly schemaVersion: 1;
  readonly runId: string;
  readonly team: string;
  readonly store: string;
  /** The team file's `protocol.type`. */
  readonly protocol: string;
  readonly tasks: number;
  /**
   * The protocol's own decision rule first, then the compared aggregators: tasks with a result
   * (`done`, of which `resumed` from an earlier invocation), accuracy, and acts that failed inside
   * finished tasks (unusable replies).
   */
  readonly methods: Record<
    string,
    { readonly done: number; readonly resumed: number; readonly accuracy: number | null; readonly failures: number }
  >;
  readonly spend: SpendReport;
  /** `completed` when every task has a result, else `failed` (a rerun redoes the failed tasks). */
  readonly status: 'completed' | 'failed';
  /** Tasks that failed in this invocation (a model call failed after its retries): no result stored. */
  readonly failed: number;
  /** Programs of `code` tasks run against their tests in the sandbox in this invocation; present when the tasks have such tests. */
  readonly codeTests?: CodeTestsCounts;
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
    reputation: runNamingArgs.reputation,
    methods: {
      type: 'string',
      description: `Comma-separated methods of the team's protocol, overrides the file (${protocolTypes()
        .map((type) => `${type}: ${getProtocol(type).methods.names.join(',')}`)
        .join('; ')})`,
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
    workers: {
      type: 'string',
      description:
        'Spread the tasks over a NATS JetStream queue and start N local `repute worker` processes (0: only workers started elsewhere); needs a store every worker reaches',
      valueHint: 'N',
    },
    ...queueArgs,
    json: { type: 'boolean', description: 'Print the summary as JSON to stdout', default: false },
  },
  async run({ args }) {
    const maxFailures = parseIntegerFlag('max-failures', args['max-failures'], 3, 1);
    const workers = args.workers === undefined ? undefined : parseIntegerFlag('workers', args.workers, 1, 0, 64);
    const { team, protocol, methods, reputationStart, tasks, grader, config, runId } = await prepareRun(args);
    if (workers !== undefined) assertDistributable(protocol.type, protocol.workers);
    const queue = workers === undefined ? undefined : parseQueueFlags(args, team.timeoutMs);
    // Ctrl-C/SIGTERM wind the run down and mark it interrupted; every concurrent act listens on it.
    const signal = interruptSignal();
    setMaxListeners(0, signal);
    const { lock, store } = openLockedStore(team.store, runId);
    const progress = createProgressBar();
    // N failed tasks in a row, failing the same way, stop the run.
    const budget = createFailureBudget({
      runId,
      maxFailures,
      endpoints: new Map([
        ...team.agents.map((agent) => [agent.id, agentEndpoint(agent)] as const),
        ...(team.verifier?.type === 'llm-judge' ? [[team.verifier.id, agentEndpoint(team.verifier)] as const] : []),
      ]),
    });
    const start = reputationStart === 'fresh' ? 'prior' : 'team';
    process.stderr.write(
      `run ${runId}: protocol ${protocol.type}, ${team.agents.length} agents, ${tasks.length} tasks${methods.length > 0 ? `, methods ${methods.join(', ')}` : ''}, store ${team.store}\n`,
    );
    process.stderr.write(`run ${runId}: ${describeHosts(team)}\n`);
    const results: ProtocolSessionResult[] = [];
    let report: ProtocolReport;
    // Spans of each task's decision when OTEL_EXPORTER_OTLP_ENDPOINT is set (as repute serve exports).
    // Loaded only then: the OpenTelemetry SDK is not on a plain run's start-up path.
    const exportsSpans = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'].some(
      (name) => (process.env[name] ?? '').trim() !== '',
    );
    const decisionTelemetry = exportsSpans
      ? (await import('../../server/otel-telemetry.js')).decisionTelemetryFromEnvironment()
      : undefined;
    const { createRunTelemetry } = await import('../../server/run-telemetry.js');
    const telemetry =
      decisionTelemetry === undefined
        ? undefined
        : createRunTelemetry({
            telemetry: decisionTelemetry,
            store,
            runId,
            team: team.name,
            kinds: new Map(tasks.map((item) => [item.task.id, item.task.kind])),
          });
    const stopTelemetry = () =>
      telemetry?.shutdown().catch((error: unknown) => {
        process.stderr.write(
          `repute run: could not send the last spans (${error instanceof Error ? error.message : String(error)})\n`,
        );
      });
    try {
      const run = createProtocolRun({
        team,
        protocol,
        methods,
        runId,
        reputationStart: start,
        store,
        grader,
        ...(telemetry === undefined ? {} : { onCall: telemetry.onCall }),
        onVerifier: (name) =>
          process.stderr.write(`run ${runId}: verifier ${name} judges every proposal before aggregation\n`),
      });
      if (workers !== undefined && queue !== undefined) {
        const forwarded = [
          'reputation',
          'methods',
          'tasks',
          'store',
          'allow-env',
          'nats',
          'ack-wait',
          'max-deliver',
        ] as const;
        results.push(
          ...(await runOnWorkers({
            store,
            runId,
            team: team.name,
            agents: teamIdentities(team),
            config,
            sessions: run.sessions,
            tasks: tasks.map((item) => item.task),
            workers,
            queue,
            workerArgs: [
              args.team,
              '--run-id',
              runId,
              ...forwarded.flatMap((name) => (args[name] === undefined ? [] : [`--${name}`, String(args[name])])),
            ],
            signal,
            reputationStart: start,
            onProgress: (method, done, total) => progress.update(method, done, total),
            onTaskFailure: (failure) => budget.fail(failure),
          })),
        );
      } else {
        for (const session of run.sessions) {
          // The method's reputation lives in the team's shared log: each decision reads its latest
          // state and appends its evidence (docs/scaling.md). A session that builds its own model
          // (DRF) merges into the team's saved snapshot instead, never overwriting it.
          const logged =
            session.reputation == null
              ? undefined
              : createLoggedReputation({
                  store,
                  team: team.name,
                  name: session.method,
                  runId,
                  start,
                  model: session.reputation.model,
                  create: session.reputation.create,
                });
          const shared =
            session.reputation !== null
              ? undefined
              : shareTeamReputation({
                  store,
                  runId,
                  team: team.name,
                  name: session.method,
                  agentIds: team.agents.map((agent) => agent.id),
                  start,
                  onConcurrentUpdate: (update) =>
                    process.stderr.write(`run ${runId}: ${describeConcurrentUpdate(team.name, update)}\n`),
                });
          let resumedTasks = 0;
          try {
            const runner = await session.open({ reputation: logged?.model });
            const sessionStore = logged ? loggedSessionStore(store, logged, team.name) : (shared?.store ?? store);
            const summary = await runSession({
              store: withGradeEvents(sessionStore, grader),
              runId,
              team: team.name,
              agents: teamIdentities(team),
              tasks: tasks.map((item) => item.task),
              kind: 'run',
              config,
              runner,
              signal,
              onTaskFailure: (failure) => budget.fail(failure),
              onProgress: (event) => {
                if (event.resumed) resumedTasks++;
                else budget.succeed();
                const { taskId } = event.record as { taskId?: unknown };
                if (!event.resumed && telemetry !== undefined && typeof taskId === 'string')
                  telemetry.exportTask({ method: session.method, taskId });
                progress.update(session.method, event.done, event.total);
              },
            });
            results.push({ ...summary, resumedTasks });
            // The team's stored snapshot (what the dashboard and the next run's start read) is the
            // fold of the log: fold the run's last events now, waiting out a dead holder's lease.
            await logged?.foldWaiting(FOLD_WAIT_MS);
          } finally {
            await session.close?.();
          }
        }
      }
      report = run.report({ sessions: results, ledger: store.usageEntries({ runId }) });
      store.setRunStatus(runId, budget.failed.length === 0 ? 'completed' : 'failed');
    } catch (error) {
      // A failure before the first session created the run (no nats-server, say) has no run to
      // mark, and marking one would throw a NotFoundError in place of the error the user must see.
      if (store.getRun(runId) !== undefined) store.setRunStatus(runId, signal.aborted ? 'interrupted' : 'failed');
      progress.finish();
      for (const line of budget.summaryLines()) process.stderr.write(`repute run: ${line}\n`);
      await stopTelemetry();
      store.close();
      lock.release();
      throw error;
    }
    progress.finish();
    await stopTelemetry();
    const status = budget.failed.length === 0 ? 'completed' : 'failed';
    const usage = runUsage(store, runId);
    const head = { schemaVersion: 1 as const, runId, team: team.name, store: team.store };
    const codeTests = grader.codeTasks > 0 ? { codeTests: grader.counts() } : {};
    const output =
      report.spend === undefined
        ? formatRunSummary({
            ...head,
            tasks: tasks.length,
            status,
            methods: report.methods as RunSummary['methods'],
            badReplies: badRepliesByAgent(budget.failed),
            ...codeTests,
            usage,
          })
        : formatProtocolRunSummary({
            ...head,
            protocol: protocol.type,
            tasks: tasks.length,
            methods: report.methods,
            spend: withBookedSpend(report.spend, store, runId),
            status,
            failed: budget.failed.length,
            ...codeTests,
            usage,
          });
    store.close();
    lock.release();
    process.stdout.write(args.json ? `${JSON.stringify(output.summary, null, 2)}\n` : `${output.table}\n`);
    if (budget.failed.length > 0) {
      for (const line of budget.summaryLines()) process.stderr.write(`repute run: ${line}\n`);
      const total = tasks.length * results.length;
      throw new RunFailedError({
        runId,
        failedTasks: budget.failed.length,
        message: `${budget.failed.length} of ${total} tasks failed (no result stored for them); run ${runId} is marked failed. Fix the cause above and rerun the same command: it redoes only the failed and missing tasks and reuses the cached successes`,
      });
    }
  },
});

/** The line of the summary table on the sandbox's runs. */
function formatCodeTestsLine(counts: CodeTestsCounts): string {
  return `code tests (sandbox, this invocation): ${counts.programs} programs run, ${counts.passed} passed, ${counts.failed} failed, ${counts.timedOut} timed out; ${counts.noProgram} decisions without a program`;
}

/** Adds what the store's ledger booked per agent (calls, cache hits, money actually spent). */
function withBookedSpend(spend: NonNullable<ProtocolReport['spend']>, store: Store, runId: string): SpendReport {
  const booked = new Map(store.usageSummary({ by: 'agent', runId }).map((row) => [row.key, row]));
  return {
    ...spend,
    agents: spend.agents.map((agent) => {
      const row = booked.get(agent.agentId);
      return { ...agent, calls: row?.calls ?? 0, cachedCalls: row?.cachedCalls ?? 0, cost: row?.cost ?? 0 };
    }),
  };
}

/** The summary and the table `repute run` prints for a protocol without a spend report (debate). */
export function formatRunSummary(summary: RunSummary): { summary: RunSummary; table: string } {
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
  if (summary.codeTests !== undefined) lines.push('', formatCodeTestsLine(summary.codeTests));
  lines.push('', formatUsageLine(summary.usage));
  return { summary, table: lines.join('\n') };
}

/** The summary and the table `repute run` prints for a protocol with a spend report (DRF, RAPS). */
export function formatProtocolRunSummary(summary: ProtocolRunSummary): { summary: ProtocolRunSummary; table: string } {
  const lines = [
    `run ${summary.runId} (team ${summary.team}, protocol ${summary.protocol}, ${summary.tasks} tasks): ${summary.status}`,
    '',
    `${'method'.padEnd(20)}${'done'.padStart(6)}${'resumed'.padStart(9)}${'accuracy'.padStart(10)}${'failed acts'.padStart(13)}`,
  ];
  for (const [name, method] of Object.entries(summary.methods)) {
    lines.push(
      `${name.padEnd(20)}${String(method.done).padStart(6)}${String(method.resumed).padStart(9)}${(method.accuracy === null ? 'n/a' : `${(method.accuracy * 100).toFixed(1)}%`).padStart(10)}${String(method.failures).padStart(13)}`,
    );
  }
  if (summary.failed > 0)
    lines.push(
      '',
      `failed tasks ${summary.failed} (a model call failed after its retries; no result stored, a rerun redoes them)`,
    );
  if (summary.codeTests !== undefined) lines.push('', formatCodeTestsLine(summary.codeTests));
  lines.push(
    '',
    formatUsageLine(summary.usage),
    '',
    formatSpendTable(
      summary.spend,
      Object.keys(summary.methods).filter((name) => name !== summary.protocol),
    ),
  );
  return { summary, table: lines.join('\n') };
}
