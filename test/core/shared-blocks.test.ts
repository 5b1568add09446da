import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// No block of six or more lines is repeated among the protocol session runners and the CLI run
// path (issue 40): a repeated block is a step that belongs in one shared helper (run-session.ts,
// debate-task.ts, _shared.ts, ...), not copied into each runner.
//
// Normalization, applied to each file before comparing:
// - each line is trimmed (indentation and trailing spaces do not count);
// - blank lines are dropped;
// - import declarations are dropped whole, multi-line ones included (two files importing the same
//   names is not shared logic);
// - comments are dropped: `//` lines and `/* ... */` blocks (JSDoc included);
// - lines made only of closing brackets and punctuation (`}`, `});`, `]`, `),` ...) are dropped,
//   so that the ends of unrelated blocks do not line up into a match.
// A block is six consecutive normalized lines; it is reported when it occurs at two places, in two
// files or twice in one file.

const root = process.cwd();
const blockLength = 6;

/** The session runners, the protocol adapters and the session loop they share. */
const protocolFiles = [
  'src/protocols/run-session.ts',
  'src/protocols/debate/run-debate-session.ts',
  'src/protocols/debate/debate-protocol.ts',
  'src/protocols/drf/run-drf-session.ts',
  'src/protocols/drf/drf-session-protocol.ts',
  'src/protocols/pubsub/run-raps-session.ts',
  'src/protocols/pubsub/raps-protocol.ts',
];

/** `run.ts` and the `_`-prefixed helpers of src/cli/commands it reaches through imports. */
function cliRunFiles(): string[] {
  const start = 'src/cli/commands/run.ts';
  const found = new Set([start]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    const text = readFileSync(join(root, file), 'utf8');
    for (const match of text.matchAll(/from\s+'\.\/(_[^']+)\.js'/g)) {
      const target = relative(root, join(root, dirname(file), `${match[1]}.ts`));
      if (!found.has(target)) {
        found.add(target);
        queue.push(target);
      }
    }
  }
  return [...found];
}

interface NormalizedLine {
  readonly text: string;
  /** 1-based line number in the file. */
  readonly line: number;
}

/** The file's lines after the normalization described at the top of this file. */
function normalizeLines(source: string): NormalizedLine[] {
  const lines: NormalizedLine[] = [];
  let inImport = false;
  let inComment = false;
  source.split('\n').forEach((raw, index) => {
    const text = raw.trim();
    if (inImport) {
      if (text.endsWith(';')) inImport = false;
      return;
    }
    if (inComment) {
      if (text.endsWith('*/')) inComment = false;
      return;
    }
    if (/^import\b/.test(text)) {
      inImport = !text.endsWith(';');
      return;
    }
    if (text.startsWith('/*')) {
      inComment = !text.endsWith('*/');
      return;
    }
    if (text === '' || text.startsWith('//') || /^[})\]]+[;,)]*$/.test(text)) return;
    lines.push({ text, line: index + 1 });
  });
  return lines;
}

/** Blocks of `length` normalized lines found at two places or more, each with its places. */
function findSharedBlocks(
  files: ReadonlyArray<{ readonly name: string; readonly source: string }>,
  length = blockLength,
): Array<{ readonly block: string; readonly places: string[] }> {
  const places = new Map<string, string[]>();
  for (const { name, source } of files) {
    const lines = normalizeLines(source);
    for (let start = 0; start + length <= lines.length; start++) {
      const block = lines
        .slice(start, start + length)
        .map((line) => line.text)
        .join('\n');
      const at = `${name}:${lines[start]?.line}`;
      places.set(block, [...(places.get(block) ?? []), at]);
    }
  }
  return [...places].filter(([, at]) => at.length > 1).map(([block, at]) => ({ block, places: at }));
}

function readFiles(names: readonly string[]): Array<{ name: string; source: string }> {
  return names.map((name) => ({ name, source: readFileSync(join(root, name), 'utf8') }));
}

describe('blocks shared among the session runners and the CLI run path', () => {
  it('covers the files it names', () => {
    const files = [...protocolFiles, ...cliRunFiles()];
    for (const file of files) expect(existsSync(join(root, file)), file).toBe(true);
    // run.ts reaches its helpers: the team file, the live team, the store lock, the failure budget.
    expect(cliRunFiles()).toEqual(
      expect.arrayContaining([
        'src/cli/commands/_team-file.ts',
        'src/cli/commands/_live-team.ts',
        'src/cli/commands/_run-lock.ts',
        'src/cli/commands/_run-failures.ts',
        'src/cli/commands/_shared.ts',
      ]),
    );
  });

  it('finds no block of six or more normalized lines at two places', () => {
    const shared = findSharedBlocks(readFiles([...protocolFiles, ...cliRunFiles()]));
    expect(shared.map(({ places, block }) => `${places.join(' ')}\n${block}`)).toEqual([]);
  });

  it('normalizes indentation, blank lines, imports, comments and closing brackets away', () => {
    const first = [
      'import { a,',
      "  b } from './a.js';",
      'function one() {',
      '  const x = a();',
      '',
      '  // first copy',
      '  const y = b(x);',
      '  if (y > 1) {',
      '    log(y);',
      '  }',
      '  /* a',
      '     comment */',
      '  return store(x, y);',
      '}',
    ].join('\n');
    const second = [
      'function two() {',
      '      const x = a();',
      '      const y = b(x);',
      '      if (y > 1) {',
      '',
      '        log(y);',
      '      });',
      '      return store(x, y);',
    ].join('\n');
    expect(normalizeLines(first).map((line) => line.text)).toEqual([
      'function one() {',
      'const x = a();',
      'const y = b(x);',
      'if (y > 1) {',
      'log(y);',
      'return store(x, y);',
    ]);
    // Five lines in common ('const x' .. 'return'): under the six-line threshold.
    expect(
      findSharedBlocks([
        { name: 'one.ts', source: first },
        { name: 'two.ts', source: second },
      ]),
    ).toEqual([]);
    // With the same function name the six-line block matches, at its first line in each file.
    expect(
      findSharedBlocks([
        { name: 'one.ts', source: first },
        { name: 'two.ts', source: second.replace('two', 'one') },
      ]).map(({ places }) => places),
    ).toEqual([['one.ts:3', 'two.ts:1']]);
  });
});
