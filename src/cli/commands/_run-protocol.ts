// `repute run` for DRF and RAPS team files: the same flags, resume, cache, progress, failure budget
// and `--json` contract as debate teams, with each protocol's persisted session and a spend report.
import { setMaxListeners } from 'node:events';
import { RunFailedError } from '../../core/errors.js';
import { runDrfSession, DRF_METHOD, type DrfTaskRecord } from '../../protocols/drf/run-drf-session.js';
import type { Store } from '../../store/store.js';
import { loadTasks } from '../../tasks/load-tasks.js';
import { interruptSignal } from '../_contract.js';
import { createLiveTeam } from './_live-team.js';
import { openLockedStore } from './_run-lock.js';
import { agentEndpoint, createFailureBudget } from './_run-failures.js';
import { protocolMethods } from './_protocol-methods.js';
import { compareMethodNames } from './_protocol-schemas.js';
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
import type { TeamFile } from './_team-file.js';
import { formatSpendTable, type SpendReport } from './_spend-report.js';
import { describeConcurrentUpdate, shareTeamReputation } from './_team-reputation.js';

/** A team file whose protocol is not debate. */
export type ProtocolTeamFile = TeamFile & { readonly protocol: Exclude<TeamFile['protocol'], { type: 'debate' }> };

/** Flags of `repute run` this module reads. */
export interface ProtocolRunArgs {
  readonly 'run-id'?: string | undefined;
  readonly reputation?: string | undefined;
  readonly methods?: string | undefined;
  readonly 'max-failures'?: string | undefined;
  readonly json?: boolean | undefined;
}

/** Summary of a DRF or RAPS `repute run`, printed with `--json`. */
export interface ProtocolRunSummary {
  readonly schemaVersion: 1;
  readonly runId: string;
  readonly team: string;
  readonly store: string;
  readonly protocol: 'drf' | 'raps';
  readonly tasks: number;
  /** `completed` when every task has a result, else `failed` (a rerun redoes the failed tasks). */
  readonly status: 'completed' | 'failed';
  /** Tasks that failed in this invocation (a model call failed after its retries): no result stored. */
  readonly failed: number;
  /**
   * The protocol's own decision rule first, then the compared aggregators: tasks with a result
   * (`done`, of which `resumed` from an earlier invocation), accuracy, and acts that failed inside
   * finished tasks (unusable replies).
   */
  readonly methods: Record<
    string,
    { readonly done: number; readonly resumed: number; readonly accuracy: number | null; readonly failures: number }
  >;
  readonly usage: RunUsage;
  readonly spend: SpendReport;
}

