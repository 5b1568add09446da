// Python literal values: a parser (the grammar `ast.literal_eval` accepts, no evaluation), Python's
// `repr`, and a canonical key that realises Python's `==` on those values.
// Grammar: Python Language Reference §2.4 (literals) and the `ast.literal_eval` docs
// (strings, bytes, numbers, tuples, lists, dicts, sets, booleans, None; unary +/- on numbers;
// `a + bj` / `a - bj` complex sums; `set()`; adjacent string literals concatenate).

/** A parsed Python literal value. Integers are exact (`bigint`); floats are IEEE doubles. */
export type PythonValue =
  | { readonly type: 'none' }
  | { readonly type: 'bool'; readonly value: boolean }
  | { readonly type: 'int'; readonly value: bigint }
  | { readonly type: 'float'; readonly value: number }
  | { readonly type: 'complex'; readonly real: number; readonly imag: number }
  | { readonly type: 'str'; readonly value: string }
  | { readonly type: 'bytes'; readonly value: readonly number[] }
  | { readonly type: 'list' | 'tuple'; readonly items: readonly PythonValue[] }
  | { readonly type: 'set' | 'frozenset'; readonly items: readonly PythonValue[] }
  | { readonly type: 'dict'; readonly entries: readonly (readonly [PythonValue, PythonValue])[] };

/** Result of {@link parsePythonLiteralPrefix}: the value and the index just after it. */
export interface PythonLiteralPrefix {
  /** The parsed value. */
  readonly value: PythonValue;
  /** Index in the text just after the literal (trailing whitespace not consumed). */
  readonly end: number;
}

// Nesting deeper than this is refused (returns null) instead of risking the stack.
const maxDepth = 200;

class LiteralSyntaxError extends Error {}

const fail = (): never => {
  throw new LiteralSyntaxError();
};

const isIdentifierChar = (char: string | undefined): boolean => char !== undefined && /[\p{L}\p{N}_]/u.test(char);

// Decimal, hex, octal and binary integers, floats and imaginary literals; sticky, so no slicing per number.
const numberPattern =
  /0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*|\d(?:_?\d)*\.?)(?:[eE][+-]?\d(?:_?\d)*)?[jJ]?/y;

const simpleEscapes: Readonly<Record<string, number>> = {
  '\\': 0x5c,
  "'": 0x27,
  '"': 0x22,
  a: 0x07,
  b: 0x08,
  f: 0x0c,
  n: 0x0a,
  r: 0x0d,
  t: 0x09,
  v: 0x0b,
};

class Parser {
  index = 0;
  constructor(readonly text: string) {}

  skipSpace(): void {
    while (this.index < this.text.length && /[ \t\f\v\r\n]/.test(this.text[this.index] as string)) this.index++;
  }

  peek(): string | undefined {
    return this.text[this.index];
  }

  expect(char: string): void {
    this.skipSpace();
    if (this.text[this.index] !== char) fail();
    this.index++;
  }

  // Consumes `word` when it stands alone (not the start of a longer identifier).
  keyword(word: string): boolean {
    if (!this.text.startsWith(word, this.index) || isIdentifierChar(this.text[this.index + word.length])) return false;
    this.index += word.length;
    return true;
  }

  value(depth: number): PythonValue {
    if (depth > maxDepth) fail();
    this.skipSpace();
    const char = this.peek();
    if (char === undefined) return fail();
    if (char === '[') return { type: 'list', items: this.sequence(']', depth) };
    if (char === '(') return this.parenthesized(depth);
    if (char === '{') return this.braces(depth);
    if (char === '-' || char === '+') return this.signedNumber();
    if (/[0-9.]/.test(char)) return this.numberSum(this.number());
    if (this.startsString()) return this.strings(depth);
    if (this.keyword('None')) return { type: 'none' };
    if (this.keyword('True')) return { type: 'bool', value: true };
    if (this.keyword('False')) return { type: 'bool', value: false };
    if (this.keyword('inf')) return this.numberSum({ type: 'float', value: Number.POSITIVE_INFINITY });
    if (this.keyword('set')) {
      this.expect('(');
      this.expect(')');
      return { type: 'set', items: [] };
    }
    if (this.keyword('frozenset')) return this.frozenset(depth);
    return fail();
  }

