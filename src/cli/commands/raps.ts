// `repute raps <scenario>`: runs a built-in RAPS scenario and prints a table (or JSON).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defineCommand } from 'citty';
import { InvalidArgumentError } from '../../core/errors.js';
import { raceAbort } from '../../core/_race-abort.js';
import {
  rapsScenarioNames,
  runRapsScenario,
  runRapsScenarioOverNats,
  runScaling,
  runAdversarialSeeds,
  summarizeCodeReview,
  type AdversarialSeedsSummary,
  type RapsScenarioParameters,
  type CodeReviewSummary,
  type RapsScenarioName,
  type ScalingRow,
  natsStreamName,
} from '../../eval/raps-scenarios/index.js';
import { loadDataset } from '../../eval/proposals/load-dataset.js';
import {
  rapsPaperModels,
  runRapsPaperSetting,
  type RapsPaperSettingResult,
} from '../../eval/raps-scenarios/paper-setting.js';
import { connectNatsTransport } from '../../transport/nats-transport.js';
import { startNatsServer } from '../../transport/nats-server.js';
import { interruptSignal, UsageError } from '../_contract.js';
import { defaultDataDir, parseFractionFlag, parseIntegerFlag, sharedArgs } from './_shared.js';

export default defineCommand({
  meta: { name: 'raps', description: 'RAPS reputation-aware publish/subscribe: adversarial | scaling | code-review' },
  args: {
    scenario: { type: 'positional', description: `Scenario: ${rapsScenarioNames.join(' | ')}`, required: true },
    seed: {
      type: 'string',
      description:
        'First seed (adversarial: seed i = seed + i; default 1, the reported seeds; tuning seeds are 101..120; scaling: 2027; not code-review); any integer',
      valueHint: 'N',
    },
    seeds: { type: 'string', description: 'adversarial only: number of seeds (default 20)', valueHint: 'N' },
    recovery: {
      type: 'string',
      description: 'adversarial: recovery factor rho in [0, 1] of filtered-away beliefs (ours; 1 = off, the default)',
      valueHint: 'RHO',
    },
    'witness-credibility': {
      type: 'string',
      description:
        'Witness credibility: separate (RAPS trust_of, default) or shared (the routing belief, before issue 14)',
      default: 'separate',
      valueHint: 'separate|shared',
    },
    json: sharedArgs.json,
    transport: {
      type: 'string',
      description: 'Message transport: inproc (default) or nats',
      default: 'inproc',
      valueHint: 'inproc|nats',
    },
    'nats-url': {
      type: 'string',
      description: 'NATS server (with -js); omitted = start a private nats-server',
      valueHint: 'URL',
    },
    processes: {
      type: 'boolean',
      description: 'With --transport nats, run each agent as its own process (adversarial, code-review)',
      default: true,
    },
    tasks: { type: 'string', description: 'Number of tasks (default 30)', valueHint: 'N' },
    setting: {
      type: 'string',
      description:
        "adversarial: 'ours' (default; simulated agents, lying auditors, agent-1 decides) or 'paper' (replayed GPT-4o-mini-class agents, team view decides)",
      default: 'ours',
      valueHint: 'ours|paper',
    },
    dataset: {
      type: 'string',
      description: 'With --setting paper: gsm8k (default) or mmlu-pro, read from $REPUTE_DATA_DIR or ../shared/data',
      default: 'gsm8k',
      valueHint: 'gsm8k|mmlu-pro',
    },
    witness: {
      type: 'boolean',
      description: 'Second-hand witness checks (--no-witness for the ablation)',
      default: true,
    },
    additions: {
      type: 'boolean',
      description: 'Our additions to the RAPS base (--no-additions: plain RAPS, top-3 in scaling; see docs/raps.md)',
      default: true,
    },
  },
  async run({ args, rawArgs }) {
    const name = String(args.scenario) as RapsScenarioName;
    if (!rapsScenarioNames.includes(name)) {
      throw new InvalidArgumentError({
        parameter: 'scenario',
        value: name,
        message: `unknown RAPS scenario ${JSON.stringify(name)}; choose one of ${rapsScenarioNames.join(', ')}`,
      });
    }
    const transportName = String(args.transport);
    if (transportName !== 'inproc' && transportName !== 'nats') {
      throw new InvalidArgumentError({
        parameter: '--transport',
        value: transportName,
        message: `--transport must be inproc or nats, got ${JSON.stringify(transportName)}`,
      });
    }
    refuseFlagsThatDoNotApply(name, transportName, typedFlags(rawArgs));
    const seed = parseIntegerFlag('seed', args.seed, name === 'adversarial' ? 1 : 2027);
    const credibility = String(args['witness-credibility']) as 'separate' | 'shared';
    if ((credibility as string) !== 'separate' && (credibility as string) !== 'shared') {
      throw new InvalidArgumentError({
        parameter: '--witness-credibility',
        value: credibility,
        message: `--witness-credibility must be separate or shared, got ${JSON.stringify(credibility)}`,
      });
    }
    const taskCount = args.tasks === undefined ? undefined : parseIntegerFlag('tasks', args.tasks, 10, 1, 10_000);
    const natsUrl = args['nats-url'] as string | undefined;
    const print = (text: string) => process.stdout.write(`${text}\n`);
    // Over NATS the command starts child processes (agent nodes, a private nats-server): it watches
    // Ctrl-C and SIGTERM so that it stops them and removes the server's store before it exits (130,
    // 143). In-process runs start nothing and keep Node's default (the signal ends them at once).
    // A scenario run does not resume (its wire run id is new each time): the error line says so.
    const signal =
      transportName === 'nats'
        ? interruptSignal({ rerun: 'a RAPS scenario run does not resume; run the same command to start it over' })
        : undefined;

    if (name === 'scaling') {
      const serverStart = transportName === 'nats' && natsUrl === undefined ? startNatsServer() : undefined;
      try {
        const url = natsUrl ?? (serverStart === undefined ? undefined : (await raceAbort(serverStart, signal)).url);
        const summary = await runScaling({
          seed,
          witness: Boolean(args.witness),
          additions: Boolean(args.additions),
          witnessCredibility: credibility,
          ...(signal === undefined ? {} : { signal }),
          ...(taskCount === undefined ? {} : { taskCount }),
          ...(transportName === 'nats'
            ? {
                runIdSuffix: `-${Date.now().toString(36)}`,
                transport: (runId: string) =>
                  connectNatsTransport({
                    servers: url as string,
                    stream: natsStreamName(runId),
                    subjects: [`raps.${runId}.>`],
                    name: 'raps-scaling',
                  }),
              }
            : {}),
        });
        signal?.throwIfAborted();
        if (args.json) print(JSON.stringify({ ...summary, transport: transportName }, null, 2));
        else
          print(
            scalingTable(
              summary.rows,
              summary.tasks,
              seed,
              transportName,
              summary.additions,
              summary.witnessCredibility,
            ),
          );
      } finally {
        // A server still starting when the signal came is ours to stop too, once it is up.
        const server = await serverStart?.catch(() => undefined);
        await server?.dispose();
      }
      return;
    }

    const overNats = {
      processes: Boolean(args.processes),
      ...(natsUrl === undefined ? {} : { natsUrl }),
      ...(signal === undefined ? {} : { signal }),
    };
    if (name === 'adversarial' && String(args.setting) === 'paper') {
      const dataset = String(args.dataset);
      if (dataset !== 'gsm8k' && dataset !== 'mmlu-pro')
        throw new InvalidArgumentError({
          parameter: '--dataset',
          value: dataset,
          message: `--dataset must be gsm8k or mmlu-pro, got ${JSON.stringify(dataset)}`,
        });
      if (transportName !== 'inproc')
        throw new UsageError({
          parameter: '--transport',
          message: '--setting paper runs in-process only (replayed agents); leave --transport out',
        });
      const path = join(defaultDataDir(), dataset === 'gsm8k' ? 'zeroeval-gsm8k' : 'mmlu-pro');
      if (!existsSync(path))
        throw new InvalidArgumentError({
          parameter: 'REPUTE_DATA_DIR',
          value: path,
          message: `dataset not found at ${path}; set REPUTE_DATA_DIR to the staged data root`,
        });
      const result = await runRapsPaperSetting(await loadDataset(path), {
        models: rapsPaperModels[dataset],
        seed,
        seeds: parseIntegerFlag('seeds', args.seeds, 20, 2, 10_000),
        ...(taskCount === undefined ? {} : { taskCount }),
      });
      if (args.json) print(JSON.stringify(result, null, 2));
      else print(paperSettingTable(result));
      return;
    }
    if (String(args.setting) !== 'ours')
      throw new InvalidArgumentError({
        parameter: '--setting',
        value: args.setting,
        message: `--setting must be ours or paper (raps adversarial only), got ${JSON.stringify(args.setting)}`,
      });
    if (name === 'adversarial') {
      const seeds = parseIntegerFlag('seeds', args.seeds, 20, 1, 10_000);
      const summary = await runAdversarialSeeds({
        seed,
        seeds,
        witness: Boolean(args.witness),
        additions: Boolean(args.additions),
        witnessCredibility: credibility,
        ...(args.recovery === undefined ? {} : { recovery: parseFractionFlag('recovery', String(args.recovery), 0.9) }),
        ...(taskCount === undefined ? {} : { taskCount }),
        ...(transportName === 'nats'
          ? {
              run: async (parameters: RapsScenarioParameters) =>
                runRapsScenarioOverNats('adversarial', { parameters, ...overNats }),
            }
          : {}),
      });
      signal?.throwIfAborted();
      if (args.json) print(JSON.stringify({ ...summary, transport: transportName }, null, 2));
      else print(adversarialTable(summary, transportName));
      return;
    }
    // code-review: a fixed diff and rule-based reviewers; only --witness and the transport apply.
    const parameters = { seed, witness: Boolean(args.witness) };
    const { scenario, result } =
      transportName === 'nats'
        ? await runRapsScenarioOverNats(name, { parameters, ...overNats })
        : await runRapsScenario(name, parameters);
    signal?.throwIfAborted();
    const review = summarizeCodeReview(scenario, result);
    if (args.json) print(JSON.stringify(review, null, 2));
    else print(codeReviewTable(review, transportName));
  },
});

