// Several `repute serve` processes on one PostgreSQL team (issue 39, "Serve replicas"): each has its
// own run; the team's reputation, its feedback and its evidence are shared through the team's
// reputation log. Skipped with one line when no PostgreSQL server answers, unless
// REPUTE_REQUIRE_POSTGRES=1.
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentIdentity } from '../../core/agent-identity.js';
import type { ReputationModel } from '../../core/reputation-model.js';
import { createDebateMethod } from '../../protocols/debate/methods.js';
import { newPostgresStoreUrl, postgresAvailable } from '../../store/_test-postgres.js';
import { foldReputation } from '../../store/shared-reputation.js';
import { openStore } from '../../store/store.js';
import { startOpenAICompatibleServer, type OpenAICompatibleServer } from '../../testing/openai-compatible-server.js';
import { repoRoot } from '../../testing/_test-cli-run.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';
import { sumReply, writeSumTeam } from '../../testing/_test-sum-team.js';

const hasPostgres = postgresAvailable();

let upstream: OpenAICompatibleServer | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(
    children.splice(0).map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
  await upstream?.close();
  upstream = undefined;
});

interface Replica {
  readonly url: string;
  readonly child: ChildProcess;
}

/** Starts `repute serve <team> --store <url> --port 0`; resolves once it prints its URL. */
function startReplica(team: string, store: string): Promise<Replica> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/run-cli.ts', 'serve', team, '--store', store, '--port', '0', '--no-access-log'],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
      const url = /^(http:\/\/\S+?)\/?$/m.exec(stdout)?.[1];
      if (url) resolve({ url, child });
    });
    child.once('exit', (code) => reject(new Error(`repute serve exited ${code}: ${stderr}`)));
  });
}

/** Stops a replica with SIGTERM (it drains, folds and marks its run interrupted); resolves to its exit code. */
function stopReplica({ child }: Replica): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

