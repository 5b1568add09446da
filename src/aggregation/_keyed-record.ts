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
