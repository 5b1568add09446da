// Runs a bench script bundled with esbuild on plain node, as the built package runs (under tsx every
// lazy require inside Node's fetch goes through the loader thread and costs ms). Each run writes its
// own bundle, `node_modules/.cache/repute/<script>-<pid>.mjs` (inside the repository, so that the
// bundle's external packages resolve from node_modules), and removes it when the script exits: two
// runs at once no longer overwrite each other's bundle (one fixed path did).
// Run: tsx bench/run-bundled.ts bench/serve.ts [arguments of the script]   (npm run bench:serve -- ...)
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { constants } from 'node:os';
import { basename, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const [entry, ...args] = process.argv.slice(2);
if (entry === undefined) {
  process.stderr.write('usage: tsx bench/run-bundled.ts <script.ts> [arguments of the script]\n');
  process.exit(2);
}
const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const cache = join(root, 'node_modules', '.cache', 'repute');
mkdirSync(cache, { recursive: true });
const bundle = join(cache, `${basename(entry, extname(entry))}-${process.pid}.mjs`);
const remove = () => rmSync(bundle, { force: true });
process.on('exit', remove);

try {
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile: bundle,
    logLevel: 'warning',
  });
} catch {
  // esbuild has printed the errors.
  process.exit(1);
}
const child = spawn(process.execPath, [bundle, ...args], { stdio: 'inherit' });
// Ctrl-C reaches the child through the terminal's process group; a SIGTERM sent to this launcher alone
// is passed on. Either way the launcher waits for the child, then removes the bundle.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  });
child.on('exit', (code, signal) => {
  remove();
  // A child ended by a signal exits as a shell reports it: 128 + the signal's number.
  process.exit(code ?? 128 + (signal === null ? 0 : constants.signals[signal]));
});
