import type { AnswerKindHandler } from './answer-handler.js';
import { firstKey, lastAnswerLine, lastBoxed, sameKey, trimCharacters } from './_text.js';

/**
 * Splits an isolated answer into a label set: separators `,` `;` `|` and newlines, each label
 * trimmed, lower-cased and stripped of quotes and brackets, duplicates removed, sorted.
 * A JSON array (`["joy", "anger"]`) works too. Empty when no label is left.
 */
export function parseLabelSet(answer: string): string[] {
  const labels = answer
    .split(/[,;|\n]/)
    .map((label) => trimCharacters(label.normalize('NFKC').toLowerCase().replace(/\s+/g, ' '), ' "\'`[](){}.'))
    .filter((label) => label.length > 0);
  return [...new Set(labels)].sort();
}

/**
 * Sample F1 of one prediction: 2·|P ∩ R| / (|P| + |R|), in [0, 1]; 1 when both sets are empty.
 *
 * @example
 * sampleF1(['joy', 'love'], ['joy']); // 2·1 / (2 + 1) = 0.667
 */
export function sampleF1(predicted: readonly string[], reference: readonly string[]): number {
  const predictedSet = new Set(predicted);
  const referenceSet = new Set(reference);
  if (predictedSet.size === 0 && referenceSet.size === 0) return 1;
  let overlap = 0;
  for (const label of predictedSet) if (referenceSet.has(label)) overlap++;
  return (2 * overlap) / (predictedSet.size + referenceSet.size);
}

/** Exact set match of two label sets (order and duplicates ignored). */
export function labelsExactMatch(predicted: readonly string[], reference: readonly string[]): boolean {
  const predictedSet = new Set(predicted);
  const referenceSet = new Set(reference);
  return predictedSet.size === referenceSet.size && [...predictedSet].every((label) => referenceSet.has(label));
}

function labelsKey(answer: string): string | null {
  const labels = parseLabelSet(answer);
  return labels.length === 0 ? null : labels.join(',');
}

/** Items of the last `"labels"`/`"answer"` JSON array or string in text, joined by commas. */
function lastJsonLabels(text: string): string | null {
  const pattern = /"(?:labels|answer|emotions)"\s*:\s*(\[[^\]]*\]|"(?:[^"\\]|\\.)*")/g;
  let found: string | null = null;
  for (const match of text.matchAll(pattern)) {
    try {
      const value: unknown = JSON.parse(match[1] as string);
      if (typeof value === 'string') found = value;
      else if (Array.isArray(value)) found = value.map(String).join(',');
    } catch {
      found = (match[1] as string).replace(/^\[|\]$/g, '');
    }
  }
  return found;
}

/**
 * The `labels` kind: a set of labels; key = sorted, de-duplicated, lower-cased labels joined by
 * `,` (`anger,joy`); equivalence = equal sets. Graded by exact set match and {@link sampleF1}.
 * Extraction: the `"labels"`/`"answer"` JSON field, `\boxed{}`, an `Answer: x, y` line, else the
 * whole text.
 *
 * @example
 * labelsAnswerKind.canonicalKey('Joy, anger'); // 'anger,joy'
 */
export const labelsAnswerKind: AnswerKindHandler = {
  kind: 'labels',
  canonicalKey: labelsKey,
  extract(text) {
    return firstKey([lastJsonLabels(text), lastBoxed(text), lastAnswerLine(text)], labelsKey) ?? labelsKey(text);
  },
  equivalent(a, b) {
    return sameKey(a, b, labelsKey);
  },
};
