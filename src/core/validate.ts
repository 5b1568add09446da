import { closest } from './_closest.js';
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

// Every key of every member of a union (plain `keyof` keeps only the keys all members share).
type AllKeys<T> = T extends unknown ? keyof T : never;
type MissingKeys<T, K extends readonly PropertyKey[]> = Exclude<AllKeys<T>, K[number]>;

/**
 * `K` when it lists every key of the options type `T`; otherwise an object type whose
 * `missingOptionKeys` names the keys left out, so the compiler's error says which ones.
 */
export type Exhaustive<T, K extends readonly PropertyKey[]> = [MissingKeys<T, K>] extends [never]
  ? K
  : { readonly missingOptionKeys: MissingKeys<T, K> };

/**
 * Lists the keys of an options type for {@link assertKnownOptions}, checked at compile time both
 * ways: a name that is not a key of `T` and a key of `T` left out are type errors, so adding an
 * option without listing it fails `tsc`. Curried, because `T` is given and the list inferred.
 *
 * @example
 * const knownTopKOptions = defineOptionKeys<TopKSelectorOptions>()(['tieBreak']);
 */
export function defineOptionKeys<T extends object>(): <const K extends readonly (AllKeys<T> & string)[]>(
  keys: K & Exhaustive<T, K>,
) => K {
  return (keys) => keys;
}

/**
 * Throws on the first own enumerable key of `options` that is not in `known`, whatever its value
 * (a misspelt key set to `undefined` is still a mistake). `parameter` names the object (`options`,
 * `options.bloc` for a nested one, `''` for an argument whose fields are named bare, `profile` for a
 * nested one there) and `owner` the function it was passed to. The error's `parameter` is
 * `parameter.key`; its message gives the key's path without a leading `options` or `input` (the
 * argument's name), suggests the nearest known key (edit distance ≤ 2) and lists them all. Its
 * `value` is the key, never the key's value, which may be a secret passed in the wrong place.
 * `undefined` passes; `null`, an array or a non-object throws.
 *
 * @example
 * assertKnownOptions('options', { alpah: 0.2 }, ['alpha', 'epsilon'], 'createEigenTrustModel');
 * // InvalidArgumentError: unknown option "alpah" of createEigenTrustModel; did you mean "alpha"?
 * // Known options: alpha, epsilon
 */
export function assertKnownOptions(
  parameter: string,
  options: object | undefined,
  known: readonly string[],
  owner: string,
): void {
  if (options === undefined) return;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new InvalidArgumentError({
      parameter,
      value: options,
      message: `${parameter === '' ? 'the argument' : parameter} of ${owner} must be an object of options, got ${Array.isArray(options) ? 'an array' : String(options)}`,
    });
  }
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    // The path inside the argument: the argument's own name (`options`, `input`) is left out, so
    // `options.bloc` → `bloc.`, `options` or '' → nothing, and `profile` (a field of an argument
    // whose fields are named bare) stays `profile.`.
    const inner = parameter.replace(/^(?:options|input)(?:\.|$)/, '');
    const prefix = inner === '' ? '' : `${inner}.`;
    const name = `${prefix}${key}`;
    let advice: string;
    if (known.length === 0) advice = `${inner === '' ? owner : `${inner} of ${owner}`} takes no options; remove it`;
    else {
      const guess = closest(key, known);
      const list = `Known ${inner === '' ? '' : `${inner} `}options: ${known.join(', ')}`;
      advice = guess === undefined ? `remove it. ${list}` : `did you mean "${prefix}${guess}"? ${list}`;
    }
    throw new InvalidArgumentError({
      parameter: parameter === '' ? key : `${parameter}.${key}`,
      // The key is what is refused. Its value is never carried: a misplaced secret (`apiKey:
      // process.env.X` where the variable's name belongs) would otherwise ride along in the error.
      value: key,
      message: `unknown option ${JSON.stringify(name)} of ${owner}; ${advice}`,
    });
  }
}
