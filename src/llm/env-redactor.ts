// What a process keeps off the wire and out of stored text: the values of the key variables it can
// read. Its agent's key is already removed from a ProviderError by the retry middleware; this second
// pass removes the value of every key variable, so that no message it sends (a failure report) carries one.
import { createRedactor } from './_secrets.js';

/** Key variables of the hosted providers, always redacted by a node process. */
export const defaultSecretEnv: readonly string[] = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY'];

/**
 * A redactor that replaces the value of each named environment variable (and of
 * {@link defaultSecretEnv}), as read now from `env`, with `[redacted]`; unset and blank variables
 * are skipped. The value is matched as set and trimmed (the model sends the trimmed key).
 */
export function createEnvRedactor(
  names: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): (text: string) => string {
  const secrets = [...new Set([...defaultSecretEnv, ...names])].flatMap((name) => {
    const value = env[name];
    if (value === undefined || value.trim().length === 0) return [];
    return value === value.trim() ? [value] : [value, value.trim()];
  });
  // Longest first: a key that holds another (its trimmed form, or another variable's shorter key)
  // would otherwise be cut around that one's [redacted], leaving the rest of it in the text.
  return createRedactor([...secrets].sort((left, right) => right.length - left.length));
}
