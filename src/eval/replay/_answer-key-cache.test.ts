import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeProposalsJsonl } from '../proposals/proposals-jsonl.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';
import {
  answerCodeFiles,
  answerCodeFingerprint,
  defaultCacheDirectory,
  loadAnswerKeyCache,
  maxCacheBytes,
  saveAnswerKeyCache,
  writeBackAnswerKeyCache,
} from './_answer-key-cache.js';
import { emptyAnswerTables, memoizeAnswerOps } from './_memo-answer-ops.js';
import { generateReplayFixture } from './fixture.js';
import { runReplay } from './run-replay.js';

const directory = temporaryDirectory('repute-key-cache-');
const fixturePath = join(directory, 'fixture.jsonl');
beforeAll(async () => {
  await writeProposalsJsonl(fixturePath, generateReplayFixture({ seed: 5, tasks: 30 }));
});

// A small grid: two methods, 30 tasks, one worker.
const replay = (keyCache?: string) =>
  runReplay({
    path: fixturePath,
    tasks: 30,
    split: 'all',
    methods: ['majority', 'beta'],
    workers: 1,
    ...(keyCache === undefined ? {} : { keyCache }),
  });

describe('answer-key cache', () => {
  it('saves what a run computed, and the next run reads it all and computes nothing, with the same results', async () => {
    const cacheDirectory = join(directory, 'round-trip');
    const plain = await replay();
    const first = await replay(cacheDirectory);
    expect(first.keyCache?.loaded).toBe(0);
    expect(first.keyCache?.computed).toBeGreaterThan(0);
    expect(first.keyCache?.problem).toBeUndefined();
    expect(existsSync(first.keyCache?.file ?? '')).toBe(true);
    const second = await replay(cacheDirectory);
    // Every distinct question of the first run is in the file, and the second run asks the same ones.
    expect(second.keyCache?.loaded).toBe(first.keyCache?.computed);
    expect(second.keyCache?.computed).toBe(0);
    expect(second.summary).toEqual(plain.summary);
    expect(first.summary).toEqual(plain.summary);
    expect(second.rows).toEqual(plain.rows);
    expect(plain.keyCache).toBeUndefined();
  });

  it('ignores a file written by other answer code, or one that does not parse, and rewrites it', async () => {
    const cacheDirectory = join(directory, 'stale');
    const first = await replay(cacheDirectory);
    const file = first.keyCache?.file as string;
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { fingerprint: string };
    writeFileSync(file, JSON.stringify({ ...saved, fingerprint: '0000000000000000' }));
    const other = await replay(cacheDirectory);
    expect(other.keyCache?.loaded).toBe(0);
    expect(other.keyCache?.computed).toBe(first.keyCache?.computed);
    expect(other.keyCache?.problem).toMatch(/written by other answer code/);
    writeFileSync(file, '{"schemaVersion": 1, "fingerp');
    const broken = await replay(cacheDirectory);
    expect(broken.keyCache?.loaded).toBe(0);
    expect(broken.keyCache?.problem).toMatch(/^ignored .*answer-keys-[0-9a-f]{16}-[0-9a-f]{12}\.json: /);
    expect(broken.summary).toEqual(first.summary);
    // Rewritten whole: the next run reads every answer again.
    expect((await replay(cacheDirectory)).keyCache?.loaded).toBe(first.keyCache?.computed);
  });

  it('does not read a file larger than any cache this code writes, says why in the report, and replaces it', async () => {
    const cacheDirectory = join(directory, 'oversize');
    const first = await replay(cacheDirectory);
    const file = first.keyCache?.file as string;
    // 33 MB (sparse: no disk used): past the 32 MB a cache of this code can reach.
    truncateSync(file, 33 * 2 ** 20);
    expect(loadAnswerKeyCache(cacheDirectory, fixturePath).ignored).toBe(
      '33.0 MB, larger than the 32 MB a cache can reach in this version (a run removes one that would grow past it), so this version did not write it; not read: the run computes its answers and writes them in its place',
    );
    // Old: the report said only "larger than 32 MB".
    const oversize = await replay(cacheDirectory);
    expect(oversize.keyCache?.problem).toBe(
      `ignored ${file}: 33.0 MB, larger than the 32 MB a cache can reach in this version (a run removes one that would grow past it), so this version did not write it; not read: the run computes its answers and writes them in its place`,
    );
    expect(oversize.keyCache?.loaded).toBe(0);
    expect(oversize.keyCache?.computed).toBe(first.keyCache?.computed);
    expect(oversize.summary).toEqual(first.summary);
    // Replaced by this run's answers: the next run reads them all.
    expect(statSync(file).size).toBeLessThan(maxCacheBytes);
    const next = await replay(cacheDirectory);
    expect(next.keyCache?.loaded).toBe(first.keyCache?.computed);
    expect(next.keyCache?.problem).toBeUndefined();
  });

  it('refuses a file whose entries have the wrong shape, naming the section', () => {
    const cacheDirectory = join(directory, 'shape');
    const cache = loadAnswerKeyCache(cacheDirectory, fixturePath);
    const fingerprint = answerCodeFingerprint();
    const write = (body: object) =>
      saveText(
        cache.file,
        JSON.stringify({ schemaVersion: 1, fingerprint, canonical: {}, equivalent: {}, score: {}, ...body }),
      );
    write({ score: { number: [['42', '42', 2, 1]] } });
    expect(loadAnswerKeyCache(cacheDirectory, fixturePath).ignored).toBe('score.number has a malformed entry');
    write({ canonical: { 'no-such-kind': [] } });
    expect(loadAnswerKeyCache(cacheDirectory, fixturePath).ignored).toBe(
      'canonical has an unknown kind "no-such-kind"',
    );
    write({
      canonical: {
        number: [
          [' 42 ', '42'],
          ['x', null],
        ],
      },
      equivalent: { number: [['42', '42.0', 1]] },
    });
    const good = loadAnswerKeyCache(cacheDirectory, fixturePath);
    expect(good.ignored).toBeUndefined();
    expect(good.loaded).toBe(3);
    // A file this code writes never repeats an entry, and its exact scores are 0 or 1.
    write({
      canonical: {
        number: [
          ['1', '1'],
          ['1', '2'],
        ],
      },
    });
    expect(loadAnswerKeyCache(cacheDirectory, fixturePath).ignored).toBe('canonical.number repeats "1"');
    write({
      equivalent: {
        number: [
          ['1', '1.0', 1],
          ['1', '1.0', 0],
        ],
      },
    });
    expect(loadAnswerKeyCache(cacheDirectory, fixturePath).ignored).toBe('equivalent.number repeats ["1","1.0"]');
    write({
      score: {
        labels: [
          ['a', 'a', 1, 1],
          ['a', 'a', 0, 0.5],
        ],
      },
    });
    expect(loadAnswerKeyCache(cacheDirectory, fixturePath).ignored).toBe('score.labels repeats ["a","a"]');
    write({ score: { labels: [['a', 'a', 0.5, 0.5]] } });
    expect(loadAnswerKeyCache(cacheDirectory, fixturePath).ignored).toBe('score.labels has a malformed entry');
    // Keys such as __proto__ are plain keys of the tables.
    write({ canonical: { number: [['__proto__', '1']] } });
    expect(loadAnswerKeyCache(cacheDirectory, fixturePath).tables.canonical.get('number')?.get('__proto__')).toBe('1');
  });

  it('answers from the saved tables before the wrapped ops, and counts what it computed', () => {
    let calls = 0;
    const base = {
      canonical: (_kind: string, raw: string) => {
        calls++;
        return raw.trim();
      },
      equivalent: () => false,
      score: () => ({ exact: 0, f1: 0 }),
    };
    const saved = emptyAnswerTables();
    saved.canonical.set('number', new Map([[' 7 ', 'seven (saved)']]));
    const ops = memoizeAnswerOps(base, saved);
    expect(ops.canonical('number', ' 7 ')).toBe('seven (saved)');
    expect(ops.canonical('number', ' 8 ')).toBe('8');
    expect(ops.canonical('number', ' 8 ')).toBe('8');
    expect(calls).toBe(1);
    expect(ops.computed()).toBe(1);
    expect(ops.reused()).toBe(1);
    // The run's tables hold what it asked, saved or computed; the saved tables are only read.
    expect([...(ops.tables.canonical.get('number') ?? [])]).toEqual([
      [' 7 ', 'seven (saved)'],
      [' 8 ', '8'],
    ]);
    expect([...(saved.canonical.get('number') ?? [])]).toEqual([[' 7 ', 'seven (saved)']]);
  });

  it("writes back a finished run's working set: another sample's answers are dropped, not kept forever", async () => {
    const cacheDirectory = join(directory, 'working-set');
    // Two samples of the fixture with different seeds: their tasks and attack payloads differ.
    const sample = (seed: number, keyCache?: string) =>
      runReplay({
        path: fixturePath,
        tasks: 12,
        seed,
        split: 'all',
        methods: ['majority'],
        workers: 1,
        ...(keyCache === undefined ? {} : { keyCache }),
      });
    // What the seed-2 run asks, counted by a cold run of it alone in its own cache: it computes each question once.
    const alone = await sample(2, join(directory, 'working-set-alone'));
    const asked = alone.keyCache?.computed as number;
    const first = await sample(1, cacheDirectory);
    const second = await sample(2, cacheDirectory);
    expect(second.keyCache?.loaded).toBe(first.keyCache?.computed);
    // The seed-1 answers the seed-2 run never asked are dropped from the file it writes back.
    const reused = asked - (second.keyCache?.computed as number);
    expect(reused).toBeGreaterThan(0);
    expect(second.keyCache?.dropped).toBe((first.keyCache?.loaded ?? 0) + (first.keyCache?.computed ?? 0) - reused);
    expect(second.keyCache?.dropped).toBeGreaterThan(0);
    expect(loadAnswerKeyCache(cacheDirectory, fixturePath).loaded).toBe(asked);
    expect(second.summary).toEqual(alone.summary);
    // The same run again reads exactly its own answers, computes none and rewrites nothing.
    const again = await sample(2, cacheDirectory);
    expect([again.keyCache?.loaded, again.keyCache?.computed, again.keyCache?.dropped]).toEqual([asked, 0, 0]);
  });

  it('keeps every saved answer when a run stops early, adding what it computed', async () => {
    const cacheDirectory = join(directory, 'stopped');
    const options = { path: fixturePath, tasks: 12, split: 'all' as const, methods: ['majority'], workers: 1 };
    const first = await runReplay({ ...options, seed: 1, keyCache: cacheDirectory });
    const saved = first.keyCache?.computed as number;
    // A seed-3 run stopped by its progress callback after its tenth condition (attacked ones planned).
    await expect(
      runReplay({
        ...options,
        seed: 3,
        keyCache: cacheDirectory,
        onProgress: (done) => {
          if (done === 10) throw new Error('stop here');
        },
      }),
    ).rejects.toThrow('stop here');
    const after = loadAnswerKeyCache(cacheDirectory, fixturePath).loaded;
    // Its file holds the seed-1 answers and more; a finished seed-1 run then computes nothing.
    expect(after).toBeGreaterThan(saved);
    const rerun = await runReplay({ ...options, seed: 1, keyCache: cacheDirectory });
    expect([rerun.keyCache?.loaded, rerun.keyCache?.computed, rerun.keyCache?.dropped]).toEqual([
      after,
      0,
      after - saved,
    ]);
  });

  it('drops nothing when a finished run cannot write the file back, and says why', async () => {
    const cacheDirectory = join(directory, 'unwritable');
    const options = { path: fixturePath, tasks: 12, split: 'all' as const, methods: ['majority'], workers: 1 };
    const first = await runReplay({ ...options, seed: 1, keyCache: cacheDirectory });
    const file = first.keyCache?.file as string;
    // A seed-2 run, once it has read the seed-1 file, finds a directory in the file's place: its rename fails.
    let blocked = false;
    const second = await runReplay({
      ...options,
      seed: 2,
      keyCache: cacheDirectory,
      onProgress: () => {
        if (blocked) return;
        blocked = true;
        rmSync(file);
        mkdirSync(join(file, 'in-the-way'), { recursive: true });
      },
    });
    expect(second.keyCache?.loaded).toBe(first.keyCache?.computed);
    expect(second.keyCache?.problem).toMatch(/^could not save .*EISDIR/);
    // Nothing was written, so no saved answer left the cache: the file it could not replace keeps them.
    expect(second.keyCache?.dropped).toBe(0);
  });

  it('reports every problem of a write-back in order: an ignored file, then a failed or oversize save', () => {
    // Ops that key each answer as itself, trimmed: one call computes one answer.
    const trimmingOps = (saved = emptyAnswerTables()) =>
      memoizeAnswerOps(
        { canonical: (_kind, raw) => raw.trim(), equivalent: () => false, score: () => ({ exact: 0, f1: 0 }) },
        saved,
      );
    // A directory in the file's place: the load ignores it, then the save cannot rename over it.
    const blocked = loadAnswerKeyCache(join(directory, 'two-problems'), fixturePath);
    mkdirSync(join(blocked.file, 'in-the-way'), { recursive: true });
    const cache = loadAnswerKeyCache(join(directory, 'two-problems'), fixturePath);
    const ops = trimmingOps();
    ops.canonical('number', ' 8 ');
    const failed = writeBackAnswerKeyCache(cache, ops, true);
    // Old (run-replay's saveKeyCache): the save's problem replaced the load's, so "not a file" was lost.
    expect(failed.problem).toMatch(/^ignored .*: not a file; then could not save .*: EISDIR/);
    expect(failed.problem?.startsWith(`ignored ${cache.file}: not a file; then could not save ${cache.file}: `)).toBe(
      true,
    );
    expect(failed).toMatchObject({ file: cache.file, loaded: 0, computed: 1, dropped: 0 });
    // A file of other answer code, then a save past the limit (40 bytes here; the header alone is longer).
    const other = join(directory, 'two-problems-oversize');
    const stale = loadAnswerKeyCache(other, fixturePath);
    mkdirSync(other, { recursive: true });
    writeFileSync(stale.file, JSON.stringify({ schemaVersion: 1, fingerprint: '0000000000000000' }));
    const ignored = loadAnswerKeyCache(other, fixturePath);
    expect(writeBackAnswerKeyCache(ignored, ops, true, 40).problem).toBe(
      `ignored ${stale.file}: written by other answer code; then removed ${stale.file}: it would pass 40 bytes; the next run starts it over`,
    );
    expect(existsSync(stale.file)).toBe(false);
    // Nothing went wrong: no problem.
    const clean = loadAnswerKeyCache(join(directory, 'two-problems-clean'), fixturePath);
    expect(writeBackAnswerKeyCache(clean, ops, true)).toEqual({
      file: clean.file,
      loaded: 0,
      computed: 1,
      dropped: 0,
      problem: undefined,
    });
  });

  it('writes every answer, removes a cache that would pass the size limit, and keeps 3 other versions', () => {
    const cacheDirectory = join(directory, 'limits');
    const cache = loadAnswerKeyCache(cacheDirectory, fixturePath);
    const tables = emptyAnswerTables();
    tables.canonical.set(
      'number',
      new Map<string, string | null>([
        ['1', '1'],
        [' 2', '2'],
        ['x', null],
      ]),
    );
    tables.equivalent.set(
      'number',
      new Map([
        [
          '1',
          new Map([
            ['1.0', true],
            ['2', false],
          ]),
        ],
      ]),
    );
    tables.score.set('number', new Map([['1', new Map([['1', { exact: 1, f1: 1 }]])]]));
    expect(saveAnswerKeyCache(cache, tables)).toBe(6);
    const read = loadAnswerKeyCache(cacheDirectory, fixturePath);
    expect(read.loaded).toBe(6);
    expect(read.tables).toEqual(tables);
    // The file is about 200 bytes: a 100-byte limit removes it rather than writing part of it.
    expect(saveAnswerKeyCache(cache, tables, 100)).toBe(0);
    expect(existsSync(cache.file)).toBe(false);
    expect(readdirSync(cacheDirectory)).toEqual([]);
    // Five files of other code versions, oldest first: the three most recent stay; and this code
    // version's file of another dataset stays, however old.
    for (let index = 0; index < 5; index++) {
      const other = join(cacheDirectory, `answer-keys-${String(index).repeat(16)}-${'a'.repeat(12)}.json`);
      writeFileSync(other, '{}');
      utimesSync(other, 1_000_000 + index, 1_000_000 + index);
    }
    const otherDataset = loadAnswerKeyCache(cacheDirectory, join(directory, 'another.jsonl')).file;
    expect(otherDataset).not.toBe(cache.file);
    writeFileSync(otherDataset, '{}');
    utimesSync(otherDataset, 1_000_000, 1_000_000);
    saveAnswerKeyCache(cache, tables);
    expect(readdirSync(cacheDirectory).sort()).toEqual(
      [
        cache.file.split('/').at(-1),
        otherDataset.split('/').at(-1),
        ...[2, 3, 4].map((index) => `answer-keys-${String(index).repeat(16)}-${'a'.repeat(12)}.json`),
      ].sort(),
    );
  });

  it('leaves no temporary file when saving fails, and removes the ones a killed run left', () => {
    const cacheDirectory = join(directory, 'leftovers');
    const cache = loadAnswerKeyCache(cacheDirectory, fixturePath);
    const tables = emptyAnswerTables();
    tables.canonical.set('number', new Map([['1', '1']]));
    // A directory in the file's place: not read, and the rename over it fails.
    mkdirSync(cache.file, { recursive: true });
    expect(() => saveAnswerKeyCache(cache, tables)).toThrow(/EISDIR/);
    expect(() => saveAnswerKeyCache(cache, tables)).toThrow(/EISDIR/);
    const name = cache.file.split('/').at(-1) as string;
    expect(readdirSync(cacheDirectory)).toEqual([name]);
    expect(loadAnswerKeyCache(cacheDirectory, fixturePath).ignored).toBe('not a file');
    // Temporary files of killed runs: one two hours old goes, one a running save may still write stays.
    const elsewhere = loadAnswerKeyCache(join(directory, 'leftovers-2'), fixturePath);
    const old = `${elsewhere.file}.4242.tmp`;
    const recent = `${elsewhere.file}.4343-0a1b2c3d.tmp`;
    mkdirSync(dirname(old), { recursive: true });
    writeFileSync(old, '{');
    writeFileSync(recent, '{');
    const twoHoursAgo = (Date.now() - 2 * 60 * 60 * 1000) / 1000;
    utimesSync(old, twoHoursAgo, twoHoursAgo);
    expect(saveAnswerKeyCache(elsewhere, tables)).toBe(1);
    expect(readdirSync(dirname(old)).sort()).toEqual([name, `${name}.4343-0a1b2c3d.tmp`].sort());
  });

  it('fingerprints every module the answer ops import, transitively, not only core/answers', async () => {
    // core/answers imports resolveOptions (core/options), the validators (core/validate) and the error
    // classes (core/errors): a change to any of them can change a key, so it changes the fingerprint;
    // a module the answer ops do not import (core/rng) does not.
    const source = fileURLToPath(new URL('../../', import.meta.url));
    const modules = fileURLToPath(new URL('../../../node_modules', import.meta.url));
    const fingerprintOf = async (changed: string | undefined): Promise<string> => {
      const copy = temporaryDirectory('repute-key-cache-code-');
      symlinkSync(modules, join(copy, 'node_modules'), 'dir');
      for (const folder of ['core', 'eval/replay'])
        cpSync(join(source, folder), join(copy, 'src', folder), {
          recursive: true,
          filter: (path) => !path.endsWith('.test.ts'),
        });
      if (changed !== undefined) appendFileSync(join(copy, 'src', changed), '\n// changed\n');
      const module = (await import(
        pathToFileURL(join(copy, 'src/eval/replay/_answer-key-cache.ts')).href
      )) as typeof import('./_answer-key-cache.js');
      return module.answerCodeFingerprint();
    };
    const unchanged = await fingerprintOf(undefined);
    expect(unchanged).toBe(answerCodeFingerprint());
    expect(await fingerprintOf('core/rng.ts')).toBe(unchanged);
    for (const changed of ['core/answers/_text.ts', 'core/options.ts', 'core/validate.ts', 'core/errors.ts'])
      expect(await fingerprintOf(changed), changed).not.toBe(unchanged);
    // The list it hashes names them.
    expect(answerCodeFiles().map((file) => file.name)).toEqual(
      expect.arrayContaining([
        'core/answers/answers.ts',
        'core/answers/math-answer.ts',
        'core/errors.ts',
        'core/options.ts',
        'core/validate.ts',
        'eval/replay/default-answer-ops.ts',
        'package @cortex-js/compute-engine',
      ]),
    );
  });

  it('defaults to $REPUTE_CACHE_DIR, then $XDG_CACHE_HOME/repute, then ~/.cache/repute', () => {
    expect(defaultCacheDirectory({ REPUTE_CACHE_DIR: '/a', XDG_CACHE_HOME: '/b' })).toBe('/a');
    expect(defaultCacheDirectory({ XDG_CACHE_HOME: '/b' })).toBe('/b/repute');
    expect(defaultCacheDirectory({})).toMatch(/\/\.cache\/repute$/);
  });
});

function saveText(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}
