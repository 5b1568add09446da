// Internal: the MiniRep variants tried for issue 36 (do no harm on small teams), shared by
// scripts/tune-minirep.ts (`--set issue36`, the 10-agent grid) and scripts/tune-zoo.ts (the team zoo).
import type { MiniRepAggregatorOptions } from '../src/aggregation/minirep-aggregator.js';

/** Variant name → aggregator options (on top of `{ model, k }`). */
export const issue36Variants: Record<string, Omit<MiniRepAggregatorOptions, 'model' | 'k'>> = {
  'minirep (guard maxShare 0.5)': {},
  'minirep guard off (before issue 36)': { bloc: { maxShare: 1 } },
  'minirep γ 1': { historyExponent: 1 },
  'minirep γ 2': { historyExponent: 2 },
  'minirep κ 2': { qualityOffset: 2 },
  'minirep κ 2 γ 1': { qualityOffset: 2, historyExponent: 1 },
  // Diagnosis of the clean gaps left after the guard (docs/minirep.md section 7): each turns one signal off.
  'minirep bloc off': { bloc: false },
  'minirep no cooldown or risk cut': { cooldownFactor: 1, suspiciousFactor: 1 },
  'minirep γ 0 (no history)': { historyExponent: 0 },
  'minirep κ 1000 (no current quality)': { qualityOffset: 1000 },
  'minirep ε 1 (no clone cap)': { epsilon: 1 },
  'minirep-ds': { history: 'posterior', bloc: { minSize: 3 } },
  'minirep-ds bloc ≥ 2': { history: 'posterior' },
  'minirep-ds κ_ds 16': { history: 'posterior', bloc: { minSize: 3 }, posteriorQualityOffset: 16 },
  // Evidence shrinkage (MiniRep-ES, ours): history pulled towards the team mean by weak evidence.
  'minirep-es': { shrinkage: {} },
  'minirep-es plurality': { shrinkage: { signal: 'plurality' } },
  'minirep-es c 0.25': { shrinkage: { strictness: 0.25 } },
  'minirep-es c 0.1': { shrinkage: { strictness: 0.1 } },
  'minirep-es c 0.25 no widen': { shrinkage: { strictness: 0.25, widenPool: false } },
  'minirep-es c 0.5': { shrinkage: { strictness: 0.5 } },
  'minirep-es c 2': { shrinkage: { strictness: 2 } },
  'minirep-es c 4': { shrinkage: { strictness: 4 } },
  'minirep-es c 8': { shrinkage: { strictness: 8 } },
  'minirep-es no widen': { shrinkage: { widenPool: false } },
  'minirep-es λ 1': { shrinkage: { decay: 1 } },
  'minirep-es c 1': { shrinkage: { strictness: 1 } },
  'minirep-es c 1 λ 1': { shrinkage: { strictness: 1, decay: 1 } },
  'minirep-es c 0.5 λ 1': { shrinkage: { strictness: 0.5, decay: 1 } },
  'minirep-es c 0.25 λ 1': { shrinkage: { strictness: 0.25, decay: 1 } },
  'minirep-es rt': { shrinkage: {}, consensusTarget: 'rest-of-team' },
  'minirep-rt': { consensusTarget: 'rest-of-team' },
  // Clone inference (MiniRep-IC, ours): undeclared clones found from excess pairwise agreement.
  'minirep-ic': { inferClones: {} },
  'minirep-ic margin 0.15': { inferClones: { margin: 0.15 } },
  'minirep-ic margin 0.35': { inferClones: { margin: 0.35 } },
  'minirep-ic minTasks 10': { inferClones: { minTasks: 10 } },
  'minirep-ds-ic': { history: 'posterior', bloc: { minSize: 3 }, inferClones: {} },
  // Combinations: the rest-of-team consensus target (clears the 3-agent lock-in) with clone inference
  // (clears most undeclared clones), and with evidence shrinkage (the near-chance regime).
  'minirep-rt-ic': { consensusTarget: 'rest-of-team', inferClones: {} },
  'minirep-rt-ic-es': { consensusTarget: 'rest-of-team', inferClones: {}, shrinkage: {} }, // the named variant
  // Sharper history once MiniRep-RT keeps an agent's own weight from earning it (no lock-in to amplify).
  'minirep-rt-ic-es γ 1': { consensusTarget: 'rest-of-team', inferClones: {}, shrinkage: {}, historyExponent: 1 },
  'minirep-rt-ic-es γ 2': { consensusTarget: 'rest-of-team', inferClones: {}, shrinkage: {}, historyExponent: 2 },
  'minirep-rt-ic-es γ 2 κ 2': {
    consensusTarget: 'rest-of-team',
    inferClones: {},
    shrinkage: {},
    historyExponent: 2,
    qualityOffset: 2,
  },
  'minirep-rt-ic γ 2': { consensusTarget: 'rest-of-team', inferClones: {}, historyExponent: 2 },
  // The bloc check's cost on clean large teams (flags and cooldowns on honest agents).
  'minirep bloc ≥ 3': { bloc: { minSize: 3 } },
  'minirep-rt-ic-es bloc off': { consensusTarget: 'rest-of-team', inferClones: {}, shrinkage: {}, bloc: false },
  'minirep-rt-ic-es bloc ≥ 3': {
    consensusTarget: 'rest-of-team',
    inferClones: {},
    shrinkage: {},
    bloc: { minSize: 3 },
  },
  'minirep-rt-ic-es κ 1000': { consensusTarget: 'rest-of-team', inferClones: {}, shrinkage: {}, qualityOffset: 1000 },
  'minirep-rt-ic-es γ 2 κ 1000': {
    consensusTarget: 'rest-of-team',
    inferClones: {},
    shrinkage: {},
    historyExponent: 2,
    qualityOffset: 1000,
  },
  // The pool of the whole team (k above any team size; the variant type leaves k to the method).
  'minirep-rt-ic-es pool all': {
    consensusTarget: 'rest-of-team',
    inferClones: {},
    shrinkage: {},
    ...({ k: 1000 } as unknown as Record<string, never>),
  },
  // MiniRep-DS's leave-one-out posterior (Beta-like sharp weights, no self-confirmation) with clone
  // inference and evidence shrinkage (falls back towards the plain vote while the evidence is weak).
  'minirep-ds-ic-es': { history: 'posterior', bloc: { minSize: 3 }, inferClones: {}, shrinkage: {} },
  'minirep-ds-ic-es bloc ≥ 2': { history: 'posterior', inferClones: {}, shrinkage: {} },
  'minirep-ds-es bloc ≥ 2': { history: 'posterior', shrinkage: {} },
  // A bloc must also be a share σ of the answering agents (bloc.minShare, ours): no pair flagged in large teams.
  'minirep-ds-ic-es σ 0.1': { history: 'posterior', inferClones: {}, shrinkage: {}, bloc: { minShare: 0.1 } },
  'minirep-ds-ic-es σ 0.15': { history: 'posterior', inferClones: {}, shrinkage: {}, bloc: { minShare: 0.15 } }, // the named variant
  'minirep-ds-ic-es σ 0.2': { history: 'posterior', inferClones: {}, shrinkage: {}, bloc: { minShare: 0.2 } },
  // A weaker prior or a higher collision rate: an agent that is mostly wrong stops vouching sooner.
  'minirep-ds-ic-es σ 0.15 prior 1': {
    history: 'posterior',
    inferClones: {},
    shrinkage: {},
    bloc: { minShare: 0.15 },
    posteriorHistory: { priorAgree: 1, priorDisagree: 1 },
  },
  'minirep-ds-ic-es σ 0.15 q 0.2': {
    history: 'posterior',
    inferClones: {},
    shrinkage: {},
    bloc: { minShare: 0.15 },
    posteriorHistory: { collision: 0.2 },
  },
  // Clone inference from the median fit only (inferClones.lowerStart false, the form before December
  // 2026; the default now starts from a lower-quartile fit, which clones who are half of an agent's
  // partners cannot carry).
  'minirep-rt-ic-es median start': {
    consensusTarget: 'rest-of-team',
    inferClones: { lowerStart: false },
    shrinkage: {},
  },
  'minirep-ds-ic-es σ 0.15 median start': {
    history: 'posterior',
    inferClones: { lowerStart: false },
    shrinkage: {},
    bloc: { minShare: 0.15 },
  },
  'minirep-ds-ic σ 0.15': { history: 'posterior', inferClones: {}, bloc: { minShare: 0.15 } },
  'minirep-rt-ic-es σ 0.15': {
    consensusTarget: 'rest-of-team',
    inferClones: {},
    shrinkage: {},
    bloc: { minShare: 0.15 },
  },
  'minirep pool all': { ...({ k: 1000 } as unknown as Record<string, never>) },
};
