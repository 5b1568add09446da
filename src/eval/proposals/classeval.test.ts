import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';
import { checkSandbox } from '../sandbox/run-code-tests.js';
import { runCodeTests } from '../sandbox/run-code-tests.js';
import {
  type ClassEvalTask,
  classEvalReplayData,
  classEvalRun,
  extractClassEvalCode,
  gradeClassEval,
} from './classeval.js';

describe('extractClassEvalCode (the authors’ extract_code, cases worked out by hand)', () => {
  it('takes the first ```python block, else other fences, else drops the prose before the class', () => {
    expect(
      extractClassEvalCode('Here:\n```python\nclass A:\n    pass\n```\nand ```python\nx\n```', 'GPT-4-Turbo'),
    ).toBe('\nclass A:\n    pass\n');
    expect(extractClassEvalCode('```\nclass B: pass\n```', 'Gemini-Pro')).toBe('\nclass B: pass\n');
    // an unclosed ```python: their non-greedy `(.*?)` with nothing after it matches the empty string
    expect(extractClassEvalCode('```python\nclass C: pass\n', 'Gemini-Pro')).toBe('');
    // no fence: lines before the first class line that are not imports go, and so does every equal line
    expect(extractClassEvalCode('Sure.\nimport os\n\nclass D:\n\n    x = 1', 'santacoder-1.1B')).toBe(
      'import os\nclass D:\n    x = 1',
    );
  });

  it('takes the text after "### Response:" for codegeex only (their case-sensitive model list)', () => {
    const text = '### Instruction:\nwrite\n### Response:\nclass E: pass';
    expect(extractClassEvalCode(text, 'codegeex2-6b')).toBe('\nclass E: pass');
    // "StarCoder" and "CodeGen" do not occur in these lower-case names: the regex rules apply
    expect(extractClassEvalCode(text, 'starcoder-instruct-15B')).toBe('class E: pass');
  });

  it('drops a prompt that ends in "@@ Response:" (Magicoder’s, not Python) before the authors’ rule', () => {
    const text = '@@ Instruction:\nPlease complete\nclass F:\n    pass\n\n@@ Response:\nclass F:\n    x = 1';
    // without the prompt: no fence; the fallback drops the empty line before the class line
    expect(extractClassEvalCode(text, 'Magicoder-S-DS-6.7B')).toBe('class F:\n    x = 1');
  });
});

const task: ClassEvalTask = {
  task_id: 'ClassEval_T',
  class_name: 'Counter',
  test: [
    'import unittest',
    'class CounterTestAdd(unittest.TestCase):',
    '    def test_add(self):',
    '        counter = Counter()',
    // the tests set and read attributes directly, as ClassEval's do
    '        counter.items = {"a": 1}',
    '        counter.add("a")',
    '        self.assertEqual(counter.items["a"], 2)',
    'class CounterTestEmpty(unittest.TestCase):',
    '    pass',
  ].join('\n'),
  test_classes: ['CounterTestAdd', ' CounterTestEmpty'],
  import_statement: ['import math'],
  solution_code:
    'class Counter:\n    def __init__(self):\n        self.items = {}\n    def add(self, key):\n        self.items[key] = self.items.get(key, 0) + 1',
};

describe.skipIf(!checkSandbox().available)('classEvalRun in the sandbox', () => {
  it('needs every test class to run a test: a class with none fails, as in the authors’ get_test_answer', async () => {
    const run = classEvalRun(task, task.solution_code);
    // CounterTestEmpty runs 0 tests: 'error' for the authors, so the class is not solved
    expect((await runCodeTests({ ...run, language: 'python' })).passed).toBe(false);
    const oneClass = classEvalRun({ ...task, test_classes: ['CounterTestAdd'] }, task.solution_code);
    expect((await runCodeTests({ ...oneClass, language: 'python' })).passed).toBe(true);
    const wrong = classEvalRun({ ...task, test_classes: ['CounterTestAdd'] }, task.solution_code.replace('+ 1', '+ 2'));
    expect((await runCodeTests({ ...wrong, language: 'python' })).passed).toBe(false);
  }, 60_000);
});

describe('gradeClassEval', () => {
  it('grades each distinct program once, caches it, and keeps tasks whose reference passes', async () => {
    const directory = temporaryDirectory('classeval-');
    const tasks = [task, { ...task, task_id: 'ClassEval_U', solution_code: 'import numpy\nclass Counter: pass' }];
    writeFileSync(join(directory, 'tasks.jsonl.gz'), gzipSync(tasks.map((item) => JSON.stringify(item)).join('\n')));
    const good = `\`\`\`python\n${task.solution_code}\n\`\`\``;
    const predictions = [
      { task_id: 'ClassEval_T', model: 'm1', completion: good },
      { task_id: 'ClassEval_T', model: 'm2', completion: 'no code at all' },
      { task_id: 'ClassEval_U', model: 'm1', completion: good },
      { task_id: 'ClassEval_U', model: 'm2', completion: '```python\n```' },
    ];
    writeFileSync(
      join(directory, 'predictions_class_H_greedy.jsonl.gz'),
      gzipSync(predictions.map((item) => JSON.stringify(item)).join('\n')),
    );
    const ran: string[] = [];
    // a stand-in for the sandbox: a program passes when it holds the reference's `+ 1` and no numpy
    const runTests = async (code: string) => {
      ran.push(code);
      const passed = code.includes('get(key, 0) + 1') && !code.includes('import numpy');
      return { passed, status: passed ? ('passed' as const) : ('failed' as const) };
    };
    const cacheFile = join(directory, 'cache', 'grades.jsonl');
    const first = await gradeClassEval({ directory, cacheFile, runTests });
    // programs: T reference; T m1 (the fenced block with its newlines, so not the reference's text);
    // U reference; U m1 is T m1's program again (same code, same tests): no second run. Not run: T m2
    // (no fence and no class line: the fallback rule leaves nothing) and U m2 (an empty block).
    expect(first.ran).toBe(3);
    expect(first.tasks.map((item) => item.referencePasses)).toEqual([true, false]);
    expect(first.tasks[0]?.outcomes.m1?.passed).toBe(true);
    expect(first.tasks[0]?.outcomes.m2).toEqual({ code: null, passed: false, status: 'failed' });
    expect(first.tasks[1]?.outcomes.m2).toEqual({ code: null, passed: false, status: 'failed' });
    const second = await gradeClassEval({ directory, cacheFile, runTests });
    expect(second.ran).toBe(0);
    expect(second).toEqual({ ...first, ran: 0 });
    const data = classEvalReplayData(second);
    expect(data.tasks.map((item) => item.id)).toEqual(['ClassEval_T']);
    expect(data.skipped.referenceFails).toEqual(['ClassEval_U']);
    expect(data.tasks[0]?.kind).toBe('code');
    expect(data.tasks[0]?.proposals.m1?.correct).toBe(true);
  });
});
