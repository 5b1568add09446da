// `repute demo`: the embedded main job. Runs the simulated team once per method, clean and under
// attack, prints the comparison table and reputation sparklines, writes the HTML report.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { defineCommand } from 'citty';
import { debateMethodNames } from '../../protocols/debate/methods.js';
import { runDemo, type DemoSummary } from '../../eval/demo/run-demo.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { openStore } from '../../store/store.js';
import { renderDemoReport } from '../report/demo-report.js';
import { createProgressBar, parseIntegerFlag, parseListFlag, sharedArgs, sparkline } from './_shared.js';

/** Formats the comparison table and the reputation sparklines of a demo summary. */
export function formatDemoSummary(summary: DemoSummary): string {
  const lines: string[] = [];
  lines.push(
    `Repute demo: ${summary.agents.length} simulated agents (${summary.agents.filter((agent) => agent.adversarial).length} adversarial under attack), ${summary.tasks} tasks, propose + ${summary.rounds} debate rounds, seed ${summary.seed}`,
  );
  lines.push('');
  lines.push(`${'method'.padEnd(15)}${'clean'.padStart(8)}${'attacked'.padStart(10)}${'change'.padStart(10)}`);
  for (const name of summary.methodOrder) {
    const result = summary.methods[name];
    if (!result) continue;
    lines.push(
      `${name.padEnd(15)}${`${(result.clean * 100).toFixed(1)}%`.padStart(8)}${`${(result.attacked * 100).toFixed(1)}%`.padStart(10)}${`${((result.attacked - result.clean) * 100).toFixed(1)}`.padStart(10)}`,
    );
  }
  const featured = ['minirep', 'beta'].filter((name) => summary.methods[name]?.reputation);
  for (const name of featured) {
    const series = summary.methods[name]?.reputation?.attacked ?? {};
    lines.push('');
    lines.push(
      `Reputation over the ${summary.tasks} tasks under attack, ${name} (score 0..1, one mark per ${Math.ceil(summary.tasks / 25)} tasks):`,
    );
    for (const agent of summary.agents) {
      const values = series[agent.id] ?? [];
      const last = values.at(-1) ?? Number.NaN;
      lines.push(
        `  ${agent.id.padEnd(10)} ${agent.model.padEnd(11)} ${sparkline(values)} ${last.toFixed(2)}${agent.adversarial ? '  adversary' : ''}`,
      );
    }
  }
  return lines.join('\n');
}

/** The `--json` shape: the summary with each reputation series reduced to its final scores. */
export function toJsonSummary(summary: DemoSummary): unknown {
  const methods = Object.fromEntries(
    Object.entries(summary.methods).map(([name, result]) => [
      name,
      {
        clean: result.clean,
        attacked: result.attacked,
        ...(result.reputation
          ? {
              finalReputation: Object.fromEntries(
                (['clean', 'attacked'] as const).map((condition) => [
                  condition,
                  Object.fromEntries(
                    Object.entries(result.reputation?.[condition] ?? {}).map(([agentId, values]) => [
                      agentId,
                      values.at(-1) ?? null,
                    ]),
                  ),
                ]),
              ),
            }
          : {}),
      },
    ]),
  );
  return { ...summary, methods };
}

export default defineCommand({
  meta: {
    name: 'demo',
    description:
      'Simulated 10-agent team (clone groups, 3 adversaries) on 100 built-in tasks: every method, clean and under attack; no network',
  },
  args: {
    ...sharedArgs,
    out: { ...sharedArgs.out, default: 'repute-demo/report.html' },
    tasks: { type: 'string', description: 'Number of built-in tasks', default: '100', valueHint: 'N' },
    rounds: { type: 'string', description: 'Debate rounds after Propose', default: '2', valueHint: 'N' },
    methods: {
      type: 'string',
      description: `Comma-separated methods (${debateMethodNames.join(',')})`,
      valueHint: 'LIST',
    },
    store: {
      type: 'string',
      description:
        'SQLite file that keeps the runs and every decision event (a rerun with the same seed resumes from it)',
      default: ':memory:',
      valueHint: 'FILE',
    },
  },
  async run({ args }) {
    const seed = parseIntegerFlag('seed', args.seed, 2027);
    const tasks = parseIntegerFlag('tasks', args.tasks, 100, 1, 10_000);
    const rounds = parseIntegerFlag('rounds', args.rounds, 2, 0, 20);
    const methods = parseListFlag('methods', args.methods, debateMethodNames, debateMethodNames);
    const store = openStore({ path: args.store });
    const progress = createProgressBar();
    let summary: Awaited<ReturnType<typeof runDemo>>;
    try {
      summary = await runDemo({
        store,
        seed,
        tasks,
        rounds,
        methods,
        onProgress: ({ method, condition, done, total }) => progress.update(`${method} ${condition}`, done, total),
      });
    } catch (error) {
      store.close();
      // The demo's runs are named by seed; the store's advice (another run id) is no flag of this command.
      if (error instanceof InvalidArgumentError && error.parameter === 'id')
        throw new InvalidArgumentError({
          parameter: '--store',
          value: args.store,
          message: `${args.store} already holds the demo of seed ${seed} with other --tasks or --rounds; pass the same ones to resume it, or another --store (a new file) for these`,
        });
      throw error;
    }
    progress.finish();
    store.close();
    const out = resolve(args.out);
    mkdirSync(dirname(out), { recursive: true });
    const command = ['repute demo', ...process.argv.slice(3)].join(' ');
    writeFileSync(out, renderDemoReport(summary, command));
    if (args.json) {
      process.stdout.write(`${JSON.stringify(toJsonSummary(summary), null, 2)}\n`);
    } else {
      process.stdout.write(`${formatDemoSummary(summary)}\n\nHTML report: ${out}\n`);
    }
    process.stderr.write(`demo finished in ${(summary.wallTimeMs / 1000).toFixed(1)} s; report written to ${out}\n`);
  },
});
