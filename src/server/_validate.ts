// Parses request input with a zod schema; the first issue becomes an InvalidArgumentError naming
// the field, so `onError` answers 400 with that field.
import type { z } from 'zod';
import { InvalidArgumentError } from '../core/errors.js';

/** Longest excerpt of a bad value quoted in an error message, in characters. */
const QUOTE_LIMIT = 120;

/** A short JSON excerpt of a bad value: never the whole of a huge or deeply nested body. */
function quote(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    // Too deep (or cyclic) to print: say what it is instead.
    return Array.isArray(value) ? 'a deeply nested array' : `a deeply nested ${typeof value}`;
  }
  if (text === undefined) return 'nothing';
  return text.length > QUOTE_LIMIT ? `${text.slice(0, QUOTE_LIMIT)}… (${text.length} characters)` : text;
}

type Issue = z.core.$ZodIssue;

/**
 * The issue to report: inside a union that failed, the branch whose shape matched (e.g. the
 * array branch of a message's content) says more than zod's bare "Invalid input".
 */
function mostSpecific(issue: Issue): Issue {
  if (issue.code !== 'invalid_union') return issue;
  for (const branch of issue.errors) {
    const first = branch[0];
    if (first === undefined) continue;
    if (first.code === 'invalid_type' && first.path.length === 0) continue;
    const inner = mostSpecific(first);
    return { ...inner, path: [...issue.path, ...inner.path] };
  }
  return issue;
}

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
  const first = parsed.error.issues[0];
  const issue = first === undefined ? undefined : mostSpecific(first);
  const path = issue?.path.map(String).join('.') ?? '';
  const parameter = path === '' ? where : `${where}.${path}`;
  const got = issue?.path.reduce<unknown>(
    (node, key) => (node as Record<PropertyKey, unknown> | undefined)?.[key as PropertyKey],
    value,
  );
  throw new InvalidArgumentError({
    parameter,
    value: got,
    message: `${parameter}: ${issue?.message ?? 'invalid'} (got ${quote(got)})`,
  });
}
