import { spawn, spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateText, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { createCacheMiddleware } from '../llm/cache-middleware.js';
import { ScriptedModel } from '../testing/scripted-model.js';
import { temporaryDirectory } from '../testing/_test-temporary-directory.js';
import { newPostgresStoreUrl, postgresAvailable } from './_test-postgres.js';
import { openStore } from './store.js';

describe('shared response cache: claims', () => {
  it('lets one of two processes’ middlewares call the provider for an identical request; the other gets its reply', async () => {
    const store = openStore({ path: join(temporaryDirectory('repute-claims-'), 'store.db') });
    try {
      // Two middlewares with their own holders stand for two processes (no in-memory sharing between them).
      const first = new ScriptedModel({
        replies: [{ text: 'four', delayMs: 200, usage: { inputTokens: 2, outputTokens: 1 } }],
      });
      const second = new ScriptedModel({ replies: [{ text: 'other', usage: { inputTokens: 2, outputTokens: 1 } }] });
      const wrap = (model: ScriptedModel, holder: string) =>
        wrapLanguageModel({
          model,
          middleware: createCacheMiddleware({ cache: store, claimHolder: holder, namespace: 'p' }),
        });
      const [a, b] = await Promise.all([
        generateText({ model: wrap(first, 'A'), prompt: 'What is 2 + 2?', maxRetries: 0 }),
        new Promise((resolve) => setTimeout(resolve, 20)).then(() =>
          generateText({ model: wrap(second, 'B'), prompt: 'What is 2 + 2?', maxRetries: 0 }),
        ),
      ]);
      expect([a.text, b.text]).toEqual(['four', 'four']);
      expect([first.calls.length, second.calls.length]).toEqual([1, 0]);
      expect(store.countCachedResponses()).toBe(1);
    } finally {
      store.close();
    }
  });

  it('releases the claim when the call fails, so the next caller calls', async () => {
    const store = openStore({ path: join(temporaryDirectory('repute-claims-'), 'store.db') });
    try {
      const failing = new ScriptedModel({ replies: [{ error: new Error('endpoint down'), delayMs: 100 }] });
      const working = new ScriptedModel({ replies: [{ text: 'four', usage: { inputTokens: 2, outputTokens: 1 } }] });
      const wrap = (model: ScriptedModel, holder: string) =>
        wrapLanguageModel({
          model,
          middleware: createCacheMiddleware({ cache: store, claimHolder: holder, namespace: 'p' }),
        });
      const [a, b] = await Promise.allSettled([
        generateText({ model: wrap(failing, 'A'), prompt: 'q', maxRetries: 0 }),
        new Promise((resolve) => setTimeout(resolve, 20)).then(() =>
          generateText({ model: wrap(working, 'B'), prompt: 'q', maxRetries: 0 }),
        ),
      ]);
      expect(a.status).toBe('rejected');
      expect(b.status === 'fulfilled' ? b.value.text : b.reason).toBe('four');
      expect([failing.calls.length, working.calls.length]).toEqual([1, 1]);
      // A claim's holder sees its own claim as free; another holder waits until its lease ends.
      expect(store.claimCachedResponse({ key: 'k', holder: 'A', leaseMs: 60_000 })).toBe('claimed');
      expect(store.claimCachedResponse({ key: 'k', holder: 'A', leaseMs: 60_000 })).toBe('claimed');
      expect(store.claimCachedResponse({ key: 'k', holder: 'B', leaseMs: 60_000 })).toBe('claimed-by-other');
      store.putCachedResponse({ key: 'k', value: 1 });
      expect(store.claimCachedResponse({ key: 'k', holder: 'B', leaseMs: 60_000 })).toBe('hit');
    } finally {
      store.close();
    }
  });

  it('takes over at once a claim whose holder was a process of this host that is gone (a SIGKILLed run), not a live one', () => {
    const store = openStore({ path: join(temporaryDirectory('repute-claims-dead-'), 'store.db') });
    try {
      // A process that has exited: its pid no longer exists (spawnSync waits for it and reaps it).
      const gone = spawnSync(process.execPath, ['-e', '0']).pid;
      const lease = 3_600_000;
      expect(store.claimCachedResponse({ key: 'dead', holder: `${hostname()}:${gone}:x`, leaseMs: lease })).toBe(
        'claimed',
      );
      // Old: 'claimed-by-other' for the whole hour of the lease (a rerun after SIGKILL hung in run.test).
      expect(store.claimCachedResponse({ key: 'dead', holder: 'B', leaseMs: lease })).toBe('claimed');
      // A live holder of this host (this very process) and a holder on another host keep their claims.
      expect(store.claimCachedResponse({ key: 'live', holder: `${hostname()}:${process.pid}:x`, leaseMs: lease })).toBe(
        'claimed',
      );
      expect(store.claimCachedResponse({ key: 'live', holder: 'B', leaseMs: lease })).toBe('claimed-by-other');
      expect(
        store.claimCachedResponse({ key: 'far', holder: `elsewhere-${hostname()}:${gone}:x`, leaseMs: lease }),
      ).toBe('claimed');
      expect(store.claimCachedResponse({ key: 'far', holder: 'B', leaseMs: lease })).toBe('claimed-by-other');
    } finally {
      store.close();
    }
  });

  it.skipIf(!postgresAvailable())(
    'calls the provider once for one question asked by four processes at once on PostgreSQL, ledger exact',
    async () => {
      const url = newPostgresStoreUrl();
      openStore({ path: url }).close();
      const child = fileURLToPath(new URL('./_test-cache-worker.ts', import.meta.url));
      const startAt = Date.now() + 4000;
      const outputs = await Promise.all(
        ['w1', 'w2', 'w3', 'w4'].map(
          (name) =>
            new Promise<string>((resolve, reject) => {
              const worker = spawn(process.execPath, ['--import', 'tsx', child, url, String(startAt), name], {
                stdio: ['ignore', 'pipe', 'pipe'],
              });
              let out = '';
              let err = '';
              worker.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
              worker.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
              worker.on('close', (code) =>
                code === 0 ? resolve(out) : reject(new Error(`worker exited ${code}: ${err}`)),
              );
            }),
        ),
      );
      const store = openStore({ path: url });
      try {
        const calls = store.usageEntries().filter((entry) => entry.act === 'provider-call');
        // One provider call in all; every process got that call's reply.
        expect(calls).toHaveLength(1);
        const texts = outputs.map((output) => /text (.*)/.exec(output)?.[1]);
        expect(new Set(texts)).toEqual(new Set([`answer from ${calls[0]?.agentId}`]));
        expect(store.countCachedResponses()).toBe(1);
      } finally {
        store.close();
      }
    },
    120_000,
  );
});