/**
 * The options typed on the command line, by their kebab-case name (`--no-witness` counts as
 * `witness`), each with the form the user typed (`--no-witness`), up to a `--`. Needed for options
 * with a default, whose value alone does not tell whether the user asked for them.
 */
function typedFlags(rawArgs: readonly string[]): Map<string, string> {
  const typed = new Map<string, string>();
  for (const token of rawArgs) {
    if (token === '--') break;
    if (!token.startsWith('--')) continue;
    const flag = token.split('=')[0] as string;
    const kebab = flag.slice(2).replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
    typed.set(kebab.startsWith('no-') ? kebab.slice(3) : kebab, flag);
  }
  return typed;
}

/** Which scenarios each scenario-specific option changes, and what it sets there. */
const scenarioFlags: Record<string, { scenarios: readonly RapsScenarioName[]; what: string }> = {
  seeds: { scenarios: ['adversarial'], what: 'the number of seeds averaged' },
  recovery: { scenarios: ['adversarial'], what: 'the recovery factor of filtered-away beliefs' },
  seed: {
    scenarios: ['adversarial', 'scaling'],
    what: 'the seed of the simulated team and tasks (code-review draws nothing at random)',
  },
  tasks: { scenarios: ['adversarial', 'scaling'], what: 'the number of tasks (code-review reviews one built-in diff)' },
  additions: { scenarios: ['adversarial', 'scaling'], what: 'our additions to the RAPS base' },
  'witness-credibility': {
    scenarios: ['adversarial', 'scaling'],
    what: 'where witness credibility is kept (the code-review team does not use it)',
  },
};

