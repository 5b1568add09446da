import { InvalidArgumentError } from '../core/errors.js';

/** True when `subject` matches `pattern` (NATS rules: tokens split by `.`, `*` one token, `>` the rest). */
export function subjectMatches(pattern: string, subject: string): boolean {
  const patternTokens = pattern.split('.');
  const subjectTokens = subject.split('.');
  for (let index = 0; index < patternTokens.length; index++) {
    const token = patternTokens[index];
    if (token === '>') return subjectTokens.length > index;
    if (index >= subjectTokens.length) return false;
    if (token !== '*' && token !== subjectTokens[index]) return false;
  }
  return patternTokens.length === subjectTokens.length;
}

/** Throws unless `subject` is a valid NATS subject (non-empty tokens without spaces; wildcards only if allowed). */
export function assertSubject(
  parameter: string,
  subject: unknown,
  { wildcards = false }: { wildcards?: boolean } = {},
): asserts subject is string {
  const valid =
    typeof subject === 'string' &&
    subject.length > 0 &&
    subject
      .split('.')
      .every(
        (token, index, tokens) =>
          token.length > 0 &&
          !/\s/.test(token) &&
          (wildcards
            ? token === '>'
              ? index === tokens.length - 1
              : !token.includes('>') && (token === '*' || !token.includes('*'))
            : !/[*>]/.test(token)),
      );
  if (!valid) {
    throw new InvalidArgumentError({
      parameter,
      value: subject,
      message: `${parameter} must be a dot-separated subject of non-empty tokens without spaces${wildcards ? " ('*' and a final '>' allowed)" : ' and without wildcards'}, got ${JSON.stringify(subject)}`,
    });
  }
}

/** Turns any id into a subject token (letters, digits, `-` and `_` kept; others become `_`). */
export function subjectToken(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_');
}
