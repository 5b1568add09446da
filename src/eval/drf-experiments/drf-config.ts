// Named DRF configurations for the experiments: the paper as printed, the review's corrections
// (our default) and each of our own options on top, so every table separates the paper's design
// from what our options change.
import type { AgentId } from '../../core/agent-identity.js';
import type { DrfDecayNormalization, DrfIncrement, DrfVariant } from '../../reputation/drf.js';
import { createDrfParts, type DrfParts } from '../../protocols/drf/drf-parts.js';
import type { RatingSource } from '../../protocols/drf/rating-source.js';

/**
 * One DRF configuration of the experiments (`repute drf`): not the team file's DRF protocol block
 * (`DrfTeamConfig`) nor the DRF reputation model's options (`DrfModelOptions`).
 */
export interface DrfExperimentConfig {
  /** Label in tables. */
  readonly name: string;
  /** Eqs. 2, 8, 9 as printed or as the review corrects them (Eq. 2 only changes the reported accuracy). */
  readonly variant: DrfVariant;
  /** Per-equation forms overriding `variant`: each equation printed alone, for the ablation rows. @default {} */
  readonly equations?: { readonly eq2?: DrfVariant; readonly eq8?: DrfVariant; readonly eq9?: DrfVariant };
  /** Ours: ratings replaced by 1 − s, how we read Eq. 2 as printed before issue 41. @default false */
  readonly complementRatings?: boolean;
  /** Eq. 7's coefficient: δ as printed, or β (ours). @default 'delta' */
  readonly increment?: DrfIncrement;
  /** Eq. 8's decay ÷ w0 (ours) or not. @default 'none' */
  readonly decayNormalization?: DrfDecayNormalization;
  /** β of Eq. 8 (and of Eq. 7 with increment 'beta'). @default 0.2 */
  readonly beta?: number;
}

/** @deprecated Renamed {@link DrfExperimentConfig} (a DRF configuration of the experiments); this alias goes in the next minor version. */
export type DrfConfig = DrfExperimentConfig;

/** The form of one equation in a configuration: its override, else the configuration's variant. */
export function drfEquationVariant(config: DrfExperimentConfig, equation: 'eq2' | 'eq8' | 'eq9'): DrfVariant {
  return config.equations?.[equation] ?? config.variant;
}

/** The paper as its review quotes it: Eqs. 2, 8, 9 printed, Eq. 7 with δ; ratings as the raters give them. */
export const drfPrintedConfig: DrfExperimentConfig = { name: 'paper as printed', variant: 'printed' };

/** The review's corrections, our default. */
export const drfReviewConfig: DrfExperimentConfig = { name: 'review (default)', variant: 'corrected' };

/**
 * Tuned on seeds 101..120 of the capability experiment (`repute drf tune`, docs/drf.md): β of the
 * review's Eq. 8 and whether Eq. 7 steps by δ or β, chosen by mean Spearman(reputation, true
 * accuracy). The winner, β = 0.2 with Eq. 7 stepped by δ (ρ = 0.675 against 0.554–0.648 for the
 * other five), is the default, so the tables report it as `review (default)`.
 */
export const drfTunedConfig: DrfExperimentConfig = { name: 'review (default)', variant: 'corrected', beta: 0.2 };

/**
 * The ablation: each of Eqs. 2, 8, 9 printed alone on top of the review's corrections, and our
 * pre-issue-41 reading of the printed Eq. 2 (ratings complemented, s ↦ 1 − s), alone and with
 * Eqs. 8, 9 printed (what the tables called "paper as printed" before issue 41).
 */
export const drfAblationConfigs: readonly DrfExperimentConfig[] = [
  { name: 'Eq. 2 printed alone', variant: 'corrected', equations: { eq2: 'printed' } },
  { name: 'Eq. 8 printed alone', variant: 'corrected', equations: { eq8: 'printed' } },
  { name: 'Eq. 9 printed alone', variant: 'corrected', equations: { eq9: 'printed' } },
  { name: 'complemented ratings alone (ours)', variant: 'corrected', complementRatings: true },
  { name: 'printed + complemented ratings (ours, pre-41)', variant: 'printed', complementRatings: true },
];

/** The configurations every simulated DRF experiment reports, in table order. */
export const drfStandardConfigs: readonly DrfExperimentConfig[] = [
  drfPrintedConfig,
  drfReviewConfig,
  ...drfAblationConfigs,
  { name: 'review + ÷w0 (ours)', variant: 'corrected', decayNormalization: 'w0' },
  { name: 'review + β in Eq. 7 (ours)', variant: 'corrected', increment: 'beta' },
  { name: 'before issue 14 (β in Eq. 7, ÷w0)', variant: 'corrected', increment: 'beta', decayNormalization: 'w0' },
];

/**
 * The configurations of `repute drf replay`: the review's corrections, the paper as printed, Eqs. 8
 * and 9 printed alone (Eq. 2 alone changes no decision there) and the pre-issue-41 reading.
 */
export const drfReplayConfigs: readonly DrfExperimentConfig[] = [
  drfReviewConfig,
  drfPrintedConfig,
  ...drfAblationConfigs.filter((config) => config.name !== 'Eq. 2 printed alone' && config.complementRatings !== true),
  ...drfAblationConfigs.filter((config) => config.variant === 'printed' && config.complementRatings === true),
];

/** The tuning grid of `repute drf tune`: β ∈ {0.1, 0.2, 0.4} × Eq. 7 coefficient ∈ {δ, β}, review's corrections. */
export const drfTuningGrid: readonly DrfExperimentConfig[] = [0.1, 0.2, 0.4].flatMap((beta) => [
  { name: `β ${beta}, Eq. 7 δ`, variant: 'corrected' as const, beta },
  { name: `β ${beta}, Eq. 7 β`, variant: 'corrected' as const, beta, increment: 'beta' as const },
]);

/** DRF's reputation model, UCB selector (ties at random) and rating source for one configuration (Eq. 2 is reported, not wired). */
export function drfConfigParts(
  config: DrfExperimentConfig,
  agents: readonly AgentId[],
  { delta = 0.7, ratingSource }: { delta?: number; ratingSource?: RatingSource } = {},
): DrfParts {
  return createDrfParts({
    agents,
    variant: config.variant,
    equations: { eq8: drfEquationVariant(config, 'eq8'), eq9: drfEquationVariant(config, 'eq9') },
    ...(config.complementRatings === true ? { complementRatings: true } : {}),
    delta,
    tieBreak: 'random',
    ...(config.increment === undefined ? {} : { increment: config.increment }),
    ...(config.decayNormalization === undefined ? {} : { decayNormalization: config.decayNormalization }),
    ...(config.beta === undefined ? {} : { beta: config.beta }),
    ...(ratingSource === undefined ? {} : { ratingSource }),
  });
}
