import type { AgentId } from '../../core/agent-identity.js';
import type { WeightReason } from '../../core/trace.js';
import type { WireProviderFailure } from './wire.js';

/** A structured event of a RAPS run (schemaVersion 1), tagged by `type`. */
export type RapsEvent =
  /** `agentId` published `messageId` in 0-based `round` of the task, with its answer key (or `null`) and whether it said DONE. */
  | {
      readonly schemaVersion: 1;
      readonly type: 'publish';
      readonly taskId: string;
      readonly round: number;
      readonly agentId: AgentId;
      readonly messageId: string;
      readonly answer: string | null;
      readonly done: boolean;
    }
  /**
   * The broker routed `messageId` to `recipients` (best first, with `reasons`); `distrusted` were kept
   * away by distrust (removed or down-ranked out of the top-k; `distrustReasons` give their trust and
   * similarity), `belowFloor` subscribers matched less than the floor, `broadcast` counts the
   * subscribers broadcast would reach. A publication that reached nobody says why through these.
   */
  | {
      readonly schemaVersion: 1;
      readonly type: 'route';
      readonly taskId: string;
      readonly round: number;
      readonly publisher: AgentId;
      readonly messageId: string;
      readonly recipients: readonly AgentId[];
      readonly reasons: readonly WeightReason[];
      readonly distrusted: readonly AgentId[];
      readonly distrustReasons: readonly WeightReason[];
      readonly belowFloor: number;
      readonly broadcast: number;
    }
  /**
   * The broker's route selector failed on `messageId` (`source` names the failing part): it threw
   * or returned no list of ids (`fallback` true: the similarity top-k was used instead), or it chose
   * ids outside the candidates (`fallback` false: those were ignored). A fault of the broker's
   * configuration, not of `publisher`: no agent error is counted and no belief changes.
   */
  | {
      readonly schemaVersion: 1;
      readonly type: 'route-error';
      readonly taskId: string;
      readonly round: number;
      readonly publisher: AgentId;
      readonly messageId: string;
      readonly source: 'route-selector';
      readonly error: string;
      readonly fallback: boolean;
    }
  /**
   * Recovery (ours): `receiver` kept `publisher` away this round, so its belief was aged towards the
   * prior, r ← ρr, s ← ρs; `beliefBefore` and `beliefAfter` are E_receiver[publisher] in [0, 1].
   */
  | {
      readonly schemaVersion: 1;
      readonly type: 'recovery';
      readonly taskId: string;
      readonly round: number;
      readonly receiver: AgentId;
      readonly publisher: AgentId;
      readonly rho: number;
      readonly beliefBefore: number;
      readonly beliefAfter: number;
    }
  /** `auditor` judged `subject`'s message `messageId`; `beliefAfter` is its updated trust E_auditor[subject] in [0, 1]. */
  | {
      readonly schemaVersion: 1;
      readonly type: 'audit';
      readonly taskId: string;
      readonly round: number;
      readonly auditor: AgentId;
      readonly subject: AgentId;
      readonly messageId: string;
      readonly reliable: boolean;
      readonly reason: string;
      readonly beliefAfter: number;
    }
  /** `observer` checked `witness`'s report about `subject`; `deviation` D ≥ 0, and the report is `accepted` iff D < δ. */
  | {
      readonly schemaVersion: 1;
      readonly type: 'witness';
      readonly taskId: string;
      readonly round: number;
      readonly observer: AgentId;
      readonly witness: AgentId;
      readonly subject: AgentId;
      readonly deviation: number;
      readonly accepted: boolean;
    }
  /** `agentId` rewrote its subscription; `drift` = 1 − cos(e(before), e(after)), in [0, 2]. */
  | {
      readonly schemaVersion: 1;
      readonly type: 'refine';
      readonly taskId: string;
      readonly round: number;
      readonly agentId: AgentId;
      readonly before: string;
      readonly after: string;
      readonly drift: number;
    }
  /** A round ended: `globalRound` is 1-based across tasks, `done` agents said DONE out of `publishers`, `reputation` is each agent's peer reputation in [0, 1]. */
  | {
      readonly schemaVersion: 1;
      readonly type: 'round';
      readonly taskId: string;
      readonly round: number;
      readonly globalRound: number;
      readonly done: number;
      readonly publishers: number;
      readonly reputation: Readonly<Record<AgentId, number>>;
    }
  /** A task was decided from the `eligible` agents after `rounds` rounds; `answer` is `null` when none had one. */
  | {
      readonly schemaVersion: 1;
      readonly type: 'decision';
      readonly taskId: string;
      readonly answer: string | null;
      readonly support: Readonly<Record<string, number>>;
      readonly eligible: readonly AgentId[];
      readonly rounds: number;
    }
  /** A wire message on `subject` with id `id` was rejected as malformed (counted, never fatal). */
  | {
      readonly schemaVersion: 1;
      readonly type: 'malformed';
      readonly subject: string;
      readonly id: string;
      readonly error: string;
    }
  /**
   * `agentId`'s act in 0-based `round` failed or gave no publication; `error` says why.
   * `providerFailure` is set when the act's model call failed after its retries (in this process or
   * in the agent's own): the provider's failure, not the agent's, so a session fails the task.
   */
  | {
      readonly schemaVersion: 1;
      readonly type: 'agent-error';
      readonly taskId: string;
      readonly round: number;
      readonly agentId: AgentId;
      readonly error: string;
      readonly providerFailure?: WireProviderFailure;
    };
