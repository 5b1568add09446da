import { InvalidArgumentError } from './errors.js';

/** Throws unless `value` is a finite number. */
export function assertFinite(parameter: string, value: unknown, hint = ''): asserts value is number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new InvalidArgumentError({
      parameter,
      value,
      message: `${parameter} must be a finite number, got ${String(value)}${hint ? `; ${hint}` : ''}`,
    });
  }
}

/** Throws unless `value` is a finite number in [min, max] (bounds inclusive unless stated). */
export function assertInRange(
  parameter: string,
  value: unknown,
  min: number,
  max: number,
  {
    minExclusive = false,
    maxExclusive = false,
    hint = '',
  }: { minExclusive?: boolean; maxExclusive?: boolean; hint?: string } = {},
): asserts value is number {
  const ok =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (minExclusive ? value > min : value >= min) &&
    (maxExclusive ? value < max : value <= max);
  if (!ok) {
    const range = `${minExclusive ? '(' : '['}${min}, ${max}${maxExclusive ? ')' : ']'}`;
    throw new InvalidArgumentError({
      parameter,
      value,
      message: `${parameter} must be in ${range}, got ${String(value)}${hint ? `; ${hint}` : ''}`,
    });
  }
}

/** Throws unless `value` is a finite number ≥ 0. */
export function assertNonNegative(parameter: string, value: unknown, hint = ''): asserts value is number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new InvalidArgumentError({
      parameter,
      value,
      message: `${parameter} must be a finite number >= 0, got ${String(value)}${hint ? `; ${hint}` : ''}`,
    });
  }
}

/** Throws unless `value` is an integer in [min, max]. */
export function assertInteger(
  parameter: string,
  value: unknown,
  min = -Infinity,
  max = Infinity,
  hint = '',
): asserts value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidArgumentError({
      parameter,
      value,
      message: `${parameter} must be an integer in [${min}, ${max}], got ${String(value)}${hint ? `; ${hint}` : ''}`,
    });
  }
}

/** Throws unless `value` is a non-empty string. */
export function assertNonEmptyString(parameter: string, value: unknown, hint = ''): asserts value is string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new InvalidArgumentError({
      parameter,
      value,
      message: `${parameter} must be a non-empty string, got ${JSON.stringify(value)}${hint ? `; ${hint}` : ''}`,
    });
  }
}

/**
 * Throws on the first task whose id an earlier task already has, naming `tasks[i].id`; `why` ends the
 * message (e.g. `'the store keys results by task id'`).
 */
export function assertUniqueTaskIds(tasks: readonly { readonly id: string }[], why: string): void {
  const seen = new Set<string>();
  tasks.forEach((task, index) => {
    if (seen.has(task.id))
      throw new InvalidArgumentError({
        parameter: `tasks[${index}].id`,
        value: task.id,
        message: `duplicate task id ${JSON.stringify(task.id)}; ${why}`,
      });
    seen.add(task.id);
  });
}

/**
 * Throws unless `value` is one of `allowed`, listing them: `costs must be 'per-round' or
 * 'per-agent', got "x"`. `note` follows the list, e.g. `(Eq. 2)`.
 */
export function assertOneOf<const T extends string>(
  parameter: string,
  value: unknown,
  allowed: readonly T[],
  note = '',
): asserts value is T {
  if (!(allowed as readonly unknown[]).includes(value)) {
    const quoted = allowed.map((name) => `'${name}'`);
    const list = quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` : quoted.join('');
    throw new InvalidArgumentError({
      parameter,
      value,
      message: `${parameter} must be ${list}${note ? ` ${note}` : ''}, got ${JSON.stringify(value)}`,
    });
  }
}

/** Throws on the first of `names` that is not in `known`, naming `parameter[i]` and listing the known ones. */
export function assertKnownNames(
  parameter: string,
  names: readonly string[],
  known: readonly string[],
  what: string,
): void {
  names.forEach((name, index) => {
    if (!known.includes(name))
      throw new InvalidArgumentError({
        parameter: `${parameter}[${index}]`,
        value: name,
        message: `unknown ${what} ${JSON.stringify(name)}; use one of ${known.join(', ')}`,
      });
  });
}
