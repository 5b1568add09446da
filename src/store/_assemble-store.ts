// Composes a Store from its table modules over one connection's context: shared by the SQLite store
// (store.ts) and the PostgreSQL store (_postgres-store.ts), which each open their connection and pass
// its context, close and transaction here.
import { createEventsTable } from './_events.js';
import { createLlmCacheTable } from './_llm-cache.js';
import { createReputationLogTable } from './_reputation-log.js';
import { createReputationTable } from './_reputation-snapshots.js';
import { createRunsTable } from './_runs.js';
import type { StoreContext } from './_store-context.js';
import { type StoreFailureContext, withStoreErrors } from './_store-errors.js';
import { createTaskResultsTable } from './_task-results.js';
import { createTeamsTable } from './_teams.js';
import { createUsageTable } from './_usage.js';
import type { Store } from './types.js';

/**
 * The store's methods over one open, migrated connection (SQLite's or PostgreSQL's): one module
 * per table family, every method wrapped so the database's failures leave as `StoreError`s.
 */
export function assembleStore(
  context: StoreContext,
  input: {
    schemaVersion: number;
    failureContext: StoreFailureContext;
    close: () => void;
    /** `store.transaction` when it differs from the table families' (PostgreSQL: serialised like SQLite's). @default context.transaction */
    transaction?: <T>(work: () => T) => T;
  },
): Store {
  const runs = createRunsTable(context);
  const events = createEventsTable(context, runs.requireRun);
  const reputation = createReputationTable(context);
  const usage = createUsageTable(context);
  const reputationLog = createReputationLogTable(context);
  const taskResults = createTaskResultsTable(context, {
    requireRun: runs.requireRun,
    appendEvents: events.appendUnchecked,
    saveReputation: reputation.saveUnchecked,
    recordUsage: usage.recordUnchecked,
    appendReputationEvent: reputationLog.appendUnchecked,
  });

  return withStoreErrors<Store>(
    {
      path: context.path,
      schemaVersion: input.schemaVersion,
      ...runs.methods,
      ...taskResults,
      ...events.methods,
      ...reputation.methods,
      ...reputationLog.methods,
      ...createTeamsTable(context),
      ...createLlmCacheTable(context),
      ...usage.methods,
      transaction: input.transaction ?? context.transaction,
      close: input.close,
    },
    input.failureContext,
  );
}
