import { isDeepStrictEqual } from 'node:util';
import { InvalidArgumentError, NotFoundError } from '../core/errors.js';
import { assertNonEmptyString } from '../core/validate.js';
import { isConstraint, setConditions, type StoreContext, toJson } from './_store-context.js';
import type { CreateRunInput, RunRecord, RunStatus, Store } from './types.js';

const RUN_STATUSES: readonly RunStatus[] = ['running', 'completed', 'failed', 'interrupted'];

/** A row of the `runs` table. */
export interface RunRow {
  id: string;
  kind: string;
  team: string | null;
  config: string;
  status: string;
  created_at: number;
  updated_at: number;
}

/** The `runs` table: the store's run methods, plus `requireRun` for the families that write under a run. */
export function createRunsTable({ db, path, now, guard, transaction, lock }: StoreContext): {
  methods: Pick<Store, 'createRun' | 'ensureRun' | 'getRun' | 'listRuns' | 'setRunStatus'>;
  requireRun: (runId: string) => RunRow;
} {
  const statements = {
    insertRun: db.prepare(
      'INSERT INTO runs (id, kind, team, config, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    getRun: db.prepare('SELECT * FROM runs WHERE id = ?'),
    setRunStatus: db.prepare('UPDATE runs SET status = ?, updated_at = ? WHERE id = ?'),
  };

  const requireRun = (runId: string): RunRow => {
    const row = statements.getRun.get(runId) as RunRow | undefined;
    if (row === undefined) {
      throw new NotFoundError({
        entity: 'run',
        id: runId,
        message: `unknown run id ${JSON.stringify(runId)} in store ${path}; create it first with store.createRun({ id, kind, config })`,
      });
    }
    return row;
  };

  const methods: Pick<Store, 'createRun' | 'ensureRun' | 'getRun' | 'listRuns' | 'setRunStatus'> = {
    createRun(input) {
      guard();
      const { id, kind, team, config } = validateRunInput(input);
      const createdAt = now();
      try {
        statements.insertRun.run(id, kind, team, config, 'running', createdAt, createdAt);
      } catch (error) {
        if (isConstraint(error, 'SQLITE_CONSTRAINT_PRIMARYKEY')) {
          throw new InvalidArgumentError({
            parameter: 'id',
            value: id,
            message: `run ${JSON.stringify(id)} already exists in store ${path}; pick a new id or resume it with store.ensureRun(...)`,
          });
        }
        // The store's method wrapper explains SQLite's other failures (a held lock, a full disk).
        throw error;
      }
      return toRun(requireRun(id));
    },

    ensureRun(input) {
      guard();
      const { id, kind, team, config } = validateRunInput(input);
      return transaction(() => {
        lock(`run:${id}`);
        const existing = statements.getRun.get(id) as RunRow | undefined;
        if (existing === undefined) {
          const createdAt = now();
          statements.insertRun.run(id, kind, team, config, 'running', createdAt, createdAt);
          return { run: toRun(requireRun(id)), resumed: false };
        }
        const mismatches: string[] = [];
        if (existing.kind !== kind) mismatches.push(`kind ${JSON.stringify(existing.kind)} vs ${JSON.stringify(kind)}`);
        if (existing.team !== team) mismatches.push(`team ${JSON.stringify(existing.team)} vs ${JSON.stringify(team)}`);
        const differences = configDifferences(JSON.parse(existing.config), JSON.parse(config));
        if (differences.length > 0) mismatches.push(`config differs at ${differences.join('; ')}`);
        if (mismatches.length > 0) {
          throw new InvalidArgumentError({
            parameter: 'id',
            value: id,
            message: `run ${JSON.stringify(id)} exists in store ${path} with a different setup (${mismatches.join('; ')}); resume it with the same configuration or choose a new run id`,
          });
        }
        statements.setRunStatus.run('running', now(), id);
        return { run: toRun(requireRun(id)), resumed: true };
      });
    },

    getRun(runId) {
      guard();
      const row = statements.getRun.get(runId) as RunRow | undefined;
      return row === undefined ? undefined : toRun(row);
    },

    listRuns(filter = {}) {
      guard();
      const { clauses, values } = setConditions([
        ['kind = ?', filter.kind],
        ['team = ?', filter.team],
      ]);
      const where = clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '';
      return (db.prepare(`SELECT * FROM runs ${where} ORDER BY created_at, rowid`).all(...values) as RunRow[]).map(
        toRun,
      );
    },

    setRunStatus(runId, status) {
      guard();
      if (!RUN_STATUSES.includes(status)) {
        throw new InvalidArgumentError({
          parameter: 'status',
          value: status,
          message: `status must be one of ${RUN_STATUSES.join(', ')}, got ${JSON.stringify(status)}`,
        });
      }
      requireRun(runId);
      statements.setRunStatus.run(status, now(), runId);
      return toRun(requireRun(runId));
    },
  };
  return { methods, requireRun };
}

function validateRunInput(input: CreateRunInput): { id: string; kind: string; team: string | null; config: string } {
  assertNonEmptyString('id', input?.id, "pass a run id such as 'run-2027-01'");
  assertNonEmptyString('kind', input.kind, "pass what produced the run, e.g. 'debate'");
  const team = input.team ?? null;
  if (team !== null) assertNonEmptyString('team', team, 'pass a team key or omit it');
  return { id: input.id, kind: input.kind, team, config: toJson('config', input.config ?? null) };
}

/** At most this many differences are named; the rest are counted. */
const MAX_NAMED_DIFFERENCES = 5;

/** Config keys whose values a message never quotes (an API key or token a library caller put in a config). */
const SECRET_KEY =
  /(api[_-]?key|secret|password|passwd|authorization|cookie|credentials?)$|^(key|token)$|(access|auth|bearer|refresh|api|session|id)[_-]?token$/i;

/**
 * Where two JSON configs differ, as `path: stored-value stored, given-value given` (values as JSON,
 * cut to 80 characters; `(none)` for a missing key; `[redacted]` under a key named like a secret,
 * e.g. `apiKey` or `headers.authorization`), so a refused resume says what changed.
 */
function configDifferences(stored: unknown, given: unknown): string[] {
  const found: string[] = [];
  let secret = false;
  const show = (value: unknown): string => {
    if (value === undefined) return '(none)';
    if (secret) return '[redacted]';
    const text = JSON.stringify(value);
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
  };
  const isRecord = (value: unknown): value is Record<string, unknown> =>
    value !== null && typeof value === 'object' && !Array.isArray(value);
  const visit = (left: unknown, right: unknown, path: string[]): void => {
    if (isDeepStrictEqual(left, right)) return;
    const sameArrays = Array.isArray(left) && Array.isArray(right) && left.length === right.length;
    if (sameArrays || (isRecord(left) && isRecord(right))) {
      const keys = sameArrays
        ? left.map((_, index) => String(index))
        : [...new Set([...Object.keys(left as object), ...Object.keys(right as object)])];
      for (const key of keys)
        visit((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key], [...path, key]);
      return;
    }
    secret = path.some((key) => SECRET_KEY.test(key));
    found.push(
      `${path.length === 0 ? '(the whole config)' : path.join('.')}: ${show(left)} stored, ${show(right)} given`,
    );
  };
  visit(stored, given, []);
  return found.length > MAX_NAMED_DIFFERENCES
    ? [...found.slice(0, MAX_NAMED_DIFFERENCES), `and ${found.length - MAX_NAMED_DIFFERENCES} more`]
    : found;
}

function toRun(row: RunRow): RunRecord {
  return {
    schemaVersion: 1,
    id: row.id,
    kind: row.kind,
    team: row.team,
    config: JSON.parse(row.config),
    status: row.status as RunStatus,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
