import type { Message } from '../core/message.js';

const stopWords = new Set([
  'that',
  'this',
  'with',
  'from',
  'have',
  'there',
  'their',
  'which',
  'would',
  'about',
  'these',
  'those',
  'then',
  'than',
  'they',
  'them',
  'into',
  'because',
  'answer',
  'final',
  'step',
  'problem',
  'agents',
  'agree',
  'other',
  'working',
  'through',
]);

/**
 * Deterministic subscription refinement for simulated and replayed agents: appends the (at most
 * three) most frequent new words of the received messages, ties broken alphabetically, and keeps
 * the subscription to at most 40 words (the original words first).
 */
export function refineSubscriptionByRule(current: string, received: readonly Message[]): string {
  const known = new Set(current.toLowerCase().match(/[a-z][a-z-]{3,}/g) ?? []);
  const counts = new Map<string, number>();
  for (const message of received) {
    for (const word of message.text.toLowerCase().match(/[a-z][a-z-]{3,}/g) ?? []) {
      if (known.has(word) || stopWords.has(word)) continue;
      counts.set(word, (counts.get(word) ?? 0) + 1);
    }
  }
  const added = [...counts]
    .sort(([wordA, countA], [wordB, countB]) => countB - countA || (wordA < wordB ? -1 : 1))
    .slice(0, 3)
    .map(([word]) => word);
  if (added.length === 0) return current;
  const words = `${current.trim()} ${added.join(' ')}`.trim().split(/\s+/);
  return words.slice(0, 40).join(' ');
}
