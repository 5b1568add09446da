import type { Acted } from '../../agents/agent.js';
import type { AgentId } from '../../core/agent-identity.js';
import { ProviderError } from '../../core/errors.js';
import type { DebateFailure, DebateUsageEntry } from './types.js';

/** Result of one guarded act: the value, or the failure when the agent threw. */
export type Guarded<T> =
  | { readonly ok: true; readonly value: T; readonly usage: DebateUsageEntry }
  | { readonly ok: false; readonly failure: DebateFailure };

/**
 * Runs one agent act, turning a thrown error into a counted failure so one broken agent cannot sink
 * a round. Aborts (the run's signal) still propagate.
 */
export async function guardAct<T>(
  agentId: AgentId,
  taskId: string,
  act: string,
  round: number,
  call: () => Promise<Acted<T>>,
  signal?: AbortSignal,
): Promise<Guarded<T>> {
  try {
    const { value, usage } = await call();
    return { ok: true, value, usage: { ...usage, agentId, taskId, act, round } };
  } catch (error) {
    if (signal?.aborted) throw error;
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof ProviderError) return { ok: false, failure: providerFailure(agentId, act, round, error) };
    return { ok: false, failure: { agentId, act, round, message, kind: 'output' } };
  }
}

/** The failure record of an act whose model call failed after its retries (a {@link ProviderError}). */
export function providerFailure(agentId: AgentId, act: string, round: number, error: ProviderError): DebateFailure {
  return {
    agentId,
    act,
    round,
    message: error.message,
    kind: 'provider',
    ...(error.status === undefined ? {} : { status: error.status }),
    ...(error.reason === undefined ? {} : { reason: error.reason }),
  };
}
