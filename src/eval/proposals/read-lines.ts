import { closeSync, createReadStream, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { DataFormatError, NotFoundError } from '../../core/errors.js';

/** One non-blank line of a text file with its 1-based line number. */
export interface NumberedLine {
  readonly line: number;
  readonly text: string;
}

const newline = 0x0a;
const byteOrderMark = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Decodes one line's bytes as UTF-8: a leading byte order mark (line 1 only) and a trailing `\r`
 * (CRLF files) are dropped; invalid UTF-8 throws {@link DataFormatError} naming the file and line
 * instead of being replaced by U+FFFD without a word.
 */
function decodeLine(file: string, line: number, bytes: Buffer): string {
  let body = line === 1 && bytes.subarray(0, 3).equals(byteOrderMark) ? bytes.subarray(3) : bytes;
  if (body.length > 0 && body[body.length - 1] === 0x0d) body = body.subarray(0, body.length - 1);
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
 * Streams the non-blank lines of a UTF-8 text file (gunzipped when the name ends in `.gz`), with
 * their 1-based line numbers, without reading the whole file into memory. Accepts LF and CRLF line
 * ends, a byte order mark and a last line without a newline; throws {@link DataFormatError} naming
 * the line for invalid UTF-8 or an unreadable file.
 */
export async function* readLines(file: string): AsyncGenerator<NumberedLine> {
  if (!existsSync(file))
    throw new NotFoundError({ entity: 'file', id: file, message: `file not found: ${file}; check the path` });
  const raw = createReadStream(file);
  // pipeline() forwards a read error (EISDIR, EACCES) of the file to the gunzip stream we iterate.
  const input = file.endsWith('.gz') ? pipeline(raw, createGunzip(), () => {}) : raw;
  let line = 0;
  let pending: Buffer[] = [];
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      let start = 0;
      for (let end = chunk.indexOf(newline); end !== -1; end = chunk.indexOf(newline, start)) {
        const piece = chunk.subarray(start, end);
        const bytes = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
        pending = [];
        start = end + 1;
        line++;
        const text = decodeLine(file, line, bytes);
        if (text.trim().length > 0) yield { line, text };
      }
      if (start < chunk.length) pending.push(chunk.subarray(start));
    }
    if (pending.length > 0) {
      line++;
      const text = decodeLine(file, line, Buffer.concat(pending));
      if (text.trim().length > 0) yield { line, text };
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

/**
 * The first non-blank line of a (plain) text file, read synchronously however long it is, without
 * a byte order mark or trailing `\r`; `''` for a file with no such line. Format detection only:
 * bytes that are not UTF-8 become U+FFFD here, and the loader reports them with their line.
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
      let start = 0;
      for (let end = buffer.indexOf(newline, 0); end !== -1 && end < read; end = buffer.indexOf(newline, start)) {
        chunks.push(Buffer.from(buffer.subarray(start, end)));
        const text = firstLineText(Buffer.concat(chunks));
        if (text.trim().length > 0) return text;
        chunks.length = 0;
        start = end + 1;
      }
      chunks.push(Buffer.from(buffer.subarray(start, read)));
    }
    return firstLineText(Buffer.concat(chunks));
  } finally {
    closeSync(handle);
  }
}

function firstLineText(bytes: Buffer): string {
  const text = bytes
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .replace(/\r$/, '');
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
