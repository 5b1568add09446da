// npm run faults — the fault suite of docs/reliability.md as a command: every fault runs the real
// CLI (`repute run` / `repute serve`, from the sources through tsx) against local stub endpoints
// (src/testing/openai-compatible-server.ts) and is checked for its exit code, tasks lost and
// duplicated, requests repeated by the rerun, secrets seen (in requests to a host the user did not
// allow, in stdout, stderr and the store's bytes) and the process's peak memory (VmHWM, polled
// from /proc). Prints one table; `-- --write-docs` also writes it into docs/reliability.md between
// its `faults:begin` and `faults:end` markers. Exits 1 when a row is not green.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '../src/store/store.js';
import {
  startOpenAICompatibleServer,
  type OpenAICompatibleServer,
  type RecordedRequest,
  type ServerStep,
} from '../src/testing/openai-compatible-server.js';
import { sumReply } from '../src/testing/_test-sum-team.js';
import { temporaryDirectory } from '../src/testing/_test-temporary-directory.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const canary = 'sk-canary-5c1e9a7b3d2f4e60';
const GiB = 1024 ** 3;
const rssLimitMb = 300;

interface Row {
  readonly fault: string;
  readonly exit: string;
  readonly lost: number | '';
  readonly duplicated: number | '';
  readonly repeated: number | '';
  readonly secrets: number;
  readonly peakMb: number;
  readonly ok: boolean;
  readonly note: string;
}

interface Exit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly peakKb: number;
  readonly ms: number;
}

/** The peak resident set (VmHWM) of a live process in KiB, or 0 once it is gone. */
function peakOf(pid: number | undefined): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** Runs `repute <args>` to its end, polling its peak memory; `onStart` may signal it. */
function cli(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  onStart?: (child: ReturnType<typeof spawn>, output: () => string) => void,
): Promise<Exit> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/run-cli.ts', ...args], { cwd: root, env });
    let stdout = '';
    let stderr = '';
    let peakKb = 0;
    const poll = setInterval(() => {
      peakKb = Math.max(peakKb, peakOf(child.pid));
    }, 20);
    child.stdout.on('data', (chunk) => {
      stdout += String(chunk);
    });
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    child.on('close', (code, signal) => {
      clearInterval(poll);
      resolve({
        code: code ?? (signal === 'SIGTERM' ? 143 : signal === 'SIGKILL' ? 137 : null),
        stdout,
        stderr,
        peakKb,
        ms: performance.now() - started,
      });
    });
    onStart?.(child, () => stdout + stderr);
  });
}

/** Every stub endpoint started, closed at the end. */
const servers = new Set<OpenAICompatibleServer>();
const endpoint = (script: (request: RecordedRequest, index: number) => ServerStep | string, port = 0) =>
  startOpenAICompatibleServer({ script, port }).then((server) => servers.add(server) && server);

interface Setup {
  readonly dir: string;
  readonly team: string;
}

/** Three agents on one endpoint, `tasks` sums, majority with one debate round (24 calls for 4 tasks). */
function setup(
  baseURL: string,
  options: {
    tasks?: number;
    timeoutMs?: number;
    maxRetries?: number;
    apiKeyEnv?: string;
    cache?: boolean;
    agents?: readonly string[];
  } = {},
): Setup {
  const dir = temporaryDirectory('repute-faults-');
  const count = options.tasks ?? 4;
  writeFileSync(
    join(dir, 'tasks.jsonl'),
    `${Array.from({ length: count }, (_, index) => JSON.stringify({ id: `t${index + 1}`, prompt: `What is ${index + 10} + ${2 * index + 3}?`, kind: 'number', reference: String(3 * index + 13) })).join('\n')}\n`,
  );
  const agents = (options.agents ?? ['a', 'b', 'c'])
    .map(
      (id) =>
        `  - id: ${id}\n    provider: openai-compatible\n    model: model-${id}\n    baseURL: ${baseURL}${options.apiKeyEnv === undefined ? '' : `\n    apiKeyEnv: ${options.apiKeyEnv}`}`,
    )
    .join('\n');
  const team = join(dir, 'team.yaml');
  writeFileSync(
    team,
    `name: fault-team\ntasks: tasks.jsonl\nstore: repute.db\nmethods: [majority]\nprotocol: { type: debate, rounds: 1 }\ncache: ${options.cache === false ? 'off' : 'record'}\ntimeoutMs: ${options.timeoutMs ?? 10_000}\nmaxRetries: ${options.maxRetries ?? 2}\nagents:\n${agents}\n`,
  );
  return { dir, team };
}

