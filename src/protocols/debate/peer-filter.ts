import type { AgentId } from '../../core/agent-identity.js';
import type { Proposal } from '../../core/proposal.js';
import type { Task } from '../../core/task.js';
import type { WeightReason } from '../../core/trace.js';
import { checkBehaviour } from '../../aggregation/minirep-behaviour.js';
import type { ReputationModel } from '../../reputation/reputation-model.js';
import { assertInRange, assertKnownOptions, defineOptionKeys } from '../../core/validate.js';

/** What a peer filter sees before a debate round. */
export interface PeerFilterInput {
  readonly task: Task;
  /** The debate round about to start (≥ 1). */
  readonly round: number;
  /** The previous round's proposals (what would be shown). */
  readonly proposals: readonly Proposal[];
  /** Rounds before that. */
  readonly history: readonly Proposal[];
}

/** Which proposals the participants get to see in a debate round, with one reason per agent. */
export interface PeerScreen {
  readonly visible: readonly AgentId[];
  readonly reasons: readonly WeightReason[];
}

/**
 * Decides whose proposals are shown to peers in a debate round (a reputation-gated debate). Agents
 * always see their own proposal; a screened proposal still counts in the vote as the aggregator
 * decides — screening only stops it from persuading others.
 */
export type PeerFilter = (input: PeerFilterInput) => PeerScreen;

const knownReputationFilterOptions = defineOptionKeys<NonNullable<Parameters<typeof reputationPeerFilter>[1]>>()([
  'relativeThreshold',
]);

/**
 * Shows a peer when its reputation weight is at least `relativeThreshold` times the average weight
 * of the round's agents (w_i ≥ τ_rel / n with weights summing to 1), so it works for models whose
 * scores are normalised (EigenTrust) and for those that are not (Beta).
 *
 * @example
 * const peerFilter = reputationPeerFilter(model, { relativeThreshold: 0.5 });
 */
export function reputationPeerFilter(
  model: ReputationModel,
  options: { /** @default 0.5 */ relativeThreshold?: number } = {},
): PeerFilter {
  assertKnownOptions('options', options, knownReputationFilterOptions, 'reputationPeerFilter');
  const { relativeThreshold = 0.5 } = options;
  assertInRange('relativeThreshold', relativeThreshold, 0, 1);
  return ({ proposals }) => {
    const ids = proposals.map((proposal) => proposal.agentId);
    const weights = model.weights(ids);
    const floor = relativeThreshold / Math.max(1, ids.length);
    const reasons = ids.map((agentId): WeightReason => {
      const weight = weights[agentId] ?? 0;
      const shown = weight >= floor;
      return {
        agentId,
        weight: shown ? 1 : 0,
        components: { reputationWeight: weight, floor },
        note: shown ? 'shown to peers' : `screened: weight ${weight.toFixed(3)} below ${floor.toFixed(3)}`,
      };
    });
    return { visible: reasons.filter((reason) => reason.weight > 0).map((reason) => reason.agentId), reasons };
  };
}

const knownMiniRepFilterOptions = defineOptionKeys<NonNullable<Parameters<typeof miniRepPeerFilter>[1]>>()([
  'suspicionThreshold',
]);

/**
 * MiniRep's gate on the debate: a proposal is not shown to peers when the behaviour check flags it
 * in this round (instruction override, an agreement claim the proposals contradict, an unexpected
 * flip), or when its author is in cooldown or highly suspicious in the model
 * (`explain().components.cooldown > 0` or `risk ≥ suspicionThreshold`).
 *
 * @example
 * const peerFilter = miniRepPeerFilter(model);
 */
export function miniRepPeerFilter(
  model: ReputationModel,
  options: { /** @default 0.5 */ suspicionThreshold?: number } = {},
): PeerFilter {
  assertKnownOptions('options', options, knownMiniRepFilterOptions, 'miniRepPeerFilter');
  const { suspicionThreshold = 0.5 } = options;
  assertInRange('suspicionThreshold', suspicionThreshold, 0, 1);
  return ({ proposals, history }) => {
    const findings = new Map(checkBehaviour({ proposals, history }).map((finding) => [finding.agentId, finding]));
    const known = new Set(model.agentIds());
    const reasons = proposals.map(({ agentId }): WeightReason => {
      const components = known.has(agentId) ? model.explain(agentId).components : {};
      const cooldown = components.cooldown ?? 0;
      const risk = components.risk ?? 0;
      const finding = findings.get(agentId);
      const flagged = finding?.flagged === true;
      const note = flagged
        ? `screened: flagged (${finding?.reasons.join('; ')})`
        : cooldown > 0
          ? `screened: cooldown ${cooldown}`
          : risk >= suspicionThreshold
            ? `screened: risk ${risk.toFixed(2)}`
            : 'shown to peers';
      const shown = !flagged && cooldown <= 0 && risk < suspicionThreshold;
      return { agentId, weight: shown ? 1 : 0, components: { flagged: flagged ? 1 : 0, cooldown, risk }, note };
    });
    return { visible: reasons.filter((reason) => reason.weight > 0).map((reason) => reason.agentId), reasons };
  };
}
