// A simulated correctness verifier with separate error rates on wrong and right answers, the
// standard binary-classifier model (Yerushalmy 1947): sensitivity = P(judged wrong | wrong),
// specificity = P(judged right | right). It stands in for the paper's learned correctness
// classifier in replay, where the harness knows which answers are right.
import { createRng, deriveSeed } from '../core/rng.js';
import type { Task } from '../core/task.js';
import type { Proposal } from '../core/proposal.js';
import { assertInRange, assertKnownOptions, defineOptionKeys } from '../core/validate.js';
import { resolveOptions } from '../core/options.js';
import type { Verifier } from './verifier.js';

/** Options of {@link createSimulatedVerifier}. */
export interface SimulatedVerifierOptions {
  /**
   * Whether the proposal is actually correct. Only the harness can answer this (it holds the
   * reference); the verifier's caller never sees it.
   */
  isCorrect: (task: Task, proposal: Proposal) => boolean;
  /** Seed of the verdict draws; each (task, agent, answer) draws once from it. */
  seed: number;
  /**
   * P(judged wrong | wrong), in [0, 1]. @default 0.85 — the setting of the "paper" run: the
   * paper's fine-tuned 1.5B classifier marks about 98% of ARITH/BOUND payloads low-quality, so 0.85
   * is deliberately weaker than the paper's verifier and no result leans on an optimistic judge.
   */
  sensitivity?: number;
  /**
   * P(judged right | right), in [0, 1]. @default 0.8 — a judge that rejects one right answer in
   * five, weaker than its sensitivity as correctness classifiers usually are (a terse right answer
   * looks unsupported), and equal to the symmetric accuracy 0.8 of the former `--feedback verifier`.
   */
  specificity?: number;
}

/** Defaults of {@link SimulatedVerifierOptions}; see the fields for why. */
export const simulatedVerifierDefaults = { sensitivity: 0.85, specificity: 0.8 } as const;

/**
 * Creates a seeded simulated verifier: a wrong proposal is judged wrong (0) with probability
 * `sensitivity` and right (1) otherwise; a right one is judged right (1) with probability
 * `specificity`. Every draw is seeded by (seed, task id, agent id, answer), so judging the same
 * proposal twice gives the same verdict. An unparseable proposal (`answer === null`) is judged 0
 * without a draw: there is nothing to verify.
 *
 * @example
 * const verifier = createSimulatedVerifier({ seed: 7, isCorrect: (task, proposal) => proposal.answer === references[task.id] });
 * verifier.verify({ task, proposal }); // 0 or 1
 */
export function createSimulatedVerifier(
  options: SimulatedVerifierOptions,
): Verifier & { readonly sensitivity: number; readonly specificity: number } {
  assertKnownOptions('options', options, knownSimulatedVerifierOptions, 'createSimulatedVerifier');
  const { sensitivity, specificity } = resolveOptions<{ sensitivity: number; specificity: number }>(
    simulatedVerifierDefaults,
    { sensitivity: options.sensitivity, specificity: options.specificity },
  );
  assertInRange('sensitivity', sensitivity, 0, 1, {
    hint: 'sensitivity is P(judged wrong | wrong); pass e.g. { sensitivity: 0.85 }',
  });
  assertInRange('specificity', specificity, 0, 1, {
    hint: 'specificity is P(judged right | right); pass e.g. { specificity: 0.8 }',
  });
  const { isCorrect, seed } = options;
  return {
    name: `simulated(${sensitivity}/${specificity})`,
    sensitivity,
    specificity,
    verify({ task, proposal }) {
      if (proposal.answer === null) return 0;
      return simulatedVerdict({
        correct: isCorrect(task, proposal),
        sensitivity,
        specificity,
        draw: createRng(deriveSeed(seed, task.id, proposal.agentId, proposal.answer))(),
      });
    },
  };
}

/**
 * One simulated verdict from a uniform draw u in [0, 1): a right answer is judged right when
 * u < specificity, a wrong one is judged wrong when u < sensitivity. Returns 1 (judged right) or 0.
 *
 * @example
 * simulatedVerdict({ correct: false, sensitivity: 0.85, specificity: 0.8, draw: 0.9 }); // 1: a missed wrong answer
 */
export function simulatedVerdict({
  correct,
  sensitivity,
  specificity,
  draw,
}: {
  correct: boolean;
  sensitivity: number;
  specificity: number;
  draw: number;
}): 0 | 1 {
  // P(verdict = 1 | right) = specificity; P(verdict = 0 | wrong) = sensitivity
  if (correct) return draw < specificity ? 1 : 0;
  return draw < sensitivity ? 0 : 1;
}

/** The keys of this module's options, for assertKnownOptions (`tsc` fails when the type gains an unlisted key). */
export const knownSimulatedVerifierOptions = defineOptionKeys<SimulatedVerifierOptions>()([
  'isCorrect',
  'seed',
  'sensitivity',
  'specificity',
]);
