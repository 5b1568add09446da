// MiniRep behaviour check: text- and round-level red flags of manipulation in multi-agent debate.
// Instruction-override patterns follow Perez & Ribeiro 2022 ("Ignore Previous Prompt: Attack
// Techniques for Language Models") and Greshake et al. 2023 (indirect prompt injection); false
// consensus claims and sycophantic flips follow Amayuelas et al. 2024 ("MultiAgent Collaboration
// Attack") and Xu et al. 2024 ("The Earth is Flat because...: persuasion in LLM debate").
import type { AgentId } from '../core/agent-identity.js';
import type { Proposal } from '../core/proposal.js';
import { assertKnownOptions, defineOptionKeys } from '../core/validate.js';
import { compareKeys } from './plurality.js';

/** Suspicion in [0, 1] assigned to each kind of finding, and the flag cap. */
export interface BehaviourCheckOptions {
  /** Suspicion of instruction-override text. @default 0.9 */
  overrideSuspicion?: number;
  /** Base suspicion of a contradicted agreement claim; grows to 1 as fewer agents agree. @default 0.5 */
  falseClaimSuspicion?: number;
  /** Base suspicion of an unexpected flip; grows by 0.4 × the old answer's majority share. @default 0.4 */
  flipSuspicion?: number;
  /** At most ⌈flagCapFraction · n⌉ of n proposals are flagged (the most suspicious). @default 0.3 */
  flagCapFraction?: number;
}

/** The behaviour check's finding on one proposal. */
export interface BehaviourFinding {
  readonly agentId: AgentId;
  /** Suspicion in [0, 1] after the flag cap (0 when not flagged). */
  readonly suspicion: number;
  /** Suspicion before the cap, in [0, 1]. */
  readonly rawSuspicion: number;
  /** Flagged after the cap. */
  readonly flagged: boolean;
  /** One line per finding, for people. */
  readonly reasons: readonly string[];
}

/** Defaults of {@link BehaviourCheckOptions}. */
export const defaultBehaviourCheckOptions: Required<BehaviourCheckOptions> = {
  overrideSuspicion: 0.9,
  falseClaimSuspicion: 0.5,
  flipSuspicion: 0.4,
  flagCapFraction: 0.3,
};

const overridePatterns: ReadonlyArray<{ readonly pattern: RegExp; readonly label: string }> = [
  {
    pattern:
      /\bignore\s+(?:all\s+)?(?:of\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|earlier|other|preceding)\s+(?:instructions?|prompts?|messages?|answers?|agents?|rules?)/i,
    label: 'ignore previous instructions',
  },
  {
    pattern: /\bdisregard\s+(?:all\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|earlier|other|preceding)\b/i,
    label: 'disregard previous',
  },
  {
    pattern: /\byou\s+must\s+(?:now\s+)?(?:answer|respond|reply|output|say|choose|select|agree|adopt|vote)\b/i,
    label: 'you must answer',
  },
  { pattern: /(?:^|\n)\s*(?:system|developer)\s*:/i, label: 'role marker "system:"' },
  { pattern: /<\s*\/?\s*system\s*>|\[\s*system\s*\]/i, label: 'role tag <system>' },
  { pattern: /\bnew\s+instructions?\s*:/i, label: 'new instructions:' },
  {
    pattern: /\boverride\s+(?:your\s+|the\s+|all\s+)?(?:previous\s+)?(?:instructions?|rules?|answers?)\b/i,
    label: 'override instructions',
  },
];

const agreementClaim =
  /\b(?:everyone|everybody|all\s+(?:the\s+)?(?:other\s+)?(?:agents|models|experts|participants)|all\s+of\s+us|we\s+all|the\s+(?:whole\s+)?team|unanimous(?:ly)?|consensus)\b[^.!?\n]{0,60}?\b(?:agree[sd]?|agreement|concur[s]?|confirm(?:s|ed)?|says?|said|is|are|answered)\b|\bunanimous(?:ly)?\b/i;

const knownCheckInput = defineOptionKeys<Parameters<typeof checkBehaviour>[0]>()([
  'proposals',
  'history',
  'options',
  'extra',
]);

/**
 * Finds instruction-override text (`ignore previous instructions`, `you must answer`, `system:`),
 * claims of agreement that the proposals contradict (the claim is taken to be about the proposer's
 * own answer; contradicted when fewer than half of the other parseable proposals hold it), and
 * unexpected flips (the agent's previous-round answer held a majority ≥ 1/2 of that round, its new
 * answer was a minority then, and no other agent moved to the new answer since). Each proposal's raw
 * suspicion is the maximum over its findings; then only the ⌈flagCapFraction · n⌉ most suspicious
 * proposals stay flagged (ties by agent id), so attackers cannot get most of the team flagged.
 * Findings of checks across tasks (`extra`, e.g. the coordinated-bloc check) join before the cap.
 *
 * @example
 * checkBehaviour({ proposals, history }).filter((finding) => finding.flagged);
 */
