/**
 * Options as a caller may pass them: every key optional, and `undefined` allowed explicitly (it means
 * "use the default"), which `exactOptionalPropertyTypes` otherwise refuses for `Partial<T>`.
 */
export type OptionsInput<T> = { [K in keyof T]?: T[K] | undefined };

/**
 * Merges user options over defaults, skipping keys whose user value is `undefined`, so that
 * `{ alpha: undefined }` keeps the default (graphology's defaults resolver).
 */
export function resolveOptions<T extends object>(
  defaults: Required<T>,
  options: OptionsInput<T> | undefined,
): Required<T> {
  const resolved = { ...defaults } as Record<string, unknown>;
  if (options !== undefined) {
    for (const [key, value] of Object.entries(options)) {
      if (value !== undefined) resolved[key] = value;
    }
  }
  return resolved as Required<T>;
}

/**
 * Drops the keys whose value is `undefined`, so that an options object assembled from optional
 * inputs (`{ seeds: args.seeds, ... }`) can be passed where an absent key and an `undefined` value
 * must not be confused (`exactOptionalPropertyTypes`). Returns a new object; the input is not changed.
 *
 * @example
 * runSign(definedOnly({ seeds: parsed.seeds, delta: 0.5 })); // { delta: 0.5 } when seeds is undefined
 */
export function definedOnly<T extends object>(options: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  // fromEntries defines own properties, so even a `__proto__` key stays a plain key.
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
