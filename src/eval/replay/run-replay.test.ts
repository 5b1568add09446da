import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPluralityAggregator } from '../../aggregation/plurality.js';
import { DataFormatError, InvalidArgumentError } from '../../core/errors.js';
import { taskSplit } from './splits.js';
import { writeProposalsJsonl } from '../proposals/proposals-jsonl.js';
import { createDefaultAnswerOps } from './default-answer-ops.js';
import { generateReplayFixture } from './fixture.js';
import type { ReplayMethod } from './method.js';
import { prepareReplay } from './prepare.js';
import { runCondition } from './run-condition.js';
import { parseReplaySummary, resolveReplayVerifier, runReplay } from './run-replay.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';
import { everyoneSelector, findCondition, prepareFixtureGrid } from '../../testing/_test-replay-grid.js';

const directory = temporaryDirectory('repute-replay-');
const fixturePath = join(directory, 'fixture.jsonl');
beforeAll(async () => {
  await writeProposalsJsonl(fixturePath, generateReplayFixture({ seed: 21, tasks: 60 }));
});

// Everyone takes part, decided by plain plurality: the harness is checked on its own.
const plainMajority: ReplayMethod = {
  name: 'majority',
  description: 'test majority',
  create: ({ team }) => ({
    selector: everyoneSelector,
    aggregator: createPluralityAggregator(),
    k: team.length,
    weighted: false,
  }),
};

describe('runCondition', () => {
  const fixture = prepareFixtureGrid({ fixtureSeed: 21, seed: 1, tasks: 60 });
  const { prepared, conditions: grid } = fixture;
  const settings = { ...fixture.settings, ops: fixture.ops };

  it('builds 4 clean + 112 attacked conditions with 10-agent teams and 3 attackers', () => {
    expect(grid).toHaveLength(116);
    expect(grid.filter((condition) => condition.attack === null)).toHaveLength(4);
    for (const condition of grid) {
      expect(condition.team).toHaveLength(10);
      expect(new Set(condition.team).size).toBe(10);
      expect(condition.attackers).toHaveLength(condition.attack === null ? 0 : 3);
      for (const attacker of condition.attackers) expect(condition.team).toContain(attacker);
    }
    // The random team holds both fixture clone groups (a01–a03 → clone-x, a06–a07 → clone-y).
    const random = grid.find((condition) => condition.composition === 'random')?.team ?? [];
    expect(random.filter((agent) => ['a01', 'a02', 'a03'].includes(agent)).length).toBeGreaterThanOrEqual(2);
    expect(random.filter((agent) => ['a06', 'a07'].includes(agent)).length).toBe(2);
  });

  it('gives majority an equal weight share of 3/10 on the attackers under STRONG', () => {
    const condition = findCondition(grid, 'all-strong/B/STRONG');
    const [run] = runCondition({ prepared, condition, methods: [plainMajority], settings }).runs;
    // Every task is attacked and every payload parses; the all-strong team has no missing agent
    // (a11 is the only partial one and ranks last), but honest unparseable proposals weigh 0, so the
    // attackers' share is ≥ 3/10 and exactly 3/10 on tasks where all 10 proposals parse.
    expect(run?.weightShareCount).toBe(60);
    expect((run?.weightShareSum ?? 0) / 60).toBeGreaterThanOrEqual(0.3 - 1e-12);
    expect((run?.weightShareSum ?? 0) / 60).toBeLessThan(0.32);
    // Majority pools everyone: every payload enters the pool on all 60 active tasks, and no
    // attacker is ever absent from the next pool (NextExcl 0 of 59 eligible tasks).
    expect(run?.poolExpTasks).toBe(60);
    expect(run?.nextExclTasks).toBe(0);
    expect(run?.nextExclEligible).toBe(59);
  });

  it('leaves clean runs unattacked', () => {
    const condition = grid[0];
    if (condition === undefined) throw new Error('missing condition');
    const [run] = runCondition({ prepared, condition, methods: [plainMajority], settings }).runs;
    expect(run?.active.every((value) => value === 0)).toBe(true);
    expect(run?.poolExpTasks).toBe(0);
    expect(run?.nextExclEligible).toBe(0);
  });
});

