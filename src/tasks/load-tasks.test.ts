import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataFormatError } from '../core/errors.js';
import { loadTasks, parseTasks } from './load-tasks.js';
import { temporaryDirectory } from '../testing/_test-temporary-directory.js';

describe('parseTasks', () => {
  it('reads prompts, kinds, optional references and ids, skipping blank lines', () => {
    const text = [
      '{"prompt":"What is 2+3?","kind":"number","reference":"5"}',
      '',
      '{"id":"q2","prompt":"Pick","kind":"choice","difficulty":0.3}',
      '{"id":7,"prompt":"x","kind":"math","reference":4}',
    ].join('\n');
    expect(parseTasks(text, 'tasks.jsonl')).toEqual([
      { task: { id: 'line-1', kind: 'number', prompt: 'What is 2+3?' }, reference: '5' },
      { task: { id: 'q2', kind: 'choice', prompt: 'Pick', difficulty: 0.3 } },
      { task: { id: '7', kind: 'math', prompt: 'x' }, reference: '4' },
    ]);
  });

  it('names file and line for bad JSON, a missing field, an unknown kind, an unknown field and duplicate ids', () => {
    const cases: Array<[string, RegExp]> = [
      ['{"prompt":"a","kind":"number"}\n{oops', /^t\.jsonl:2: not valid JSON/],
      ['{"kind":"number"}', /^t\.jsonl:1: field prompt/],
      ['{"prompt":"a","kind":"essay"}', /^t\.jsonl:1: field kind.*got "essay"/],
      ['{"prompt":"a","kind":"number","answer":"3"}', /^t\.jsonl:1: .*answer/],
      [
        '{"id":"a","prompt":"a","kind":"number"}\n{"id":"a","prompt":"b","kind":"number"}',
        /^t\.jsonl:2: duplicate task id "a" \(first used on line 1\)/,
      ],
      ['\n\n', /^t\.jsonl: the file holds no tasks/],
    ];
    for (const [text, pattern] of cases) {
      expect(() => parseTasks(text, 't.jsonl'), text).toThrow(DataFormatError);
      expect(() => parseTasks(text, 't.jsonl'), text).toThrow(pattern);
    }
  });
});

describe('loadTasks', () => {
  it('reads a file and reports a missing one with its path', async () => {
    const dir = temporaryDirectory('repute-tasks-');
    const file = join(dir, 'tasks.jsonl');
    writeFileSync(file, '{"prompt":"What is 1+1?","kind":"number","reference":"2"}\n');
    expect(await loadTasks(file)).toHaveLength(1);
    await expect(loadTasks(join(dir, 'missing.jsonl'))).rejects.toThrow(
      /missing\.jsonl: cannot read the task file \(ENOENT\)/,
    );
  });
});
