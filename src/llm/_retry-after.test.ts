import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './_retry-after.js';

describe('parseRetryAfter', () => {
  const now = Date.UTC(2026, 10, 29, 12, 0, 0);

  it('reads seconds, milliseconds and HTTP dates', () => {
    expect(parseRetryAfter({ 'retry-after': '2' }, now)).toBe(2000);
    expect(parseRetryAfter({ 'Retry-After': '0.5' }, now)).toBe(500);
    expect(parseRetryAfter({ 'retry-after-ms': '250', 'retry-after': '9' }, now)).toBe(250);
    // 12:00:07 GMT is 7 s after `now`.
    expect(parseRetryAfter({ 'retry-after': 'Sun, 29 Nov 2026 12:00:07 GMT' }, now)).toBe(7000);
    expect(parseRetryAfter({ 'retry-after': 'Sun, 29 Nov 2026 11:59:00 GMT' }, now)).toBe(0);
  });

  it('ignores absent or unreadable values', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter({}, now)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': '-3' }, now)).toBeUndefined();
  });
});
