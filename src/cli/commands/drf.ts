// `repute drf <experiment>`: runs one DRF experiment, prints its table, or its JSON with --json.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defineCommand } from 'citty';
import { InvalidArgumentError } from '../../core/errors.js';
import { definedOnly } from '../../core/options.js';
import { datasetFormats, type DatasetFormat } from '../../eval/proposals/format.js';
import { classEvalReplayData, defaultClassEvalGradesFile, gradeClassEval } from '../../eval/proposals/classeval.js';
import { loadDataset } from '../../eval/proposals/load-dataset.js';
import { runCapabilityExperiment } from '../../eval/drf-experiments/capability.js';
import { runCollusionExperiment } from '../../eval/drf-experiments/collusion.js';
import { runBudgetExperiment } from '../../eval/drf-experiments/budget.js';
import { runCostExperiment, type ReplayData } from '../../eval/drf-experiments/cost.js';
import { drfReplayConfigs } from '../../eval/drf-experiments/drf-config.js';
import {
  formatCapabilityTable,
  formatCollusionTable,
  formatBudgetTable,
  formatCostTable,
  formatSignTable,
} from '../../eval/drf-experiments/format.js';
import { runSignExperiment } from '../../eval/drf-experiments/sign.js';
import { runDrfTuning } from '../../eval/drf-experiments/tune.js';
import { defaultDataDir, parseFractionFlag, parseIntegerFlag, parseOptionalIntegerFlag } from './_shared.js';

/** Bounds of `--seeds` and `--tasks`, as in the other commands; every experiment needs 2 seeds for its intervals. */
const minSeeds = 2;
const maxSeeds = 10_000;
const maxTasks = 10_000;

const common = {
  seeds: { type: 'string', description: 'Number of seeds (independent runs), at least 2', valueHint: 'N' },
  seed: {
    type: 'string',
    description: 'First seed (seed i = seed + i); reported seeds are 1..20, tuning seeds 101..120',
    default: '1',
    valueHint: 'N',
  },
  json: { type: 'boolean', description: 'Print the results as JSON to stdout instead of the table', default: false },
} as const;

/** `--rating` of the replayed-answer experiments (cost, replay). */
const ratingArg = {
  type: 'enum' as const,
  options: ['agreement', 'judge'],
  description: "Ratings: agreement with the rater's own answer, or a simulated judge",
  default: 'agreement',
};

/** The experiments' `seeds` and `baseSeed` from the `--seeds` and `--seed` flags of {@link common}. */
function seedOptions(args: { seeds?: string | undefined; seed?: string | undefined }) {
  return {
    seeds: parseOptionalIntegerFlag('seeds', args.seeds, 20, minSeeds, maxSeeds),
    baseSeed: parseOptionalIntegerFlag('seed', args.seed, 1),
  };
}

/** Runs an experiment; errors go to the CLI contract (`repute drf <name>: <ErrorName>: <message>`, exit code by kind). */
async function guard(_name: string, body: () => Promise<void>): Promise<void> {
  await body();
}

function output(json: boolean, result: unknown, table: string): void {
  process.stdout.write(json ? `${JSON.stringify(result, null, 2)}\n` : `${table}\n`);
}

/** `--delta`: in (0, 1], since δ is also Eq. 7's increment coefficient, which must be positive (runDrf's bound). */
function parseDeltaFlag(value: string): number {
  const delta = parseFractionFlag('delta', value, 0.7);
  if (delta === 0)
    throw new InvalidArgumentError({
      parameter: '--delta',
      value,
      message: `--delta must be a number in (0, 1], got ${JSON.stringify(value)} (δ is also Eq. 7's increment coefficient, which must be positive); pass e.g. --delta 0.7`,
    });
  return delta;
}

const sign = defineCommand({
  meta: {
    name: 'sign',
    description:
      'Printed vs corrected Eq. 9 (cost sign) vs random selection: mean selected cost and accuracy (6 agents, 30 tasks, costs ~ U(0,1), delta 0.7)',
  },
  args: {
    ...common,
    delta: { type: 'string', description: 'Weight delta of reputation against cost, in (0, 1]', default: '0.7' },
    costs: {
      type: 'enum',
      options: ['per-round', 'per-agent'],
      description: 'Costs c_i^t ~ U(0,1) drawn per round (Section 5.1) or once per agent',
      default: 'per-round',
    },
  },
  run: ({ args }) =>
    guard('sign', async () => {
      const result = await runSignExperiment(
        definedOnly({
          ...seedOptions(args),
          delta: parseDeltaFlag(args.delta),
          costs: args.costs as 'per-round' | 'per-agent',
        }),
      );
      output(args.json, result, formatSignTable(result));
    }),
});

