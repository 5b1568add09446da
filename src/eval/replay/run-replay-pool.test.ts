import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { writeProposalsJsonl } from '../proposals/proposals-jsonl.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';
import { generateReplayFixture } from './fixture.js';
import { runReplay } from './run-replay.js';

// The real worker pool, counted: runReplay starts its workers before it loads the dataset, so every
// way out of a run, a failed load included, must close them (open worker threads keep a process alive).
const pools = vi.hoisted(() => ({ created: 0, closed: 0 }));
vi.mock('./worker-pool.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('./worker-pool.js')>();
  return {
    ...actual,
    createWorkerPool(workers: number) {
      pools.created++;
      const pool = actual.createWorkerPool(workers);
      return {
        ...pool,
        async close() {
          pools.closed++;
          await pool.close();
        },
      };
    },
  };
});

const directory = temporaryDirectory('repute-replay-pool-');
const fixturePath = join(directory, 'fixture.jsonl');
beforeAll(async () => {
  await writeProposalsJsonl(fixturePath, generateReplayFixture({ seed: 21, tasks: 30 }));
});
beforeEach(() => {
  pools.created = 0;
  pools.closed = 0;
});

describe('runReplay: the worker pool', () => {
  it('closes the workers it started when the dataset cannot be loaded', async () => {
    await expect(runReplay({ path: join(directory, 'absent.jsonl'), workers: 2 })).rejects.toThrow(/not found/);
    expect(pools).toEqual({ created: 1, closed: 1 });
  });

  it('starts one pool per run and closes it after the last seed', async () => {
    const report = await runReplay({ path: fixturePath, workers: 2, tasks: 20, seeds: [1, 2], methods: ['majority'] });
    expect(report.summary.options.seeds).toEqual([1, 2]);
    expect(pools).toEqual({ created: 1, closed: 1 });
  });

  it('starts no pool with one worker', async () => {
    await runReplay({ path: fixturePath, workers: 1, tasks: 20, methods: ['majority'] });
    expect(pools).toEqual({ created: 0, closed: 0 });
  });
});
