// Internal: answer ops that compute each distinct call once per replay run. The merged-answer audit,
// preparation and attack planning canonicalise, compare and score the same strings again and again
// (every proposal twice, the same payload candidates in every placement of an attack); the ops are
// pure functions of their arguments, so a table lookup returns what the call would.
import type { AnswerKind } from '../../core/answers/answer-kind.js';
import type { AnswerOps } from './answer-ops.js';
import type { KeyScore } from './types.js';

/**
 * The answers a {@link memoizeAnswerOps} wrapper has computed, nested per argument: canonical keys by
 * kind and raw text, equivalence by kind, left and right, scores by kind, reference and key. The
 * answer-key cache ({@link ./_answer-key-cache.ts}) saves and restores them between runs.
 */
export interface AnswerTables {
  readonly canonical: Map<AnswerKind, Map<string, string | null>>;
  readonly equivalent: Map<AnswerKind, Map<string, Map<string, boolean>>>;
  readonly score: Map<AnswerKind, Map<string, Map<string, KeyScore>>>;
}

/** Empty {@link AnswerTables}. */
export function emptyAnswerTables(): AnswerTables {
  return { canonical: new Map(), equivalent: new Map(), score: new Map() };
}

/** Answer ops backed by tables, with a count of the calls the tables did not answer. */
export interface MemoizedAnswerOps extends AnswerOps {
  /** Every answer so far: the tables given, plus what this wrapper computed. */
  readonly tables: AnswerTables;
  /** Calls the wrapped ops answered (the tables did not hold them). */
  computed(): number;
}

// Tables nest per argument (kind, then each string) rather than joining the arguments into one key:
// planning asks these questions tens of thousands of times per condition, and a joined key is a new
// string to build and hash on every call, where nested lookups hash strings the caller already holds.
function inner<K, T>(tables: Map<K, T>, key: K, create: () => T): T {
  let table = tables.get(key);
  if (table === undefined) {
    table = create();
    tables.set(key, table);
  }
  return table;
}

const newTable = <T>() => new Map<string, T>();

/**
 * Wraps `ops` so that each distinct (kind, arguments) call runs once; the tables live as long as the
 * wrapper. `tables` seeds the answers (a saved run's): a call they hold is answered without `ops`.
 */
export function memoizeAnswerOps(ops: AnswerOps, tables: AnswerTables = emptyAnswerTables()): MemoizedAnswerOps {
  const { canonical, equivalent, score } = tables;
  let computed = 0;
  return {
    tables,
    computed: () => computed,
    canonical(kind: AnswerKind, raw: string): string | null {
      const table = inner(canonical, kind, newTable<string | null>);
      let value = table.get(raw);
      if (value === undefined) {
        value = ops.canonical(kind, raw);
        computed++;
        table.set(raw, value);
      }
      return value;
    },
    equivalent(kind: AnswerKind, left: string, right: string): boolean {
      const table = inner(inner(equivalent, kind, newTable<Map<string, boolean>>), left, newTable<boolean>);
      let value = table.get(right);
      if (value === undefined) {
        value = ops.equivalent(kind, left, right);
        computed++;
        table.set(right, value);
      }
      return value;
    },
    score(kind: AnswerKind, key: string | null, reference: string): KeyScore {
      if (key === null) return ops.score(kind, key, reference);
      const table = inner(inner(score, kind, newTable<Map<string, KeyScore>>), reference, newTable<KeyScore>);
      let value = table.get(key);
      if (value === undefined) {
        value = ops.score(kind, key, reference);
        computed++;
        table.set(key, value);
      }
      return value;
    },
  };
}
