// `repute run <team.yaml>`: a live team debates a task file with every listed method, persisting
// each finished task, so an interrupted run resumes where it stopped.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { defineCommand } from 'citty';
import { scoreAnswer } from '../../core/answers/answers.js';
import { createDebateMethod, debateMethodNames } from '../../protocols/debate/methods.js';
import { runDebateSession, type DebateTaskRecord } from '../../protocols/debate/run-debate-session.js';
import { openStore } from '../../store/store.js';
import { loadTasks } from '../../tasks/load-tasks.js';
import { createLiveTeam, teamIdentities } from './_live-team.js';
import { createProgressBar, parseListFlag } from './_shared.js';
import { readTeamFile } from './_team-file.js';

/** Summary of one `repute run`, printed with `--json`. */
export interface RunSummary {
  readonly schemaVersion: 1;
  readonly runId: string;
  readonly team: string;
  readonly store: string;
  readonly tasks: number;
  readonly methods: Record<string, { readonly done: number; readonly resumed: number; readonly accuracy: number | null; readonly failures: number }>;
  readonly usage: { readonly calls: number; readonly cachedCalls: number; readonly inputTokens: number; readonly outputTokens: number; readonly cost: number };
}

export default defineCommand({
  meta: { name: 'run', description: 'Run a live team (YAML: agents, protocol, methods, tasks file) against its endpoints; a rerun resumes from the store' },
  args: {
    team: { type: 'positional', description: 'Team file (YAML), see examples/team.yaml', required: true },
    'run-id': { type: 'string', description: 'Run id (default: derived from the team file and tasks, so a rerun resumes)', valueHint: 'ID' },
    reputation: { type: 'string', description: "Where reputation starts: 'continue' (the team's saved state) or 'fresh' (the prior); overrides the file", valueHint: 'continue|fresh' },
    methods: { type: 'string', description: `Comma-separated methods, overrides the file (${debateMethodNames.join(',')})`, valueHint: 'LIST' },
    json: { type: 'boolean', description: 'Print the summary as JSON to stdout', default: false },
  },
  async run({ args }) {
    const team = readTeamFile(args.team);
    const methods = parseListFlag('methods', args.methods, debateMethodNames, team.methods);
    const reputationStart = parseListFlag('reputation', args.reputation, ['continue', 'fresh'] as const, [team.reputation])[0] ?? 'continue';
    const tasks = await loadTasks(team.tasks);
    const config = {
      team: team.name,
      agents: team.agents.map((agent) => ({ id: agent.id, provider: agent.provider, model: agent.model, baseURL: agent.baseURL ?? null })),
      rounds: team.protocol.rounds,
      methods,
      k: team.k ?? null,
      seed: team.seed,
      reputation: reputationStart,
      tasks: createHash('sha256').update(readFileSync(team.tasks)).digest('hex').slice(0, 16),
    };
    const runId = args['run-id'] ?? `run-${createHash('sha256').update(JSON.stringify(config)).digest('hex').slice(0, 12)}`;
    const store = openStore({ path: team.store });
    const controller = new AbortController();
    const onSignal = () => controller.abort(new Error('interrupted (SIGINT); rerun the same command to resume'));
    process.once('SIGINT', onSignal);
    const references = new Map(tasks.map((item) => [item.task.id, item]));
    const grade = (taskId: string, answer: string | null): boolean | undefined => {
      const item = references.get(taskId);
      if (item?.reference === undefined || item.task.kind === 'code') return undefined;
      return scoreAnswer(item.task.kind, answer, item.reference).correct;
    };
    const agents = createLiveTeam(team, store, runId);
    const identities = teamIdentities(team);
    const progress = createProgressBar();
    const summary: RunSummary['methods'] = {};
    process.stderr.write(`run ${runId}: ${agents.length} agents, ${tasks.length} tasks, methods ${methods.join(', ')}, store ${team.store}\n`);
    try {
      for (const name of methods) {
        const method = createDebateMethod(name, { agents: identities, ...(team.k === undefined ? {} : { k: team.k }) });
        let resumed = 0;
        const session = await runDebateSession({
          store,
          runId,
          team: team.name,
          kind: 'run',
          agents,
          tasks: tasks.map((item) => item.task),
          method,
          rounds: team.protocol.rounds,
          seed: team.seed,
          config,
          grade,
          reputationStart: reputationStart === 'fresh' ? 'prior' : 'team',
          recordUsage: false,
          signal: controller.signal,
          onProgress: (event) => {
            if (event.resumed) resumed++;
            progress.update(name, event.done, event.total);
          },
        });
        summary[name] = { done: session.records.length, resumed, accuracy: accuracyOf(session.records), failures: session.records.reduce((sum, record) => sum + record.failures, 0) };
      }
      store.setRunStatus(runId, 'completed');
    } catch (error) {
      store.setRunStatus(runId, controller.signal.aborted ? 'interrupted' : 'failed');
      throw error;
    } finally {
      process.off('SIGINT', onSignal);
      progress.finish();
    }
    const rows = store.usageSummary({ by: 'run', runId });
    const usage = rows.reduce((sum, row) => ({ calls: sum.calls + row.calls, cachedCalls: sum.cachedCalls + row.cachedCalls, inputTokens: sum.inputTokens + row.inputTokens, outputTokens: sum.outputTokens + row.outputTokens, cost: sum.cost + row.cost }), { calls: 0, cachedCalls: 0, inputTokens: 0, outputTokens: 0, cost: 0 });
    const result: RunSummary = { schemaVersion: 1, runId, team: team.name, store: team.store, tasks: tasks.length, methods: summary, usage };
    store.close();
    process.stdout.write(args.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatRunSummary(result)}\n`);
  },
});

function accuracyOf(records: readonly DebateTaskRecord[]): number | null {
  const graded = records.filter((record) => record.correct !== null);
  return graded.length === 0 ? null : graded.filter((record) => record.correct === true).length / graded.length;
}

/** The table `repute run` prints. */
export function formatRunSummary(summary: RunSummary): string {
  const lines = [`run ${summary.runId} (team ${summary.team}, ${summary.tasks} tasks)`, '', `${'method'.padEnd(15)}${'done'.padStart(6)}${'resumed'.padStart(9)}${'accuracy'.padStart(10)}${'failed acts'.padStart(13)}`];
  for (const [name, method] of Object.entries(summary.methods)) {
    lines.push(`${name.padEnd(15)}${String(method.done).padStart(6)}${String(method.resumed).padStart(9)}${(method.accuracy === null ? 'n/a' : `${(method.accuracy * 100).toFixed(1)}%`).padStart(10)}${String(method.failures).padStart(13)}`);
  }
  const { usage } = summary;
  lines.push('', `LLM calls ${usage.calls} (${usage.cachedCalls} from cache), tokens in ${usage.inputTokens} / out ${usage.outputTokens}, cost ${usage.cost.toFixed(4)}`);
  return lines.join('\n');
}
