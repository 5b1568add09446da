// Internal: how ZeroEval's graders find the answer in a model output, src/evaluation/eval_utils.py and
// crux_eval.py / math_eval.py of WildEval/ZeroEval (commit 570c626):
//   prediction_json = extract_first_complete_json(output)            # the first top-level {...}, json.loads
//   if prediction_json is None or "answer" not in prediction_json:
//       prediction_json = extract_values_from_json(output, allow_no_quotes=True)   # regexes
//   (no "answer" even then: no answer; Llama-3.1 runs also try a trailing \boxed{}, which needs the model name)
//   model_answer = str(prediction_json["answer"])
import { formatPythonRepr, type PythonValue } from './python-literal.js';

class JsonSyntaxError extends Error {}

// Nesting deeper than this is refused instead of risking the stack.
const maxDepth = 200;

/**
 * A strict JSON parser producing the values Python's `json.loads` gives: integers as `int` (exact),
 * numbers with a fraction or exponent as `float`, `NaN`/`Infinity` accepted as Python does, objects as
 * dicts whose repeated keys keep their first place and last value.
 */
class JsonParser {
  index = 0;
  constructor(private readonly text: string) {}

  private whitespace(): void {
    while (this.index < this.text.length && ' \t\n\r'.includes(this.text[this.index] as string)) this.index++;
  }

  private fail(): never {
    throw new JsonSyntaxError();
  }

  document(): PythonValue {
    const value = this.value(0);
    this.whitespace();
    if (this.index !== this.text.length) this.fail();
    return value;
  }

  private value(depth: number): PythonValue {
    if (depth > maxDepth) this.fail();
    this.whitespace();
    const char = this.text[this.index];
    if (char === '{') return this.object(depth);
    if (char === '[') {
      this.index++;
      const items: PythonValue[] = [];
      this.whitespace();
      if (this.text[this.index] === ']') {
        this.index++;
        return { type: 'list', items };
      }
      for (;;) {
        items.push(this.value(depth + 1));
        this.whitespace();
        const next = this.text[this.index++];
        if (next === ']') return { type: 'list', items };
        if (next !== ',') this.fail();
      }
    }
    if (char === '"') return { type: 'str', value: this.string() };
    for (const [word, value] of [
      ['true', { type: 'bool', value: true }],
      ['false', { type: 'bool', value: false }],
      ['null', { type: 'none' }],
      ['NaN', { type: 'float', value: Number.NaN }],
      ['Infinity', { type: 'float', value: Number.POSITIVE_INFINITY }],
      ['-Infinity', { type: 'float', value: Number.NEGATIVE_INFINITY }],
    ] as const) {
      if (this.text.startsWith(word, this.index)) {
        this.index += word.length;
        return value;
      }
    }
    const number = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
    number.lastIndex = this.index;
    const match = number.exec(this.text);
    if (match === null) this.fail();
    this.index += match[0].length;
    return match[1] === undefined && match[2] === undefined
      ? { type: 'int', value: BigInt(match[0]) }
      : { type: 'float', value: Number(match[0]) };
  }

  private object(depth: number): PythonValue {
    this.index++;
    const entries = new Map<string, PythonValue>();
    this.whitespace();
    if (this.text[this.index] === '}') {
      this.index++;
      return { type: 'dict', entries: [] };
    }
    for (;;) {
      this.whitespace();
      if (this.text[this.index] !== '"') this.fail();
      const key = this.string();
      this.whitespace();
      if (this.text[this.index++] !== ':') this.fail();
      entries.set(key, this.value(depth + 1));
      this.whitespace();
      const next = this.text[this.index++];
      if (next === '}')
        return {
          type: 'dict',
          entries: [...entries].map(([key, item]) => [{ type: 'str', value: key }, item] as const),
        };
      if (next !== ',') this.fail();
    }
  }

  private string(): string {
    this.index++;
    let out = '';
    for (;;) {
      const char = this.text[this.index++];
      if (char === undefined) this.fail();
      if (char === '"') return out;
      // json.loads is strict: no raw control characters inside strings.
      if (char < ' ') this.fail();
      if (char !== '\\') {
        out += char;
        continue;
      }
      const escape = this.text[this.index++];
      const simple: Record<string, string> = {
        '"': '"',
        '\\': '\\',
        '/': '/',
        b: '\b',
        f: '\f',
        n: '\n',
        r: '\r',
        t: '\t',
      };
      if (escape !== undefined && escape in simple) {
        out += simple[escape];
        continue;
      }
      if (escape !== 'u') this.fail();
      const hex = this.text.slice(this.index, this.index + 4);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail();
      this.index += 4;
      // Surrogate pairs written as two escapes combine, as in Python.
      out += String.fromCharCode(Number.parseInt(hex, 16));
    }
  }
}

/** Python's `json.loads` of a text, or `null` when it raises. */
export function pythonJsonLoads(text: string): PythonValue | null {
  try {
    return new JsonParser(text).document();
  } catch (error) {
    if (error instanceof JsonSyntaxError) return null;
    throw error;
  }
}

/** eval_utils.extract_first_complete_json: the first top-level `{...}` (braces counted, strings not), loaded. */
function firstCompleteJson(text: string): PythonValue | null {
  let depth = 0;
  let start = -1;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '{') {
      if (depth === 0) start = index;
      depth++;
    } else if (char === '}' && depth > 0) {
      depth--;
      if (depth === 0) return pythonJsonLoads(text.slice(start, index + 1).replace(/\n/g, ''));
    }
  }
  return null;
}

/** eval_utils.extract_values_from_json(text, keys=["answer"], allow_no_quotes=True)["answer"], or `null`. */
function answerByRegex(text: string): string | null {
  const quoted = /"answer"\s*:\s*"([^"]*?)"/.exec(text) ?? /"answer"\s*:\s*"([\s\S]*?)"/.exec(text);
  if (quoted !== null) return quoted[1] as string;
  const bare = /"answer"\s*:\s*([^,\s]*)/.exec(text) ?? /answer\s*:\s*([^,\s]*)/.exec(text);
  return bare === null ? null : (bare[1] as string);
}

/**
 * `str(prediction_json["answer"])` as ZeroEval's graders compute it from a raw model output, or `null` when
 * they find no answer. The model-specific fallback (a trailing `\boxed{}` for Llama-3.1 runs) is not applied.
 */
export function zeroevalAnswerText(output: string): string | null {
  const parsed = firstCompleteJson(output);
  if (parsed?.type === 'dict') {
    const answer = parsed.entries.find(([key]) => key.type === 'str' && key.value === 'answer')?.[1];
    // Python's str: a string as it is, anything else as its repr.
    if (answer !== undefined) return answer.type === 'str' ? answer.value : formatPythonRepr(answer);
  }
  return answerByRegex(output);
}