/**
 * A simulated-team experiment that takes only seeds and `--tasks` rounds per seed (collusion,
 * capability): the same flags, the same run, its own experiment and table.
 */
function defineRoundsCommand<Result>(experiment: {
  name: string;
  description: string;
  run: (options: { seeds?: number; baseSeed?: number; tasks?: number }) => Promise<Result>;
  format: (result: Result) => string;
}) {
  return defineCommand({
    meta: { name: experiment.name, description: experiment.description },
    args: {
      ...common,
      tasks: { type: 'string', description: 'Tasks (rounds) per seed', default: '60', valueHint: 'N' },
    },
    run: ({ args }) =>
      guard(experiment.name, async () => {
        const result = await experiment.run(
          definedOnly({ ...seedOptions(args), tasks: parseOptionalIntegerFlag('tasks', args.tasks, 60, 1, maxTasks) }),
        );
        output(args.json, result, experiment.format(result));
      }),
  });
}

const collusion = defineRoundsCommand({
  name: 'collusion',
  description:
    'Two low-capability agents rate each other 1 and everyone else 0: reputation and selection rate over rounds, without and with rater credibility',
  run: runCollusionExperiment,
  format: formatCollusionTable,
});

const capability = defineRoundsCommand({
  name: 'capability',
  description: "Spearman correlation between final reputation and each agent's hidden true accuracy",
  run: runCapabilityExperiment,
  format: formatCapabilityTable,
});

const cost = defineCommand({
  meta: {
    name: 'cost',
    description:
      'Replayed recorded answers: accuracy and LLM calls per task of DRF with k = 3, 4, 5 of 10 against the full team',
  },
  args: {
    ...common,
    data: {
      type: 'string',
      description: 'Dataset directory (default: $REPUTE_DATA_DIR or ../shared/data, + /zeroeval-math-l5)',
      valueHint: 'PATH',
    },
    tasks: { type: 'string', description: 'Tasks per seed (0 = all)', default: '0', valueHint: 'N' },
    format: {
      type: 'enum',
      options: [...datasetFormats],
      description: 'Format of --data (default: detected from its files)',
      valueHint: datasetFormats.join('|'),
    },
    rating: ratingArg,
    'judge-accuracy': {
      type: 'string',
      description: 'Accuracy of the simulated judge (with --rating judge)',
      default: '0.8',
    },
  },
  run: ({ args }) =>
    guard('cost', async () => {
      // Flags first: a bad flag fails before the dataset is read.
      const options = definedOnly({
        ...seedOptions(args),
        tasks: parseOptionalIntegerFlag('tasks', args.tasks, 100, 0, maxTasks),
        rating: args.rating as 'agreement' | 'judge',
        judgeAccuracy: parseFractionFlag('judge-accuracy', args['judge-accuracy'], 0.8),
      });
      const path = args.data ?? join(defaultDataDir(), 'zeroeval-math-l5');
      if (!existsSync(path))
        throw new InvalidArgumentError({
          parameter: '--data',
          value: path,
          message: `dataset not found at ${path}; pass --data <dir> or set REPUTE_DATA_DIR`,
        });
      const result = await runCostExperiment(
        await loadDataset(path, args.format as DatasetFormat | undefined),
        options,
      );
      output(args.json, result, formatCostTable(result));
    }),
});

const replayDatasets: Record<string, string> = {
  'math-l5': 'zeroeval-math-l5',
  gsm8k: 'zeroeval-gsm8k',
  classeval: 'classeval',
};

/** Recorded answers of a replay dataset; ClassEval's are graded first (sandbox, cached). */
async function loadReplayData(dataset: string, path: string, gradesFile: string): Promise<ReplayData> {
  if (dataset !== 'classeval') return loadDataset(path);
  const grading = await gradeClassEval({
    directory: path,
    cacheFile: gradesFile,
    onProgress: (done, total) => {
      if (done % 50 === 0 || done === total) process.stderr.write(`classeval: graded ${done}/${total} programs\n`);
    },
  });
  return classEvalReplayData(grading);
}

