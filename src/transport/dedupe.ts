import { assertInteger } from '../core/validate.js';

/**
 * Remembers the last `capacity` ids seen, so an at-least-once handler runs once per id.
 *
 * @example
 * const seen = createDeduplicator(10_000);
 * if (seen.firstTime(message.id)) handle(message);
 */
export function createDeduplicator(capacity = 100_000) {
  assertInteger('capacity', capacity, 1);
  const ids = new Set<string>();
  const order: string[] = [];
  let head = 0;
  let duplicates = 0;
  return {
    /** True the first time an id is seen (and records it); false for a repeat. */
    firstTime(id: string): boolean {
      if (ids.has(id)) {
        duplicates++;
        return false;
      }
      ids.add(id);
      order.push(id);
      if (ids.size > capacity) {
        ids.delete(order[head] as string);
        head++;
        if (head > 4096 && head * 2 > order.length) {
          order.splice(0, head);
          head = 0;
        }
      }
      return true;
    },
    /** True when the id was seen (within the capacity window). */
    has(id: string): boolean {
      return ids.has(id);
    },
    /** Repeats refused so far. */
    get duplicates(): number {
      return duplicates;
    },
  };
}

/** The de-duplicator returned by {@link createDeduplicator}. */
export type Deduplicator = ReturnType<typeof createDeduplicator>;
