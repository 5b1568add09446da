// Import time of the package root and of every subpath, from the built dist/ through the package's own
// `exports` (a script run from the package root resolves `repute/...` by self-reference, as a user's import
// would). Each sample is a fresh `node -e` process timing only the dynamic import (not node's start-up);
// printed: median and min wall ms, median CPU ms (user + system, less inflated by other load), modules loaded.
// Target: `import { createBetaModel } from 'repute/reputation'` <= 30 ms on an idle machine.
// Run: npm run build && npm run bench:import [-- --runs 10]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median } from './_median.js';

const root = process.cwd();
const runsFlag = process.argv.indexOf('--runs');
const runs = runsFlag === -1 ? 10 : Number(process.argv[runsFlag + 1]);
if (!Number.isInteger(runs) || runs < 1)
  throw new Error(`--runs must be a positive integer, got ${process.argv[runsFlag + 1]}`);
if (!existsSync(join(root, 'dist/index.js'))) {
  console.error('bench:import measures dist/; run `npm run build` first');
  process.exit(2);
}
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
const specifiers = Object.keys(manifest.exports)
  .filter((key) => key !== './package.json')
  .map((key) => (key === '.' ? 'repute' : `repute/${key.slice(2)}`));

// A load hook counts the modules each import pulls in (file: URLs only; node: built-ins are free).
const dir = mkdtempSync(join(tmpdir(), 'repute-bench-import-'));
// Removed however the script ends (normally or on a thrown error): top-level code has no finally.
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
const hooks = join(dir, 'hooks.mjs');
writeFileSync(
  hooks,
  `export async function load(url, context, next) { if (url.startsWith('file:')) process.stderr.write('LOADED\\n'); return next(url, context); }\n`,
);
const register = join(dir, 'register.mjs');
writeFileSync(
  register,
  `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
);

function run(specifier: string, extraArgs: string[] = []): { wall: number; cpu: number; stderr: string } {
  const script = `const cpu = process.cpuUsage(); const start = performance.now(); await import('${specifier}'); const used = process.cpuUsage(cpu); console.log((performance.now() - start).toFixed(2), ((used.user + used.system) / 1000).toFixed(2));`;
  const result = spawnSync(process.execPath, [...extraArgs, '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`import('${specifier}') exited with ${result.status}: ${result.stderr}`);
  const [wall, cpu] = result.stdout.trim().split(' ').map(Number);
  return { wall: wall as number, cpu: cpu as number, stderr: result.stderr };
}

console.log(`import time from dist/, ${runs} fresh processes per specifier (node ${process.version})`);
console.log(
  `${'specifier'.padEnd(20)} ${'median ms'.padStart(10)} ${'min ms'.padStart(8)} ${'CPU ms'.padStart(8)} ${'modules'.padStart(8)}`,
);
for (const specifier of ['data:text/javascript,export default 1', ...specifiers]) {
  const samples = Array.from({ length: runs }, () => run(specifier));
  const modules = run(specifier, ['--import', pathToFileURL(register).href])
    .stderr.split('\n')
    .filter((line) => line === 'LOADED').length;
  const label = specifier.startsWith('data:') ? '(empty module)' : specifier;
  const walls = samples.map((sample) => sample.wall);
  console.log(
    `${label.padEnd(20)} ${median(walls).toFixed(1).padStart(10)} ${Math.min(...walls)
      .toFixed(1)
      .padStart(8)} ${median(samples.map((sample) => sample.cpu))
      .toFixed(1)
      .padStart(8)} ${String(modules).padStart(8)}`,
  );
}