const replay = defineCommand({
  meta: {
    name: 'replay',
    description:
      "DRF's quality/efficiency claim on replayed answers: k = 2..5 of 10 against the full team, accuracy relative to the full team and share of calls (held-out tasks)",
  },
  args: {
    ...common,
    dataset: { type: 'positional', description: `Dataset: ${Object.keys(replayDatasets).join(' | ')}`, required: true },
    data: { type: 'string', description: 'Data root (default: $REPUTE_DATA_DIR or ../shared/data)', valueHint: 'PATH' },
    split: {
      type: 'enum',
      options: ['heldout', 'tuning', 'all'],
      description: 'Tasks of the declared split',
      default: 'heldout',
    },
    rating: ratingArg,
    costs: {
      type: 'enum',
      options: ['per-round', 'per-agent'],
      description: 'Cost term: U(0,1) per round (Section 5.1) or equal per agent',
      default: 'per-round',
    },
    budgets: {
      type: 'string',
      description: 'Call budgets per task for DRF against the baselines, comma-separated (default 3,4,5,6,8,10)',
      valueHint: 'B,B,...',
    },
    calls: {
      type: 'enum',
      options: ['batched', 'every'],
      description: 'Budget counting: one rating call per rater (batched) or per rating (every)',
      default: 'batched',
    },
    grades: {
      type: 'string',
      description:
        'classeval only: cache of the sandbox-graded outcomes (JSON Lines; default $XDG_CACHE_HOME/repute/classeval-grades.jsonl)',
      valueHint: 'FILE',
    },
  },
  run: ({ args }) =>
    guard('replay', async () => {
      const directory = replayDatasets[String(args.dataset)];
      if (directory === undefined)
        throw new InvalidArgumentError({
          parameter: 'dataset',
          value: args.dataset,
          message: `unknown dataset ${JSON.stringify(args.dataset)}; choose one of ${Object.keys(replayDatasets).join(', ')}`,
        });
      const options = definedOnly({
        ...seedOptions(args),
        split: args.split as 'heldout' | 'tuning' | 'all',
        rating: args.rating as 'agreement' | 'judge',
        costs: args.costs as 'per-round' | 'per-agent',
      });
      const path = join(args.data ?? defaultDataDir(), directory);
      if (!existsSync(path))
        throw new InvalidArgumentError({
          parameter: '--data',
          value: path,
          message: `dataset not found at ${path}; pass --data <root> or set REPUTE_DATA_DIR`,
        });
      const data = await loadReplayData(String(args.dataset), path, args.grades ?? defaultClassEvalGradesFile());
      const result = await runCostExperiment(data, { ...options, configs: drfReplayConfigs });
      const budget = await runBudgetExperiment(
        data,
        definedOnly({
          ...seedOptions(args),
          split: options.split,
          budgets: parseBudgetsFlag(args.budgets),
          callCounting: args.calls as 'batched' | 'every',
        }),
      );
      output(args.json, { ...result, budget }, `${formatCostTable(result)}\n\n${formatBudgetTable(budget)}`);
    }),
});

/** `--budgets 3,4,5`: calls per task, positive integers. */
function parseBudgetsFlag(value: string | undefined): number[] | undefined {
  if (value === undefined) return undefined;
  return value.split(',').map((part) => parseIntegerFlag('budgets', part.trim(), 0, 1, 1_000_000));
}

const tune = defineCommand({
  meta: {
    name: 'tune',
    description:
      'Chooses beta and the Eq. 7 coefficient on the tuning seeds (default 101..120) by Spearman(reputation, true accuracy) in the capability experiment',
  },
  args: {
    ...common,
    seed: { type: 'string', description: 'First tuning seed (seed i = seed + i)', default: '101', valueHint: 'N' },
  },
  run: ({ args }) =>
    guard('tune', async () => {
      const result = await runDrfTuning({
        seeds: parseIntegerFlag('seeds', args.seeds, 20, minSeeds, maxSeeds),
        baseSeed: parseIntegerFlag('seed', args.seed, 101),
      });
      output(
        args.json,
        result,
        `${formatCapabilityTable(result.capability)}\nbest on the tuning seeds: ${result.best.config} (Spearman ${result.best.spearman === null ? 'undefined in every seed' : result.best.spearman.mean.toFixed(3)})`,
      );
    }),
});

/** `repute drf <experiment>`: DRF's claims tested (sign, collusion, capability, cost). */
export default defineCommand({
  meta: {
    name: 'drf',
    description: 'DRF (dynamic reputation filtering) experiments: sign | collusion | capability | cost | replay | tune',
  },
  subCommands: { sign, collusion, capability, cost, replay, tune },
});
