import { MissingEntryError } from './errors.js';

/**
 * Reads `container[key]` where the caller's invariant says it exists, and throws a
 * {@link MissingEntryError} naming `what` and `key` when it does not (instead of an `as T` cast
 * that would let `undefined` flow on). For arrays and typed arrays pass an index, for records a key.
 *
 * @example
 * const vector = requireEntry(vectors, index, 'publication embedding');
 */
export function requireEntry<T>(container: ArrayLike<T>, key: number, what: string): T;
export function requireEntry<T>(container: Readonly<Record<string, T>>, key: string, what: string): T;
export function requireEntry<T>(
  container: ArrayLike<T> | Readonly<Record<string, T>>,
  key: number | string,
  what: string,
): T {
  const value = (container as Record<string | number, T | undefined>)[key];
  if (value === undefined) {
    const size =
      typeof (container as ArrayLike<T>).length === 'number' ? (container as ArrayLike<T>).length : undefined;
    throw new MissingEntryError({ what, key, ...(size === undefined ? {} : { size }) });
  }
  return value;
}

/** Like {@link requireEntry} for a `Map`: `map.get(key)`, or a {@link MissingEntryError} naming `what`. */
export function requireMapEntry<K extends string | number, V>(map: ReadonlyMap<K, V>, key: K, what: string): V {
  const value = map.get(key);
  if (value === undefined) throw new MissingEntryError({ what, key, size: map.size });
  return value;
}