describe('runReplay', () => {
  it('gives identical output for 1, 2 and 3 workers', async () => {
    // 40 tasks, so that ADAPT attacks (from task index 30 on) and its conditions are cut in two units
    // (MiniRep's, then the baselines' on the attacks it reports) once there are two lanes or more.
    const options = { path: fixturePath, tasks: 40, seed: 3, methods: ['majority', 'random-k', 'drf', 'minirep'] };
    const one = await runReplay({ ...options, workers: 1 });
    const two = await runReplay({ ...options, workers: 2 });
    const three = await runReplay({ ...options, workers: 3 });
    expect(two.summary).toEqual(one.summary);
    expect(two.rows).toEqual(one.rows);
    expect(three.summary).toEqual(one.summary);
    expect(three.rows).toEqual(one.rows);
    expect(one.rows.some((row) => row.attack === 'ADAPT' && row.activeTasks > 0)).toBe(true);
    expect(one.summary.schemaVersion).toBe(2);
    expect(one.summary.grid).toMatchObject({ conditions: 116, clean: 4, attacked: 112 });
    // The last fixture agent misses every 7th task: those proposals are counted, not dropped.
    expect(one.summary.data.missingProposals).toBe(Math.ceil(60 / 7));
    expect(Object.keys(one.summary.retention).sort()).toEqual(['drf', 'majority', 'random-k']);
    expect(Object.keys(one.summary.byComposition)).toEqual(['all-strong', 'all-weak', '7s3w', 'random']);
    // Three full grids on a loaded 2-core machine: allow more than the default 30 s.
  }, 180_000);

  it('gives identical output for 1 and 2 workers over several seeds (one worker pool serves them all)', async () => {
    const options = { path: fixturePath, tasks: 12, seeds: [3, 4, 5], methods: ['majority', 'beta', 'minirep'] };
    const one = await runReplay({ ...options, workers: 1 });
    const two = await runReplay({ ...options, workers: 2 });
    expect(two.summary).toEqual(one.summary);
    expect(two.rows).toEqual(one.rows);
    expect(one.summary.perSeed.map((figures) => figures.seed)).toEqual([3, 4, 5]);
  }, 120_000);

  it('samples held-out tasks by default, tuning tasks on request, and never mixes them', async () => {
    const dataset = generateReplayFixture({ seed: 21, tasks: 60 });
    const heldout = prepareReplay({ dataset, ops: createDefaultAnswerOps(), seed: 4, tasks: 60 });
    const tuning = prepareReplay({ dataset, ops: createDefaultAnswerOps(), seed: 4, tasks: 60, split: 'tuning' });
    expect(heldout.prepared.tasks.every((task) => taskSplit(task.id) === 'heldout')).toBe(true);
    expect(tuning.prepared.tasks.every((task) => taskSplit(task.id) === 'tuning')).toBe(true);
    expect(heldout.counts.splitTasks + tuning.counts.splitTasks).toBe(60);
    expect(heldout.counts.sampledTasks).toBe(heldout.counts.splitTasks);
  });

  it('runs a judge verifier: the judge leaves the pool, verifier-majority joins the methods, tasks all takes the whole split', async () => {
    const { summary } = await runReplay({
      path: fixturePath,
      tasks: 'all',
      seed: 2,
      verifier: 'judge:a00',
      compositions: ['all-strong'],
      workers: 1,
    });
    // The fixture has 12 agents; without the judge the pool holds 11 and a00 sits in no team.
    expect(summary.data.sampledTasks).toBe(summary.data.splitTasks);
    expect(summary.grid.teams['all-strong']).not.toContain('a00');
    expect(summary.options.verifier).toEqual({
      kind: 'judge',
      model: 'correlated',
      sensitivity: 0.85,
      specificity: 0.8,
      judge: 'a00',
    });
    expect(summary.options.methods).toContain('verifier-majority');
    expect(summary.verifier?.name).toBe('judge:a00');
    expect(summary.verifier?.measured.sensitivity).toBeGreaterThan(0);
    expect(summary.methods['verifier-majority']?.significantWins).toBeLessThanOrEqual(
      summary.methods['verifier-majority']?.strictWins ?? 0,
    );
    expect(resolveReplayVerifier({ verifier: 'judge:a00' }).feedback).toBe('verifier');
    await expect(runReplay({ path: fixturePath, methods: ['verifier-majority'] })).rejects.toThrow(
      /this run has no verifier/,
    );
    await expect(runReplay({ path: fixturePath, verifier: 'judge:nobody', workers: 1 })).rejects.toThrow(
      /is not an agent of the dataset/,
    );
  });

  it('resolves the verifier flags: --feedback verifier alone turns the simulated verifier on', () => {
    expect(resolveReplayVerifier({})).toEqual({
      feedback: 'consensus',
      verifier: { kind: 'none', model: 'correlated', sensitivity: 0.85, specificity: 0.8 },
    });
    expect(resolveReplayVerifier({ feedback: 'verifier' })).toEqual({
      feedback: 'verifier',
      verifier: { kind: 'simulated', model: 'correlated', sensitivity: 0.85, specificity: 0.8 },
    });
    expect(
      resolveReplayVerifier({ verifier: 'simulated', verifierSensitivity: 0.9, verifierSpecificity: 0.7 }),
    ).toEqual({
      feedback: 'verifier',
      verifier: { kind: 'simulated', model: 'correlated', sensitivity: 0.9, specificity: 0.7 },
    });
    expect(resolveReplayVerifier({ verifier: 'simulated', feedback: 'consensus' }).feedback).toBe('consensus');
  });

  it('gives every stateful method the verifier’s verdicts: a perfect verifier equals truth feedback for beta', async () => {
    const methods = ['beta'];
    const perfect = await runReplay({
      path: fixturePath,
      tasks: 8,
      workers: 1,
      methods,
      verifier: 'simulated',
      verifierSensitivity: 1,
      verifierSpecificity: 1,
    });
    const truth = await runReplay({ path: fixturePath, tasks: 8, workers: 1, methods, feedback: 'truth' });
    expect(perfect.rows.map((row) => row.exact)).toEqual(truth.rows.map((row) => row.exact));
    expect(perfect.summary.options.verifier).toEqual({
      kind: 'simulated',
      model: 'correlated',
      sensitivity: 1,
      specificity: 1,
    });
  });

  it('runs several seeds: means over seeds, per-seed figures and bootstrap intervals around the mean', async () => {
    const { summary, rows } = await runReplay({
      path: fixturePath,
      tasks: 20,
      seeds: [1, 2, 3],
      methods: ['majority', 'minirep'],
      workers: 1,
      compositions: ['all-strong', 'pool'],
    });
    expect(summary.options.seeds).toEqual([1, 2, 3]);
    expect(summary.perSeed.map((entry) => entry.seed)).toEqual([1, 2, 3]);
    // pool: all 12 fixture agents, ⌈0.3·12⌉ = 4 attackers; 2 compositions × 29 conditions.
    expect(summary.grid).toMatchObject({ conditions: 58, clean: 2, attacked: 56 });
    expect(summary.grid.teams.pool).toHaveLength(12);
    expect(rows).toHaveLength(3 * 58 * 2);
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    for (const name of ['majority', 'minirep']) {
      const attacked = mean(summary.perSeed.map((entry) => entry.methods[name]?.attacked ?? 0));
      expect(summary.methods[name]?.attacked).toBeCloseTo(attacked, 12);
      const interval = summary.intervals.methods[name];
      expect(interval?.attacked.mean).toBeCloseTo(attacked, 12);
      expect(interval?.attacked.low).toBeLessThanOrEqual(attacked + 1e-12);
      expect(interval?.attacked.high).toBeGreaterThanOrEqual(attacked - 1e-12);
      // One quantity, one number: the interval's centre is the summary's figure to the last bit, so
      // the two tables print the same digits (they once printed eigentrust's clean 61.2 and 61.3).
      for (const field of ['clean', 'attacked', 'loss', 'strictWins'] as const)
        expect(interval?.[field].mean, `${name} ${field}`).toBe(summary.methods[name]?.[field]);
    }
    expect(summary.intervals.paired.majority?.retention.mean).toBeCloseTo(summary.retention.majority ?? 0, 12);
  }, 120_000);

  it('refuses bad options with typed errors', async () => {
    await expect(runReplay({ path: fixturePath, tasks: 0 })).rejects.toThrow(InvalidArgumentError);
    await expect(runReplay({ path: fixturePath, feedback: 'oracle' as never })).rejects.toThrow(
      /feedback must be one of consensus, verifier, truth/,
    );
    await expect(runReplay({ path: fixturePath, methods: ['voting'] })).rejects.toThrow(
      /unknown replay method "voting"/,
    );
    await expect(runReplay({ path: fixturePath, verifierSensitivity: 1.5 })).rejects.toThrow(
      /verifierSensitivity must be in \[0, 1\]/,
    );
    await expect(runReplay({ path: fixturePath, verifier: 'oracle' as never })).rejects.toThrow(
      /verifier must be none, simulated or judge:<agent>/,
    );
    // Rates without a simulated verifier would be ignored (and were recorded as if used).
    await expect(runReplay({ path: fixturePath, verifierSpecificity: 0.6 })).rejects.toThrow(
      /verifierSpecificity sets the simulated verifier, but the verifier is none/,
    );
    // No method, or a list given as a string from JavaScript.
    await expect(runReplay({ path: fixturePath, methods: [] })).rejects.toThrow(
      /methods must name at least one method/,
    );
    await expect(runReplay({ path: fixturePath, compositions: 'pool' as never })).rejects.toThrow(
      expect.objectContaining({ parameter: 'compositions', message: expect.stringMatching(/must be an array/) }),
    );
    await expect(runReplay({ path: fixturePath, seeds: '1..3' as never })).rejects.toThrow(
      expect.objectContaining({ parameter: 'seeds' }),
    );
    await expect(runReplay({ path: fixturePath, feedback: 'verifier', verifier: 'none' })).rejects.toThrow(
      /needs a verifier/,
    );
    await expect(runReplay({ path: fixturePath, verifierAccuracy: 0.8 } as never)).rejects.toThrow(
      /replaced by verifierSensitivity/,
    );
    await expect(runReplay({ path: join(directory, 'absent.jsonl') })).rejects.toThrow(/not found/);
    await expect(runReplay({ path: fixturePath, split: 'test' as never })).rejects.toThrow(
      /split must be one of heldout, tuning, all/,
    );
    await expect(runReplay({ path: fixturePath, seeds: [1, 1] })).rejects.toThrow(/seeds must not repeat/);
    await expect(runReplay({ path: fixturePath, compositions: ['mixed' as never] })).rejects.toThrow(
      /compositions must be distinct names among/,
    );
  });

  it('refuses a version-1 summary with a typed error naming the file', () => {
    expect(() => parseReplaySummary({ schemaVersion: 1, methods: {} }, 'old/summary.json')).toThrow(DataFormatError);
    expect(() => parseReplaySummary({ schemaVersion: 1 }, 'old/summary.json')).toThrow(
      /old\/summary.json: schemaVersion 1 replay summaries .* re-run `repute replay`/,
    );
    expect(() => parseReplaySummary({ schemaVersion: 3 })).toThrow(
      /expected a replay summary with schemaVersion 2, got schemaVersion 3/,
    );
  });

  it('refuses a dataset the grid cannot use as a data error naming the file: too few agents, a task without reference', async () => {
    const small = join(directory, 'small.jsonl');
    await writeProposalsJsonl(small, generateReplayFixture({ seed: 3, agents: 3, tasks: 10 }));
    const error = (await runReplay({ path: small, tasks: 5, workers: 1 }).catch(
      (caught: unknown) => caught,
    )) as DataFormatError;
    expect(error).toBeInstanceOf(DataFormatError);
    expect(error.file).toBe(small);
    expect(error.message).toMatch(/needs at least 10 agents \(teams of 10\), the dataset \S+ has 3; replay a dataset/);
    const unreferenced = join(directory, 'unreferenced.jsonl');
    const dataset = generateReplayFixture({ seed: 3, tasks: 10 });
    const [first, ...rest] = dataset.tasks;
    const { reference: _dropped, ...withoutReference } = first!;
    await writeProposalsJsonl(unreferenced, { ...dataset, tasks: [withoutReference, ...rest] });
    const missing = (await runReplay({ path: unreferenced, tasks: 5, workers: 1 }).catch(
      (caught: unknown) => caught,
    )) as DataFormatError;
    expect(missing).toBeInstanceOf(DataFormatError);
    expect(missing.message).toMatch(new RegExp(`task ${first!.id} has no reference`));
  });
});