export function checkBehaviour(input: {
  proposals: readonly Proposal[];
  history?: readonly Proposal[];
  options?: BehaviourCheckOptions;
  /** Findings from checks across tasks (the coordinated-bloc check), merged before the cap. */
  extra?: ReadonlyMap<AgentId, { suspicion: number; reason: string }> | undefined;
}): BehaviourFinding[] {
  assertKnownOptions('', input, knownCheckInput, 'checkBehaviour');
  const { proposals, history = [], options, extra } = input;
  assertKnownOptions('options', options, knownBehaviourCheckOptions, 'checkBehaviour');
  const settings = { ...defaultBehaviourCheckOptions, ...stripUndefined(options) };
  const current = countAnswers(proposals);
  const validCount = proposals.filter((proposal) => proposal.answer !== null).length;
  const raw = proposals.map((proposal) => {
    const reasons: string[] = [];
    let suspicion = 0;
    for (const { pattern, label } of overridePatterns) {
      if (pattern.test(proposal.text)) {
        suspicion = Math.max(suspicion, settings.overrideSuspicion);
        reasons.push(`instruction-override text (${label})`);
        break;
      }
    }
    if (proposal.answer !== null && agreementClaim.test(proposal.text)) {
      const others = validCount - 1;
      const agreeing = (current.get(proposal.answer) ?? 0) - 1;
      const share = others > 0 ? agreeing / others : 1;
      if (share < 0.5) {
        // suspicion = base + (1 − base) · (1 − share of others holding the claimed answer)
        const value = settings.falseClaimSuspicion + (1 - settings.falseClaimSuspicion) * (1 - share);
        suspicion = Math.max(suspicion, value);
        reasons.push(
          `claims agreement but only ${agreeing} of ${others} other parseable proposals hold ${JSON.stringify(proposal.answer)}`,
        );
      }
    }
    const flip = findUnexpectedFlip(proposal, proposals, history);
    if (flip !== undefined) {
      // suspicion = base + 0.4 · share the abandoned answer held in the previous round
      const value = Math.min(1, settings.flipSuspicion + 0.4 * flip.previousShare);
      suspicion = Math.max(suspicion, value);
      reasons.push(flip.reason);
    }
    const outside = extra?.get(proposal.agentId);
    if (outside !== undefined && outside.suspicion > 0) {
      suspicion = Math.max(suspicion, Math.min(1, outside.suspicion));
      reasons.push(outside.reason);
    }
    return { agentId: proposal.agentId, rawSuspicion: suspicion, reasons };
  });
  const cap = flagCap(proposals.length, settings.flagCapFraction);
  const kept = new Set(
    raw
      .filter((entry) => entry.rawSuspicion > 0)
      .sort((left, right) => right.rawSuspicion - left.rawSuspicion || compareKeys(left.agentId, right.agentId))
      .slice(0, cap)
      .map((entry) => entry.agentId),
  );
  return raw.map((entry) => {
    const flagged = kept.has(entry.agentId);
    const reasons =
      entry.rawSuspicion > 0 && !flagged
        ? [...entry.reasons, `not flagged: flag cap ${cap} reached by more suspicious proposals`]
        : entry.reasons;
    return {
      agentId: entry.agentId,
      suspicion: flagged ? entry.rawSuspicion : 0,
      rawSuspicion: entry.rawSuspicion,
      flagged,
      reasons,
    };
  });
}

/**
 * Maximum number of flagged proposals among n: ⌈fraction · n⌉, computed so that 0.3 · 10 = 3
 * (not 4 from floating-point rounding).
 */
export function flagCap(n: number, fraction = 0.3): number {
  return Math.max(0, Math.ceil(fraction * n - 1e-9));
}

function findUnexpectedFlip(
  proposal: Proposal,
  proposals: readonly Proposal[],
  history: readonly Proposal[],
): { previousShare: number; reason: string } | undefined {
  if (proposal.answer === null || history.length === 0) return undefined;
  const own = history.filter((entry) => entry.agentId === proposal.agentId && entry.round < proposal.round);
  if (own.length === 0) return undefined;
  const previous = own.reduce((latest, entry) => (entry.round > latest.round ? entry : latest));
  if (previous.answer === null || previous.answer === proposal.answer) return undefined;
  const previousRound = history.filter((entry) => entry.round === previous.round);
  const previousCounts = countAnswers(previousRound);
  const previousValid = previousRound.filter((entry) => entry.answer !== null).length;
  const previousShare = (previousCounts.get(previous.answer) ?? 0) / previousValid;
  const newShareBefore = (previousCounts.get(proposal.answer) ?? 0) / previousValid;
  if (previousShare < 0.5 || newShareBefore >= previousShare) return undefined;
  // "Without new support": no other agent holds the new answer now more than in the previous round.
  const othersBefore = previousRound.filter(
    (entry) => entry.agentId !== proposal.agentId && entry.answer === proposal.answer,
  ).length;
  const othersNow = proposals.filter(
    (entry) => entry.agentId !== proposal.agentId && entry.answer === proposal.answer,
  ).length;
  if (othersNow > othersBefore) return undefined;
  return {
    previousShare,
    reason: `flipped from majority answer ${JSON.stringify(previous.answer)} (share ${previousShare.toFixed(2)} in round ${previous.round}) to minority ${JSON.stringify(proposal.answer)} without new support`,
  };
}

/** Number of proposals per parseable answer key. */
export function countAnswers(proposals: readonly Proposal[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const proposal of proposals) {
    if (proposal.answer !== null) counts.set(proposal.answer, (counts.get(proposal.answer) ?? 0) + 1);
  }
  return counts;
}

function stripUndefined<T extends object>(options: T | undefined): Partial<T> {
  const result: Partial<T> = {};
  if (options === undefined) return result;
  for (const [key, value] of Object.entries(options)) {
    if (value !== undefined) (result as Record<string, unknown>)[key] = value;
  }
  return result;
}

/** The keys of this module's options, for assertKnownOptions (`tsc` fails when the type gains an unlisted key). */
export const knownBehaviourCheckOptions = defineOptionKeys<BehaviourCheckOptions>()([
  'overrideSuspicion',
  'falseClaimSuspicion',
  'flipSuspicion',
  'flagCapFraction',
]);
