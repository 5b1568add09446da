// `repute replay <path>`: the attack-replay benchmark on recorded proposals.
import { statSync } from 'node:fs';
import { defineCommand } from 'citty';
import type { DatasetFormat } from '../../eval/proposals/format.js';
import { datasetFormats } from '../../eval/proposals/format.js';
import { formatReplayTable } from '../../eval/replay/format-table.js';
import { availableReplayMethodNames, replayMethodNames } from '../../eval/replay/methods.js';
import { describeKinds, mixedKeyThreshold } from '../../eval/replay/audit-keys.js';
import { answerKinds } from '../../core/answers/answer-kind.js';
import { runReplay } from '../../eval/replay/run-replay.js';
import { defaultCacheDirectory } from '../../eval/replay/_answer-key-cache.js';
import { splitChoices, type SplitChoice } from '../../eval/replay/prepare.js';
import { allCompositionNames, compositionNames, feedbackModes, verifierModels } from '../../eval/replay/types.js';
import { writeReplayOutputs } from '../../eval/replay/write-replay-outputs.js';
import { createProgressBar, parseIntegerFlag, parseListFlag } from './_shared.js';
import { InvalidArgumentError } from '../../core/errors.js';

function parseChoice<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) {
    throw new InvalidArgumentError({
      parameter: `--${name}`,
      value,
      message: `--${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}; pass e.g. --${name} ${allowed[0]}`,
    });
  }
  return value as T;
}

const percent = (value: number | null) => (value === null ? 'n/a' : `${(100 * value).toFixed(1)}%`);

/** Parses `--seeds`: a comma-separated list of integers and inclusive ranges, e.g. `1..10` or `1..3,7`. */
export function parseSeedsFlag(value: string): number[] {
  const seeds: number[] = [];
  const parts = value.split(',').map((item) => item.trim());
  if (parts.every((part) => part.length === 0))
    throw new InvalidArgumentError({
      parameter: '--seeds',
      value,
      message: '--seeds lists no seed; pass e.g. --seeds 1..10',
    });
  // A safe integer, or an error naming the part as written (Number() rounds past 2^53, and a range
  // ending there never stopped: seed++ no longer grows).
  const seedOf = (text: string, part: string): number => {
    const seed = Number(text);
    if (!Number.isSafeInteger(seed))
      throw new InvalidArgumentError({
        parameter: '--seeds',
        value,
        message: `--seeds ${JSON.stringify(part)} is past the safe integers (at most ${Number.MAX_SAFE_INTEGER} in absolute value); pass e.g. --seeds 1..10`,
      });
    return seed;
  };
  for (const part of parts) {
    if (part.length === 0)
      throw new InvalidArgumentError({
        parameter: '--seeds',
        value,
        message: `--seeds has an empty entry in ${JSON.stringify(value)} (a doubled or trailing comma); pass e.g. --seeds 1,2 or --seeds 1..10`,
      });
    const range = /^(-?\d+)\.\.(-?\d+)$/.exec(part);
    if (range) {
      const from = seedOf(range[1] as string, part);
      const to = seedOf(range[2] as string, part);
      if (to < from || to - from > 10_000) {
        throw new InvalidArgumentError({
          parameter: '--seeds',
          value,
          message: `--seeds range ${JSON.stringify(part)} must run upwards and hold at most 10001 seeds; pass e.g. --seeds 1..10`,
        });
      }
      for (let seed = from; seed <= to; seed++) seeds.push(seed);
    } else if (/^-?\d+$/.test(part)) seeds.push(seedOf(part, part));
    else
      throw new InvalidArgumentError({
        parameter: '--seeds',
        value,
        message: `--seeds takes integers and ranges like 1..10 separated by commas, got ${JSON.stringify(part)}; pass e.g. --seeds 1..10`,
      });
  }
  if (new Set(seeds).size !== seeds.length)
    throw new InvalidArgumentError({
      parameter: '--seeds',
      value,
      message: `--seeds repeats a seed in ${JSON.stringify(value)}; list each seed once`,
    });
  return seeds;
}

/**
 * Checks `--key-cache DIR` before any work, as `--out` is: an existing path must be a directory (a
 * file there only failed the save after the whole grid, with a raw `EEXIST` in a warning).
 */
