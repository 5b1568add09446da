import type { AgentId } from '../../core/agent-identity.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { createMiniRepAggregator, type MiniRepAggregatorOptions } from '../../aggregation/minirep-aggregator.js';
import {
  type DeclaredVerifierCalibration,
  declaredCalibration,
  miniRepVariantNames,
  miniRepVariantOptions,
  miniRepVbOptions,
  miniRepVgOptions,
} from '../../aggregation/minirep-variants.js';
import { createPluralityAggregator, createWeightedPluralityAggregator } from '../../aggregation/plurality.js';
import { createVerifierMajorityAggregator } from '../../aggregation/verifier-majority.js';
import { createMiniRepModel } from '../../reputation/minirep.js';
import { createReputationModel } from '../../reputation/registry.js';
import { createSelector } from '../../selection/registry.js';
import type { ReplayMethod } from './method.js';

/** Participants per task of the sampling selectors (random-k, top-k, UCB): half the team. */
export const replaySelectionK = 5;
/** Pool size MiniRep aggregates per task. */
export const replayMiniRepK = 7;

const ids = (team: readonly { id: AgentId }[]) => team.map((agent) => agent.id);

/**
 * The replay methods, each a selector + reputation model + aggregator over a team of 10:
 * - `majority`: all agents, no reputation, plurality;
 * - `random-k`: 5 agents drawn uniformly per task, no reputation, plurality;
 * - `single-metric`: top-5 by the single-metric score (η = 0.2, random tie-break), weighted plurality by the same score;
 * - `beta`: all agents, Beta reputation (λ = 0.9) from outcomes, weighted plurality;
 * - `eigentrust`: all agents, EigenTrust over agreement ratings, weighted plurality by global trust;
 * - `drf`: UCB (δ = 0.7, exclusion threshold 0.2 with fill, zero costs, random tie-break) picks 5, DRF
 *   reputation (corrected rules) from agreement ratings, weighted plurality;
 * - `minirep`: all agents propose, the MiniRep aggregator weights and pools 7 (clone groups capped),
 *   and the `minirep` model keeps long-term/recent quality, suspicion and cooldowns.
 */
