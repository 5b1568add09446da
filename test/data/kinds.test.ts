// Data suite: declared answer kinds, the literal kind against CPython, and the merged-answer audit on
// every shared dataset with correctness flags. Run: npm run test:data
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatPythonRepr, parsePythonLiteral } from '../../src/core/answers/python-literal.js';
import { loadDataset } from '../../src/eval/proposals/load-dataset.js';
import { auditKeys, flagLimits } from '../../src/eval/replay/audit-keys.js';
import { createDefaultAnswerOps } from '../../src/eval/replay/default-answer-ops.js';
import { computeLimits } from '../../src/eval/replay/metrics.js';
import { prepareReplay } from '../../src/eval/replay/prepare.js';

const dataDir = process.env.REPUTE_DATA_DIR ?? fileURLToPath(new URL('../../../shared/data', import.meta.url));
const ops = createDefaultAnswerOps();

describe.skipIf(!existsSync(join(dataDir, 'zeroeval-crux/proposals.jsonl')))(
  'declared kinds and the merged-answer audit on the shared data',
  () => {
    it('loads every flagged dataset with the kind its data declares', async () => {
      const expected: Record<string, Record<string, number>> = {
        'zeroeval-crux': { literal: 800 },
        'zeroeval-math-l5': { math: 721 },
        'zeroeval-gsm8k': { number: 1319 },
        'mmlu-pro': { choice: 12_032 },
        // items.jsonl: 540 multi_choice, 418 integer + 40 float free form, 2 list answers.
        'mathvista-testmini': { choice: 540, number: 458, literal: 2 },
      };
      for (const [name, kinds] of Object.entries(expected)) {
        const dataset = await loadDataset(join(dataDir, name));
        const counts: Record<string, number> = {};
        for (const task of dataset.tasks) counts[task.kind] = (counts[task.kind] ?? 0) + 1;
        expect({ name, counts }).toEqual({ name, counts: kinds });
        expect(dataset.correctness).toBe('flags');
      }
    });

    it('mathvista: the loader reproduces models.json n_correct per agent', async () => {
      const dataset = await loadDataset(join(dataDir, 'mathvista-testmini'));
      const models = (
        JSON.parse(readFileSync(join(dataDir, 'mathvista-testmini/models.json'), 'utf8')) as {
          agents: { agent: string; n_correct: number; n_items: number }[];
        }
      ).agents;
      expect(dataset.agents).toHaveLength(23);
      for (const row of models) {
        const proposals = dataset.tasks
          .map((task) => task.proposals[row.agent])
          .filter((proposal) => proposal !== undefined);
        expect({
          agent: row.agent,
          items: proposals.length,
          correct: proposals.filter((proposal) => proposal.correct).length,
        }).toEqual({ agent: row.agent, items: row.n_items, correct: row.n_correct });
      }
    });

    it.skipIf(spawnSync('python3', ['--version']).status !== 0)(
      'crux: our repr of every answer equals CPython repr(ast.literal_eval(answer)) except the documented refusals',
      () => {
        // A second method: CPython itself parses each distinct answer and prints its repr.
        const script = `
import ast, json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
seen, out = set(), []
for row in rows:
    for text in [row['reference']] + [p['answer'] for p in row['proposals'].values() if p['answer'] is not None]:
        if text in seen: continue
        seen.add(text)
        try:
            body = ast.parse(text.strip(), mode='eval').body
            # A bare tuple (its first element starts where the tuple starts) is refused by design.
            bare = isinstance(body, ast.Tuple) and body.elts and body.elts[0].col_offset == body.col_offset
            out.append([text, None if bare else repr(ast.literal_eval(body))])
        except Exception: out.append([text, None])
print(json.dumps(out))`;
        const result = spawnSync(
          'python3',
          ['-W', 'ignore', '-c', script, join(dataDir, 'zeroeval-crux/proposals.jsonl')],
          { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
        );
        expect(result.status, result.stderr).toBe(0);
        const cases = JSON.parse(result.stdout) as [string, string | null][];
        const differences = cases.filter(([text, python]) => {
          const value = parsePythonLiteral(text);
          return (value === null ? null : formatPythonRepr(value)) !== python;
        });
        // Measured: 8,584 distinct texts, 3 or 4 differences, all by design: two `...` lists we refuse, a
        // text Python reads as a comment then `8`, and one set of strings that Python prints in hash order
        // (randomised per process, so it matches our order in some runs).
        expect(cases.length).toBe(8584);
        expect(differences.length).toBeGreaterThanOrEqual(3);
        expect(differences.length).toBeLessThanOrEqual(4);
        for (const [text, python] of differences) {
          const ellipsis = python?.includes('Ellipsis') ?? false;
          const comment = text.trim().startsWith('#');
          const setOrder = python !== null && parsePythonLiteral(text)?.type === 'set';
          expect({ text, python, byDesign: ellipsis || comment || setOrder }).toMatchObject({ byDesign: true });
        }
      },
    );

    it('audit: literal keys merge fewer disagreeing answers on crux than exact, and the flag-limits match on the sample', async () => {
      const crux = await loadDataset(join(dataDir, 'zeroeval-crux'));
      const literal = auditKeys({ dataset: crux, ops });
      const exact = auditKeys({
        dataset: { ...crux, tasks: crux.tasks.map((task) => ({ ...task, kind: 'exact' as const })) },
        ops,
      });
      expect(literal.mixedRate).toBeLessThan(exact.mixedRate / 2);
      const rates: Record<string, number> = { 'zeroeval-crux': literal.mixedRate };
      for (const name of ['zeroeval-math-l5', 'zeroeval-gsm8k', 'mmlu-pro', 'mathvista-testmini'])
        rates[name] = auditKeys({ dataset: await loadDataset(join(dataDir, name)), ops }).mixedRate;
      // ≤ 0.5% where the datasets' graders compare values; crux (quotes-stripped string match) and
      // gsm8k (first number of the answer) flag Python-equal / worked-chain answers wrong: see docs/answers.md.
      for (const name of ['zeroeval-math-l5', 'mmlu-pro', 'mathvista-testmini'])
        expect(rates[name], name).toBeLessThanOrEqual(0.005);
      expect(rates['zeroeval-crux']).toBeLessThan(0.01);
      expect(rates['zeroeval-gsm8k']).toBeLessThan(0.03);
    });

    it('limits on the default sample (100 tasks, seed 2027) agree with the flags within 0.5 points, except crux and math-l5 best single (+1)', async () => {
      for (const name of ['zeroeval-crux', 'zeroeval-math-l5', 'zeroeval-gsm8k', 'mmlu-pro', 'mathvista-testmini']) {
        const dataset = await loadDataset(join(dataDir, name));
        const { prepared } = prepareReplay({ dataset, ops, seed: 2027, tasks: 100 });
        const limits = computeLimits(prepared, ops);
        const flags = flagLimits({ dataset, taskIds: prepared.tasks.map((task) => task.id) });
        expect(Math.abs(limits.coverage - flags.coverage), `${name} coverage`).toBeLessThanOrEqual(0.005);
        // crux-test-#145: o1-preview answered 8.50 for 8.5; Python says 8.50 == 8.5, the string flag says wrong.
        // zeroeval-math-l5: one task (1 point) apart on the held-out default sample that issue 9 made
        // the default; not yet traced to its key (reported as open in the issue-10 note).
        const allowed = name === 'zeroeval-crux' || name === 'zeroeval-math-l5' ? 0.01 + 1e-9 : 0.005;
        expect(Math.abs(limits.bestSingle - flags.bestSingle), `${name} best single`).toBeLessThanOrEqual(allowed);
      }
    });
  },
);
