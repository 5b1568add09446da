import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DataFormatError } from '../../core/errors.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';
import { type NumberedLine, parseJsonLine, readFirstLine, readJsonFile, readLines } from './read-lines.js';

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
  it('ends lines at LF and CRLF only, numbering blank lines too; a bare CR stays in its line', async () => {
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
    // Old: a bare CR ended a line too, so `{"a":\r1}` (valid JSON: CR is whitespace) became two broken lines.
    expect(await collect(file('cr.txt', 'a\rb\n{"a":\r1}\r\n\r\r\nc\r'))).toEqual([
      { line: 1, text: 'a\rb' },
      { line: 2, text: '{"a":\r1}' },
      // Line 3 is a CR then CRLF: whitespace only, so blank. The last line keeps its CR: no LF follows it.
      { line: 4, text: 'c\r' },
    ]);
    expect(await collect(file('cr.txt.gz', gzipSync('\uFEFFa\rb\r\nc')))).toEqual([
      { line: 1, text: 'a\rb' },
      { line: 2, text: 'c' },
    ]);
  });

  it('reads a CRLF split across two chunks as one line end, and a CR at the end of a chunk without LF as text', async () => {
    const long = 'x'.repeat(chunk - 1);
    // CR is the last byte of the first chunk, LF the first byte of the second: one line end, no blank line.
    expect(await collect(file('split-crlf.txt', `${long}\r\ny\r\n`))).toEqual([
      { line: 1, text: long },
      { line: 2, text: 'y' },
    ]);
    // CR last in the first chunk, then CR LF: the first CR is part of line 1, the CRLF ends it.
    expect(await collect(file('split-cr.txt', `${long}\r\r\ny`))).toEqual([
      { line: 1, text: `${long}\r` },
      { line: 2, text: 'y' },
    ]);
    // CR last in the first chunk, then text: one line holding the CR.
    expect(await collect(file('split-cr-text.txt', `${long}\rz\ny`))).toEqual([
      { line: 1, text: `${long}\rz` },
      { line: 2, text: 'y' },
    ]);
  });

  it('keeps a line longer than a chunk whole', async () => {
    const long = 'é'.repeat(chunk); // 2 bytes each: the line spans 3 chunks and splits a character
    expect(await collect(file('long.txt', `a\r\n${long}\nb`))).toEqual([
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
  it('returns the first non-blank line, ended by LF or CRLF only', () => {
    expect(readFirstLine(file('first-lf.txt', '\n\nfirst\nsecond'))).toBe('first');
    expect(readFirstLine(file('first-crlf.txt', '\uFEFF\r\nfirst\r\nsecond'))).toBe('first');
    // Old: 'first' (a bare CR ended lines here too).
    expect(readFirstLine(file('first-cr.txt', '\r \r\nfirst\rsecond\nthird'))).toBe('first\rsecond');
    expect(readFirstLine(file('first-none.txt', '\r\n \r'))).toBe('');
    const long = 'y'.repeat(3 * chunk);
    expect(readFirstLine(file('first-long.txt', `\r\n${long}\r\nsecond`))).toBe(long);
    // A CRLF split across two 64 KiB reads is one line end.
    const split = 'z'.repeat(chunk - 1);
    expect(readFirstLine(file('first-split.txt', `${split}\r\nsecond`))).toBe(split);
  });
});

describe('parseJsonLine', () => {
  const at = (text: string, line = 7) => parseJsonLine('data.jsonl', { line, text });
  const refusal = (text: string): DataFormatError => {
    try {
      at(text);
    } catch (error) {
      return error as DataFormatError;
    }
    throw new Error(`parsed ${text}`);
  };

  it('refuses a key given twice in one object, naming the file, line, key, where it is and both values', () => {
    // Old: JSON.parse kept the last value, so the first "reference" and the first answer of m1 were lost.
    const field = refusal('{"id":"t1","reference":"1","proposals":{},"reference":"2"}');
    expect(field).toBeInstanceOf(DataFormatError);
    expect(field.file).toBe('data.jsonl');
    expect(field.line).toBe(7);
    expect(field.message).toBe(
      'data.jsonl:7: key "reference" appears twice at the top level of the record: "1", then "2"; JSON keeps only the last value, so the first would be lost without a word: give each key once',
    );
    const agent = refusal(
      '{"id":"t1","proposals":{"m1":{"answer":"1","correct":true},"m2":{"answer":"3"},"m1":{"answer":"2","correct":false}}}',
    );
    expect(agent.message).toBe(
      'data.jsonl:7: key "m1" appears twice in "proposals": {"answer":"1","correct":true}, then {"answer":"2","correct":false}; JSON keeps only the last value, so the first would be lost without a word: give each key once',
    );
    // Deeper, inside a list, and a key written with an escape (\u0061 is "a").
    expect(refusal('{"items":[{"x":1},{"y":{"a":[1, 2] ,"\\u0061" : null}}]}').message).toBe(
      'data.jsonl:7: key "a" appears twice in "items[1].y": [1, 2], then null; JSON keeps only the last value, so the first would be lost without a word: give each key once',
    );
    // A long value is cut at 60 characters.
    const long = 'x'.repeat(100);
    expect(refusal(`{"text":"${long}","text":"y"}`).message).toContain(
      `key "text" appears twice at the top level of the record: "${'x'.repeat(59)}…, then "y";`,
    );
  });

  it('reads keys that only look repeated: the same key in sibling objects, quotes and colons inside strings', () => {
    expect(at('{"a":{"b":1},"c":{"b":2}}')).toEqual({ a: { b: 1 }, c: { b: 2 } });
    const tricky = '{"text":"say \\"a\\": 1, \\"a\\": 2 {:}","a":"\\\\","b":[{"a":1}]}';
    expect(at(tricky)).toEqual({ text: 'say "a": 1, "a": 2 {:}', a: '\\', b: [{ a: 1 }] });
    expect(at('[1,"a:b",{"k":"v"}]')).toEqual([1, 'a:b', { k: 'v' }]);
    // A key that names an inherited property is an own key of the record like any other.
    expect(at('{"__proto__":1,"constructor":2}')).toEqual(JSON.parse('{"__proto__":1,"constructor":2}'));
    expect(refusal('{"__proto__":1,"__proto__":2}').message).toContain('key "__proto__" appears twice');
    // Colons in strings, written as is or as the escape \u003a (which the fast count cannot see).
    expect(at('{"t":"a:b","u":"c\\u003ad","k:e":[":"]}')).toEqual({ t: 'a:b', u: 'c:d', 'k:e': [':'] });
    expect(refusal('{"t":"x:y:z","t":"w"}').message).toContain('key "t" appears twice');
    expect(refusal('{"t":"c\\u003ad","t":"w"}').message).toContain('key "t" appears twice');
  });

  it('says where a raw carriage return makes a line malformed, and what to do', () => {
    // A raw CR between tokens is JSON whitespace: the record reads as usual.
    expect(at('{"a":\r1}')).toEqual({ a: 1 });
    // Inside a string JSON forbids it.
    const inString = refusal('{"a":"x\ry"}');
    expect(inString.message).toMatch(
      /^data\.jsonl:7: malformed JSON \(.*\); each record must be one JSON object on one line/,
    );
    expect(inString.message).toContain(
      "the line holds a raw carriage return (\\r) at column 8: only LF and CRLF end a record, and inside a string a carriage return must be written \\r; a file with classic Mac (CR) line ends needs converting first, e.g. tr '\\r' '\\n'",
    );
    // No hint for a line without CR.
    expect(refusal('{oops').message).not.toContain('carriage return');
  });
});

describe('readJsonFile', () => {
  it('refuses a key given twice in one object, naming the file, the line of the second and the key', () => {
    const path = file(
      'models.json',
      '{\n  "task": "gsm",\n  "models": [\n    { "model": "a", "family": "f1", "family": "f2" }\n  ]\n}\n',
    );
    const error = (() => {
      try {
        readJsonFile(path);
      } catch (caught) {
        return caught as DataFormatError;
      }
      throw new Error('read it');
    })();
    expect(error).toBeInstanceOf(DataFormatError);
    expect(error.file).toBe(path);
    expect(error.line).toBe(4);
    expect(error.message).toBe(
      `${path}:4: key "family" appears twice in "models[0]": "f1", then "f2"; JSON keeps only the last value, so the first would be lost without a word: give each key once`,
    );
    // A value over several lines is quoted on one, its line ends escaped.
    const pretty = file('pretty.json', '{\n  "models": [\n    1\n  ],\n  "task": "gsm",\n  "models": []\n}\n');
    expect(() => readJsonFile(pretty)).toThrow(
      `${pretty}:6: key "models" appears twice at the top level of the file: [\\n    1\\n  ], then [];`,
    );
    expect(readJsonFile(file('fine.json', '\uFEFF{"models":[{"model":"a"},{"model":"b"}]}'))).toEqual({
      models: [{ model: 'a' }, { model: 'b' }],
    });
  });
});
