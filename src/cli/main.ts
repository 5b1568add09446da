import { defineCommand, runMain as runCitty } from 'citty';
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
  },
});

/**
 * Runs the CLI on `process.argv`.
 *
 * @example
 * // bin/repute.js
 * runMain(); // `repute demo --tasks 20` prints the demo summary
 */
export function runMain(): void {
  void runCitty(main);
}