  frozenset(depth: number): PythonValue {
    this.expect('(');
    this.skipSpace();
    if (this.peek() === ')') {
      this.index++;
      return { type: 'frozenset', items: [] };
    }
    const inner = this.value(depth + 1);
    this.expect(')');
    if (inner.type !== 'set' && inner.type !== 'frozenset' && inner.type !== 'list' && inner.type !== 'tuple')
      return fail();
    if (!inner.items.every(isHashable)) fail();
    return { type: 'frozenset', items: uniqueItems(inner.items) };
  }

  // `[a, b,]`: items up to `close`, trailing comma allowed.
  sequence(close: string, depth: number): PythonValue[] {
    this.index++;
    const items: PythonValue[] = [];
    for (;;) {
      this.skipSpace();
      if (this.peek() === close) {
        this.index++;
        return items;
      }
      items.push(this.value(depth + 1));
      this.skipSpace();
      if (this.peek() === ',') this.index++;
      else if (this.peek() !== close) fail();
    }
  }

  parenthesized(depth: number): PythonValue {
    this.index++;
    const items: PythonValue[] = [];
    let comma = false;
    for (;;) {
      this.skipSpace();
      if (this.peek() === ')') {
        this.index++;
        break;
      }
      items.push(this.value(depth + 1));
      this.skipSpace();
      if (this.peek() === ',') {
        comma = true;
        this.index++;
      } else if (this.peek() !== ')') fail();
    }
    // `(x)` is x itself; `(x,)` and `()` are tuples.
    if (items.length === 1 && !comma) return this.numberSum(items[0] as PythonValue);
    return { type: 'tuple', items };
  }

  braces(depth: number): PythonValue {
    this.index++;
    this.skipSpace();
    if (this.peek() === '}') {
      this.index++;
      return { type: 'dict', entries: [] };
    }
    const first = this.value(depth + 1);
    this.skipSpace();
    if (this.peek() === ':') {
      const entries: (readonly [PythonValue, PythonValue])[] = [];
      let key = first;
      for (;;) {
        this.expect(':');
        if (!isHashable(key)) fail();
        entries.push([key, this.value(depth + 1)]);
        if (this.closesAfterItem('}')) return { type: 'dict', entries: uniqueEntries(entries) };
        key = this.value(depth + 1);
      }
    }
    const items = [first];
    while (!this.closesAfterItem('}')) items.push(this.value(depth + 1));
    if (!items.every(isHashable)) fail();
    return { type: 'set', items: uniqueItems(items) };
  }

  // After an item of a `{...}` display: a comma (optional before `close`), then `close` if it comes;
  // true when the display is closed.
  closesAfterItem(close: string): boolean {
    this.skipSpace();
    if (this.peek() === ',') this.index++;
    else if (this.peek() !== close) fail();
    this.skipSpace();
    if (this.peek() !== close) return false;
    this.index++;
    return true;
  }

  signedNumber(): PythonValue {
    const negative = this.peek() === '-';
    this.index++;
    this.skipSpace();
    let operand: PythonValue;
    if (this.keyword('inf')) operand = { type: 'float', value: Number.POSITIVE_INFINITY };
    else if (/[0-9.]/.test(this.peek() ?? '')) operand = this.number();
    else return fail();
    return this.numberSum(negative ? negate(operand) : operand);
  }

  // `a + bj` / `a - bj`: a real number plus or minus an imaginary literal (what literal_eval accepts).
  numberSum(left: PythonValue): PythonValue {
    if (left.type !== 'int' && left.type !== 'float') return left;
    const save = this.index;
    this.skipSpace();
    const operator = this.peek();
    if (operator !== '+' && operator !== '-') {
      this.index = save;
      return left;
    }
    this.index++;
    this.skipSpace();
    if (!/[0-9.]/.test(this.peek() ?? '')) {
      this.index = save;
      return left;
    }
    const right = this.number();
    if (right.type !== 'complex') fail();
    const imag = (right as { imag: number }).imag;
    return { type: 'complex', real: toFloat(left), imag: operator === '-' ? -imag : imag };
  }