/** Tasks lost (no result) and duplicated (two results, or votes beyond one per task) in the store. */
function audit({ dir }: Setup, tasks: number): { lost: number; duplicated: number } {
  const store = openStore({ path: join(dir, 'repute.db'), readonly: true });
  try {
    const run = store.listRuns()[0];
    if (run === undefined) return { lost: tasks, duplicated: 0 };
    const results = store.taskResults(run.id).map((record) => record.taskId);
    const votes = store.events(run.id, { type: 'vote' }).length;
    return {
      lost: tasks - new Set(results).size,
      duplicated: results.length - new Set(results).size + Math.max(0, votes - results.length),
    };
  } finally {
    store.close();
  }
}

/** Occurrences of the secret in outputs and in the store's bytes (database and WAL). */
function secretsIn(secret: string, exits: readonly Exit[], dir?: string): number {
  let seen = exits.filter((exit) => (exit.stdout + exit.stderr).includes(secret)).length;
  if (dir !== undefined)
    for (const file of ['repute.db', 'repute.db-wal']) {
      const path = join(dir, file);
      if (existsSync(path) && readFileSync(path).toString('latin1').includes(secret)) seen++;
    }
  return seen;
}

const mb = (kb: number) => Math.round(kb / 1024);
const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  REPUTE_CANARY_API_KEY: canary,
  REPUTE_ALLOW_ENV: 'REPUTE_CANARY_API_KEY',
  NO_COLOR: '',
  ...extra,
});
const requestKey = (request: RecordedRequest) => JSON.stringify(request.body);

const rows: Row[] = [];

/** A row of a fault with one run and no rerun (nothing to lose, duplicate or repeat). */
function singleRun(
  fault: string,
  exit: Exit,
  dir: string,
  ok: boolean,
  note: string,
  exitText = String(exit.code),
): Row {
  return {
    fault,
    exit: exitText,
    lost: '',
    duplicated: '',
    repeated: '',
    secrets: secretsIn(canary, [exit], dir),
    peakMb: mb(exit.peakKb),
    ok,
    note,
  };
}
function record(row: Row): void {
  rows.push(row);
  process.stderr.write(`${row.ok ? 'ok  ' : 'FAIL'} ${row.fault}: ${row.note}\n`);
}

/** A team file from someone else sends a well-known credential to its own host. */
async function foreignCredential(variable: string): Promise<void> {
  const collector = await endpoint((request) => sumReply(request));
  const s = setup(collector.baseURL, { apiKeyEnv: variable, tasks: 2 });
  const secret = `${canary}-${variable}`;
  const { REPUTE_ALLOW_ENV: _none, ...rest } = env();
  const exit = await cli(['run', s.team, '--json'], { ...rest, [variable]: secret });
  const sent = collector.requests.filter((request) => String(request.headers.authorization).includes(secret)).length;
  const secrets = sent + secretsIn(secret, [exit], s.dir);
  record({
    fault: `team file sends ${variable} to its own host`,
    exit: String(exit.code),
    lost: '',
    duplicated: '',
    repeated: '',
    secrets,
    peakMb: mb(exit.peakKb),
    ok:
      exit.code === 3 &&
      collector.requestCount === 0 &&
      secrets === 0 &&
      exit.stderr.includes(`--allow-env ${variable}`),
    note: `${collector.requestCount} requests received; refused naming the rule and --allow-env`,
  });
}

