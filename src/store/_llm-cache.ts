import { hostname } from 'node:os';
import { assertInteger, assertNonEmptyString } from '../core/validate.js';
import { type StoreContext, toJson } from './_store-context.js';
import type { Store } from './types.js';

/** The `llm_cache` table: LLM responses by request hash; the first write wins. */
export function createLlmCacheTable({
  db,
  now,
  guard,
  transaction,
  lock,
}: StoreContext): Pick<
  Store,
  | 'getCachedResponse'
  | 'putCachedResponse'
  | 'countCachedResponses'
  | 'claimCachedResponse'
  | 'releaseCachedResponseClaim'
> {
  const statements = {
    getCache: db.prepare('SELECT value FROM llm_cache WHERE key = ?'),
    putCache: db.prepare(
      'INSERT INTO llm_cache (key, model, value, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO NOTHING',
    ),
    countCache: db.prepare('SELECT COUNT(*) AS count FROM llm_cache'),
    getClaim: db.prepare('SELECT holder, claimed_until FROM llm_claims WHERE key = ?'),
    putClaim: db.prepare(
      'INSERT INTO llm_claims (key, holder, claimed_until) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET holder = excluded.holder, claimed_until = excluded.claimed_until',
    ),
    deleteClaim: db.prepare('DELETE FROM llm_claims WHERE key = ? AND holder = ?'),
  };
  return {
    getCachedResponse(key) {
      guard();
      const row = statements.getCache.get(key) as { value: string } | undefined;
      return row === undefined ? undefined : JSON.parse(row.value);
    },

    putCachedResponse({ key, value, model = null }) {
      guard();
      assertNonEmptyString('key', key);
      return statements.putCache.run(key, model, toJson('value', value), now()).changes === 1;
    },

    claimCachedResponse({ key, holder, leaseMs }) {
      guard();
      assertNonEmptyString('key', key);
      assertNonEmptyString('holder', holder, 'pass an id unique to this process');
      assertInteger('leaseMs', leaseMs, 1, 2_147_483_647, 'pass the claim lease in milliseconds, e.g. 60000');
      return transaction(() => {
        lock(`llm:${key}`);
        // Recorded meanwhile: nobody needs to call.
        if (statements.getCache.get(key) !== undefined) return 'hit';
        const at = now();
        const claim = statements.getClaim.get(key) as { holder: string; claimed_until: number } | undefined;
        if (claim !== undefined && claim.holder !== holder && claim.claimed_until > at && !holderIsGone(claim.holder))
          return 'claimed-by-other';
        statements.putClaim.run(key, holder, at + leaseMs);
        return 'claimed';
      });
    },

    releaseCachedResponseClaim({ key, holder }) {
      guard();
      statements.deleteClaim.run(key, holder);
    },

    countCachedResponses() {
      guard();
      return (statements.countCache.get() as { count: number }).count;
    },
  };
}

/**
 * Whether a claim's holder (`host:pid:...`, the cache middleware's default) is a process of this
 * host that no longer exists. A run killed with SIGKILL leaves its claims behind; without this the
 * rerun on the same machine would wait out their whole lease before calling. Holders on other hosts
 * and holders in another format are kept until their lease ends.
 */
export function holderIsGone(holder: string): boolean {
  const [host, pidText] = holder.split(':');
  if (host !== hostname() || pidText === undefined || !/^[1-9][0-9]*$/.test(pidText)) return false;
  try {
    process.kill(Number(pidText), 0);
    return false;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