  // Decimal, hex, octal and binary integers, floats and imaginary literals (underscores allowed between digits).
  number(): PythonValue {
    numberPattern.lastIndex = this.index;
    const match = numberPattern.exec(this.text);
    if (match === null) return fail();
    const token = match[0];
    if (isIdentifierChar(this.text[this.index + token.length])) fail();
    this.index += token.length;
    const digits = token.replace(/_/g, '');
    if (/^0[xXoObB]/.test(digits)) return { type: 'int', value: BigInt(digits.toLowerCase()) };
    if (/[jJ]$/.test(digits)) return { type: 'complex', real: 0, imag: Number(digits.slice(0, -1)) };
    if (/[.eE]/.test(digits)) return { type: 'float', value: Number(digits) };
    // Python forbids leading zeros on non-zero decimal integers (`007`).
    if (/^0+[1-9]/.test(digits)) fail();
    return { type: 'int', value: BigInt(digits) };
  }

  startsString(): boolean {
    return /^(?:[rRuUbB]|[bB][rR]|[rR][bB])?['"]/.test(this.text.slice(this.index, this.index + 3));
  }

  // One or more adjacent string literals (`'a' "b"` is 'ab'); str and bytes do not mix. Outside
  // brackets (depth 0) the literals must share a line, as in Python's eval mode.
  strings(depth: number): PythonValue {
    let kind: 'str' | 'bytes' | undefined;
    const parts: number[] = [];
    let text = '';
    for (let first = true; ; first = false) {
      const save = this.index;
      if (depth === 0) while (/[ \t\f]/.test(this.peek() ?? '')) this.index++;
      else this.skipSpace();
      if (!this.startsString()) {
        if (!first) this.index = save;
        break;
      }
      const { bytes, value } = this.stringLiteral();
      if (kind !== undefined && kind !== (bytes ? 'bytes' : 'str')) fail();
      kind = bytes ? 'bytes' : 'str';
      if (bytes) parts.push(...(value as number[]));
      else text += value as string;
    }
    return kind === 'bytes' ? { type: 'bytes', value: parts } : { type: 'str', value: text };
  }

  stringLiteral(): { bytes: boolean; value: string | number[] } {
    let prefix = '';
    while (/[rRuUbB]/.test(this.peek() ?? '')) {
      prefix += (this.peek() as string).toLowerCase();
      this.index++;
    }
    const raw = prefix.includes('r');
    const bytes = prefix.includes('b');
    const quote = this.peek() as string;
    const triple = this.text.startsWith(quote.repeat(3), this.index);
    const delimiter = triple ? quote.repeat(3) : quote;
    this.index += delimiter.length;
    const codes: number[] = [];
    for (;;) {
      if (this.index >= this.text.length) fail();
      if (this.text.startsWith(delimiter, this.index)) {
        this.index += delimiter.length;
        break;
      }
      const codePoint = this.text.codePointAt(this.index) as number;
      const char = String.fromCodePoint(codePoint);
      if (!triple && (char === '\n' || char === '\r')) fail();
      if (bytes && codePoint > 0x7f) fail();
      if (char !== '\\') {
        codes.push(codePoint);
        this.index += char.length;
        continue;
      }
      const next = this.text[this.index + 1];
      if (next === undefined) fail();
      if (raw) {
        // A raw string keeps the backslash; an escaped quote does not end it.
        const escaped = this.text.codePointAt(this.index + 1) as number;
        if (bytes && escaped > 0x7f) fail();
        codes.push(0x5c, escaped);
        this.index += 1 + String.fromCodePoint(escaped).length;
        continue;
      }
      this.index += 2;
      codes.push(...this.escape(next as string, bytes));
    }
    if (bytes) return { bytes, value: codes };
    let value = '';
    for (const code of codes) value += String.fromCodePoint(code);
    return { bytes, value };
  }

  // The code points of one escape after its backslash (index is just past the escape letter).
  escape(letter: string, bytes: boolean): number[] {
    if (letter === '\n') return [];
    if (letter === '\r') {
      if (this.peek() === '\n') this.index++;
      return [];
    }
    const simple = simpleEscapes[letter];
    if (simple !== undefined) return [simple];
    if (/[0-7]/.test(letter)) {
      let digits = letter;
      while (digits.length < 3 && /[0-7]/.test(this.peek() ?? '')) digits += this.text[this.index++];
      const code = Number.parseInt(digits, 8);
      if (bytes) return [code & 0xff];
      return [code];
    }
    const hexLength = letter === 'x' ? 2 : !bytes && letter === 'u' ? 4 : !bytes && letter === 'U' ? 8 : 0;
    if (hexLength > 0) {
      const hex = this.text.slice(this.index, this.index + hexLength);
      if (!new RegExp(`^[0-9a-fA-F]{${hexLength}}$`).test(hex)) fail();
      this.index += hexLength;
      const code = Number.parseInt(hex, 16);
      if (code > 0x10ffff) fail();
      return [code];
    }
    // `\N{name}` needs the Unicode name table, which we do not ship: refuse rather than guess.
    if (!bytes && letter === 'N') fail();
    // Python keeps unknown escapes as written (with a warning).
    return [0x5c, letter.codePointAt(0) as number];
  }
}

function negate(value: PythonValue): PythonValue {
  if (value.type === 'int') return { type: 'int', value: -value.value };
  if (value.type === 'float') return { type: 'float', value: -value.value };
  if (value.type === 'complex') return { type: 'complex', real: -value.real, imag: -value.imag };
  return fail();
}

function toFloat(value: PythonValue): number {
  if (value.type === 'int') return Number(value.value);
  if (value.type === 'float') return value.value;
  return fail();
}

function isHashable(value: PythonValue): boolean {
  if (value.type === 'list' || value.type === 'dict' || value.type === 'set') return false;
  if (value.type === 'tuple') return value.items.every(isHashable);
  return true;
}

// Sets keep the first of equal elements, as Python does.
function uniqueItems(items: readonly PythonValue[]): PythonValue[] {
  const seen = new Set<string>();
  const unique: PythonValue[] = [];
  for (const item of items) {
    const key = pythonKey(item);
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push(item);
  }
  return unique;
}

// Dicts keep the first of equal keys with the last value, in first-insertion order, as Python does.
function uniqueEntries(
  entries: readonly (readonly [PythonValue, PythonValue])[],
): (readonly [PythonValue, PythonValue])[] {
  const positions = new Map<string, number>();
  const unique: [PythonValue, PythonValue][] = [];
  for (const [key, value] of entries) {
    const canonical = pythonKey(key);
    const position = positions.get(canonical);
    if (position === undefined) {
      positions.set(canonical, unique.length);
      unique.push([key, value]);
    } else (unique[position] as [PythonValue, PythonValue])[1] = value;
  }
  return unique;
}

/**
 * Parses a Python literal at the start of `text` (leading whitespace skipped) and returns it with the
 * index just after it, or `null` when the text does not start with one. A bare tuple (`1, 2`) is not
 * read as one value: `repr` never prints one.
 *
 * @example
 * parsePythonLiteralPrefix("'x', 'msg'"); // { value: { type: 'str', value: 'x' }, end: 3 }
 */
export function parsePythonLiteralPrefix(text: string): PythonLiteralPrefix | null {
  const parser = new Parser(text);
  try {
    const value = parser.value(0);
    return { value, end: parser.index };
  } catch (error) {
    if (error instanceof LiteralSyntaxError || error instanceof RangeError || error instanceof SyntaxError) return null;
    throw error;
  }
}

/**
 * Parses a whole text as one Python literal (surrounding whitespace allowed), or `null` when it is not
 * one. Nothing is evaluated: this is a parser for the grammar `ast.literal_eval` accepts, plus
 * `frozenset(...)` and `inf` as `repr` prints them. `nan` is refused (it is not equal to itself).
 *
 * @example
 * parsePythonLiteral("[(4, 1), (2, 3)]"); // { type: 'list', items: [...] }
 * parsePythonLiteral('(4, 1), (2, 3)'); // null
 */
export function parsePythonLiteral(text: string): PythonValue | null {
  const parsed = parsePythonLiteralPrefix(text);
  if (parsed === null) return null;
  return /^\s*$/.test(text.slice(parsed.end)) ? parsed.value : null;
}

// Python's `float.__repr__`: shortest round-trip digits, fixed notation when -4 < exponent + 1 <= 16.
function formatFloat(value: number, addDotZero: boolean): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (value === 0) return Object.is(value, -0) ? (addDotZero ? '-0.0' : '-0') : addDotZero ? '0.0' : '0';
  const [mantissa, exponentText] = Math.abs(value).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const exponent = Number(exponentText);
  const point = exponent + 1;
  const sign = value < 0 ? '-' : '';
  if (point > -4 && point <= 16) {
    let fixed: string;
    if (point <= 0) fixed = `0.${'0'.repeat(-point)}${digits}`;
    else if (point >= digits.length) fixed = `${digits}${'0'.repeat(point - digits.length)}${addDotZero ? '.0' : ''}`;
    else fixed = `${digits.slice(0, point)}.${digits.slice(point)}`;
    return sign + fixed;
  }
  const body = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${body}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
}