/**
 * Refuses an option the chosen scenario or transport would ignore (the run would look as if it
 * had used it): `--seeds` outside `adversarial`, `--nats-url` without `--transport nats`, ...
 */
function refuseFlagsThatDoNotApply(
  name: RapsScenarioName,
  transport: string,
  typed: ReadonlyMap<string, string>,
): void {
  for (const [key, { scenarios, what }] of Object.entries(scenarioFlags)) {
    const flag = typed.get(key);
    if (flag === undefined || scenarios.includes(name)) continue;
    throw new UsageError({
      parameter: flag,
      message: `${flag} changes ${what} and applies to raps ${scenarios.join(' and raps ')} only, not raps ${name}; leave ${flag} out`,
    });
  }
  const natsUrl = typed.get('nats-url');
  if (natsUrl !== undefined && transport !== 'nats')
    throw new UsageError({
      parameter: natsUrl,
      message: `${natsUrl} names the server of --transport nats, but the transport is ${transport}; add --transport nats to run over that server, or leave ${natsUrl} out`,
    });
  const processes = typed.get('processes');
  if (processes !== undefined && (transport !== 'nats' || name === 'scaling'))
    throw new UsageError({
      parameter: processes,
      message:
        name === 'scaling'
          ? `${processes} applies to raps adversarial and raps code-review with --transport nats; raps scaling always hosts its nodes in the CLI process; leave ${processes} out`
          : `${processes} applies with --transport nats only, but the transport is ${transport}; add --transport nats, or leave ${processes} out`,
    });
}

