import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// `repute run` and the team service hold no protocol-specific branch (issue 40): they look a
// protocol up in the registry and run it; what differs between protocols lives in the protocol's
// own folder. Checked on the source text: no built-in protocol's type as a string literal (a
// comparison `type !== 'debate'`, a cast to a protocol's config, a default) and no import from a
// protocol's folder (protocols/debate, protocols/drf, protocols/pubsub).
//
// The team service serves debate methods only (`repute serve` answers with one debate method), so
// it imports the debate's own per-task steps; it is held to the first rule (no branch on a
// protocol type) and to importing nothing from the other protocols' folders.

const root = process.cwd();
const protocolTypeLiteral = /'(debate|drf|raps)'|"(debate|drf|raps)"/;
const protocolFolderImport = /from\s+'[./]*\/protocols\/(debate|drf|pubsub)\//;
// The one import allowed: the team file's `serve` block lists the methods `repute serve` answers
// with, which are the debate's (the team service runs debate methods only); `repute run` never
// reads that block.
const allowedImports = [
  "src/cli/commands/_team-file.ts: import { allDebateMethodNames, defaultServeMethod } from '../../protocols/debate/methods.js';",
];

/** `run.ts` and the `_`-prefixed helpers of src/cli/commands it reaches through imports. */
function cliRunFiles(): string[] {
  const start = 'src/cli/commands/run.ts';
  const found = new Set([start]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    for (const match of readFileSync(join(root, file), 'utf8').matchAll(/from\s+'\.\/(_[^']+)\.js'/g)) {
      const target = relative(root, join(root, dirname(file), `${match[1]}.ts`));
      if (!found.has(target)) {
        found.add(target);
        queue.push(target);
      }
    }
  }
  return [...found];
}

/** The file's code lines matching `pattern` (comments left out), as `file:line: text`. */
function matchingLines(file: string, pattern: RegExp): string[] {
  return readFileSync(join(root, file), 'utf8')
    .split('\n')
    .map((text, index) => ({ text: text.trim(), line: index + 1 }))
    .filter(({ text }) => !text.startsWith('//') && !text.startsWith('*') && !text.startsWith('/*'))
    .filter(({ text }) => pattern.test(text))
    .map(({ text, line }) => `${file}:${line}: ${text}`);
}

describe('protocol-specific branches', () => {
  it('run.ts and its helpers name no protocol type and import from no protocol folder', () => {
    const files = cliRunFiles();
    expect(files).toEqual(expect.arrayContaining(['src/cli/commands/run.ts', 'src/cli/commands/_team-file.ts']));
    expect(files.flatMap((file) => matchingLines(file, protocolTypeLiteral))).toEqual([]);
    expect(
      files.flatMap((file) => matchingLines(file, protocolFolderImport)).map((line) => line.replace(/:\d+:/, ':')),
    ).toEqual(allowedImports);
  });

  it('team-service.ts names no protocol type and imports from no other protocol than the debate', () => {
    const file = 'src/server/team-service.ts';
    expect(matchingLines(file, protocolTypeLiteral)).toEqual([]);
    expect(matchingLines(file, /from\s+'[./]*\/protocols\/(drf|pubsub)\//)).toEqual([]);
  });

  it('catches a branch and an import written the old way', () => {
    // What run.ts held before the registry (2689960): checked on the same patterns.
    expect(protocolTypeLiteral.test("if (team.protocol.type !== 'debate') {")).toBe(true);
    expect(
      protocolFolderImport.test("import { runDebateSession } from '../../protocols/debate/run-debate-session.js';"),
    ).toBe(true);
    expect(protocolFolderImport.test("import { getProtocol } from '../../protocols/registry.js';")).toBe(false);
  });
});