function formatComplex(real: number, imag: number): string {
  const imaginary = `${formatFloat(imag, false)}j`;
  if (real === 0 && !Object.is(real, -0)) return imaginary;
  const sign = imag < 0 || Object.is(imag, -0) ? '' : '+';
  return `(${formatFloat(real, false)}${sign}${imaginary})`;
}

// Python's `str.isprintable` per code point: not in categories Cc, Cf, Cs, Co, Cn, Zl, Zp, Zs (except space).
const nonPrintable = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function quoteFor(hasSingle: boolean, hasDouble: boolean): string {
  return hasSingle && !hasDouble ? '"' : "'";
}

function formatStr(value: string): string {
  const quote = quoteFor(value.includes("'"), value.includes('"'));
  let body = '';
  for (let index = 0; index < value.length; ) {
    const code = value.codePointAt(index) as number;
    const char = String.fromCodePoint(code);
    index += char.length;
    if (char === quote || char === '\\') body += `\\${char}`;
    else if (char === '\t') body += '\\t';
    else if (char === '\n') body += '\\n';
    else if (char === '\r') body += '\\r';
    else if (char !== ' ' && nonPrintable.test(char)) {
      body +=
        code < 0x100
          ? `\\x${code.toString(16).padStart(2, '0')}`
          : code < 0x10000
            ? `\\u${code.toString(16).padStart(4, '0')}`
            : `\\U${code.toString(16).padStart(8, '0')}`;
    } else body += char;
  }
  return `${quote}${body}${quote}`;
}