const percent = (value: number) => `${(100 * value).toFixed(1)}%`;
const pad = (text: string | number, width: number) => String(text).padEnd(width);

function adversarialTable(run: AdversarialSeedsSummary, transport: string): string {
  const summary = run.first;
  const ids = summary.agents.map((agent) => agent.id);
  const adversaries = summary.agents.filter((agent) => agent.adversarial).map((agent) => agent.id);
  const ci = (interval: { mean: number; low: number; high: number }) =>
    `${percent(interval.mean)} [${percent(interval.low)}, ${percent(interval.high)}]`;
  const header = [
    'seed',
    'RAPS (decider)',
    'team view',
    'majority',
    'decider alone',
    'clean team',
    'honest only',
    'RAPS − honest',
    'adv < tau from',
  ];
  const widths = [6, 15, 10, 9, 14, 11, 12, 14, 14];
  const line = (cells: Array<string | number>) =>
    cells
      .map((cell, index) => pad(cell, widths[index] as number))
      .join(' ')
      .trimEnd();
  const lines = [
    `RAPS adversarial: ${ids.length} agents (${adversaries.length} adversarial: ${adversaries.join(', ')}), ${run.tasks} tasks per seed, seeds ${run.seeds[0]}..${run.seeds.at(-1)}, witness checks ${run.witness ? 'on' : 'off'}, witness credibility ${run.witnessCredibility}, recovery ${run.recovery === 1 ? 'off' : run.recovery}, ${run.additions ? 'with our additions' : 'plain RAPS (no additions)'}, transport ${transport}`,
    `RAPS decides by ${summary.decider}'s watchdog (a known-honest agent); team view = the same run decided by the mean peer reputation; honest only = the ${ids.length - adversaries.length} honest agents alone, same protocol`,
    '',
    line(header),
    ...run.perSeed.map((row) =>
      line([
        row.seed,
        percent(row.accuracy),
        percent(row.teamViewAccuracy),
        percent(row.majorityAccuracy),
        percent(row.deciderAloneAccuracy),
        percent(row.cleanAccuracy),
        percent(row.honestOnlyAccuracy),
        `${(100 * (row.accuracy - row.honestOnlyAccuracy)).toFixed(1)}`,
        row.adversariesBelowTauFromRound ?? 'never',
      ]),
    ),
    '',
    `${pad('mean [95% t-interval over seeds]', 34)}`,
    `${pad('  RAPS (decider)', 34)} ${ci(run.average.accuracy)}`,
    `${pad('  RAPS, team view (no decider)', 34)} ${ci(run.average.teamView)}`,
    `${pad('  plain majority', 34)} ${ci(run.average.majority)}`,
    `${pad('  decider alone', 34)} ${ci(run.average.deciderAlone)}`,
    `${pad('  clean team (no adversary)', 34)} ${ci(run.average.clean)}`,
    `${pad('  honest-only ceiling', 34)} ${ci(run.average.honestOnly)}`,
    `${pad('  RAPS − honest only (paired)', 34)} ${(100 * run.average.gapToHonestOnly.mean).toFixed(1)} points [${(100 * run.average.gapToHonestOnly.low).toFixed(1)}, ${(100 * run.average.gapToHonestOnly.high).toFixed(1)}]`,
    `${pad('  within 2 points of honest only', 34)} ${run.withinTwoPointsOfHonestOnly ? 'yes' : 'no'}`,
    '',
    `seed ${summary.seed}: reputation per round in ${summary.decider}'s eyes (E[j]; ${summary.decider} itself = 1):`,
    `${pad('round', 6)} ${pad('task', 9)} ${ids.map((id) => pad(id, 8)).join(' ')}`,
  ];
  const rows = summary.reputationPerRound;
  rows.forEach((row, index) => {
    if (index < 8 || index % 10 === 9 || index === rows.length - 1)
      lines.push(
        `${pad(row.round, 6)} ${pad(row.taskId, 9)} ${ids.map((id) => pad((row.reputation[id] as number).toFixed(3), 8)).join(' ')}`,
      );
    else if (index === 8) lines.push('...');
  });
  return lines.join('\n');
}

