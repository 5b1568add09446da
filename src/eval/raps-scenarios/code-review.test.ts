import { describe, expect, it } from 'vitest';
import {
  createReviewerAgent,
  formatFindings,
  isGrounded,
  newFileLines,
  parseFindings,
  reviewByRole,
  reviewDiff,
} from './code-review.js';

describe('code-review scenario helpers', () => {
  it('numbers the new file lines of the built-in diff (counted by hand from the hunk)', () => {
    // +1: import db (1), import cache (2), blank (3), two removed lines skipped, getUser (4), query (5), } (6), blank (7), getUsersWithOrders (8).
    const lines = newFileLines(reviewDiff).get('src/users.ts')!;
    expect(lines.get(2)).toBe("import { cache } from './cache';");
    expect(lines.get(5)).toContain('"SELECT * FROM users WHERE id = \'" + id + "\'"');
    expect(lines.get(8)).toBe('export async function getUsersWithOrders(ids: string[]) {');
    expect(lines.get(18)).toMatch(/^export function formatUserName/);
    expect(lines.get(20)).toMatch(/^export async function handleDeleteUser/);
    expect(lines.size).toBe(24);
  });

  it('finds the SQL injection on line 5 and round-trips findings through text', () => {
    const findings = reviewByRole('security', reviewDiff);
    expect(findings.map((finding) => finding.line)).toEqual([5, 20]);
    expect(parseFindings(formatFindings(findings))).toEqual(findings);
    const lines = newFileLines(reviewDiff);
    for (const finding of findings) expect(isGrounded(finding, lines)).toBe(true);
    expect(isGrounded({ ...findings[0]!, line: 6 }, lines)).toBe(false);
  });

  it('audits a hallucinated review as unreliable and a grounded one as reliable', async () => {
    const auditor = createReviewerAgent({ identity: { id: 'style', model: 'm' }, role: 'style' });
    const liar = createReviewerAgent({
      identity: { id: 'perf', model: 'm' },
      role: 'performance',
      hallucinating: true,
    });
    const honest = createReviewerAgent({ identity: { id: 'sec', model: 'm' }, role: 'security' });
    const task = { id: 't', kind: 'labels' as const, prompt: 'review' };
    const asMessage = async (agent: typeof liar) => {
      const { value } = await agent.propose({ task });
      return {
        schemaVersion: 1 as const,
        id: `t:0:${agent.identity.id}`,
        from: agent.identity.id,
        round: 0,
        taskId: 't',
        text: value.text,
        answer: value.answer,
      };
    };
    expect((await auditor.audit({ message: await asMessage(liar) })).value).toMatchObject({
      reliable: false,
      reason: '0/3 cited lines quote code that is in the diff',
    });
    expect((await auditor.audit({ message: await asMessage(honest) })).value).toMatchObject({
      reliable: true,
      reason: '2/2 cited lines quote code that is in the diff',
    });
  });
});
