// Real-data check of the answer kinds: our equivalence against the correctness flags shipped
// with the ZeroEval MATH Level-5 and GSM8K replay data. Run: npm run test:data
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createMathAnswerKind, createNumberAnswerKind } from '../../src/core/answers/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const dataDir = process.env.REPUTE_DATA_DIR ?? path.resolve(here, '../../../shared/data');

interface Item {
  reference: string;
  proposals: Record<string, { answer: string | null; correct: boolean; correct_strict?: boolean }>;
}

function readItems(file: string): Item[] {
  return readFileSync(path.join(dataDir, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as Item);
}

describe.skipIf(!existsSync(path.join(dataDir, 'zeroeval-math-l5/proposals.jsonl')))(
  'answer kinds on the replay data',
  () => {
    it('math equivalence agrees with correct_strict on ≥ 99.8 % of the 28,529 MATH Level-5 proposals', () => {
      const kind = createMathAnswerKind();
      let agree = 0;
      let total = 0;
      for (const item of readItems('zeroeval-math-l5/proposals.jsonl')) {
        for (const proposal of Object.values(item.proposals)) {
          total++;
          const ours = proposal.answer !== null && kind.equivalent(proposal.answer, item.reference);
          if (ours === proposal.correct_strict) agree++;
        }
      }
      // Measured 28,508 / 28,529 (99.93 %): the 21 differences are worked chains such as `64 + 37 + 11 = 112`
      // and expressions such as `10 * 2^9` that equal the reference, which the strict flag rejects.
      expect(total).toBe(28_529);
      expect(agree / total).toBeGreaterThanOrEqual(0.998);
    });

    it('number equivalence agrees with the GSM8K correct flag on ≥ 99.5 % of proposals', () => {
      const kind = createNumberAnswerKind();
      let agree = 0;
      let total = 0;
      for (const item of readItems('zeroeval-gsm8k/proposals.jsonl')) {
        for (const proposal of Object.values(item.proposals)) {
          total++;
          const ours = proposal.answer !== null && kind.equivalent(proposal.answer, item.reference);
          if (ours === proposal.correct) agree++;
        }
      }
      // Measured 54,610 / 54,760 (99.73 %).
      expect(agree / total).toBeGreaterThanOrEqual(0.995);
    });
  },
);
