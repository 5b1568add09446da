import { closeSync, createReadStream, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { DataFormatError, NotFoundError } from '../../core/errors.js';
import { assertKnownOptions, defineOptionKeys } from '../../core/validate.js';
import { findRepeatedKey, type RepeatedKey } from './_repeated-keys.js';

/** One non-blank line of a text file with its 1-based line number. */
export interface NumberedLine {
  readonly line: number;
  readonly text: string;
}

/** Options of {@link readLines}. */
export interface ReadLinesOptions {
  /**
   * What one record of the file looks like, e.g. `one JSON object per line`. When given, a file
   * without a non-blank line (0 bytes, only blank lines or a byte order mark) throws
   * {@link DataFormatError} naming the file and quoting this, instead of yielding nothing.
   * @default undefined (an empty file yields no lines)
   */
  readonly expected?: string;
}

const lineFeed = 0x0a;
const carriageReturn = 0x0d;
const byteOrderMark = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * The error for a file that must hold records but has no non-blank line: names the file, says what
 * a record looks like (`expected`) and what to do.
 */
export function noRecordsError(file: string, expected: string): DataFormatError {
  return new DataFormatError({
    file,
    message: `the file holds no records (it is empty or has only blank lines); expected ${expected}; check that the file was written or downloaded completely, or point at another dataset`,
  });
}

/**
 * Decodes one line's bytes (without its line end) as UTF-8: a leading byte order mark (line 1
 * only) is dropped; invalid UTF-8 throws {@link DataFormatError} naming the file and line instead
 * of being replaced by U+FFFD without a word.
 */
function decodeLine(file: string, line: number, bytes: Buffer): string {
  const body = line === 1 && bytes.subarray(0, 3).equals(byteOrderMark) ? bytes.subarray(3) : bytes;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
  } catch (error) {
    throw new DataFormatError({
      file,
      line,
      message: `invalid UTF-8 (${(error as Error).message}); re-save the file as UTF-8`,
      cause: error,
    });
  }
}

/**
 * Splits a byte stream into lines at LF or CRLF, one chunk at a time: `push` returns the bytes of
 * the lines a chunk completes (without their line ends), `end` the last line when the stream does
 * not end with a line end. A bare CR is no line end: it stays in its line (JSON reads it as
 * whitespace between tokens and refuses it inside a string), as JSON Lines asks.
 */
class LineSplitter {
  private pending: Buffer[] = [];

  push(chunk: Buffer): Buffer[] {
    const lines: Buffer[] = [];
    let start = 0;
    for (let end = chunk.indexOf(lineFeed); end !== -1; end = chunk.indexOf(lineFeed, start)) {
      const piece = chunk.subarray(start, end);
      // A CRLF split across two chunks has its CR at the end of the pending bytes: stripped the same.
      lines.push(withoutCarriageReturn(this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece])));
      this.pending = [];
      start = end + 1;
    }
    if (start < chunk.length) this.pending.push(chunk.subarray(start));
    return lines;
  }

  end(): Buffer | undefined {
    return this.pending.length === 0 ? undefined : Buffer.concat(this.pending);
  }
}

/** The line without the CR of its CRLF line end. */
function withoutCarriageReturn(line: Buffer): Buffer {
  return line.length > 0 && line[line.length - 1] === carriageReturn ? line.subarray(0, line.length - 1) : line;
}

const knownReadLinesOptions = defineOptionKeys<ReadLinesOptions>()(['expected']);

/**
 * Streams the non-blank lines of a UTF-8 text file (gunzipped when the name ends in `.gz`), with
 * their 1-based line numbers, without reading the whole file into memory. A line ends at LF or
 * CRLF only (a bare CR stays in the line, as JSON Lines asks); accepts a byte order mark and a last
 * line without a line end. A 0-byte regular file has no lines (even a `.gz` one, which holds no gzip
 * header); a named pipe is read to its end. Throws {@link DataFormatError} naming the line for invalid UTF-8 or an unreadable file,
 * and naming the file when `options.expected` is given and the file has no non-blank line.
 */
export async function* readLines(file: string, options: ReadLinesOptions = {}): AsyncGenerator<NumberedLine> {
  assertKnownOptions('options', options, knownReadLinesOptions, 'readLines');
  if (!existsSync(file))
    throw new NotFoundError({ entity: 'file', id: file, message: `file not found: ${file}; check the path` });
  let yielded = false;
  // A 0-byte .gz is no gzip stream: it holds no lines rather than failing as a truncated one. Only a
  // regular file is skipped so: a named pipe or /dev/stdin reports size 0 however much it holds.
  const stat = statSync(file);
  if (!stat.isFile() || stat.size > 0) {
    const raw = createReadStream(file);
    // pipeline() forwards a read error (EISDIR, EACCES) of the file to the gunzip stream we iterate.
    const input = file.endsWith('.gz') ? pipeline(raw, createGunzip(), () => {}) : raw;
    const splitter = new LineSplitter();
    let line = 0;
    try {
      for await (const chunk of input as AsyncIterable<Buffer>) {
        const lines = splitter.push(chunk);
        for (let index = 0; index < lines.length; index++) {
          line++;
          const text = decodeLine(file, line, lines[index] as Buffer);
          if (text.trim().length > 0) {
            yielded = true;
            yield { line, text };
          }
        }
      }
      const last = splitter.end();
      if (last !== undefined) {
        line++;
        const text = decodeLine(file, line, last);
        if (text.trim().length > 0) {
          yielded = true;
          yield { line, text };
        }
      }
    } catch (error) {
      if (error instanceof DataFormatError) throw error;
      throw new DataFormatError({
        file,
        line: line + 1,
        message: `cannot read: ${(error as Error).message}`,
        cause: error,
      });
    } finally {
      raw.destroy();
      if (input !== raw) (input as { destroy(): void }).destroy();
    }
  }
  if (!yielded && options.expected !== undefined) throw noRecordsError(file, options.expected);
}