function formatBytes(value: readonly number[]): string {
  const quote = quoteFor(value.includes(0x27), value.includes(0x22));
  let body = '';
  for (const byte of value) {
    const char = String.fromCharCode(byte);
    if (char === quote || char === '\\') body += `\\${char}`;
    else if (char === '\t') body += '\\t';
    else if (char === '\n') body += '\\n';
    else if (char === '\r') body += '\\r';
    else if (byte < 0x20 || byte >= 0x7f) body += `\\x${byte.toString(16).padStart(2, '0')}`;
    else body += char;
  }
  return `b${quote}${body}${quote}`;
}

/**
 * Python's `repr` of a value, as CPython 3 prints it (`[(4, 1), (2, 3)]`, `'it\'s'` → `"it's"`,
 * `1e+16`, `(1+2j)`, `frozenset({1, 2})`, `set()`).
 *
 * @example
 * formatPythonRepr(parsePythonLiteral('{"a": 1.0}')!); // "{'a': 1.0}"
 */
export function formatPythonRepr(value: PythonValue): string {
  switch (value.type) {
    case 'none':
      return 'None';
    case 'bool':
      return value.value ? 'True' : 'False';
    case 'int':
      return value.value.toString();
    case 'float':
      return formatFloat(value.value, true);
    case 'complex':
      return formatComplex(value.real, value.imag);
    case 'str':
      return formatStr(value.value);
    case 'bytes':
      return formatBytes(value.value);
    case 'list':
      return `[${value.items.map(formatPythonRepr).join(', ')}]`;
    case 'tuple':
      return value.items.length === 1
        ? `(${formatPythonRepr(value.items[0] as PythonValue)},)`
        : `(${value.items.map(formatPythonRepr).join(', ')})`;
    case 'set':
      return value.items.length === 0 ? 'set()' : `{${value.items.map(formatPythonRepr).join(', ')}}`;
    case 'frozenset':
      return value.items.length === 0 ? 'frozenset()' : `frozenset({${value.items.map(formatPythonRepr).join(', ')}})`;
    case 'dict':
      return `{${value.entries.map(([key, item]) => `${formatPythonRepr(key)}: ${formatPythonRepr(item)}`).join(', ')}}`;
  }
}

