import { InvalidArgumentError } from '../core/errors.js';
import { assertNonEmptyString } from '../core/validate.js';
import type { ReputationSnapshot } from '../reputation/reputation-model.js';
import { type StoreContext, toJson } from './_store-context.js';
import type { ReputationScope, SaveReputationInput, Store } from './types.js';

/** Saves a snapshot without the open check (the caller holds a transaction); `parameter` names the input in errors. */
export type SaveReputation = (input: SaveReputationInput, parameter: string) => void;

/** The `reputation` table: one snapshot per (scope, name), replaced on save. */
export function createReputationTable({ db, now, guard, transaction }: StoreContext): {
  methods: Pick<Store, 'saveReputation' | 'loadReputation'>;
  saveUnchecked: SaveReputation;
} {
  const statements = {
    saveReputation: db.prepare(
      'INSERT INTO reputation (scope, scope_id, name, snapshot, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (scope, scope_id, name) DO UPDATE SET snapshot = excluded.snapshot, updated_at = excluded.updated_at',
    ),
    loadReputation: db.prepare('SELECT snapshot FROM reputation WHERE scope = ? AND scope_id = ? AND name = ?'),
  };

  const saveUnchecked: SaveReputation = ({ scope, name, snapshot }, parameter) => {
    assertNonEmptyString(`${parameter}.name`, name, "use the method name, e.g. 'drf'");
    const [kind, id] = scopeKey(scope, `${parameter}.scope`);
    if (snapshot === null || typeof snapshot !== 'object' || snapshot.schemaVersion !== 1) {
      throw new InvalidArgumentError({
        parameter: `${parameter}.snapshot`,
        value: snapshot,
        message: `${parameter}.snapshot must be a ReputationSnapshot with schemaVersion 1; pass model.snapshot()`,
      });
    }
    statements.saveReputation.run(kind, id, name, toJson(`${parameter}.snapshot`, snapshot), now());
  };

  const methods: Pick<Store, 'saveReputation' | 'loadReputation'> = {
    saveReputation(input) {
      guard();
      transaction(() => saveUnchecked(input, 'input'));
    },

    loadReputation({ scope, name }) {
      guard();
      const [kind, id] = scopeKey(scope, 'scope');
      const row = statements.loadReputation.get(kind, id, name) as { snapshot: string } | undefined;
      return row === undefined ? undefined : (JSON.parse(row.snapshot) as ReputationSnapshot);
    },
  };
  return { methods, saveUnchecked };
}

function scopeKey(scope: ReputationScope, parameter: string): ['run' | 'team', string] {
  if (scope !== null && typeof scope === 'object') {
    if (typeof scope.runId === 'string' && scope.runId.length > 0 && scope.team === undefined)
      return ['run', scope.runId];
    if (typeof scope.team === 'string' && scope.team.length > 0 && scope.runId === undefined)
      return ['team', scope.team];
  }
  throw new InvalidArgumentError({
    parameter,
    value: scope,
    message: `${parameter} must be { runId } or { team } (exactly one, non-empty), got ${JSON.stringify(scope)}`,
  });
}