/** A first run under a fault, then the same command once the fault is gone. */
async function faultThenRerun(
  fault: string,
  options: {
    script: (request: RecordedRequest, index: number, healed: boolean) => ServerStep | string;
    expectFirst: number;
    maxRetries?: number;
    timeoutMs?: number;
    down?: boolean;
    signalAfter?: { text: string; signal: NodeJS.Signals };
  },
): Promise<void> {
  let healed = false;
  let server = await endpoint((request, index) => options.script(request, index, healed));
  const s = setup(server.baseURL, {
    ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  const port = Number(new URL(server.baseURL).port);
  if (options.down === true) await server.close();
  const first = await cli(['run', s.team, '--json'], env(), (child, output) => {
    if (options.signalAfter === undefined) return;
    const { text, signal } = options.signalAfter;
    const timer = setInterval(() => {
      if (output().includes(text) || committed(s) >= 2) {
        clearInterval(timer);
        child.kill(signal);
      }
    }, 20);
    child.on('close', () => clearInterval(timer));
  });
  const sentBefore = new Set(server.requests.map(requestKey));
  healed = true;
  if (options.down === true) server = await endpoint((request, index) => options.script(request, index, true), port);
  const countBefore = server.requestCount;
  const rerun = await cli(['run', s.team, '--json'], env());
  const repeated = server.requests.slice(countBefore).filter((request) => sentBefore.has(requestKey(request))).length;
  const { lost, duplicated } = audit(s, 4);
  const secrets =
    secretsIn(canary, [first, rerun], s.dir) +
    server.requests.filter((request) => JSON.stringify(request.body).includes(canary)).length;
  record({
    fault,
    exit: `${first.code} → ${rerun.code}`,
    lost,
    duplicated,
    repeated,
    secrets,
    peakMb: mb(Math.max(first.peakKb, rerun.peakKb)),
    ok: first.code === options.expectFirst && rerun.code === 0 && lost === 0 && duplicated === 0 && secrets === 0,
    note: `first run exit ${first.code}, rerun exit ${rerun.code}, ${countBefore} + ${server.requestCount - countBefore} requests`,
  });
}

function committed(s: Setup): number {
  try {
    const store = openStore({ path: join(s.dir, 'repute.db'), readonly: true });
    try {
      return store.listRuns().reduce((sum, run) => sum + store.taskResults(run.id).length, 0);
    } finally {
      store.close();
    }
  } catch {
    return 0;
  }
}

/** Prose-only replies: answers read from the prose, no task failed. */
async function proseReplies(): Promise<void> {
  const server = await endpoint((request) => {
    const match = /What is (\d+) \+ (\d+)\?/.exec(JSON.stringify(request.body));
    const sum = match ? Number(match[1]) + Number(match[2]) : 0;
    return `Adding the two numbers gives ${sum}, so the result is ${sum}.`;
  });
  const s = setup(server.baseURL);
  const exit = await cli(['run', s.team, '--json'], env());
  const summary = exit.code === 0 ? JSON.parse(exit.stdout) : undefined;
  const { lost, duplicated } = audit(s, 4);
  record({
    fault: 'every reply in prose (no JSON)',
    exit: String(exit.code),
    lost,
    duplicated,
    repeated: '',
    secrets: secretsIn(canary, [exit], s.dir),
    peakMb: mb(exit.peakKb),
    ok: exit.code === 0 && summary?.methods?.majority?.accuracy === 1 && lost === 0,
    note: `accuracy ${summary?.methods?.majority?.accuracy ?? 'n/a'}, ${server.requestCount} requests (24 acts)`,
  });
}

/** One agent answers garbage (no number, also after the repair prompt); then it is fixed. */
async function garbageThenFixed(): Promise<void> {
  let fixed = false;
  const server = await endpoint((request) =>
    !fixed && JSON.stringify(request.body).includes('You are agent c,')
      ? 'lorem ipsum dolor sit amet'
      : sumReply(request),
  );
  const s = setup(server.baseURL);
  const first = await cli(['run', s.team, '--json', '--max-failures', '10'], env());
  const summary = first.stdout.length > 0 ? JSON.parse(first.stdout) : undefined;
  const sentBefore = new Set(server.requests.map(requestKey));
  fixed = true;
  const countBefore = server.requestCount;
  const rerun = await cli(['run', s.team, '--json'], env());
  const { lost, duplicated } = audit(s, 4);
  const repeated = server.requests.slice(countBefore).filter((request) => sentBefore.has(requestKey(request))).length;
  record({
    fault: 'agent c answers garbage, then is fixed',
    exit: `${first.code} → ${rerun.code}`,
    lost,
    duplicated,
    repeated,
    secrets: secretsIn(canary, [first, rerun], s.dir),
    peakMb: mb(Math.max(first.peakKb, rerun.peakKb)),
    ok: first.code === 4 && rerun.code === 0 && lost === 0 && duplicated === 0 && summary?.badReplies?.c === 8,
    note: `bad replies ${JSON.stringify(summary?.badReplies ?? {})}; the rerun re-asks c (never cached: repeated = c's calls)`,
  });
}

/** A 2 GiB reply body to `repute run`. */
async function hugeReplyRun(): Promise<void> {
  const server = await endpoint(() => ({ type: 'huge', bytes: 2 * GiB }));
  const s = setup(server.baseURL, { tasks: 1, agents: ['a'] });
  const exit = await cli(['run', s.team, '--json', '--max-failures', '1'], env());
  record(
    singleRun(
      '2 GiB reply body (run)',
      exit,
      s.dir,
      exit.code === 4 && exit.stderr.includes('answered a reply over maxResponseBytes') && mb(exit.peakKb) < rssLimitMb,
      `refused at the 1 MiB default in ${(exit.ms / 1000).toFixed(1)} s (process start included); ${server.requestCount} request (not retried)`,
    ),
  );
}

/** A 2 GiB reply body behind `repute serve`'s team endpoint. */
async function hugeReplyServe(): Promise<void> {
  const upstream = await endpoint(() => ({ type: 'huge', bytes: 2 * GiB }));
  const s = setup(upstream.baseURL, { tasks: 1, agents: ['a', 'b'] });
  let status = 0;
  const exit = await cli(['serve', s.team, '--port', '0'], env(), (child, output) => {
    const timer = setInterval(async () => {
      const url = /^(http:\/\/\S+)$/m.exec(output())?.[1];
      if (url === undefined) return;
      clearInterval(timer);
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'team:fault-team', messages: [{ role: 'user', content: 'What is 2 + 2?' }] }),
      }).catch(() => undefined);
      status = response?.status ?? 0;
      await response?.text().catch(() => '');
      child.kill('SIGTERM');
    }, 50);
  });
  record(
    singleRun(
      '2 GiB reply body (serve, team endpoint)',
      exit,
      s.dir,
      status >= 500 && exit.code === 143 && mb(exit.peakKb) < rssLimitMb,
      `the request failed with HTTP ${status} instead of reading 2 GiB; ${upstream.requestCount} upstream requests`,
      `HTTP ${status}, then ${exit.code}`,
    ),
  );
}

