// Internal: reading API keys from the environment and keeping them out of everything we produce
// (errors, retry events, ledgers). Shared by the language-model plumbing and the embedder.
import { InvalidArgumentError } from '../core/errors.js';

/**
 * The API key in `process.env[apiKeyEnv]`, trimmed. Throws {@link InvalidArgumentError} (naming
 * `parameter`, never the key) when `apiKeyEnv` is not a variable name (it may be a pasted key), the
 * variable is unset or blank, or its value holds a line break or another control character (no key
 * does, and fetch would refuse the header with an error quoting it).
 */
export function readApiKey(apiKeyEnv: string, provider: string, parameter = 'apiKeyEnv'): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(apiKeyEnv)) {
    // The value may be a pasted key: never echo it.
    throw new InvalidArgumentError({
      parameter,
      value: '[redacted]',
      message: `${parameter} must be the NAME of an environment variable (letters, digits, underscores, e.g. OPENAI_API_KEY), not the key itself; put the key in that variable`,
    });
  }
  const value = process.env[apiKeyEnv];
  if (value === undefined || value.trim().length === 0) {
    throw new InvalidArgumentError({
      parameter,
      value: apiKeyEnv,
      message: `the environment variable ${apiKeyEnv} is not set; export ${apiKeyEnv}=<your ${provider} API key> before running, or set ${parameter} to the variable that holds it`,
    });
  }
  const key = value.trim();
  if (hasControlCharacter(key)) {
    throw new InvalidArgumentError({
      parameter,
      value: apiKeyEnv,
      message: `the environment variable ${apiKeyEnv} holds a line break or another control character, which no API key has; set it to the key alone (one line)`,
    });
  }
  return key;
}

function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** Replaces every occurrence of each non-empty secret in a text with `[redacted]`. */
export function createRedactor(secrets: readonly string[]): (text: string) => string {
  const present = secrets.filter((secret) => typeof secret === 'string' && secret.length > 0);
  return (text) => present.reduce((current, secret) => current.split(secret).join('[redacted]'), text);
}

/**
 * Whether an error (message, response body, URL or its JSON, and the same of every error in its
 * `cause` chain and `errors` list) contains a secret; unserialisable errors count as yes.
 */
export function containsSecret(error: unknown, secrets: readonly string[]): boolean {
  const present = secrets.filter((secret) => typeof secret === 'string' && secret.length > 0);
  if (present.length === 0) return false;
  const seen = new Set<object>();
  const holds = (value: unknown, depth: number): boolean => {
    if (value === undefined || value === null) return false;
    // A chain this deep is no error a provider made: drop it rather than risk it.
    if (depth > 16) return true;
    if (typeof value !== 'object') return present.some((secret) => String(value).includes(secret));
    if (seen.has(value)) return false;
    seen.add(value);
    let text: string;
    let cause: unknown;
    let errors: unknown;
    try {
      const record = value as {
        message?: unknown;
        responseBody?: unknown;
        url?: unknown;
        cause?: unknown;
        errors?: unknown;
      };
      text = `${String(record.message)} ${String(record.responseBody)} ${String(record.url)} ${JSON.stringify(value)}`;
      // `cause` is not enumerable (so JSON.stringify skips it): a key in a wrapped error hides there.
      cause = record.cause;
      errors = record.errors;
    } catch {
      // Unserialisable causes are dropped rather than risked.
      return true;
    }
    if (present.some((secret) => text.includes(secret))) return true;
    if (holds(cause, depth + 1)) return true;
    return Array.isArray(errors) && errors.some((inner) => holds(inner, depth + 1));
  };
  return holds(error, 0);
}

/**
 * An error safe to keep as a `cause`: the error itself when it holds no secret, else an `Error` of
 * the same name with the redacted message, and the redacted HTTP status, URL and response body of
 * an API call error (what a user needs to see what happened), without the rest of its chain.
 */
export function redactedError(error: unknown, secrets: readonly string[], redact: (text: string) => string): unknown {
  if (!containsSecret(error, secrets)) return error;
  const record = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    message?: unknown;
    statusCode?: unknown;
    url?: unknown;
    responseBody?: unknown;
  };
  let copy: Error & { statusCode?: number; url?: string; responseBody?: string };
  try {
    copy = new Error(redact(typeof record.message === 'string' ? record.message : String(error)));
    copy.name = typeof record.name === 'string' ? record.name : 'Error';
    if (typeof record.statusCode === 'number') copy.statusCode = record.statusCode;
    if (typeof record.url === 'string') copy.url = redact(record.url);
    if (typeof record.responseBody === 'string') copy.responseBody = redact(record.responseBody);
  } catch {
    copy = new Error('[an error that could not be read; dropped because it may hold a secret]');
  }
  return copy;
}

/**
 * A copy of a provider result (or stream part) with every secret replaced in every string: plain
 * objects and arrays are copied, an `Error` holding a secret becomes its {@link redactedError} copy, anything else (dates, bytes) is kept as is.
 */
export function redactValue<T>(value: T, secrets: readonly string[], redact: (text: string) => string): T {
  return redactInner(value, secrets, redact) as T;
}

function redactInner(value: unknown, secrets: readonly string[], redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactInner(item, secrets, redact));
  if (value instanceof Error) return redactedError(value, secrets, redact);
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  const copy: Record<string, unknown> = {};
  // defineProperty, not assignment: a `__proto__` key of a parsed body must stay an own member.
  for (const [key, inner] of Object.entries(value))
    Object.defineProperty(copy, key, {
      value: redactInner(inner, secrets, redact),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return copy;
}
