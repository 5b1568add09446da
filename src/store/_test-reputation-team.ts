// Internal test helper: the team of the shared-reputation process tests (their child is
// _test-reputation-writer.ts).
import type { Evidence } from '../core/reputation-model.js';
import { createReputationModel } from '../reputation/registry.js';

/** The team of the tests: three agents, EigenTrust (global trust is not a sum of per-task increments). */
export const writerAgents = ['a1', 'a2', 'a3'] as const;
export const createWriterModel = () => createReputationModel('eigentrust', { agents: [...writerAgents] });

/** The evidence of a key: one rating whose rater, ratee and score follow from the key's characters. */
export function evidenceOf(key: string): Evidence[] {
  let hash = 0;
  for (const char of key) hash = (hash * 31 + char.charCodeAt(0)) % 1_000_003;
  const rater = writerAgents[hash % 3] as string;
  const ratee = writerAgents[(hash + 1 + (Math.floor(hash / 3) % 2)) % 3] as string;
  return [{ type: 'rating', rating: { rater, ratee, taskId: key, score: (hash % 10) / 9 } }];
}
