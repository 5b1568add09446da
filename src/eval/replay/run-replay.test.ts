import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createPluralityAggregator } from '../../aggregation/plurality.js';
import type { Selector } from '../../selection/selector.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { writeProposalsJsonl } from '../proposals/proposals-jsonl.js';
import { createDefaultAnswerOps } from './default-answer-ops.js';
import { generateReplayFixture } from './fixture.js';
import { buildGrid } from './grid.js';
import type { ReplayMethod } from './method.js';
import { prepareReplay } from './prepare.js';
import { runCondition } from './run-condition.js';
import { resolveReplayVerifier, runReplay } from './run-replay.js';

const directory = mkdtempSync(join(tmpdir(), 'repute-replay-'));
const fixturePath = join(directory, 'fixture.jsonl');
beforeAll(async () => {
  await writeProposalsJsonl(fixturePath, generateReplayFixture({ seed: 21, tasks: 60 }));
});

// A test-local "everyone takes part" selector and plain plurality: the harness is checked on its own.
const everyone: Selector = { name: 'all', select: ({ pool }) => ({ selected: pool.map((agent) => agent.id), excluded: [], reasons: [] }) };
const plainMajority: ReplayMethod = { name: 'majority', description: 'test majority', create: ({ team }) => ({ selector: everyone, aggregator: createPluralityAggregator(), k: team.length, weighted: false }) };

describe('runCondition', () => {
  const ops = createDefaultAnswerOps();
  const { prepared } = prepareReplay({ dataset: generateReplayFixture({ seed: 21, tasks: 60 }), ops, seed: 1, tasks: 60 });
  const grid = buildGrid(prepared.agents, 1);
  const settings = { seed: 1, feedback: 'consensus' as const, verifier: { kind: 'none' as const, sensitivity: 0.85, specificity: 0.8 }, ops };

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
    const condition = grid.find((candidate) => candidate.id === 'all-strong/B/STRONG');
    if (condition === undefined) throw new Error('missing condition');
    const [run] = runCondition({ prepared, condition, methods: [plainMajority], settings }).runs;
    // Every task is attacked and every payload parses; the all-strong team has no missing agent
    // (a11 is the only partial one and ranks last), but honest unparseable proposals weigh 0, so the
    // attackers' share is ≥ 3/10 and exactly 3/10 on tasks where all 10 proposals parse.
    expect(run?.poolExpCount).toBe(60);
    expect((run?.poolExpSum ?? 0) / 60).toBeGreaterThanOrEqual(0.3 - 1e-12);
    expect((run?.poolExpSum ?? 0) / 60).toBeLessThan(0.32);
    // Majority never down-weights anyone: NextExcl only counts attackers whose next proposal is unparseable (never, they attack every task).
    expect(run?.nextExclSum).toBe(0);
  });

  it('leaves clean runs unattacked', () => {
    const condition = grid[0];
    if (condition === undefined) throw new Error('missing condition');
    const [run] = runCondition({ prepared, condition, methods: [plainMajority], settings }).runs;
    expect(run?.payloadHitCount).toBe(0);
    expect(run?.poolExpCount).toBe(0);
  });
});

describe('runReplay', () => {
  it('gives identical output for 1 and 2 workers', async () => {
    const options = { path: fixturePath, tasks: 30, seed: 3, methods: ['majority', 'random-k', 'drf', 'minirep'] };
    const one = await runReplay({ ...options, workers: 1 });
    const two = await runReplay({ ...options, workers: 2 });
    expect(two.summary).toEqual(one.summary);
    expect(two.rows).toEqual(one.rows);
    expect(one.summary.schemaVersion).toBe(1);
    expect(one.summary.grid).toMatchObject({ conditions: 116, clean: 4, attacked: 112 });
    // The last fixture agent misses every 7th task: those proposals are counted, not dropped.
    expect(one.summary.data.missingProposals).toBe(Math.ceil(60 / 7));
  });

  it('resolves the verifier flags: --feedback verifier alone turns the simulated verifier on', () => {
    expect(resolveReplayVerifier({})).toEqual({ feedback: 'consensus', verifier: { kind: 'none', sensitivity: 0.85, specificity: 0.8 } });
    expect(resolveReplayVerifier({ feedback: 'verifier' })).toEqual({ feedback: 'verifier', verifier: { kind: 'simulated', sensitivity: 0.85, specificity: 0.8 } });
    expect(resolveReplayVerifier({ verifier: 'simulated', verifierSensitivity: 0.9, verifierSpecificity: 0.7 })).toEqual({ feedback: 'verifier', verifier: { kind: 'simulated', sensitivity: 0.9, specificity: 0.7 } });
    expect(resolveReplayVerifier({ verifier: 'simulated', feedback: 'consensus' }).feedback).toBe('consensus');
  });

  it('gives every stateful method the verifier’s verdicts: a perfect verifier equals truth feedback for beta', async () => {
    const methods = ['beta'];
    const perfect = await runReplay({ path: fixturePath, tasks: 8, workers: 1, methods, verifier: 'simulated', verifierSensitivity: 1, verifierSpecificity: 1 });
    const truth = await runReplay({ path: fixturePath, tasks: 8, workers: 1, methods, feedback: 'truth' });
    expect(perfect.rows.map((row) => row.exact)).toEqual(truth.rows.map((row) => row.exact));
    expect(perfect.summary.options.verifier).toEqual({ kind: 'simulated', sensitivity: 1, specificity: 1 });
  });

  it('refuses bad options with typed errors', async () => {
    await expect(runReplay({ path: fixturePath, tasks: 0 })).rejects.toThrow(InvalidArgumentError);
    await expect(runReplay({ path: fixturePath, feedback: 'oracle' as never })).rejects.toThrow(/feedback must be one of consensus, verifier, truth/);
    await expect(runReplay({ path: fixturePath, methods: ['voting'] })).rejects.toThrow(/unknown replay method "voting"/);
    await expect(runReplay({ path: fixturePath, verifierSensitivity: 1.5 })).rejects.toThrow(/verifierSensitivity must be in \[0, 1\]/);
    await expect(runReplay({ path: fixturePath, verifier: 'oracle' as never })).rejects.toThrow(/verifier must be one of none, simulated/);
    await expect(runReplay({ path: fixturePath, feedback: 'verifier', verifier: 'none' })).rejects.toThrow(/needs a verifier/);
    await expect(runReplay({ path: fixturePath, verifierAccuracy: 0.8 } as never)).rejects.toThrow(/replaced by verifierSensitivity/);
    await expect(runReplay({ path: join(directory, 'absent.jsonl') })).rejects.toThrow(/not found/);
  });
});
