import { assertNonEmptyString } from '../core/validate.js';
import { type StoreContext, toJson } from './_store-context.js';
import type { Store } from './store.js';

/** The `llm_cache` table: LLM responses by request hash; the first write wins. */
export function createLlmCacheTable({
  db,
  now,
  guard,
}: StoreContext): Pick<Store, 'getCachedResponse' | 'putCachedResponse' | 'countCachedResponses'> {
  const statements = {
    getCache: db.prepare('SELECT value FROM llm_cache WHERE key = ?'),
    putCache: db.prepare(
      'INSERT INTO llm_cache (key, model, value, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO NOTHING',
    ),
    countCache: db.prepare('SELECT COUNT(*) AS count FROM llm_cache'),
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

    countCachedResponses() {
      guard();
      return (statements.countCache.get() as { count: number }).count;
    },
  };
}
