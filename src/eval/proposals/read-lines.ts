import { closeSync, createReadStream, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { DataFormatError, NotFoundError } from '../../core/errors.js';

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
 * Splits a byte stream into lines at LF, CRLF or a bare CR, one chunk at a time: `push` returns the
 * bytes of the lines a chunk completes (without their line ends), `end` the last line when the
 * stream does not end with a line end. A CRLF split across two chunks is one line end.
 */
class LineSplitter {
  private pending: Buffer[] = [];
  // The previous chunk ended with a CR: an LF that starts the next chunk completes that CRLF.
  private afterCarriageReturn = false;

  push(chunk: Buffer): Buffer[] {
    const lines: Buffer[] = [];
    let start = 0;
    if (this.afterCarriageReturn && chunk.length > 0) {
      this.afterCarriageReturn = false;
      if (chunk[0] === lineFeed) start = 1;
    }
    // Each kind of line end is searched for only past the last one found, so a chunk without CR
    // (the common LF file) is scanned for CR once.
    let nextFeed = chunk.indexOf(lineFeed, start);
    let nextReturn = chunk.indexOf(carriageReturn, start);
    while (nextFeed !== -1 || nextReturn !== -1) {
      const end = nextReturn === -1 || (nextFeed !== -1 && nextFeed < nextReturn) ? nextFeed : nextReturn;
      const piece = chunk.subarray(start, end);
      lines.push(this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]));
      this.pending = [];
      start = end + 1;
      if (end === nextReturn) {
        // CRLF is one line end: skip its LF, here or at the start of the next chunk.
        if (start === chunk.length) this.afterCarriageReturn = true;
        else if (chunk[start] === lineFeed) start++;
        nextReturn = chunk.indexOf(carriageReturn, start);
      }
      if (nextFeed !== -1 && nextFeed < start) nextFeed = chunk.indexOf(lineFeed, start);
    }
    if (start < chunk.length) this.pending.push(chunk.subarray(start));
    return lines;
  }

  end(): Buffer | undefined {
    return this.pending.length === 0 ? undefined : Buffer.concat(this.pending);
  }
}

/**
 * Streams the non-blank lines of a UTF-8 text file (gunzipped when the name ends in `.gz`), with
 * their 1-based line numbers, without reading the whole file into memory. A line ends at LF, CRLF
 * or a bare CR (classic Mac), each counted as one line end; accepts a byte order mark and a last
 * line without a line end. A 0-byte regular file has no lines (even a `.gz` one, which holds no gzip
 * header); a named pipe is read to its end. Throws {@link DataFormatError} naming the line for invalid UTF-8 or an unreadable file,
 * and naming the file when `options.expected` is given and the file has no non-blank line.
 */
export async function* readLines(file: string, options: ReadLinesOptions = {}): AsyncGenerator<NumberedLine> {
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
 * a byte order mark; lines end at LF, CRLF or a bare CR as in {@link readLines}. `''` for a file
 * with no such line. Format detection only: bytes that are not UTF-8 become U+FFFD here, and the
 * loader reports them with their line.
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
      // Blank lines are skipped, so a CRLF may count as two line ends here.
      for (let end = nextLineEnd(chunk, start); end !== -1; end = nextLineEnd(chunk, start)) {
        chunks.push(Buffer.from(chunk.subarray(start, end)));
        const text = firstLineText(Buffer.concat(chunks));
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

/** Index of the first LF or CR in `chunk` at or after `from`, or -1. */
function nextLineEnd(chunk: Buffer, from: number): number {
  const feed = chunk.indexOf(lineFeed, from);
  const carriage = chunk.indexOf(carriageReturn, from);
  return feed === -1 ? carriage : carriage === -1 ? feed : Math.min(feed, carriage);
}

function firstLineText(bytes: Buffer): string {
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  return text.trim().length > 0 ? text : '';
}

/** Parses one JSON line; a syntax error becomes a {@link DataFormatError} naming the file and line. */
export function parseJsonLine(file: string, numbered: NumberedLine): unknown {
  try {
    return JSON.parse(numbered.text);
  } catch (error) {
    throw new DataFormatError({
      file,
      line: numbered.line,
      message: `malformed JSON (${(error as Error).message}); each record must be one JSON object on one line: ${numbered.text.slice(0, 80)}${numbered.text.length > 80 ? '…' : ''}`,
      cause: error,
    });
  }
}

/** Reads a whole JSON file (a byte order mark allowed); throws {@link DataFormatError} naming it on bad JSON. */
export function readJsonFile(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new DataFormatError({ file, message: `malformed JSON: ${(error as Error).message}`, cause: error });
  }
}
