// `repute zoo [path,path...]`: every method on many team shapes and sizes, clean and attacked.
import { defineCommand } from 'citty';
import { availableReplayMethodNames } from '../../eval/replay/methods.js';
import { splitChoices, type SplitChoice } from '../../eval/replay/prepare.js';
import { attackNames, type AttackName } from '../../eval/replay/types.js';
import { runZoo, zooMethodNames, zooSizes } from '../../eval/zoo/run-zoo.js';
import { formatZooTable } from '../../eval/zoo/summarise-zoo.js';
import { writeZooOutputs } from '../../eval/zoo/write-zoo-outputs.js';
import {
  recordedShapeNames,
  simulatedShapeNames,
  type RecordedShapeName,
  type SimulatedShapeName,
} from '../../eval/zoo/zoo-teams.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { createProgressBar, parseIntegerFlag, parseListFlag } from './_shared.js';
import { parseSeedsFlag } from './replay.js';

/** The quick default and `--full`: sizes, seeds, tasks per team and attacks. */
const modes = {
  quick: { sizes: [3, 4, 5, 7, 10], seeds: [1, 2, 3], tasks: 100, attacks: ['STRONG'] as AttackName[] },
  full: { sizes: [...zooSizes], seeds: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], tasks: 200, attacks: [...attackNames] },
};

export default defineCommand({
  meta: {
    name: 'zoo',
    description:
      'Team zoo: every method on many team shapes and sizes (recorded datasets and simulated profiles), clean and attacked, with the team best member; a table, zoo.json and zoo.html.',
  },
  args: {
    paths: {
      type: 'positional',
      description:
        'Recorded datasets, comma-separated (directories or proposals .jsonl); none runs the simulated profiles only',
      required: false,
    },
    full: {
      type: 'boolean',
      description: `Every size (${zooSizes.join(',')}), seeds 1..10, 200 tasks per team, all 7 attacks (default: sizes 3,4,5,7,10, seeds 1..3, 100 tasks, STRONG)`,
      default: false,
    },
    sizes: { type: 'string', description: 'Comma-separated team sizes (each >= 3)', valueHint: 'LIST' },
    seeds: {
      type: 'string',
      description: 'Seeds, e.g. 1..10 (tune on 101..105 with --split tuning)',
      valueHint: 'LIST',
    },
    tasks: { type: 'string', description: 'Tasks per team and seed', valueHint: 'N' },
    split: {
      type: 'string',
      description: `Tasks to sample (${splitChoices.join('|')})`,
      default: 'heldout',
    },
    attacks: { type: 'string', description: `Comma-separated attacks (${attackNames.join(',')})`, valueHint: 'LIST' },
    shapes: {
      type: 'string',
      description: `Recorded team shapes (${recordedShapeNames.join(',')})`,
      valueHint: 'LIST',
    },
    profiles: {
      type: 'string',
      description: `Simulated profiles (${simulatedShapeNames.join(',')})`,
      valueHint: 'LIST',
    },
    simulated: {
      type: 'boolean',
      description: 'Run the simulated profiles and the issue 36 teams (--no-simulated skips them)',
      default: true,
    },
    methods: {
      type: 'string',
      description: `Comma-separated methods (default: ${zooMethodNames.join(',')})`,
      valueHint: 'LIST',
    },
    feedback: { type: 'string', description: 'Post-task feedback (consensus|truth)', default: 'consensus' },
    out: { type: 'string', description: 'Directory for zoo.json and zoo.html', default: 'zoo-out', valueHint: 'DIR' },
    json: { type: 'boolean', description: 'Print zoo.json to stdout instead of the table', default: false },
  },
  async run({ args }) {
    const mode = args.full ? modes.full : modes.quick;
    const feedback = parseListFlag('feedback', args.feedback, ['consensus', 'truth'] as const, ['consensus'])[0];
    if (feedback === undefined || args.feedback.includes(','))
      throw new InvalidArgumentError({
        parameter: '--feedback',
        value: args.feedback,
        message: `--feedback takes one of consensus, truth, got ${JSON.stringify(args.feedback)}`,
      });
    const split = parseListFlag('split', args.split, splitChoices, ['heldout'])[0] as SplitChoice;
    const sizes =
      args.sizes === undefined || args.sizes === ''
        ? mode.sizes
        : args.sizes.split(',').map((size) => parseIntegerFlag('sizes', size.trim(), 3, 3, 10_000));
    const paths =
      args.paths === undefined || args.paths === ''
        ? []
        : String(args.paths)
            .split(',')
            .map((path) => path.trim())
            .filter((path) => path.length > 0);
    const progress = createProgressBar();
    const started = performance.now();
    const summary = await runZoo({
      datasets: paths,
      simulated: args.simulated !== false,
      sizes,
      seeds: args.seeds === undefined || args.seeds === '' ? mode.seeds : parseSeedsFlag(args.seeds),
      tasks:
        args.tasks === undefined || args.tasks === ''
          ? mode.tasks
          : parseIntegerFlag('tasks', args.tasks, mode.tasks, 1, Number.MAX_SAFE_INTEGER),
      split,
      attacks: parseListFlag('attacks', args.attacks, attackNames, mode.attacks),
      shapes: parseListFlag<RecordedShapeName>('shapes', args.shapes, recordedShapeNames, recordedShapeNames),
      profiles: parseListFlag<SimulatedShapeName>('profiles', args.profiles, simulatedShapeNames, simulatedShapeNames),
      methods: parseListFlag('methods', args.methods, availableReplayMethodNames, zooMethodNames),
      feedback,
      onProgress: (done, total, label) => {
        progress.update('zoo teams', done, total);
        // Off a terminal the bar prints only at the end; a long run also reports every 5 % of its teams.
        if (
          !process.stderr.isTTY &&
          done < total &&
          Math.floor((20 * done) / total) > Math.floor((20 * (done - 1)) / total)
        )
          process.stderr.write(`zoo: ${done}/${total} teams (${label})\n`);
      },
    });
    const files = await writeZooOutputs(String(args.out), summary);
    process.stderr.write(
      `zoo finished in ${((performance.now() - started) / 1000).toFixed(1)} s; wrote ${files.summary}, ${files.report}\n`,
    );
    process.stdout.write(args.json ? `${JSON.stringify(summary, null, 2)}\n` : formatZooTable(summary));
  },
});