export const replayMethods: Readonly<Record<string, ReplayMethod>> = {
  majority: {
    name: 'majority',
    description: 'all 10 agents, no reputation, unweighted plurality',
    create: ({ team }) => ({
      selector: createSelector('all', {}),
      everyAgent: true,
      aggregator: createPluralityAggregator(),
      k: team.length,
      weighted: false,
    }),
  },
  'random-k': {
    name: 'random-k',
    description: `random-k selector (k = ${replaySelectionK}, seeded per task), no reputation, unweighted plurality`,
    create: () => ({
      selector: createSelector('random-k', {}),
      aggregator: createPluralityAggregator(),
      k: replaySelectionK,
      weighted: false,
    }),
  },
  'single-metric': {
    name: 'single-metric',
    description: `top-k selector (k = ${replaySelectionK}) on the single-metric score (EMA of feedback, η = 0.2), weighted plurality by that score`,
    create: ({ team }) => ({
      selector: createSelector('top-k', { tieBreak: 'random' }),
      model: createReputationModel('single-metric', { agents: ids(team) }),
      reads: ['outcome'],
      aggregator: createWeightedPluralityAggregator(),
      k: replaySelectionK,
      weighted: true,
    }),
  },
  beta: {
    name: 'beta',
    description: 'all 10 agents, Beta reputation (λ = 0.9) from the feedback outcomes, weighted plurality by E[p]',
    create: ({ team }) => ({
      selector: createSelector('all', {}),
      everyAgent: true,
      model: createReputationModel('beta', { agents: ids(team) }),
      // Ratings would fill only Beta's per-observer beliefs; its scores and weights are the team's belief.
      reads: ['outcome'],
      aggregator: createWeightedPluralityAggregator(),
      k: team.length,
      weighted: true,
    }),
  },
  eigentrust: {
    name: 'eigentrust',
    description:
      'all 10 agents, EigenTrust (α = 0.15) over agreement ratings (1 = same answer), weighted plurality by global trust',
    create: ({ team }) => ({
      selector: createSelector('all', {}),
      everyAgent: true,
      model: createReputationModel('eigentrust', { agents: ids(team) }),
      reads: ['rating', 'observation'],
      aggregator: createWeightedPluralityAggregator(),
      k: team.length,
      weighted: true,
    }),
  },
  drf: {
    name: 'drf',
    description: `UCB selector (k = ${replaySelectionK}, δ = 0.7, threshold 0.2, zero costs), DRF reputation (corrected rules) from agreement ratings, weighted plurality by reputation`,
    create: ({ team }) => ({
      selector: createSelector('ucb', { tieBreak: 'random' }),
      model: createReputationModel('drf', { agents: ids(team) }),
      reads: ['rating', 'observation'],
      aggregator: createWeightedPluralityAggregator(),
      k: replaySelectionK,
      weighted: true,
    }),
  },
  'verifier-majority': {
    name: 'verifier-majority',
    description:
      'all 10 agents, no reputation, plain vote over the proposals the verifier accepts (all parseable ones if it accepts none); runs only with a verifier',
    create: ({ team }) => ({
      selector: createSelector('all', {}),
      everyAgent: true,
      aggregator: createVerifierMajorityAggregator(),
      k: team.length,
      weighted: false,
    }),
  },
  minirep: miniRepMethod(
    'minirep',
    `all 10 agents propose; MiniRep aggregator (analyzer β = (0.45, 0.25, 0.15, 0.10, 0.05), diverse pool of ${replayMiniRepK}, clone groups capped) with the minirep model`,
    {},
  ),
  'minirep-veto': miniRepMethod(
    'minirep-veto',
    `MiniRep-veto (ours, not the paper's rule): as minirep, but a proposal the verifier judges wrong is cut by φ_v = 0.05 even without a behaviour finding, at most ⌈0.3n⌉ proposals cut or flagged per task (verdictRule 'capped-veto')`,
    { verdictRule: 'capped-veto' },
  ),
  'minirep-lo': miniRepMethod(
    'minirep-lo',
    `MiniRep-LO (ours, not the paper's design): as minirep, but each agent's history factor is the log-odds of its agreement with the other clone groups (of the verifier's or the truth's feedback once there is any), κ_lo = 8`,
    miniRepVariantOptions['minirep-lo'],
  ),
  'minirep-ds': miniRepMethod(
    'minirep-ds',
    `MiniRep-DS (ours, not the paper's design): as minirep, but each agent's history factor is the vote weight ln(p/((1 − p)·q)) of a reliability learnt from its leave-one-out posterior given the other clone groups' weighted votes (from the verifier's or the truth's feedback once there is any), q = 0.15, λ = 0.95, κ_ds = 8; the bloc check flags blocs of ≥ 3 agents, not a lone pair`,
    miniRepVariantOptions['minirep-ds'],
  ),
  'minirep-rt': miniRepMethod(
    'minirep-rt',
    `MiniRep-RT (ours, not the paper's design): as minirep, but under consensus feedback each agent's history learns from agreement with the answer the other agents' vote weights put first (its own weight left out), not with the decision`,
    miniRepVariantOptions['minirep-rt'],
  ),
  'minirep-es': miniRepMethod(
    'minirep-es',
    `MiniRep-ES (ours, not the paper's design): as minirep, but under consensus feedback each agent's history factor is shrunk towards the team mean by the empirical-Bayes keep share τ²/(τ² + σ²) of its label-free agreement with the other clone groups, and the pool widens towards the whole team as that evidence weakens (no evidence: a plain vote)`,
    miniRepVariantOptions['minirep-es'],
  ),
  'minirep-ic': miniRepMethod(
    'minirep-ic',
    `MiniRep-IC (ours, not the paper's design): as minirep, but undeclared clones are inferred from the answers alone: a pair whose agreement rate's Wilson lower bound (z = 2, ≥ 20 co-answered tasks, λ = 0.995) exceeds by 0.25 what a robust rank-one fit of the pairwise agreement rates (conditional independence given accuracy) expects is merged into one clone group, capped as one model`,
    miniRepVariantOptions['minirep-ic'],
  ),
  'minirep-rt-ic-es': miniRepMethod(
    'minirep-rt-ic-es',
    `MiniRep-RT+IC+ES (ours, not the paper's design): minirep with three of our changes together: consensus feedback scores each agent against the rest of the team's weighted answer (minirep-rt), undeclared clones are inferred from excess agreement and capped as one model (minirep-ic), and history is shrunk towards the team mean as the label-free evidence weakens (minirep-es)`,
    miniRepVariantOptions['minirep-rt-ic-es'],
  ),
  'minirep-ds-ic-es': miniRepMethod(
    'minirep-ds-ic-es',
    `MiniRep-DS+IC+ES (ours, not the paper's design): minirep-ds's leave-one-out posterior history with minirep-ic's inferred clones and minirep-es's shrinkage towards a plain vote while the label-free evidence is weak; the bloc check flags a bloc once it holds 2 agents and 15 % of the answering agents (bloc.minShare 0.15)`,
    miniRepVariantOptions['minirep-ds-ic-es'],
  ),
  'minirep-vb': miniRepMethod(
    'minirep-vb',
    `MiniRep-VB (ours, not the paper's design): as minirep, but with a verifier each answer's score is the clone-capped sum of log-odds vote weights ln(p/((1 − p)·q)) (leave-one-out posterior history with the verdicts in the evidence) times MiniRep's flags, risk and cooldown factors, plus the verdict's log-likelihood ratio from a sensitivity/specificity learnt online without labels (Dawid–Skene EM); no φ_v; without a verifier it is minirep`,
    miniRepVbOptions,
  ),
  'minirep-vg': miniRepMethod(
    'minirep-vg',
    miniRepVgDescription('learnt online as minirep-vb learns them'),
    miniRepVgOptions(),
  ),
};

