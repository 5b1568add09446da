import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { writeProposalsJsonl } from '../proposals/proposals-jsonl.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';
import { generateReplayFixture } from './fixture.js';
import { runReplay } from './run-replay.js';

// The cache's code cannot be fingerprinted here (as in a bundle without the answer modules beside it).
vi.mock('./_answer-key-cache.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('./_answer-key-cache.js')>()),
  loadAnswerKeyCache: () => {
    throw new Error('default-answer-ops is not beside /bundle/index.js');
  },
}));

const directory = temporaryDirectory('repute-key-cache-failure-');
const fixturePath = join(directory, 'fixture.jsonl');
beforeAll(async () => {
  await writeProposalsJsonl(fixturePath, generateReplayFixture({ seed: 5, tasks: 20 }));
});

describe('runReplay with an answer-key cache it cannot use', () => {
  it('runs without the cache, with the same results, and says why', async () => {
    const options = { path: fixturePath, tasks: 20, split: 'all' as const, methods: ['majority'], workers: 1 };
    const plain = await runReplay(options);
    const failed = await runReplay({ ...options, keyCache: join(directory, 'cache') });
    expect(failed.summary).toEqual(plain.summary);
    expect(failed.keyCache?.problem).toBe('not used: default-answer-ops is not beside /bundle/index.js');
    expect(failed.keyCache?.loaded).toBe(0);
    expect(failed.keyCache?.computed).toBeGreaterThan(0);
  });
});