function checkKeyCacheDirectory(directory: string): void {
  let problem: string | undefined;
  try {
    const stats = statSync(directory, { throwIfNoEntry: false });
    if (stats !== undefined && !stats.isDirectory()) problem = 'exists and is not a directory';
  } catch (error) {
    // ENOTDIR: a file where a folder of the path should be. Other errors are left to the cache's own warning.
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') problem = 'a file in its path is not a directory';
  }
  if (problem !== undefined)
    throw new InvalidArgumentError({
      parameter: '--key-cache',
      value: directory,
      message: `--key-cache ${directory}: ${problem}; pass --key-cache <a writable directory>, or --key-cache none to run without the cache`,
    });
}

export default defineCommand({
  meta: {
    name: 'replay',
    description:
      'Attack-replay benchmark: replays recorded proposals under 7 attacks and compares majority, random-k, single-metric, beta, eigentrust, drf and minirep.',
  },
  args: {
    path: {
      type: 'positional',
      description: 'Dataset directory (zeroeval, mmlu-pro, mathvista) or Repute proposals .jsonl',
      required: true,
    },
    format: {
      type: 'string',
      description: `Dataset format (${datasetFormats.join('|')}); detected when omitted`,
      valueHint: 'FORMAT',
    },
    tasks: {
      type: 'string',
      description: 'Tasks sampled (seeded, fixed order), or all: every task of the split',
      default: '100',
      valueHint: 'N|all',
    },
    seed: { type: 'string', description: 'Seed of every random draw', default: '2027', valueHint: 'N' },
    seeds: {
      type: 'string',
      description:
        'Run the grid once per seed (e.g. 1..10 or 1,2,5) and report means with 95% bootstrap intervals; overrides --seed',
      valueHint: 'LIST',
    },
    split: {
      type: 'string',
      description: `Tasks to sample (${splitChoices.join('|')}): held-out (FNV-1a(id) % 5 != 0), tuning, or every task`,
      default: 'heldout',
    },
    compositions: {
      type: 'string',
      description: `Comma-separated team compositions (${allCompositionNames.join(',')}; default ${compositionNames.join(',')})`,
      valueHint: 'LIST',
    },
    feedback: {
      type: 'string',
      description: `Post-task feedback (${feedbackModes.join('|')}); default verifier with --verifier simulated, else consensus. --feedback verifier alone means --verifier simulated`,
    },
    verifier: {
      type: 'string',
      description:
        'Verifier judging every proposal (none|simulated|judge:<agent>): MiniRep reads its verdicts before aggregation, and they are the post-task feedback; judge:<agent> makes that recorded model the judge (right iff the answer equals its own) and takes it out of the pool; default none (simulated with --feedback verifier)',
      valueHint: 'KIND',
    },
    'verifier-model': {
      type: 'string',
      description: `Simulated verifier's error model (${verifierModels.join('|')}): correlated = one verdict per task and answer, errors rising with how many agents share a wrong answer and with the task's difficulty; independent = a draw per condition and proposal; default correlated`,
      valueHint: 'MODEL',
    },
    'verifier-sensitivity': {
      type: 'string',
      description: 'Simulated verifier (with --verifier simulated): P(judged wrong | wrong) in [0, 1]; default 0.85',
      valueHint: 'S',
    },
    'verifier-specificity': {
      type: 'string',
      description: 'Simulated verifier (with --verifier simulated): P(judged right | right) in [0, 1]; default 0.8',
      valueHint: 'P',
    },
    'verifier-accuracy': {
      type: 'string',
      description: 'Removed: use --verifier-sensitivity and --verifier-specificity',
      valueHint: 'A',
    },
    methods: {
      type: 'string',
      description: `Comma-separated methods (default: ${replayMethodNames.join(',')}, plus verifier-majority with a verifier; also minirep-veto, minirep-lo, minirep-ds, minirep-rt, minirep-es, minirep-ic, minirep-rt-ic-es, minirep-ds-ic-es, minirep-vb, minirep-vg, minirep-vg@SENS:SPEC with a declared verifier calibration)`,
      valueHint: 'LIST',
    },
    out: {
      type: 'string',
      description: 'Directory for summary.json, conditions.csv and report.html',
      default: 'replay-out',
      valueHint: 'DIR',
    },
    json: { type: 'boolean', description: 'Print summary.json to stdout instead of the table', default: false },
    workers: {
      type: 'string',
      description: 'Threads replaying conditions, this one included (default: min(2, cores))',
      valueHint: 'N',
    },
    kind: {
      type: 'string',
      description: `Answer kind for every task (${answerKinds.join('|')}), overriding what the dataset declares`,
      valueHint: 'KIND',
    },
    'strict-keys': {
      type: 'boolean',
      description: 'Exit 3 when more than 0.5% of (task, key) groups mix correct and wrong flags',
      default: false,
    },
    'key-cache': {
      type: 'string',
      description:
        'Directory of the answer-key cache (canonical keys, equivalences and scores saved for the next run of the same answer code; results do not depend on it), or none; default $REPUTE_CACHE_DIR, else $XDG_CACHE_HOME/repute, else ~/.cache/repute',
      valueHint: 'DIR|none',
    },
  },
  async run({ args, rawArgs }) {
    {
      const format =
        args.format === undefined || args.format === ''
          ? undefined
          : parseChoice('format', args.format, datasetFormats);
      if (args['verifier-accuracy'] !== undefined) {
        throw new InvalidArgumentError({
          parameter: '--verifier-accuracy',
          value: args['verifier-accuracy'],
          message: `--verifier-accuracy was replaced by --verifier-sensitivity (P(judged wrong | wrong)) and --verifier-specificity (P(judged right | right)); for the former accuracy ${args['verifier-accuracy']} pass --verifier simulated --verifier-sensitivity ${args['verifier-accuracy']} --verifier-specificity ${args['verifier-accuracy']}`,
        });
      }
      const feedback =
        args.feedback === undefined || args.feedback === ''
          ? undefined
          : parseChoice('feedback', args.feedback, feedbackModes);
      const kind =
        args.kind === undefined || args.kind === '' ? undefined : parseChoice('kind', args.kind, answerKinds);
      // none, simulated or judge:<agent>; runReplay checks the value and names what it accepts.
      const verifier =
        args.verifier === undefined || args.verifier === ''
          ? undefined
          : (args.verifier as 'none' | 'simulated' | `judge:${string}`);
      const verifierModel =
        args['verifier-model'] === undefined || args['verifier-model'] === ''
          ? undefined
          : parseChoice('verifier-model', args['verifier-model'], verifierModels);
      const rate = (name: 'verifier-sensitivity' | 'verifier-specificity'): number | undefined => {
        if (args[name] === undefined) return undefined;
        // Decimal notation only: Number() also reads 0x1 as 1 and ' ' as 0.
        const value = /^[+]?(\d+\.?\d*|\.\d+)$/.test(args[name]) ? Number(args[name]) : Number.NaN;
        if (!Number.isFinite(value) || value < 0 || value > 1) {
          throw new InvalidArgumentError({
            parameter: `--${name}`,
            value: args[name],
            message: `--${name} must be a number in [0, 1], got ${JSON.stringify(args[name])}; pass e.g. --${name} ${name === 'verifier-sensitivity' ? '0.85' : '0.8'}`,
          });
        }
        return value;
      };
      const verifierSensitivity = rate('verifier-sensitivity');
      const verifierSpecificity = rate('verifier-specificity');
      if (feedback === 'verifier' && verifier === undefined)
        process.stderr.write(
          'repute replay: --feedback verifier now means --verifier simulated (sensitivity and specificity from --verifier-sensitivity/--verifier-specificity)\n',
        );
      const keyCache = args['key-cache'] ?? defaultCacheDirectory();
      if (keyCache !== 'none') checkKeyCacheDirectory(keyCache);
      const tasks =
        args.tasks === 'all'
          ? ('all' as const)
          : parseIntegerFlag('tasks', args.tasks, 100, 1, Number.MAX_SAFE_INTEGER);
      const progress = createProgressBar();
      const started = performance.now();
      const report = await runReplay({
        path: String(args.path),
        ...(format === undefined ? {} : { format: format as DatasetFormat }),
        tasks,
        seed: parseIntegerFlag('seed', args.seed, 2027, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
        ...(args.seeds === undefined || args.seeds === '' ? {} : { seeds: parseSeedsFlag(args.seeds) }),
        split: parseChoice('split', args.split, splitChoices) as SplitChoice,
        compositions: parseListFlag('compositions', args.compositions, allCompositionNames, compositionNames),
        ...(feedback === undefined ? {} : { feedback }),
        // --feedback verifier without --verifier is the former flag: runReplay turns the simulated verifier on.
        ...(verifier === undefined ? {} : { verifier }),
        ...(verifierModel === undefined ? {} : { verifierModel }),
        ...(verifierSensitivity === undefined ? {} : { verifierSensitivity }),
        ...(verifierSpecificity === undefined ? {} : { verifierSpecificity }),
        methods: parseListFlag(
          'methods',
          args.methods,
          // minirep-vg@SENS:SPEC (a declared verifier calibration) is checked when the methods resolve.
          [
            ...availableReplayMethodNames,
            ...String(args.methods ?? '')
              .split(',')
              .filter((item) => item.startsWith('minirep-vg@')),
          ],
          replayMethodNames,
        ),
        ...(args.workers === undefined ? {} : { workers: parseIntegerFlag('workers', args.workers, 2, 1, 64) }),
        onProgress: (done, total) => progress.update('replay conditions', done, total),
        ...(kind === undefined ? {} : { kind }),
        strictKeys: Boolean(args['strict-keys']),
        ...(keyCache === 'none' ? {} : { keyCache }),
        onData: (data) => {
          const rate = data.keyGroups === 0 ? 0 : data.mixedKeys / data.keyGroups;
          process.stderr.write(`answer kind: ${describeKinds(data.kinds)} (${data.kindSource})\n`);
          if (rate > mixedKeyThreshold) {
            process.stderr.write(
              `warning: ${data.mixedKeys} of ${data.keyGroups} (task, key) groups (${(100 * rate).toFixed(2)}%) mix answers the dataset flags correct and wrong, so right answers can vanish in the merge; replay with --kind <${answerKinds.join('|')}> to key answers differently (--strict-keys makes this an error)\n`,
            );
          }
        },
      });
      if (report.keyCache !== undefined) {
        const use = report.keyCache;
        process.stderr.write(
          `answer keys: ${use.loaded} read from the cache, ${use.computed} computed${use.dropped > 0 ? `, ${use.dropped} of other runs dropped` : ''} (${use.file}; --key-cache none to skip it)\n`,
        );
        if (use.problem !== undefined) process.stderr.write(`warning: answer-key cache ${use.problem}\n`);
      }
      const { sampledTasks, splitTasks } = report.summary.data;
      // Only a --tasks the user typed (citty fills in the default 100, which is no request).
      const tasksGiven = rawArgs.some((token) => token === '--tasks' || token.startsWith('--tasks='));
      if (tasksGiven && tasks !== 'all' && sampledTasks < tasks)
        // The sample is capped at the split's size (documented); say so rather than replay fewer tasks unannounced.
        process.stderr.write(
          `warning: --tasks ${tasks} asks for more tasks than the ${splitTasks} of the ${report.summary.options.split} split; replayed all ${sampledTasks}${report.summary.options.split === 'all' ? '' : ' (--split all samples from every task)'}\n`,
        );
      const measured = report.summary.verifier?.measured;
      if (measured !== undefined)
        process.stderr.write(
          `verifier ${report.summary.verifier?.name}: measured sensitivity ${percent(measured.sensitivity)}, specificity ${percent(measured.specificity)} on the pool's ${Math.round(measured.wrong)} wrong and ${Math.round(measured.right)} right parseable proposals (mean over seeds)\n`,
        );
      const files = await writeReplayOutputs(String(args.out), report);
      const seconds = (performance.now() - started) / 1000;
      process.stderr.write(
        `replay finished in ${seconds.toFixed(1)} s (${report.timing.proposalsEvaluated} proposals evaluated); wrote ${files.summary}, ${files.conditions}, ${files.report}\n`,
      );
      process.stdout.write(
        args.json ? `${JSON.stringify(report.summary, null, 2)}\n` : formatReplayTable(report.summary),
      );
    }
  },
});