async function post(url: string, body: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

describe.skipIf(!hasPostgres)('repute serve replicas on one PostgreSQL team', () => {
  it('share one reputation, feedback and evidence through the log: none lost or doubled, every replica lists every run', async () => {
    upstream = await startOpenAICompatibleServer({ script: (request) => sumReply(request) });
    const dir = temporaryDirectory('repute-replicas-');
    const team = writeSumTeam(dir, {
      baseURL: upstream.baseURL,
      tasks: 1,
      methods: ['beta'],
      extra: 'serve: { method: beta, kind: number }\n',
    });
    const store = newPostgresStoreUrl();
    // Started one after the other: the first migrates the new schema (concurrent starts are the
    // migration test's subject, in postgres-store.test.ts).
    const replicas: Replica[] = [];
    for (let index = 0; index < 3; index++) replicas.push(await startReplica(team, store));

    // 30 different questions, spread over the replicas and sent at once (10 in flight per replica).
    const requests = 30;
    const questions = Array.from({ length: requests }, (_, index) => ({ a: 100 + index, b: 7 * index + 1 }));
    const completions = await Promise.all(
      questions.map(({ a, b }, index) =>
        post(`${replicas[index % 3]!.url}/v1/chat/completions`, {
          model: 'team:sum-team',
          messages: [{ role: 'user', content: `What is ${a} + ${b}?` }],
        }),
      ),
    );
    for (const completion of completions) expect(completion.status, JSON.stringify(completion.json)).toBe(200);
    const taskIds = completions.map((completion) => completion.json.repute.taskId as string);
    expect(new Set(taskIds).size).toBe(requests);

    // Each decision is graded twice at once, on the two replicas that did not decide it: a retried
    // feedback. Exactly one of the two posts applies it.
    const grades = await Promise.all(
      questions.flatMap(({ a, b }, index) =>
        [1, 2].map((offset) =>
          post(`${replicas[(index + offset) % 3]!.url}/v1/feedback`, {
            taskId: taskIds[index],
            reference: String(a + b),
          }),
        ),
      ),
    );
    for (const grade of grades) expect(grade.status, JSON.stringify(grade.json)).toBe(200);
    const applied = grades.filter((grade) => grade.json.applied === true);
    expect(applied).toHaveLength(requests);
    expect(new Set(applied.map((grade) => grade.json.taskId)).size).toBe(requests);

    // The dashboard's runs API of any replica lists every replica's run.
    const listed = await Promise.all(
      replicas.map(async ({ url }) => {
        const body = (await (await fetch(`${url}/api/runs`)).json()) as { runs: Array<{ id: string; kind: string }> };
        return body.runs
          .filter((run) => run.kind === 'serve')
          .map((run) => run.id)
          .sort();
      }),
    );
    expect(listed[0]).toHaveLength(3);
    expect(listed[1]).toEqual(listed[0]);
    expect(listed[2]).toEqual(listed[0]);

    // The decisions API of one replica shows, for another replica's decisions, the log version each read.
    const otherRun = listed[0]![0] as string;
    const page = (await (await fetch(`${replicas[2]!.url}/api/runs/${otherRun}/decisions?limit=100`)).json()) as {
      tasks: Array<{ taskId: string; methods: { beta: { readVersion: number | null } } }>;
    };
    expect(page.tasks).toHaveLength(requests / 3);
    const shownVersions = new Map(page.tasks.map((task) => [task.taskId, task.methods.beta.readVersion]));

    for (const replica of replicas) expect(await stopReplica(replica)).toBe(143);

    const reader = openStore({ path: store, readonly: true });
    try {
      const runs = reader.listRuns().filter((run) => run.kind === 'serve');
      expect(runs).toHaveLength(3);
      // Each replica decided its 10 requests in its own run.
      for (const run of runs) expect(reader.taskResults(run.id, 'beta')).toHaveLength(requests / 3);

      // The log: one event per decision and one per feedback, each key once, seq 1..60 gap-free.
      const log = reader.reputationEvents({ team: 'sum-team', name: 'beta' });
      expect(log.map((event) => event.seq)).toEqual(Array.from({ length: 2 * requests }, (_, index) => index + 1));
      expect(new Set(log.map((event) => event.key)).size).toBe(2 * requests);
      const feedbackKeys = log.filter((event) => event.key.endsWith('/feedback'));
      expect(feedbackKeys).toHaveLength(requests);
      expect(new Set(feedbackKeys.map((event) => event.taskId))).toEqual(new Set(taskIds));
      // Every event records the version it read, before its own seq.
      for (const event of log) expect(event.readVersion).toBeLessThan(event.seq);
      // Each decision's vote event carries the version of its log event.
      const seqByKey = new Map(log.map((event) => [event.key, event]));
      for (const run of runs)
        for (const vote of reader.events(run.id, { type: 'vote' })) {
          const event = seqByKey.get(`${run.id}/beta/${vote.taskId}`);
          expect((vote.data as { readVersion?: number }).readVersion).toBe(event?.readVersion);
        }
      for (const [taskId, version] of shownVersions)
        expect(version, taskId).toBe(seqByKey.get(`${otherRun}/beta/${taskId}`)?.readVersion);
      // One feedback event per decision, in the deciding replica's run.
      const feedbackEvents = runs.flatMap((run) => reader.events(run.id, { type: 'feedback' }));
      expect(feedbackEvents.map((event) => event.taskId).sort()).toEqual([...taskIds].sort());

      // The team's stored reputation is the fold of the whole log (the last replica stopped folded it)
      // and equals a fresh fold of the log from the prior.
      const agents = reader.loadTeam('sum-team') as AgentIdentity[];
      const create = () => createDebateMethod('beta', { agents }).reputation as ReputationModel;
      expect(reader.reputationFold({ team: 'sum-team', name: 'beta' })?.foldedSeq).toBe(2 * requests);
      const saved = reader.loadReputation({ scope: { team: 'sum-team' }, name: 'beta' });
      expect(saved).toEqual(foldReputation(create, null, log).snapshot());

      // Computed by hand: every decision gives each agent one outcome (consensus: alpha, beta-1 and
      // beta-2 gave the decided sum, weak is off by one) and every feedback one more (graded against
      // the reference: the same successes). Beta forgets with λ = 0.9 per observation, so after n
      // observations of one kind the count is (1 − 0.9ⁿ)/0.1 in any order: n = 60 gives
      // 9.98203... One lost update would give n = 59, one doubled n = 61.
      const model = create();
      model.restore(saved as NonNullable<typeof saved>);
      const full = (1 - 0.9 ** (2 * requests)) / 0.1;
      for (const agentId of ['alpha', 'beta-1', 'beta-2']) {
        expect(model.explain(agentId).components.positive, agentId).toBeCloseTo(full, 12);
        expect(model.explain(agentId).components.negative, agentId).toBe(0);
      }
      expect(model.explain('weak').components.negative).toBeCloseTo(full, 12);
      expect(model.explain('weak').components.positive).toBe(0);
    } finally {
      reader.close();
    }
  }, 240_000);
});