function miniRepVgDescription(rates: string): string {
  return `MiniRep-VG (ours, not the paper's design): minirep-vb with a gate: when the verifier is decisive (LLR(accept) − LLR(reject) ≥ 2·C, C = ln(r/((1 − r)·q)) from the team's learnt precision r) the answer is the best-scoring one the verifier accepts (any agent's), else minirep-vb's; verifier rates ${rates}; without a verifier it is minirep`;
}

/**
 * The verifier calibration a `minirep-vg@SENS:SPEC` name declares, in MiniRep-VB's terms, or
 * `undefined` for another name. SENS and SPEC are read as the replay reports and simulates a verifier
 * (`--verifier-sensitivity`, the "measured sensitivity / specificity" line): SENS = P(judged wrong |
 * wrong), SPEC = P(judged right | right); MiniRep-VB's rates are P(accept | right) = SPEC and
 * P(reject | wrong) = SENS. Throws {@link InvalidArgumentError} for a rate outside (0, 1).
 *
 * @example
 * declaredVerifierCalibration('minirep-vg@0.994:0.948'); // { sensitivity: 0.948, specificity: 0.994 }
 */
export function declaredVerifierCalibration(name: string): DeclaredVerifierCalibration | undefined {
  const match = /^minirep-vg@([0-9.]+):([0-9.]+)$/.exec(name);
  if (match === null) return undefined;
  const judgedWrongIfWrong = Number(match[1]);
  const judgedRightIfRight = Number(match[2]);
  for (const [label, value] of [
    ['sensitivity', judgedWrongIfWrong],
    ['specificity', judgedRightIfRight],
  ] as const)
    if (!(value > 0 && value < 1))
      throw new InvalidArgumentError({
        parameter: 'methods',
        value: name,
        message: `${name}: the declared ${label} must be in (0, 1); pass e.g. minirep-vg@0.99:0.95 (sensitivity = P(judged wrong | wrong), specificity = P(judged right | right), as the replay measures them)`,
      });
  return declaredCalibration({ sensitivity: judgedWrongIfWrong, specificity: judgedRightIfRight });
}

