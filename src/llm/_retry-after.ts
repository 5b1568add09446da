/**
 * Milliseconds a server asked us to wait, from `retry-after-ms` or `retry-after` (seconds or an
 * HTTP date, RFC 9110 §10.2.3), or `undefined` when absent or unreadable. A date in the past
 * gives 0.
 */
export function parseRetryAfter(
  headers: Readonly<Record<string, string | undefined>> | undefined,
  nowMs: number,
): number | undefined {
  if (headers === undefined) return undefined;
  const lower: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers))
    if (typeof value === 'string') lower[key.toLowerCase()] = value.trim();
  const milliseconds = lower['retry-after-ms'];
  if (milliseconds !== undefined && /^\d+(\.\d+)?$/.test(milliseconds)) return Number(milliseconds);
  const value = lower['retry-after'];
  if (value === undefined || value.length === 0) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  // HTTP dates always name a weekday and month; this keeps V8 from reading '-3' as a year.
  if (!/[a-z]/i.test(value)) return undefined;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}
