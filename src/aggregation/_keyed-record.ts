/**
 * An empty plain object for arbitrary keys (answer keys): observably the same as `{}`, but V8 keeps
 * it as a hash table from the start. Adding never-seen string keys one by one to `{}` walks and grows
 * V8's shape-transition tree for every distinct key sequence, about 3× slower per key (and garbage
 * for the collector); deleting a property other than the last one switches the object to hash-table
 * mode, which keeps insertion order for enumeration.
 */
export function keyedRecord(): Record<string, number> {
  const record: Record<string, number> = { first: 0, second: 0 };
  delete record.first;
  delete record.second;
  return record;
}

/**
 * Sets `record[key] = value` as an own, enumerable property for any key: plain assignment would call
 * the `__proto__` setter inherited from `Object.prototype` (dropping a number) instead of storing it.
 */
export function setKey(record: Record<string, number>, key: string, value: number): void {
  if (key === '__proto__')
    Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
  else record[key] = value;
}

/**
 * The support record of sums kept in a map (where any answer key, `constructor` and `__proto__`
 * included, is a plain key): a {@link keyedRecord} with the map's keys in its order.
 */
export function supportRecord(sums: ReadonlyMap<string, number>): Record<string, number> {
  const record = keyedRecord();
  for (const key of sums.keys()) setKey(record, key, sums.get(key) as number);
  return record;
}

/** The `support` of a decision built with `support: false`: empty, shared and frozen. */
export const noSupport: Readonly<Record<string, number>> = Object.freeze(keyedRecord());
