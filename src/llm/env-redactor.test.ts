import { describe, expect, it } from 'vitest';
import { createEnvRedactor } from './env-redactor.js';

describe('createEnvRedactor', () => {
  it('removes every key variable of the list and the default ones, as set and trimmed', () => {
    const redact = createEnvRedactor(['TEAM_API_KEY'], {
      TEAM_API_KEY: ' sk-team-1234 ',
      OPENAI_API_KEY: 'sk-openai-5678',
      UNLISTED: 'plain',
    });
    expect(redact("sent 'sk-team-1234' and sk-openai-5678; plain")).toBe("sent '[redacted]' and [redacted]; plain");
    expect(redact('with the spaces: " sk-team-1234 "')).toBe('with the spaces: "[redacted]"');
  });

  it("removes a key that holds another variable's key whole, whatever the order of the variables", () => {
    // A's key is a part of B's: replacing A's first would leave "-admin-5678" of B's key behind.
    const env = { TEAM_A_API_KEY: 'sk-team-1234', TEAM_B_API_KEY: 'sk-team-1234-admin-5678' };
    const text = 'quota of sk-team-1234-admin-5678 used up; sk-team-1234 too';
    for (const names of [
      ['TEAM_A_API_KEY', 'TEAM_B_API_KEY'],
      ['TEAM_B_API_KEY', 'TEAM_A_API_KEY'],
    ])
      expect(createEnvRedactor(names, env)(text), names.join(', ')).toBe('quota of [redacted] used up; [redacted] too');
    // The same with a default variable (listed first) whose key sits inside a team key.
    expect(createEnvRedactor(['TEAM_API_KEY'], { OPENAI_API_KEY: 'abc1', TEAM_API_KEY: 'xabc1x' })('key xabc1x')).toBe(
      'key [redacted]',
    );
  });
});