function scalingTable(
  rows: readonly ScalingRow[],
  tasks: number,
  seed: number,
  transport: string,
  additions: boolean,
  witnessCredibility: 'separate' | 'shared',
): string {
  const header = [
    'agents',
    'k',
    'adv',
    'rounds',
    'routed/rd',
    'broadcast/rd',
    'audits/rd',
    'audits/rd(bc)',
    'acc routed',
    'acc broadcast',
    'witness/rd',
    'refused adv/honest',
  ];
  const widths = [7, 3, 4, 7, 10, 13, 10, 14, 11, 14, 11, 18];
  const line = (cells: Array<string | number>) =>
    cells.map((cell, index) => pad(cell, widths[index] as number)).join(' ');
  return [
    `RAPS scaling: top-k routing vs broadcast, 20% adversaries, ${additions ? 'with our additions (k = max(3, ceil(log2 n)) with floor(k/3) coverage slots, trusted attention, informed team view)' : 'plain RAPS (top-3, no additions)'}, ${tasks} tasks, seed ${seed}, witness credibility ${witnessCredibility}, transport ${transport}`,
    '',
    line(header),
    ...rows.map((row) =>
      line([
        row.agents,
        row.topK,
        row.adversaries,
        row.rounds,
        row.routedPerRound.toFixed(1),
        row.broadcastPerRound.toFixed(1),
        row.auditsPerRound.toFixed(1),
        row.broadcastAuditsPerRound.toFixed(1),
        percent(row.accuracy),
        percent(row.broadcastAccuracy),
        row.witnessChecksPerRound.toFixed(1),
        `${row.witnessRejected.adversarial}/${row.witnessRejected.honest}`,
      ]),
    ),
  ].join('\n');
}

function codeReviewTable(review: CodeReviewSummary, transport: string): string {
  const lines = [
    `RAPS code-review: 5 reviewers on the built-in diff, transport ${transport}`,
    '',
    `${pad('reviewer', 15)} ${pad('reputation', 11)} ${pad('findings', 9)} status`,
  ];
  for (const entry of review.reviews)
    lines.push(
      `${pad(entry.agent, 15)} ${pad(entry.reputation.toFixed(3), 11)} ${pad(entry.findings.length, 9)} ${entry.status}`,
    );
  lines.push('', `consensus findings (${review.consensus_findings.length}):`);
  for (const finding of review.consensus_findings)
    lines.push(
      `  ${finding.file}:${finding.line} [${finding.category}] ${finding.message} (by ${finding.reported_by.join(', ')})`,
    );
  return lines.join('\n');
}

function paperSettingTable(result: RapsPaperSettingResult): string {
  const percent = (value: number) => `${(100 * value).toFixed(1)}%`;
  const interval = (value: { mean: number; low: number; high: number }) =>
    `${percent(value.mean)} [${percent(value.low)}, ${percent(value.high)}]`;
  const { average } = result;
  return [
    `RAPS adversarial, paper setting, on ${result.dataset}: ${result.team.length} replayed agents (${result.team.filter((agent) => agent.adversarial).length} adversarial), ${result.tasks} held-out tasks per seed, seeds ${result.seeds[0]}..${result.seeds.at(-1)}; decision by the team view (no self-weight)`,
    ...result.team.map(
      (agent) =>
        `  ${agent.id.padEnd(8)} ${agent.model} (${percent(agent.accuracy)} on the drawn tasks)${agent.adversarial ? ', adversarial: publishes the most common wrong answer, audits as its model' : ''}`,
    ),
    'mean [95% t-interval over seeds]',
    `  RAPS (team view)                 ${interval(average.accuracy)}`,
    `  RAPS decided by agent-1's view   ${interval(average.decider)}`,
    `  plain majority                   ${interval(average.majority)}`,
    `  clean team (no adversary)        ${interval(average.clean)}`,
    `  honest-only ceiling              ${interval(average.honestOnly)}`,
    `  ${result.team[0]?.model ?? 'agent-1'} alone  ${interval(average.firstHonestAlone)}`,
    `  RAPS − honest only (paired)      ${(100 * average.gapToHonestOnly.mean).toFixed(1)} points [${(100 * average.gapToHonestOnly.low).toFixed(1)}, ${(100 * average.gapToHonestOnly.high).toFixed(1)}]`,
    `  the RAPS paper under attack      ${percent(result.paperFigure)}`,
  ].join('\n');
}
