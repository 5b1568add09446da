// Real-data check of the answer kinds: our equivalence against the correctness flags shipped
// with the ZeroEval MATH Level-5 and GSM8K replay data. Run: npm run test:data
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMathAnswerKind, createNumberAnswerKind } from '../../src/core/answers/index.js';
import { dataDir, readFlaggedItems } from '../../src/testing/_test-flagged-items.js';

/** How many proposals of `file` the kind's equivalence to the reference agrees with `flag` on, of how many. */
function agreement(
  file: string,
  kind: { equivalent(answer: string, reference: string): boolean },
  flag: 'correct' | 'correct_strict',
): { agree: number; total: number } {
  let agree = 0;
  let total = 0;
  for (const item of readFlaggedItems(file)) {
    for (const proposal of Object.values(item.proposals)) {
      total++;
      const ours = proposal.answer !== null && kind.equivalent(proposal.answer, item.reference);
      if (ours === proposal[flag]) agree++;
    }
  }
  return { agree, total };
}

describe.skipIf(!existsSync(path.join(dataDir, 'zeroeval-math-l5/proposals.jsonl')))(
  'answer kinds on the replay data',
  () => {
    it('math equivalence agrees with correct_strict on ≥ 99.8 % of the 28,529 MATH Level-5 proposals', () => {
      const { agree, total } = agreement('zeroeval-math-l5/proposals.jsonl', createMathAnswerKind(), 'correct_strict');
      // Measured 28,508 / 28,529 (99.93 %): the 21 differences are worked chains such as `64 + 37 + 11 = 112`
      // and expressions such as `10 * 2^9` that equal the reference, which the strict flag rejects.
      expect(total).toBe(28_529);
      expect(agree / total).toBeGreaterThanOrEqual(0.998);
    });

    it('number equivalence agrees with the GSM8K correct flag on ≥ 99.5 % of proposals', () => {
      const { agree, total } = agreement('zeroeval-gsm8k/proposals.jsonl', createNumberAnswerKind(), 'correct');
      // Measured 54,610 / 54,760 (99.73 %).
      expect(agree / total).toBeGreaterThanOrEqual(0.995);
    });
  },
);
