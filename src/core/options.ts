/**
 * Merges user options over defaults, skipping keys whose user value is `undefined`, so that
 * `{ alpha: undefined }` keeps the default (graphology's defaults resolver).
 */
export function resolveOptions<T extends object>(defaults: Required<T>, options: Partial<T> | undefined): Required<T> {
  const resolved = { ...defaults } as Record<string, unknown>;
  if (options !== undefined) {
    for (const [key, value] of Object.entries(options)) {
      if (value !== undefined) resolved[key] = value;
    }
  }
  return resolved as Required<T>;
}
