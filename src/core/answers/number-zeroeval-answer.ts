// ZeroEval's number grader, src/evaluation/math_eval.py of WildEval/ZeroEval (commit 570c626, the one the
// shared zeroeval-gsm8k flags come from; `python src/evaluation/math_eval.py gsm` in scripts/eval_all.sh):
//   sanitize_math_answers(a): a.replace("$", "").strip().replace(",", ""), then, if "/" in a,
//                             str(float(eval(a))) (left as is when eval fails)
//   correct = float(first match of r"-?\d+(\.\d+)?" in the model answer)
//          == float(first match of the same in the reference)
import type { AnswerKindHandler } from './answer-handler.js';
import { zeroevalAnswerText } from './_zeroeval-answer.js';

const firstNumber = /-?\d+(?:\.\d+)?/;

// Python float literal (unsigned): `3`, `3.`, `.5`, `2.5e3`.
const pythonFloat = String.raw`(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?`;
const division = new RegExp(String.raw`^([+-]?${pythonFloat})\s*\/\s*([+-]?${pythonFloat})$`);

/**
 * Python's `str` of a float (`0.75`, `2.0`, `1e-05`, `1.5e+16`): repr switches to exponent form below
 * 1e-4 and from 1e16 on, with the same shortest digits JavaScript prints.
 */
function pythonFloatString(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e16) return `${value}.0`;
  const magnitude = Math.abs(value);
  if (magnitude !== 0 && (magnitude < 1e-4 || magnitude >= 1e16)) {
    const [mantissa, exponent] = value.toExponential().split('e') as [string, string];
    const sign = exponent.startsWith('-') ? '-' : '+';
    return `${mantissa}e${sign}${exponent.replace(/^[+-]/, '').padStart(2, '0')}`;
  }
  return String(value);
}

/**
 * The number ZeroEval's math grader reads from an answer: `$` and commas removed, a division `a/b` of two
 * plain numbers evaluated, then the first `-?\d+(\.\d+)?` of the text. `null` when there is none.
 * ZeroEval calls Python's `eval` on any answer containing `/`; we evaluate only a single division (no code
 * runs), which is what the shared `zeroeval-gsm8k` flags apply: its 4 answers that are longer expressions
 * (`((300 * 4) + (120 * 6) + (60 * 24)) / 12`) are flagged wrong there, as here.
 *
 * @example
 * zeroevalFirstNumber('$1,596'); // 1596
 * zeroevalFirstNumber('$840 + $756 = $1,596'); // 840 (the first number, not the result)
 * zeroevalFirstNumber('3/4'); // 0.75
 */
export function zeroevalFirstNumber(answer: string): number | null {
  let text = answer.replace(/\$/g, '').trim().replace(/,/g, '');
  const quotient = division.exec(text);
  if (quotient !== null) {
    const denominator = Number(quotient[2]);
    // ZeroDivisionError leaves the text as it is.
    if (denominator !== 0) text = pythonFloatString(Number(quotient[1]) / denominator);
  }
  const match = firstNumber.exec(text);
  return match === null ? null : Number(match[0]);
}

/**
 * Key of a number: its shortest round-trip decimal, written without an exponent (`1e-7` → `0.0000001`),
 * so that {@link zeroevalFirstNumber} reads the key back as the same value; `-0` → `0`.
 */
export function formatPlainNumber(value: number): string {
  if (Object.is(value, -0) || value === 0) return '0';
  const text = String(value);
  const exponentAt = text.indexOf('e');
  if (exponentAt === -1) return text;
  const negative = text.startsWith('-');
  const mantissa = text.slice(negative ? 1 : 0, exponentAt);
  const exponent = Number(text.slice(exponentAt + 1));
  const [whole, fraction = ''] = mantissa.split('.') as [string, string?];
  const digits = whole + fraction;
  const point = whole.length + exponent;
  const plain =
    point <= 0
      ? `0.${'0'.repeat(-point)}${digits}`
      : point >= digits.length
        ? digits + '0'.repeat(point - digits.length)
        : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return negative ? `-${plain}` : plain;
}

/**
 * The `number-zeroeval` kind: numbers compared the way ZeroEval's math grader compares them, by the first
 * number of the answer (`$840 + $756 = $1,596` reads as 840; `50 - 10 = 40` as 50). Declare it only for
 * data whose correctness flags come from that grader (the ZeroEval loader does so for `"task": "gsm"`); for
 * your own data use `number`, which reads the value after the last `=`.
 *
 * Key: the first number's exact value as a plain decimal; equivalence: equal values (ZeroEval's float `==`,
 * no tolerance). Extraction is the grader's own (see `literal-zeroeval`): the `"answer"` of the first
 * complete JSON object, else ZeroEval's regexes; no answer gives `null`.
 *
 * @example
 * numberZeroevalAnswerKind.canonicalKey('$1,234.50'); // '1234.5'
 * numberZeroevalAnswerKind.equivalent('21 dozens * $2 = $42', '21'); // true
 */
export const numberZeroevalAnswerKind: AnswerKindHandler = {
  kind: 'number-zeroeval',
  canonicalKey(answer) {
    const value = zeroevalFirstNumber(answer);
    return value === null ? null : formatPlainNumber(value);
  },
  extract(text) {
    const answer = zeroevalAnswerText(text);
    const value = answer === null ? null : zeroevalFirstNumber(answer);
    return value === null ? null : formatPlainNumber(value);
  },
  equivalent(a, b) {
    const left = zeroevalFirstNumber(a);
    return left !== null && left === zeroevalFirstNumber(b);
  },
};
