import type { AgentId } from '../../core/agent-identity.js';
import type { WeightReason } from '../../core/trace.js';

/** A structured event of a RAPS run (schemaVersion 1), tagged by `type`. */
export type RapsEvent =
  | { readonly schemaVersion: 1; readonly type: 'publish'; readonly taskId: string; readonly round: number; readonly agentId: AgentId; readonly messageId: string; readonly answer: string | null; readonly done: boolean }
  | { readonly schemaVersion: 1; readonly type: 'route'; readonly taskId: string; readonly round: number; readonly publisher: AgentId; readonly messageId: string; readonly recipients: readonly AgentId[]; readonly reasons: readonly WeightReason[]; readonly distrusted: readonly AgentId[]; readonly broadcast: number }
  | { readonly schemaVersion: 1; readonly type: 'audit'; readonly taskId: string; readonly round: number; readonly auditor: AgentId; readonly subject: AgentId; readonly messageId: string; readonly reliable: boolean; readonly reason: string; readonly beliefAfter: number }
  | { readonly schemaVersion: 1; readonly type: 'witness'; readonly taskId: string; readonly round: number; readonly observer: AgentId; readonly witness: AgentId; readonly subject: AgentId; readonly deviation: number; readonly accepted: boolean }
  | { readonly schemaVersion: 1; readonly type: 'refine'; readonly taskId: string; readonly round: number; readonly agentId: AgentId; readonly before: string; readonly after: string; readonly drift: number }
  | { readonly schemaVersion: 1; readonly type: 'round'; readonly taskId: string; readonly round: number; readonly globalRound: number; readonly done: number; readonly publishers: number; readonly reputation: Readonly<Record<AgentId, number>> }
  | { readonly schemaVersion: 1; readonly type: 'decision'; readonly taskId: string; readonly answer: string | null; readonly support: Readonly<Record<string, number>>; readonly eligible: readonly AgentId[]; readonly rounds: number }
  | { readonly schemaVersion: 1; readonly type: 'malformed'; readonly subject: string; readonly id: string; readonly error: string }
  | { readonly schemaVersion: 1; readonly type: 'agent-error'; readonly taskId: string; readonly round: number; readonly agentId: AgentId; readonly error: string };
