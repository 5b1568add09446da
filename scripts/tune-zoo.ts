// The tuning driver of the team zoo (issue 36): runs the MiniRep variants of scripts/_issue36-variants.ts
// beside the baselines on the zoo's teams, on the TUNING split only, and prints the zoo table with its
// headline (mean clean and attacked accuracy over the teams, worst clean gap to majority).
// Usage: npx tsx scripts/tune-zoo.ts [--seeds 101,102,103] [--sizes 3,4,5,7,10,20,40] [--tasks 100]
//          [--only name,name] [--no-simulated] [--json zoo.json] [dataset-dir,dataset-dir]
// Reported figures never come from here: the tuning split (FNV-1a of the task id divisible by 5) and
// the seeds 101–105 are disjoint from the held-out tasks and seeds 1..10 that docs and README report.
import { flag } from './_args.js';
import { writeFileSync } from 'node:fs';
import { issue36Variants } from './_issue36-variants.js';
import { assertKnownNames } from '../src/core/validate.js';
import { miniRepMethod } from '../src/eval/replay/methods.js';
import { runZoo } from '../src/eval/zoo/run-zoo.js';
import { formatZooTable } from '../src/eval/zoo/summarise-zoo.js';

const list = (value: string | undefined) =>
  value === undefined ? undefined : value.split(',').map((item) => item.trim());
const only = list(flag('--only'));
if (only !== undefined) assertKnownNames('--only', only, Object.keys(issue36Variants), 'issue 36 variant');
const variants = Object.entries(issue36Variants).filter(([name]) => only === undefined || only.includes(name));
const positional = process.argv
  .slice(2)
  .find((value, index, all) => !value.startsWith('--') && !all[index - 1]?.startsWith('--'));
const summary = await runZoo({
  datasets: list(positional) ?? [],
  simulated: !process.argv.includes('--no-simulated'),
  split: 'tuning',
  seeds: (list(flag('--seeds')) ?? ['101', '102', '103']).map(Number),
  sizes: (list(flag('--sizes')) ?? ['3', '4', '5', '7', '10', '20', '40']).map(Number),
  tasks: Number(flag('--tasks') ?? 100),
  methods: [
    'majority',
    'single-metric',
    'beta',
    'eigentrust',
    ...variants.map(([name, options]) => miniRepMethod(name, name, options)),
  ],
  onProgress: (done, total) => {
    if (done % 50 === 0 || done === total) process.stderr.write(`tune-zoo: ${done}/${total} teams\n`);
  },
});
const jsonOut = flag('--json');
if (jsonOut !== undefined) writeFileSync(jsonOut, `${JSON.stringify(summary)}\n`);
process.stdout.write(formatZooTable(summary));