// Key of a real number: Python compares int, float and bool by exact value, so an integral float
// keys as the integer (`1.0`, `True` → `1`; `-0.0` → `0`) and other floats by their repr.
function realKey(value: number | bigint): string {
  if (typeof value === 'bigint') return value.toString();
  if (Number.isInteger(value)) return BigInt(value).toString();
  return formatFloat(value, true);
}

const compareKeys = (left: string, right: string): number => (left < right ? -1 : left > right ? 1 : 0);

/**
 * Canonical key of a value: equal keys ⇔ equal values under Python's `==`. It is the repr of a
 * representative of the value's class: numbers by exact value across bool, int, float and complex
 * (`True` = `1` = `1.0` = `(1+0j)` → `1`), set and frozenset elements and dict entries sorted by key,
 * list and tuple kept apart (`[1]` ≠ `(1,)`), strings and bytes exact (case and whitespace kept).
 * A set keys as `{1, 2}` (`set()` when empty), except as a dict key or set element, where only a
 * frozenset can stand and it keys as `frozenset({1, 2})`, so that every key parses back.
 *
 * @example
 * pythonKey(parsePythonLiteral('{"b": 2.0, "a": 1}')!); // "{'a': 1, 'b': 2}"
 */
export function pythonKey(value: PythonValue): string {
  return keyOf(value, false);
}

// `hashable`: the value sits where Python needs a hashable one (dict key, set element).
function keyOf(value: PythonValue, hashable: boolean): string {
  switch (value.type) {
    case 'none':
      return 'None';
    case 'bool':
      return value.value ? '1' : '0';
    case 'int':
      return realKey(value.value);
    case 'float':
      return realKey(value.value);
    case 'complex':
      if (value.imag === 0) return realKey(value.real);
      return formatComplex(value.real === 0 ? 0 : value.real, value.imag);
    case 'str':
      return formatStr(value.value);
    case 'bytes':
      return formatBytes(value.value);
    case 'list':
      return `[${value.items.map((item) => keyOf(item, false)).join(', ')}]`;
    case 'tuple':
      return value.items.length === 1
        ? `(${keyOf(value.items[0] as PythonValue, hashable)},)`
        : `(${value.items.map((item) => keyOf(item, hashable)).join(', ')})`;
    case 'set':
    case 'frozenset': {
      const keys = [...new Set(value.items.map((item) => keyOf(item, true)))].sort(compareKeys);
      if (hashable) return keys.length === 0 ? 'frozenset()' : `frozenset({${keys.join(', ')}})`;
      return keys.length === 0 ? 'set()' : `{${keys.join(', ')}}`;
    }
    case 'dict': {
      const entries = new Map<string, string>();
      for (const [key, item] of value.entries) entries.set(keyOf(key, true), keyOf(item, false));
      return `{${[...entries.entries()]
        .sort(([left], [right]) => compareKeys(left, right))
        .map(([key, item]) => `${key}: ${item}`)
        .join(', ')}}`;
    }
  }
}
