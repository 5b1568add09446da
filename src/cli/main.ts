import { defineCommand } from 'citty';
import { runCli } from './_contract.js';
import { packageVersion } from './version.js';

/** The `repute` command: subcommands load lazily, one file each in `cli/commands/`. */
export const main = defineCommand({
  meta: {
    name: 'repute',
    version: packageVersion(),
    description: 'Reputation-weighted teams of LLM agents (DRF, MiniRep, RAPS and classic trust baselines).',
  },
  subCommands: {
    replay: () => import('./commands/replay.js').then((module) => module.default),
    demo: () => import('./commands/demo.js').then((module) => module.default),
    run: () => import('./commands/run.js').then((module) => module.default),
    raps: () => import('./commands/raps.js').then((module) => module.default),
    drf: () => import('./commands/drf.js').then((module) => module.default),
    worker: () => import('./commands/worker.js').then((module) => module.default),
    serve: () => import('./commands/serve.js').then((module) => module.default),
    zoo: () => import('./commands/zoo.js').then((module) => module.default),
  },
});

/**
 * Runs the CLI on `process.argv` under the command-line contract of docs/cli.md (strict options,
 * one error line, exit codes 2 usage / 3 data / 4 provider or run failure / 130, 143 interrupted).
 *
 * @example
 * // bin/repute.js
 * runMain(); // `repute demo --tasks 20` prints the demo summary
 */
export function runMain(): Promise<void> {
  return runCli(main);
}
