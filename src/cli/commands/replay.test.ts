import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeProposalsJsonl } from '../../eval/proposals/proposals-jsonl.js';
import { generateReplayFixture } from '../../eval/replay/fixture.js';
import { parseSeedsFlag } from './replay.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const directory = temporaryDirectory('repute-replay-cli-');
const fixture = join(directory, 'fixture.jsonl');
const runCli = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/run-cli.ts', 'replay', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });

beforeAll(async () => {
  await writeProposalsJsonl(fixture, generateReplayFixture({ seed: 5, tasks: 40 }));
});

describe('repute replay', () => {
  it('runs minirep-vg with a declared verifier calibration named in --methods', () => {
    const run = runCli(
      fixture,
      '--verifier',
      'simulated',
      '--methods',
      'verifier-majority,minirep-vg@0.9:0.8',
      '--tasks',
      '10',
      '--workers',
      '1',
      '--json',
      '--out',
      join(directory, 'declared'),
    );
    expect(run.status, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout) as { methods: Record<string, unknown> };
    expect(Object.keys(summary.methods)).toEqual(['verifier-majority', 'minirep-vg@0.9:0.8']);
  });

  it('parses --seeds lists and ranges', () => {
    expect(parseSeedsFlag('1..4')).toEqual([1, 2, 3, 4]);
    expect(parseSeedsFlag('1..3,7, 9')).toEqual([1, 2, 3, 7, 9]);
    expect(() => parseSeedsFlag('1,1')).toThrow(/repeats a seed/);
    expect(() => parseSeedsFlag('a')).toThrow(/--seeds takes integers and ranges/);
  });

  it('refuses an empty --seeds entry and seeds past the safe integers', () => {
    // `1,,2` ran seeds 1 and 2, silently dropping the empty entry between them.
    expect(() => parseSeedsFlag('1,,2')).toThrow(
      expect.objectContaining({ parameter: '--seeds', value: '1,,2', message: expect.stringMatching(/empty entry/) }),
    );
    expect(() => parseSeedsFlag('1,2,')).toThrow(/--seeds has an empty entry/);
    // 9007199254740993 was read as 9007199254740992 (then refused as seeds[0] with the rounded value).
    expect(() => parseSeedsFlag('9007199254740993')).toThrow(/--seeds .*"9007199254740993".*safe integer/);
    // A range reaching 2^53 never ended (seed++ stops growing there) and the process ran out of memory.
    expect(() => parseSeedsFlag('9007199254740990..9007199254740999')).toThrow(/--seeds .*safe integer/);
    expect(parseSeedsFlag('-9007199254740991..-9007199254740990')).toEqual([-9007199254740991, -9007199254740990]);
  });

  it('refuses --key-cache on a file before any work, and a --verifier-sensitivity that is not a decimal', () => {
    const file = join(directory, 'not-a-directory');
    writeFileSync(file, 'x');
    const keyCache = runCli(fixture, '--key-cache', file, '--out', join(directory, 'out-key-cache'));
    expect(keyCache.status).toBe(2);
    expect(keyCache.stderr).toMatch(
      /^repute replay: InvalidArgumentError: --key-cache .*not-a-directory.*not a directory.*--key-cache none/,
    );
    expect(keyCache.stderr).not.toMatch(/answer kind/);
    expect(keyCache.stderr.trim().split('\n')).toHaveLength(1);
    // Number('0x1') is 1: a hexadecimal rate ran as sensitivity 1.
    const hex = runCli(fixture, '--verifier', 'simulated', '--verifier-sensitivity', '0x1');
    expect(hex.status).toBe(2);
    expect(hex.stderr).toMatch(/--verifier-sensitivity must be a number in \[0, 1\], got "0x1"/);
  });

  it('says so when --tasks asks for more tasks than the split holds', () => {
    // The fixture's 40 tasks hold fewer than 99 held-out ones: the run replayed them all without a word.
    // One small grid (majority on the pool), with or without a --tasks of its own.
    const replayPool = (out: string, ...tasks: string[]) =>
      runCli(
        fixture,
        ...tasks,
        '--methods',
        'majority',
        '--compositions',
        'pool',
        '--workers',
        '1',
        '--key-cache',
        'none',
        '--json',
        '--out',
        join(directory, out),
      );
    const result = replayPool('out-tasks', '--tasks', '99');
    expect(result.status).toBe(0);
    const summary = JSON.parse(result.stdout) as { data: { sampledTasks: number; splitTasks: number } };
    expect(summary.data.sampledTasks).toBeLessThan(99);
    expect(result.stderr).toContain(
      `warning: --tasks 99 asks for more tasks than the ${summary.data.splitTasks} of the heldout split; replayed all ${summary.data.sampledTasks}`,
    );
    // The default (100) is not something the user asked for: no warning naming --tasks then.
    const byDefault = replayPool('out-default-tasks');
    expect(byDefault.status).toBe(0);
    expect(byDefault.stderr).not.toContain('asks for more tasks');
  });

  it('prints summary.json with --json and writes the three outputs', () => {
    const out = join(directory, 'out');
    const result = runCli(
      fixture,
      '--tasks',
      '20',
      '--methods',
      'majority,minirep',
      '--workers',
      '1',
      '--json',
      '--out',
      out,
    );
    expect(result.status).toBe(0);
    const summary = JSON.parse(result.stdout) as {
      schemaVersion: number;
      methods: Record<
        string,
        {
          clean: number;
          attacked: number;
          strictWins: number;
          poolExp: number;
          payloadHit: number;
          nextExcl: number;
          cfHarm: number;
        }
      >;
      limits: Record<string, number>;
    };
    expect(summary.schemaVersion).toBe(2);
    expect(Object.keys(summary.methods)).toEqual(['majority', 'minirep']);
    for (const key of [
      'clean',
      'attacked',
      'loss',
      'relativeDrop',
      'strictWins',
      'poolExp',
      'payloadHit',
      'nextExcl',
      'cfHarm',
    ])
      expect(summary.methods.minirep).toHaveProperty(key);
    expect(summary).toHaveProperty('retention.majority');
    expect(summary).toHaveProperty(['byComposition', 'all-strong', 'minirep', 'strictWins']);
    for (const key of ['coverage', 'majorityAll', 'bestSingle']) expect(summary.limits).toHaveProperty(key);
    expect(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'))).toEqual(summary);
    // Header + 116 conditions × 2 methods.
    expect(readFileSync(join(out, 'conditions.csv'), 'utf8').trim().split('\n')).toHaveLength(1 + 116 * 2);
    expect(existsSync(join(out, 'report.html'))).toBe(true);
    expect(result.stderr).toMatch(/replay conditions/);
  });

  it('prints the kind and why, warns about merged answers naming --kind, and exits 3 with --strict-keys', async () => {
    // Ten agents, one literal task: six write {'a': 1} (flagged correct), four {"a": 1} (flagged wrong by
    // a string rule): one (task, key) group, mixed → rate 100% > 0.5%.
    const agents = Array.from({ length: 10 }, (_, index) => `a${index}`);
    const path = join(directory, 'mixed.jsonl');
    await writeProposalsJsonl(path, {
      name: 'mixed',
      agents: agents.map((id) => ({ id, model: id })),
      tasks: [
        {
          id: 't1',
          kind: 'literal',
          reference: "{'a': 1}",
          proposals: Object.fromEntries(
            agents.map((agent, index) => [
              agent,
              index < 6 ? { answer: "{'a': 1}", correct: true } : { answer: '{"a": 1}', correct: false },
            ]),
          ),
        },
      ],
    });
    const strict = runCli(path, '--strict-keys', '--workers', '1', '--methods', 'majority');
    expect(strict.status).toBe(3);
    expect(strict.stderr).toMatch(/answer kind: literal \(each task's "kind" field\)/);
    expect(strict.stderr).toMatch(
      /warning: 1 of 1 \(task, key\) groups \(100\.00%\) mix answers .* replay with --kind/,
    );
    expect(strict.stderr).toMatch(/DataFormatError: .*1 of 1 \(task, key\) groups .*pass --kind <kind>/);
    const badKind = runCli(path, '--kind', 'python');
    expect(badKind.status).toBe(2);
    expect(badKind.stderr).toMatch(
      /--kind must be one of number, math, choice, exact, labels, code, literal, literal-zeroeval, number-zeroeval, got "python"/,
    );
  });

  it('exits non-zero with a typed message on bad input', () => {
    const badFeedback = runCli(fixture, '--feedback', 'oracle');
    expect(badFeedback.status).toBe(2);
    expect(badFeedback.stderr).toMatch(
      /InvalidArgumentError: --feedback must be one of consensus, verifier, truth, got "oracle"/,
    );
    const removed = runCli(fixture, '--verifier-accuracy', '0.8');
    expect(removed.status).toBe(2);
    expect(removed.stderr).toMatch(
      /--verifier-accuracy was replaced by --verifier-sensitivity .* pass --verifier simulated --verifier-sensitivity 0\.8 --verifier-specificity 0\.8/,
    );
    const unknown = runCli(directory);
    expect(unknown.status).toBe(3);
    expect(unknown.stderr).toMatch(/DataFormatError: .*cannot detect the dataset format/);
    const badSeeds = runCli(fixture, '--seeds', '3..1');
    expect(badSeeds.status).toBe(2);
    expect(badSeeds.stderr).toMatch(/--seeds range "3..1" must run upwards/);
    const badDeclared = runCli(fixture, '--verifier', 'simulated', '--methods', 'minirep-vg@1.2:0.9');
    expect(badDeclared.status).toBe(2);
    expect(badDeclared.stderr).toMatch(/minirep-vg@1\.2:0\.9: the declared sensitivity must be in \(0, 1\)/);
    const badSplit = runCli(fixture, '--split', 'test');
    expect(badSplit.status).toBe(2);
    expect(badSplit.stderr).toMatch(/--split must be one of heldout, tuning, all/);
  });
});
