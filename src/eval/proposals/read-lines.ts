import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { DataFormatError, NotFoundError } from '../../core/errors.js';
import { existsSync } from 'node:fs';

/** One non-blank line of a text file with its 1-based line number. */
export interface NumberedLine {
  readonly line: number;
  readonly text: string;
}

/**
 * Streams the non-blank lines of a text file (gunzipped when the name ends in `.gz`), with their
 * 1-based line numbers, without reading the whole file into memory.
 */
export async function* readLines(file: string): AsyncGenerator<NumberedLine> {
  if (!existsSync(file)) throw new NotFoundError({ entity: 'file', id: file, message: `file not found: ${file}` });
  const raw = createReadStream(file);
  const input = file.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
  const reader = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const text of reader) {
      line++;
      if (text.trim().length === 0) continue;
      yield { line, text };
    }
  } catch (error) {
    throw new DataFormatError({
      file,
      line: line + 1,
      message: `cannot read: ${(error as Error).message}`,
      cause: error,
    });
  } finally {
    reader.close();
    raw.destroy();
  }
}

/** Parses one JSON line; a syntax error becomes a {@link DataFormatError} naming the file and line. */
export function parseJsonLine(file: string, numbered: NumberedLine): unknown {
  try {
    return JSON.parse(numbered.text);
  } catch (error) {
    throw new DataFormatError({
      file,
      line: numbered.line,
      message: `malformed JSON (${(error as Error).message}): ${numbered.text.slice(0, 80)}${numbered.text.length > 80 ? '…' : ''}`,
      cause: error,
    });
  }
}