/**
 * Every endpoint hangs: how long one task takes to fail, against 1.2 × timeout × attempts. The task
 * starts when its first request reaches the endpoint and has failed when the run records its failure
 * (the store's clock, the same wall clock); the process's start and exit are not the task's.
 */
async function everyEndpointHangs(): Promise<void> {
  const timeoutMs = 3000;
  const maxRetries = 1;
  let firstRequestAt = 0;
  const server = await endpoint(() => {
    if (firstRequestAt === 0) firstRequestAt = Date.now();
    return { type: 'hang' };
  });
  const s = setup(server.baseURL, { tasks: 1, timeoutMs, maxRetries });
  const exit = await cli(['run', s.team, '--json', '--max-failures', '1'], env());
  const failedAt = failureTime(s);
  const taskMs = failedAt === undefined || firstRequestAt === 0 ? Number.POSITIVE_INFINITY : failedAt - firstRequestAt;
  const bound = 1.2 * timeoutMs * (maxRetries + 1);
  record(
    singleRun(
      `every endpoint hangs (timeout ${timeoutMs / 1000} s × ${maxRetries + 1} attempts)`,
      exit,
      s.dir,
      exit.code === 4 && taskMs <= bound && server.requestCount === 3 * (maxRetries + 1),
      `task failed ${(taskMs / 1000).toFixed(2)} s after its first request (bound ${(bound / 1000).toFixed(1)} s; process ${(exit.ms / 1000).toFixed(1)} s from start to exit), ${server.requestCount} requests: no revision round`,
    ),
  );
}

/** When the run recorded its first task failure (ms, the store's wall clock), or `undefined`. */
function failureTime({ dir }: Setup): number | undefined {
  const store = openStore({ path: join(dir, 'repute.db'), readonly: true });
  try {
    const run = store.listRuns()[0];
    return run === undefined ? undefined : store.taskFailures(run.id)[0]?.createdAt;
  } finally {
    store.close();
  }
}

