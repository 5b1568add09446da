import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DataFormatError } from '../../core/errors.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';
import { type NumberedLine, readFirstLine, readLines } from './read-lines.js';

const directory = temporaryDirectory('repute-read-lines-');
const file = (name: string, content: string | Buffer) => {
  const path = join(directory, name);
  writeFileSync(path, content);
  return path;
};

async function collect(path: string, options?: Parameters<typeof readLines>[1]): Promise<NumberedLine[]> {
  const lines: NumberedLine[] = [];
  for await (const numbered of readLines(path, options)) lines.push(numbered);
  return lines;
}

// The chunk size of a file read stream (its highWaterMark): 64 KiB.
const chunk = 65_536;

describe('readLines line ends', () => {
  it('splits on LF, CRLF and a bare CR alike, numbering blank lines too', async () => {
    // Lines: 1 a, 2 b, 3 (blank), 4 c, 5 d, 6 e, 7 (blank), 8 f.
    const expected = [
      { line: 1, text: 'a' },
      { line: 2, text: 'b' },
      { line: 4, text: 'c' },
      { line: 5, text: 'd' },
      { line: 6, text: 'e' },
      { line: 8, text: 'f' },
    ];
    expect(await collect(file('lf.txt', 'a\nb\n\nc\nd\ne\n\nf\n'))).toEqual(expected);
    expect(await collect(file('crlf.txt', 'a\r\nb\r\n\r\nc\r\nd\r\ne\r\n\r\nf\r\n'))).toEqual(expected);
    expect(await collect(file('cr.txt', 'a\rb\r\rc\rd\re\r\rf'))).toEqual(expected);
    // Mixed: a CR, b CRLF, LF (blank line 3), c CR, d LF, e CR, CRLF (blank line 7), f CRLF.
    expect(await collect(file('mixed.txt', 'a\rb\r\n\nc\rd\ne\r\r\nf\r\n'))).toEqual(expected);
    expect(await collect(file('cr.txt.gz', gzipSync('\uFEFFa\rb\r\rc')))).toEqual([
      { line: 1, text: 'a' },
      { line: 2, text: 'b' },
      { line: 4, text: 'c' },
    ]);
  });

  it('reads a CRLF split across two chunks as one line end, and a CR at the end of a chunk as one', async () => {
    const long = 'x'.repeat(chunk - 1);
    // CR is the last byte of the first chunk, LF the first byte of the second: one line end, no blank line.
    expect(await collect(file('split-crlf.txt', `${long}\r\ny\r\n`))).toEqual([
      { line: 1, text: long },
      { line: 2, text: 'y' },
    ]);
    // CR last in the first chunk, then CR LF: the second CR ends a blank line 2.
    expect(await collect(file('split-cr.txt', `${long}\r\r\ny`))).toEqual([
      { line: 1, text: long },
      { line: 3, text: 'y' },
    ]);
  });

  it('keeps a line longer than a chunk whole', async () => {
    const long = 'é'.repeat(chunk); // 2 bytes each: the line spans 3 chunks and splits a character
    expect(await collect(file('long.txt', `a\r${long}\rb`))).toEqual([
      { line: 1, text: 'a' },
      { line: 2, text: long },
      { line: 3, text: 'b' },
    ]);
  });
});

describe('readLines on a file without records', () => {
  it('yields nothing for an empty or blank file, and throws naming the file when records are expected', async () => {
    for (const [name, content] of [
      ['empty.txt', ''],
      ['blank.txt', ' \r\n\r\t\n'],
      ['empty.txt.gz', ''], // 0 bytes: not even a gzip header
      ['blank.txt.gz', gzipSync('\n\n')],
    ] as const) {
      const path = file(name, content);
      expect(await collect(path)).toEqual([]);
      const error = await collect(path, { expected: 'one JSON object per line' }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DataFormatError);
      expect((error as DataFormatError).file).toBe(path);
      expect((error as DataFormatError).message).toBe(
        `${path}: the file holds no records (it is empty or has only blank lines); expected one JSON object per line; check that the file was written or downloaded completely, or point at another dataset`,
      );
    }
  });
  // A named pipe (a shell's <(zcat data.jsonl.gz), /dev/stdin) reports size 0 but holds lines: only
  // a regular file of 0 bytes is skipped unread.
  it.skipIf(process.platform === 'win32')('reads a named pipe, whose size is 0, to its end', async () => {
    const pipe = join(directory, 'pipe.jsonl');
    execFileSync('mkfifo', [pipe]);
    const writing = writeFile(pipe, '{"a":1}\r\n{"a":2}\n');
    expect(await collect(pipe, { expected: 'one JSON object per line' })).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 2, text: '{"a":2}' },
    ]);
    await writing;
  });
});

describe('readFirstLine', () => {
  it('returns the first non-blank line whatever the line ends', () => {
    expect(readFirstLine(file('first-lf.txt', '\n\nfirst\nsecond'))).toBe('first');
    expect(readFirstLine(file('first-crlf.txt', '\uFEFF\r\nfirst\r\nsecond'))).toBe('first');
    expect(readFirstLine(file('first-cr.txt', '\r \rfirst\rsecond'))).toBe('first');
    expect(readFirstLine(file('first-none.txt', '\r\n \r'))).toBe('');
    const long = 'y'.repeat(3 * chunk);
    expect(readFirstLine(file('first-long.txt', `\r${long}\rsecond`))).toBe(long);
  });
});