/**
 * `minirep-vg@SENS:SPEC`: MiniRep-VG with a declared verifier calibration (sensitivity and
 * specificity measured on labelled tasks, e.g. the tuning split, never the held-out one; in the
 * replay's terms, {@link declaredVerifierCalibration}).
 */
function declaredMiniRepVg(name: string): ReplayMethod | undefined {
  const calibration = declaredVerifierCalibration(name);
  if (calibration === undefined) return undefined;
  const [sens, spec] = name.slice('minirep-vg@'.length).split(':');
  return miniRepMethod(
    name,
    miniRepVgDescription(
      `declared sensitivity ${sens} / specificity ${spec} (P(judged wrong | wrong) / P(judged right | right); Beta prior of 1000 pseudo-counts)`,
    ),
    miniRepVgOptions(calibration),
  );
}

/** A MiniRep method: every agent proposes, the `minirep` model keeps state, the aggregator (with `options`) decides and builds the behaviour evidence. */
export function miniRepMethod(
  name: string,
  description: string,
  options: Omit<MiniRepAggregatorOptions, 'model' | 'k'>,
): ReplayMethod {
  return {
    name,
    description,
    family: 'minirep',
    create: ({ team }) => {
      const model = createMiniRepModel({ agents: ids(team) });
      // Each task's feedback follows its decision at once, so one analysis is kept (not 64): analyses
      // that die young cost the collector far less (MiniRep's analyzer ran about 1.2 s faster per
      // 1-thread full grid; the results are the same).
      const aggregator = createMiniRepAggregator({ model, k: replayMiniRepK, recentTasks: 1, ...options });
      return {
        selector: createSelector('all', {}),
        everyAgent: true,
        model,
        // The model takes an outcome's success over a behaviour record's quality; MiniRep-RT's
        // consensus quality is in the behaviour records only (the outcomes would be agreement with
        // the decision), so it reads those. With external feedback both carry the same quality.
        reads: options.consensusTarget === 'rest-of-team' ? ['behaviour'] : ['outcome', 'behaviour'],
        aggregator,
        k: team.length,
        weighted: false,
        behaviourEvidence: (decision, quality) => aggregator.feedback(decision, quality),
      };
    },
  };
}

/** Every registered replay method name (for `--methods`), in report order. */
export const availableReplayMethodNames: readonly string[] = Object.keys(replayMethods);

/** Methods that run only when named: ours (`minirep-veto`, the label-free variants, `minirep-vb`, `minirep-vg`). */
const namedOnly = new Set<string>(['minirep-veto', ...miniRepVariantNames, 'minirep-vb', 'minirep-vg']);

/** Methods that need a verifier's verdicts (refused in a run without one). */
export const verifierOnlyMethodNames: readonly string[] = ['verifier-majority'];

/**
 * The methods a replay runs by default without a verifier, in report order: the six baselines and
 * `minirep` (the paper's design). `minirep-veto`, `minirep-lo` and `minirep-ds` (ours) run only when
 * named, so they do not compete with `minirep` for strict wins in the default table.
 */
export const replayMethodNames: readonly string[] = availableReplayMethodNames.filter(
  (name) => !namedOnly.has(name) && !verifierOnlyMethodNames.includes(name),
);

/** The methods a replay with a verifier runs by default: the six baselines, `verifier-majority` and `minirep`. */
export const verifierReplayMethodNames: readonly string[] = availableReplayMethodNames.filter(
  (name) => !namedOnly.has(name),
);

/** Resolves method names; unknown names throw {@link InvalidArgumentError} listing the known ones. */
export function resolveReplayMethods(names: readonly string[]): ReplayMethod[] {
  return names.map((name, index) => {
    const method = Object.hasOwn(replayMethods, name) ? replayMethods[name] : declaredMiniRepVg(name);
    if (method === undefined) {
      throw new InvalidArgumentError({
        parameter: `methods[${index}]`,
        value: name,
        message: `unknown replay method ${JSON.stringify(name)}; use any of ${availableReplayMethodNames.join(', ')} (or minirep-vg@SENS:SPEC with a declared verifier calibration)`,
      });
    }
    return method;
  });
}
