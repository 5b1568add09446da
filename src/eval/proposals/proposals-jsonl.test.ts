import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataFormatError } from '../../core/errors.js';
import { generateReplayFixture } from '../replay/fixture.js';
import {
  formatProposalsJsonl,
  loadProposalsJsonl,
  streamProposalsJsonl,
  writeProposalsJsonl,
} from './proposals-jsonl.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';

const directory = temporaryDirectory('repute-proposals-');
const file = (name: string, text: string) => {
  const path = join(directory, name);
  writeFileSync(path, text);
  return path;
};

describe('Repute proposals JSON Lines', () => {
  it('round-trips a generated dataset through the writer and the streaming loader', async () => {
    const dataset = generateReplayFixture({ seed: 3, tasks: 20 });
    const path = join(directory, 'fixture.jsonl');
    await writeProposalsJsonl(path, dataset);
    const loaded = await loadProposalsJsonl(path);
    expect(loaded.tasks).toEqual(dataset.tasks.map((task) => ({ schemaVersion: 1, ...task })));
    expect(loaded.agents).toEqual(dataset.agents);
    expect(loaded.correctness).toBe('equivalence');
    expect(loaded.skipped).toEqual({});
  });

  it('formats the same text the writer writes', async () => {
    const dataset = generateReplayFixture({ seed: 4, tasks: 3 });
    const path = join(directory, 'same.jsonl');
    await writeProposalsJsonl(path, dataset);
    const lines: string[] = [];
    for await (const item of streamProposalsJsonl(path)) lines.push(item.type);
    expect(lines).toEqual(['header', 'task', 'task', 'task']);
    expect(formatProposalsJsonl(dataset).split('\n').length).toBe(5); // header + 3 tasks + trailing ''
  });

  it('accepts per-line schemaVersion without a header and reads the model map from lines', async () => {
    const path = file(
      'versioned.jsonl',
      [
        JSON.stringify({
          schemaVersion: 1,
          id: 'q1',
          kind: 'choice',
          reference: 'B',
          proposals: { a: { answer: 'B', correct: true }, b: { answer: 'C', correct: false } },
          models: { a: 'm1', b: 'm1' },
        }),
        '',
        JSON.stringify({ schemaVersion: 1, id: 'q2', kind: 'choice', reference: 'A', proposals: { a: { text: 'A' } } }),
      ].join('\n'),
    );
    const loaded = await loadProposalsJsonl(path);
    expect(loaded.agents).toEqual([
      { id: 'a', model: 'm1' },
      { id: 'b', model: 'm1' },
    ]);
    // 2 of 3 proposals carry a flag → mixed.
    expect(loaded.correctness).toBe('mixed');
  });

  it('names the file and line of a malformed JSON line', async () => {
    const path = file(
      'broken.jsonl',
      `${JSON.stringify({ schemaVersion: 1, format: 'repute-proposals' })}\n{"id": "q1", "kind": "number", "proposals": {}}\n{"id": oops}\n`,
    );
    await expect(loadProposalsJsonl(path)).rejects.toThrow(DataFormatError);
    await expect(loadProposalsJsonl(path)).rejects.toThrow(/broken\.jsonl:3: malformed JSON/);
  });

  it('refuses a task line without schemaVersion when there is no header', async () => {
    const path = file('unversioned.jsonl', '{"id": "q1", "kind": "number", "proposals": {"a": {"answer": "1"}}}\n');
    await expect(loadProposalsJsonl(path)).rejects.toThrow(/unversioned\.jsonl:1: missing "schemaVersion": 1/);
  });

  it('refuses bad fields with the field name, and duplicate ids with both lines', async () => {
    const header = JSON.stringify({ schemaVersion: 1, format: 'repute-proposals' });
    await expect(
      loadProposalsJsonl(file('kind.jsonl', `${header}\n{"id":"q","kind":"essay","proposals":{}}\n`)),
    ).rejects.toThrow(/kind\.jsonl:2: "kind" must be one of/);
    await expect(
      loadProposalsJsonl(
        file('answer.jsonl', `${header}\n{"id":"q","kind":"number","proposals":{"a":{"answer":3}}}\n`),
      ),
    ).rejects.toThrow(/"proposals\.a\.answer" must be a string or null/);
    await expect(
      loadProposalsJsonl(file('empty.jsonl', `${header}\n{"id":"q","kind":"number","proposals":{"a":{}}}\n`)),
    ).rejects.toThrow(/"proposals\.a" needs "text" or "answer"/);
    const line = '{"id":"q","kind":"number","proposals":{"a":{"answer":"1"}}}';
    await expect(loadProposalsJsonl(file('dup.jsonl', `${header}\n${line}\n${line}\n`))).rejects.toThrow(
      /dup\.jsonl:3: duplicate task id "q" \(first on line 2\)/,
    );
  });

  it('counts tasks without proposals instead of dropping them silently', async () => {
    const header = JSON.stringify({ schemaVersion: 1, format: 'repute-proposals', models: { a: 'm' } });
    const path = file(
      'skips.jsonl',
      `${header}\n{"id":"q1","kind":"number","proposals":{}}\n{"id":"q2","kind":"number","reference":"2","proposals":{"a":{"answer":"2"}}}\n{"id":"q3","kind":"number","proposals":{}}\n`,
    );
    const loaded = await loadProposalsJsonl(path);
    expect(loaded.tasks.map((task) => task.id)).toEqual(['q2']);
    expect(loaded.skipped).toEqual({ noProposals: 2 });
  });
});
