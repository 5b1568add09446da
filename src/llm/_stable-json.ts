import { InvalidArgumentError } from '../core/errors.js';

/**
 * Serialises a value to JSON with object keys sorted at every depth, so that equal values always
 * give the same text (the record/replay cache hashes it). `undefined` members are dropped like
 * JSON.stringify does; bytes become `{ "$bytes": base64 }`, URLs their `href`, dates ISO strings.
 */
export function stableStringify(value: unknown): string {
  return JSON.stringify(normalize(value, new Set()));
}

function normalize(value: unknown, seen: Set<object>): unknown {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'bigint') return { $bigint: value.toString() };
    if (typeof value === 'function' || typeof value === 'symbol') return undefined;
    return value;
  }
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString('base64') };
  if (value instanceof ArrayBuffer) return { $bytes: Buffer.from(value).toString('base64') };
  if (value instanceof URL) return value.href;
  if (value instanceof Date) return value.toISOString();
  if (seen.has(value)) {
    throw new InvalidArgumentError({
      parameter: 'value',
      value: '[cyclic]',
      message:
        'cannot serialise a cyclic structure into a cache key; remove the cycle from the call options (prompt, tools, providerOptions)',
    });
  }
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => normalize(item, seen) ?? null);
    const result: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const normalized = normalize((value as Record<string, unknown>)[key], seen);
      // defineProperty, not assignment: a `__proto__` key must stay an own member, not set the prototype.
      if (normalized !== undefined)
        Object.defineProperty(result, key, { value: normalized, enumerable: true, writable: true, configurable: true });
    }
    return result;
  } finally {
    seen.delete(value);
  }
}