/** Runs a DRF or RAPS team file (see `repute run`) and prints its summary. */
export async function runProtocolTeam(team: ProtocolTeamFile, args: ProtocolRunArgs): Promise<ProtocolRunSummary> {
  const methods = parseListFlag(
    'methods',
    args.methods,
    compareMethodNames,
    team.methods as Array<(typeof compareMethodNames)[number]>,
  );
  const reputationStart = parseReputationFlag(args.reputation, team.reputation);
  const maxFailures = parseIntegerFlag('max-failures', args['max-failures'], 3, 1);
  const tasks = await loadTasks(team.tasks);
  const config = {
    team: team.name,
    agents: team.agents.map((agent) => ({
      id: agent.id,
      provider: agent.provider,
      model: agent.model,
      baseURL: agent.baseURL ?? null,
      price: agent.price ?? null,
    })),
    protocol: team.protocol,
    methods,
    seed: team.seed,
    reputation: reputationStart,
    tasks: fileDigest(team.tasks),
  };
  const runId = deriveRunId(args['run-id'], config);
  // Same contract as debate runs: one process per (store, run), Ctrl-C/SIGTERM wind down and mark the run interrupted.
  const signal = interruptSignal();
  // Every concurrent act listens on the run's signal (k·(k − 1) ratings at once in DRF).
  setMaxListeners(0, signal);
  const { lock, store } = openLockedStore(team.store, runId);
  const grade = createReferenceGrader(tasks);
  const progress = createProgressBar();
  // Same fail-fast rule as debate runs: N failed tasks in a row, failing the same way, stop the run.
  const budget = createFailureBudget({
    runId,
    maxFailures,
    endpoints: new Map(team.agents.map((agent) => [agent.id, agentEndpoint(agent)])),
  });
  const protocol = team.protocol;
  process.stderr.write(
    `run ${runId}: ${protocol.type} over ${team.agents.length} agents, ${tasks.length} tasks${methods.length > 0 ? `, compared ${methods.join(', ')}` : ''}, store ${team.store}\n`,
  );
  let summary: Omit<ProtocolRunSummary, 'usage' | 'spend' | 'status' | 'failed'> & {
    spend: Omit<SpendReport, 'agents'> & {
      agents: Array<Omit<SpendReport['agents'][number], 'cost' | 'calls' | 'cachedCalls'>>;
    };
  };
  try {
    if (protocol.type === 'drf') {
      let resumed = 0;
      const agents = createLiveTeam(team, store, runId);
      // The session builds its own model, so a team state changed by a server is kept, not merged.
      const shared = shareTeamReputation({
        store,
        runId,
        team: team.name,
        name: DRF_METHOD,
        agentIds: team.agents.map((agent) => agent.id),
        start: reputationStart === 'fresh' ? 'prior' : 'team',
        onConcurrentUpdate: (update) =>
          process.stderr.write(`run ${runId}: ${describeConcurrentUpdate(team.name, update)}\n`),
      });
      // The team file's `type` chose this session; the rest of the block is the session's protocol.
      const { type: _type, ...drfProtocol } = protocol;
      const session = await runDrfSession({
        store: shared.store,
        runId,
        team: team.name,
        kind: 'run',
        agents,
        tasks: tasks.map((item) => item.task),
        protocol: drfProtocol,
        prices: Object.fromEntries(team.agents.map((agent) => [agent.id, agent.price ?? {}])),
        compare: methods,
        seed: team.seed,
        config,
        grade,
        reputationStart: reputationStart === 'fresh' ? 'prior' : 'team',
        signal,
        onTaskFailure: (failure) => budget.fail(failure),
        onProgress: (event) => {
          if (event.resumed) resumed++;
          else budget.succeed();
          progress.update(DRF_METHOD, event.done, event.total);
        },
      });
      summary = {
        schemaVersion: 1,
        runId,
        team: team.name,
        store: team.store,
        protocol: 'drf',
        tasks: tasks.length,
        methods: protocolMethods(DRF_METHOD, session.records, resumed, methods),
        spend: drfSpend(session.records, team),
      };
    } else {
      const { runRapsTeam } = await import('./_run-raps-team.js');
      const result = await runRapsTeam({
        team: { ...team, protocol },
        store,
        runId,
        tasks: tasks.map((item) => item.task),
        methods,
        config,
        grade,
        reputationStart,
        signal,
        progress,
        budget,
      });
      summary = {
        schemaVersion: 1,
        runId,
        team: team.name,
        store: team.store,
        protocol: 'raps',
        tasks: tasks.length,
        methods: result.methods,
        spend: result.spend,
      };
    }
    store.setRunStatus(runId, budget.failed.length === 0 ? 'completed' : 'failed');
  } catch (error) {
    // The session creates the run: a failure before it started (no nats-server, say) has no run to
    // mark, and marking one would throw a NotFoundError in place of the error the user must see.
    if (store.getRun(runId) !== undefined) store.setRunStatus(runId, signal.aborted ? 'interrupted' : 'failed');
    progress.finish();
    for (const line of budget.summaryLines()) process.stderr.write(`repute run: ${line}\n`);
    store.close();
    lock.release();
    throw error;
  }
  progress.finish();
  const result: ProtocolRunSummary = {
    ...summary,
    status: budget.failed.length === 0 ? 'completed' : 'failed',
    failed: budget.failed.length,
    usage: runUsage(store, runId),
    spend: withBookedSpend(summary.spend, store, runId),
  };
  store.close();
  lock.release();
  process.stdout.write(args.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatProtocolRunSummary(result)}\n`);
  if (budget.failed.length > 0) {
    for (const line of budget.summaryLines()) process.stderr.write(`repute run: ${line}\n`);
    throw new RunFailedError({
      runId,
      failedTasks: budget.failed.length,
      message: `${budget.failed.length} of ${tasks.length} tasks failed (no result stored for them); run ${runId} is marked failed. Fix the cause above and rerun the same command: it redoes only the failed and missing tasks and reuses the cached successes`,
    });
  }
  return result;
}

/** Adds what the store's ledger booked per agent (calls, cache hits, money actually spent). */
function withBookedSpend(
  spend: Omit<SpendReport, 'agents'> & {
    agents: Array<Omit<SpendReport['agents'][number], 'cost' | 'calls' | 'cachedCalls'>>;
  },
  store: Store,
  runId: string,
): SpendReport {
  const booked = new Map(store.usageSummary({ by: 'agent', runId }).map((row) => [row.key, row]));
  return {
    ...spend,
    agents: spend.agents.map((agent) => {
      const row = booked.get(agent.agentId);
      return { ...agent, calls: row?.calls ?? 0, cachedCalls: row?.cachedCalls ?? 0, cost: row?.cost ?? 0 };
    }),
  };
}

function drfSpend(
  records: readonly DrfTaskRecord[],
  team: TeamFile,
): Omit<SpendReport, 'agents'> & {
  agents: Array<Omit<SpendReport['agents'][number], 'cost' | 'calls' | 'cachedCalls'>>;
} {
  const agents = team.agents.map((agent) => {
    let inputTokens = 0;
    let outputTokens = 0;
    let listCost = 0;
    let selected = 0;
    for (const record of records) {
      const usage = record.usage[agent.id];
      if (record.team.includes(agent.id)) selected++;
      if (!usage) continue;
      inputTokens += usage.inputTokens;
      outputTokens += usage.outputTokens;
      listCost += usage.listCost;
    }
    return { agentId: agent.id, inputTokens, outputTokens, listCost, tasks: selected };
  });
  const listCost = agents.reduce((sum, agent) => sum + agent.listCost, 0);
  return {
    agents,
    methods: [
      {
        method: DRF_METHOD,
        listCost,
        note: `k = ${records[0]?.team.length ?? 0} of ${team.agents.length} agents per task`,
      },
    ],
    fullTeam: {
      agents: team.agents.length,
      listCost: records.reduce((sum, record) => sum + record.fullTeamListCost, 0),
      note: 'every agent proposes and rates every other on every task',
    },
  };
}

/** The table `repute run` prints for DRF and RAPS teams. */
export function formatProtocolRunSummary(summary: ProtocolRunSummary): string {
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
  lines.push(
    '',
    formatUsageLine(summary.usage),
    '',
    formatSpendTable(
      summary.spend,
      Object.keys(summary.methods).filter((name) => name !== summary.protocol),
    ),
  );
  return lines.join('\n');
}
