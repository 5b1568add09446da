// Parses request input with a zod schema; the first issue becomes an InvalidArgumentError naming
// the field, so `onError` answers 400 with that field.
import type { z } from 'zod';
import { InvalidArgumentError } from '../core/errors.js';

/**
 * Validates `value` against `schema`; throws `InvalidArgumentError` whose `parameter` is
 * `where.field` (e.g. `query.limit`) on the first issue.
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: 'path' | 'query' | 'body' | 'header',
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue?.path.map(String).join('.') ?? '';
  const parameter = path === '' ? where : `${where}.${path}`;
  const got = issue?.path.reduce<unknown>(
    (node, key) => (node as Record<PropertyKey, unknown> | undefined)?.[key as PropertyKey],
    value,
  );
  throw new InvalidArgumentError({
    parameter,
    value: got,
    message: `${parameter}: ${issue?.message ?? 'invalid'} (got ${JSON.stringify(got) ?? 'nothing'})`,
  });
}