/** SIGTERM to `repute serve` while a team request is in flight. */
async function serveDrain(): Promise<void> {
  const upstream = await endpoint(() => ({ type: 'reply', text: '{"answer": "4"}', delayMs: 1500 }));
  const s = setup(upstream.baseURL, { tasks: 1, agents: ['a', 'b'] });
  let status = 0;
  const exit = await cli(['serve', s.team, '--port', '0'], env(), (child, output) => {
    const timer = setInterval(() => {
      const url = /^(http:\/\/\S+)$/m.exec(output())?.[1];
      if (url === undefined) return;
      clearInterval(timer);
      const answer = fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'team:fault-team', messages: [{ role: 'user', content: 'What is 2 + 2?' }] }),
      }).then(
        (response) => {
          status = response.status;
        },
        () => undefined,
      );
      const wait = setInterval(() => {
        if (upstream.requestCount === 0) return;
        clearInterval(wait);
        child.kill('SIGTERM');
        void answer;
      }, 20);
    }, 50);
  });
  record({
    fault: 'SIGTERM to serve with a request in flight',
    exit: `HTTP ${status}, then ${exit.code}`,
    lost: status === 200 ? 0 : 1,
    duplicated: '',
    repeated: '',
    secrets: secretsIn(canary, [exit], s.dir),
    peakMb: mb(exit.peakKb),
    ok: status === 200 && exit.code === 143 && exit.stderr.includes('1 request in flight finished'),
    note: 'the request got its answer, then the documented drain message',
  });
}

async function main(): Promise<void> {
  const writeDocs = process.argv.includes('--write-docs');
  for (const variable of ['GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'NPM_TOKEN', 'REPUTE_SERVE_TOKEN'])
    await foreignCredential(variable);
  await faultThenRerun('endpoint down (connection refused, maxRetries 1)', {
    script: (request) => sumReply(request),
    expectFirst: 4,
    maxRetries: 1,
    down: true,
  });
  await faultThenRerun('401 on every request (body echoes the key)', {
    script: (request, _index, healed) => (healed ? sumReply(request) : { type: 'echo-auth', status: 401 }),
    expectFirst: 4,
  });
  await faultThenRerun('500 burst: requests 7–15', {
    script: (request, index, healed) =>
      !healed && index >= 6 && index <= 14 ? { type: 'error', status: 500 } : sumReply(request),
    expectFirst: 4,
  });
  await faultThenRerun('malformed 200 bodies from agent c', {
    script: (request, _index, healed) =>
      !healed && JSON.stringify(request.body).includes('You are agent c,') ? { type: 'malformed' } : sumReply(request),
    expectFirst: 4,
  });
  await faultThenRerun('SIGTERM after 2 tasks committed', {
    script: (request) => ({ type: 'reply', text: sumReply(request), delayMs: 150 }),
    expectFirst: 143,
    signalAfter: { text: '\u0000never', signal: 'SIGTERM' },
  });
  await proseReplies();
  await garbageThenFixed();
  await everyEndpointHangs();
  await hugeReplyRun();
  await hugeReplyServe();
  await serveDrain();
  await Promise.all([...servers].map((server) => server.close().catch(() => undefined)));

  const header =
    '| fault | exit code | lost | duplicated | repeated requests | secrets seen | peak memory (MB) | result |';
  const lines = [
    header,
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |',
    ...rows.map(
      (row) =>
        `| ${row.fault} | ${row.exit} | ${row.lost} | ${row.duplicated} | ${row.repeated} | ${row.secrets} | ${row.peakMb} | ${row.ok ? 'ok' : 'FAIL'}: ${row.note} |`,
    ),
  ];
  const table = lines.join('\n');
  process.stdout.write(`${table}\n`);
  if (writeDocs) {
    const path = join(root, 'docs/reliability.md');
    const text = readFileSync(path, 'utf8');
    const begin = '<!-- faults:begin (generated by npm run faults -- --write-docs) -->';
    const end = '<!-- faults:end -->';
    const start = text.indexOf(begin);
    const stop = text.indexOf(end);
    if (start < 0 || stop < start) throw new Error(`docs/reliability.md has no ${begin} … ${end} section`);
    const stamp = `Generated ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC by \`npm run faults -- --write-docs\`.`;
    writeFileSync(path, `${text.slice(0, start + begin.length)}\n${stamp}\n\n${table}\n${text.slice(stop)}`);
    // The repository's formatter aligns the table's columns, so `npm run lint` stays green.
    spawnSync(join(root, 'node_modules/.bin/biome'), ['format', '--write', path], { stdio: 'ignore' });
  }
  const failed = rows.filter((row) => !row.ok).length;
  process.stderr.write(`faults: ${rows.length - failed} of ${rows.length} rows green\n`);
  process.exitCode = failed === 0 ? 0 : 1;
}

await main();
