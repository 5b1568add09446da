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

/**
 * The answers of `first` and `second` in new tables (`first`'s answer where both have one). Each
 * answer is a pure function of its arguments, so two tables never disagree.
 */
export function mergeAnswerTables(first: AnswerTables, second: AnswerTables): AnswerTables {
  const merged = emptyAnswerTables();
  for (const source of [second, first]) {
    for (const [kind, table] of source.canonical) {
      const into = inner(merged.canonical, kind, newTable<string | null>);
      for (const [raw, key] of table) into.set(raw, key);
    }
    for (const [kind, byLeft] of source.equivalent)
      for (const [left, table] of byLeft) {
        const into = inner(inner(merged.equivalent, kind, newTable<Map<string, boolean>>), left, newTable<boolean>);
        for (const [right, same] of table) into.set(right, same);
      }
    for (const [kind, byReference] of source.score)
      for (const [reference, table] of byReference) {
        const into = inner(inner(merged.score, kind, newTable<Map<string, KeyScore>>), reference, newTable<KeyScore>);
        for (const [key, value] of table) into.set(key, value);
      }
  }
  return merged;
}

/** Answer ops backed by tables, with counts of the calls the tables did not answer and of the saved answers taken. */
export interface MemoizedAnswerOps extends AnswerOps {
  /**
   * This run's answers: every distinct call so far, computed or taken from the saved tables. It is
   * what the answer-key cache writes back: the run's own working set, so a cache holds what its last
   * run asked, not everything any earlier run did.
   */
  readonly tables: AnswerTables;
  /** Calls the wrapped ops answered (neither table held them). */
  computed(): number;
  /** Saved answers this run asked for (copied into {@link MemoizedAnswerOps.tables}). */
  reused(): number;
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
 * wrapper. `saved` holds answers of an earlier run (the answer-key cache's): a call it answers is not
 * computed, and its answer is copied into this run's {@link MemoizedAnswerOps.tables}. `saved` is
 * only read.
 */
export function memoizeAnswerOps(ops: AnswerOps, saved: AnswerTables = emptyAnswerTables()): MemoizedAnswerOps {
  const tables = emptyAnswerTables();
  const { canonical, equivalent, score } = tables;
  let computed = 0;
  let reused = 0;
  return {
    tables,
    computed: () => computed,
    reused: () => reused,
    canonical(kind: AnswerKind, raw: string): string | null {
      const table = inner(canonical, kind, newTable<string | null>);
      let value = table.get(raw);
      if (value === undefined) {
        value = saved.canonical.get(kind)?.get(raw);
        if (value === undefined) {
          value = ops.canonical(kind, raw);
          computed++;
        } else reused++;
        table.set(raw, value);
      }
      return value;
    },
    equivalent(kind: AnswerKind, left: string, right: string): boolean {
      const table = inner(inner(equivalent, kind, newTable<Map<string, boolean>>), left, newTable<boolean>);
      let value = table.get(right);
      if (value === undefined) {
        value = saved.equivalent.get(kind)?.get(left)?.get(right);
        if (value === undefined) {
          value = ops.equivalent(kind, left, right);
          computed++;
        } else reused++;
        table.set(right, value);
      }
      return value;
    },
    score(kind: AnswerKind, key: string | null, reference: string): KeyScore {
      if (key === null) return ops.score(kind, key, reference);
      const table = inner(inner(score, kind, newTable<Map<string, KeyScore>>), reference, newTable<KeyScore>);
      let value = table.get(key);
      if (value === undefined) {
        value = saved.score.get(kind)?.get(reference)?.get(key);
        if (value === undefined) {
          value = ops.score(kind, key, reference);
          computed++;
        } else reused++;
        table.set(key, value);
      }
      return value;
    },
  };
}
