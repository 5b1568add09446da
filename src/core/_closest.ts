// "Did you mean" for names typed by hand: CLI commands and flags, option keys of the library's
// factories. Levenshtein distance (insert, delete, substitute; a swap of two letters counts 2).

/**
 * The known name nearest to `input` (edit distance ≤ 2, or a prefix either way), if any. A prefix
 * counts as distance 1; among names at the same distance the one with the smaller edit distance
 * wins (`task` → `tasks`, not `tasks-file`), then the earlier one.
 */
export function closest(input: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  let bestEdits = Infinity;
  for (const candidate of known) {
    const edits = editDistance(input, candidate);
    const distance = candidate.startsWith(input) || input.startsWith(candidate) ? Math.min(1, edits) : edits;
    if (distance < bestDistance || (distance === bestDistance && edits < bestEdits)) {
      bestDistance = distance;
      bestEdits = edits;
      best = candidate;
    }
  }
  return bestDistance <= 2 ? best : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}