/**
 * The first non-blank line of a (plain) text file, read synchronously however long it is, without
 * a byte order mark; lines end at LF or CRLF as in {@link readLines}. `''` for a file with no such
 * line. Format detection only: bytes that are not UTF-8 become U+FFFD here, and the loader reports
 * them with their line.
 */
export function readFirstLine(file: string): string {
  const handle = openSync(file, 'r');
  try {
    const chunks: Buffer[] = [];
    const buffer = Buffer.alloc(1 << 16);
    let position = 0;
    for (;;) {
      const read = readSync(handle, buffer, 0, buffer.length, position);
      if (read === 0) break;
      position += read;
      const chunk = buffer.subarray(0, read);
      let start = 0;
      for (let end = chunk.indexOf(lineFeed); end !== -1; end = chunk.indexOf(lineFeed, start)) {
        chunks.push(Buffer.from(chunk.subarray(start, end)));
        const text = firstLineText(withoutCarriageReturn(Buffer.concat(chunks)));
        if (text.trim().length > 0) return text;
        chunks.length = 0;
        start = end + 1;
      }
      chunks.push(Buffer.from(chunk.subarray(start)));
    }
    return firstLineText(Buffer.concat(chunks));
  } finally {
    closeSync(handle);
  }
}

function firstLineText(bytes: Buffer): string {
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  return text.trim().length > 0 ? text : '';
}

/**
 * Where a raw carriage return sits in a line JSON refused, and what to do; `''` for a line without
 * one. A CR between tokens is JSON whitespace, so it matters only inside a string, or as the line
 * end of a classic Mac file, which is one line here.
 */
function carriageReturnHint(text: string): string {
  const index = text.indexOf('\r');
  if (index === -1) return '';
  return `; the line holds a raw carriage return (\\r) at column ${index + 1}: only LF and CRLF end a record, and inside a string a carriage return must be written \\r; a file with classic Mac (CR) line ends needs converting first, e.g. tr '\\r' '\\n' < old.jsonl > new.jsonl`;
}

/**
 * Text for a message with its control characters escaped (`\r`, `\t`, `\u0000`): a raw CR printed
 * to a terminal would move back over the message, a raw LF split it.
 */
function escapeControl(text: string): string {
  return text.replace(/[\u0000-\u001f]/g, (char) => JSON.stringify(char).slice(1, -1));
}

/** The first `length` characters of a text for a message, `…` marking a cut. */
function excerpt(text: string, length: number): string {
  return `${escapeControl(text.slice(0, length))}${text.length > length ? '…' : ''}`;
}

/** The message for a key a JSON text gives twice in one object. */
function repeatedKeyMessage(repeated: RepeatedKey, whole: string): string {
  const where = repeated.path === '' ? `at the top level of the ${whole}` : `in ${JSON.stringify(repeated.path)}`;
  return `key ${JSON.stringify(repeated.key)} appears twice ${where}: ${excerpt(repeated.first, 60)}, then ${excerpt(repeated.second, 60)}; JSON keeps only the last value, so the first would be lost without a word: give each key once`;
}

/**
 * Parses one JSON line. A syntax error becomes a {@link DataFormatError} naming the file and line
 * (and a raw carriage return, when the line holds one); so does a key given twice in one object
 * (JSON.parse would keep the last value and drop the first), naming the key, its object and both values.
 */
export function parseJsonLine(file: string, numbered: NumberedLine): unknown {
  let value: unknown;
  try {
    value = JSON.parse(numbered.text);
  } catch (error) {
    throw new DataFormatError({
      file,
      line: numbered.line,
      message: `malformed JSON (${(error as Error).message}); each record must be one JSON object on one line: ${excerpt(numbered.text, 80)}${carriageReturnHint(numbered.text)}`,
      cause: error,
    });
  }
  const repeated = findRepeatedKey(numbered.text, value);
  if (repeated !== undefined)
    throw new DataFormatError({ file, line: numbered.line, message: repeatedKeyMessage(repeated, 'record') });
  return value;
}

/**
 * Reads a whole JSON file (a byte order mark allowed); throws {@link DataFormatError} naming it on
 * bad JSON, and naming the line on a key given twice in one object.
 */
export function readJsonFile(file: string): unknown {
  let text: string;
  let value: unknown;
  try {
    text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
    value = JSON.parse(text);
  } catch (error) {
    throw new DataFormatError({ file, message: `malformed JSON: ${(error as Error).message}`, cause: error });
  }
  const repeated = findRepeatedKey(text, value);
  if (repeated !== undefined) {
    let line = 1;
    for (let index = text.indexOf('\n'); index !== -1 && index < repeated.offset; index = text.indexOf('\n', index + 1))
      line++;
    throw new DataFormatError({ file, line, message: repeatedKeyMessage(repeated, 'file') });
  }
  return value;
}
