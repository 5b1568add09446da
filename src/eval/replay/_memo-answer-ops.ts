// Internal: answer ops that compute each distinct call once per replay run. The merged-answer audit,
// preparation and attack planning canonicalise, compare and score the same strings again and again
// (every proposal twice, the same payload candidates in every placement of an attack); the ops are
// pure functions of their arguments, so a table lookup returns what the call would.
import type { AnswerKind } from '../../core/answers/answer-kind.js';
import type { AnswerOps } from './answer-ops.js';
import type { KeyScore } from './types.js';

// Kinds never hold U+0000, so `kind + separator + text` names one (kind, text) pair; a second string
// argument gets its own inner table rather than a joined key.
const separator = '\u0000';

function inner<T>(tables: Map<string, Map<string, T>>, key: string): Map<string, T> {
  let table = tables.get(key);
  if (table === undefined) {
    table = new Map();
    tables.set(key, table);
  }
  return table;
}

/** Wraps `ops` so that each distinct (kind, arguments) call runs once; the tables live as long as the wrapper. */
export function memoizeAnswerOps(ops: AnswerOps): AnswerOps {
  const canonical = new Map<string, string | null>();
  const equivalent = new Map<string, Map<string, boolean>>();
  const score = new Map<string, Map<string, KeyScore>>();
  return {
    canonical(kind: AnswerKind, raw: string): string | null {
      const key = kind + separator + raw;
      let value = canonical.get(key);
      if (value === undefined) {
        value = ops.canonical(kind, raw);
        canonical.set(key, value);
      }
      return value;
    },
    equivalent(kind: AnswerKind, left: string, right: string): boolean {
      const table = inner(equivalent, kind + separator + left);
      let value = table.get(right);
      if (value === undefined) {
        value = ops.equivalent(kind, left, right);
        table.set(right, value);
      }
      return value;
    },
    score(kind: AnswerKind, key: string | null, reference: string): KeyScore {
      if (key === null) return ops.score(kind, key, reference);
      const table = inner(score, kind + separator + reference);
      let value = table.get(key);
      if (value === undefined) {
        value = ops.score(kind, key, reference);
        table.set(key, value);
      }
      return value;
    },
  };
}
