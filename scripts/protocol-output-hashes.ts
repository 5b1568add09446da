// Prints the sha256 of the outputs that a refactor of the protocol part must leave byte-identical
// (issue 40's acceptance): `repute replay` summary.json on MATH-L5, `repute demo --json` without its
// wall time, `repute drf <experiment> --json`, `repute raps <scenario> --json`, and `repute run` on the
// toy team endpoint for each protocol (summary, decisions and events dumped from the store in a
// canonical order, without the timestamps that legitimately vary). Run it before and after a change:
//
//   npx tsx scripts/protocol-output-hashes.ts [--only run,demo,drf,raps,replay] [--keep DIR]
//
// The CLI runs from the sources (tsx), so no build is needed. The toy endpoint listens on a fixed
// port, so that the base URLs (part of each run's config and id) are the same from run to run.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { openStore } from '../src/store/store.js';
import { startToyTeamEndpoint } from '../src/testing/toy-team-endpoint.js';
import {
  toyColluders,
  toyHonest,
  toySloppy,
  toyTasks,
  writeToyTeam,
  type ToyMember,
} from '../src/testing/_test-toy-team.js';

const execute = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../', import.meta.url));

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    keep: { type: 'string' },
    port: { type: 'string', default: '47391' },
    // MATH-L5 of the shared data (a worktree elsewhere passes the path).
    data: { type: 'string', default: join(repoRoot, '../shared/data/zeroeval-math-l5') },
  },
});
const only = values.only === undefined ? undefined : new Set(values.only.split(','));
const wanted = (group: string) => only === undefined || only.has(group);

/** Runs `repute <args>` from the sources and returns its stdout (rejects on a non-zero exit). */
async function repute(...args: string[]): Promise<string> {
  const { stdout } = await execute(process.execPath, ['--import', 'tsx', 'src/cli/run-cli.ts', ...args], {
    cwd: repoRoot,
    maxBuffer: 256 * 1024 * 1024,
  });
  return stdout;
}

/** A JSON value with object keys sorted and every field named in `drop` removed, at any depth. */
function canonical(value: unknown, drop: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((item) => canonical(item, drop));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .filter((key) => !drop.has(key))
      .sort()
      .map((key) => [key, canonical((value as Record<string, unknown>)[key], drop)]),
  );
}

const outputs: Array<{ name: string; text: string }> = [];
function hash(name: string, text: string): void {
  outputs.push({ name, text });
  const digest = createHash('sha256').update(text).digest('hex');
  process.stdout.write(`${digest}  ${name}\n`);
}

/** Everything a run left in its store, in a canonical order, without timestamps. */
function dumpStore(path: string, workDir: string): string {
  const store = openStore({ path, readonly: true });
  const drop = new Set(['createdAt', 'updatedAt', 'startedAt', 'endedAt', 'latencyMs']);
  try {
    const runs = store.listRuns().map((run) => {
      const events = store
        .events(run.id)
        .map((event) => JSON.stringify(canonical(event, drop)))
        .sort();
      return {
        run: canonical(run, drop),
        results: store
          .taskResults(run.id)
          .map((record) => canonical(record, drop))
          .sort((left, right) => JSON.stringify(left).localeCompare(JSON.stringify(right))),
        failures: store.taskFailures(run.id).map((record) => canonical(record, drop)),
        events,
        usage: store
          .usageEntries({ runId: run.id })
          // Ledger row ids follow the order concurrent acts finish in.
          .map((entry) => JSON.stringify(canonical(entry, new Set([...drop, 'id']))))
          .sort(),
      };
    });
    return JSON.stringify(runs, null, 1).replaceAll(workDir, '<dir>');
  } finally {
    store.close();
  }
}

async function runProtocols(): Promise<void> {
  const tasks = toyTasks(6);
  const port = Number(values.port);
  const endpoint = await startToyTeamEndpoint({ tasks, port });
  const base = values.keep ?? mkdtempSync(join(tmpdir(), 'repute-hashes-'));
  try {
    const teams: Array<{ name: string; protocol: string; agents: ToyMember[]; methods?: string }> = [
      {
        name: 'debate',
        protocol: 'type: debate, rounds: 1',
        agents: [...toyHonest, toySloppy],
        methods: 'majority, minirep',
      },
      {
        name: 'drf',
        protocol: 'type: drf, k: 4, threshold: 0.5, defence: rater-credibility',
        agents: [...toyHonest, toySloppy, ...toyColluders],
      },
      {
        name: 'raps',
        protocol: 'type: raps, topK: 2, maxRounds: 2',
        agents: [...toyHonest, toySloppy, ...toyColluders],
      },
    ];
    for (const team of teams) {
      const dir = join(base, team.name);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const file = writeToyTeam(dir, {
        name: `${team.name}-team`,
        baseURL: endpoint.baseURL,
        tasks,
        protocol: team.protocol,
        agents: team.agents,
      });
      if (team.methods !== undefined)
        writeFileSync(file, readFileSync(file, 'utf8').replace('methods: [plurality]', `methods: [${team.methods}]`));
      const summary = await repute('run', file, '--json');
      hash(`run ${team.name} summary`, summary.replaceAll(dir, '<dir>'));
      hash(`run ${team.name} store`, dumpStore(join(dir, 'repute.db'), dir));
    }
  } finally {
    await endpoint.close();
    if (values.keep === undefined) rmSync(base, { recursive: true, force: true });
  }
}

if (wanted('run')) await runProtocols();
if (wanted('demo')) {
  const out = mkdtempSync(join(tmpdir(), 'repute-demo-'));
  const demo = JSON.parse(await repute('demo', '--json', '--tasks', '40', '--out', join(out, 'report.html')));
  hash('demo --json --tasks 40 (no wallTimeMs)', JSON.stringify(canonical(demo, new Set(['wallTimeMs'])), null, 2));
  rmSync(out, { recursive: true, force: true });
}
if (wanted('drf')) {
  hash('drf sign --seeds 3 --json', await repute('drf', 'sign', '--seeds', '3', '--json'));
  for (const experiment of ['collusion', 'capability'])
    hash(
      `drf ${experiment} --seeds 3 --tasks 30 --json`,
      await repute('drf', experiment, '--seeds', '3', '--tasks', '30', '--json'),
    );
}
if (wanted('raps')) {
  hash('raps adversarial --seeds 2 --json', await repute('raps', 'adversarial', '--seeds', '2', '--json'));
  hash('raps scaling --json', await repute('raps', 'scaling', '--json'));
}
if (wanted('replay')) {
  const out = mkdtempSync(join(tmpdir(), 'repute-replay-'));
  await repute('replay', values.data, '--tasks', '60', '--key-cache', 'none', '--out', out, '--json');
  hash('replay zeroeval-math-l5 --tasks 60 summary.json', readFileSync(join(out, 'summary.json'), 'utf8'));
  rmSync(out, { recursive: true, force: true });
}
if (values.keep !== undefined)
  for (const { name, text } of outputs)
    writeFileSync(join(values.keep, `${name.replace(/[^A-Za-z0-9.-]+/g, '_')}.txt`), text);
