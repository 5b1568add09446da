// A circuit breaker per agent (Nygard, Release It!, 2007, "Circuit Breaker"): closed while the agent
// answers; open after `failureThreshold` failures in a row, so the agent is not called at all; after
// `cooldownMs` one call goes through as a probe (half-open): its success closes the circuit, its
// failure opens it again for another cooldown. The state machine is pure (time is an argument);
// `createCircuitBreakers` keeps one state per agent with an injected clock.
import type { AgentId } from '../core/agent-identity.js';
import { InvalidArgumentError } from '../core/errors.js';

/** The state of one agent's circuit. Times are the injected clock's, in ms. */
export type BreakerState =
  | { readonly status: 'closed' /** Failures in a row so far. */; readonly failures: number }
  | { readonly status: 'open'; readonly failures: number /** When it opened. */; readonly openedAt: number }
  | {
      readonly status: 'half-open';
      readonly failures: number /** When the probe was let through. */;
      readonly probeAt: number;
    };

/** Settings of a circuit breaker. */
export interface BreakerOptions {
  /** Failures in a row that open the circuit, an integer ≥ 1. @default 3 */
  readonly failureThreshold?: number;
  /** How long an open circuit skips the agent before a probe, in ms (also how long a probe may take before another is let through). @default 30000 */
  readonly cooldownMs?: number;
}

/** {@link BreakerOptions} with its defaults filled in. */
export type ResolvedBreakerOptions = Required<BreakerOptions>;

/** The closed state with no failures: where every agent starts. */
export const closedBreaker: BreakerState = { status: 'closed', failures: 0 };

/** Fills in the defaults of {@link BreakerOptions} and checks them. */
export function resolveBreakerOptions(options: BreakerOptions = {}): ResolvedBreakerOptions {
  const failureThreshold = options.failureThreshold ?? 3;
  const cooldownMs = options.cooldownMs ?? 30_000;
  if (!Number.isInteger(failureThreshold) || failureThreshold < 1)
    throw new InvalidArgumentError({
      parameter: 'failureThreshold',
      value: failureThreshold,
      message: `failureThreshold must be an integer ≥ 1, got ${failureThreshold}; e.g. { failureThreshold: 3 }`,
    });
  if (!Number.isFinite(cooldownMs) || cooldownMs < 0)
    throw new InvalidArgumentError({
      parameter: 'cooldownMs',
      value: cooldownMs,
      message: `cooldownMs must be a finite number ≥ 0, got ${cooldownMs}; e.g. { cooldownMs: 30000 }`,
    });
  return { failureThreshold, cooldownMs };
}

/** Whether a call may go to the agent now, and the state after letting it (or not). */
export interface BreakerAdmission {
  /** True when the agent is called. */
  readonly admitted: boolean;
  /** True when the call is the half-open probe. */
  readonly probe: boolean;
  /** The state after the admission (a probe moves `open` to `half-open`). */
  readonly state: BreakerState;
  /** When not admitted: when the next probe may go through, in ms. */
  readonly retryAt?: number;
}

/**
 * Asks the breaker whether the agent may be called at `now`: always when closed; when open, only
 * once the cooldown has passed (that call is the probe and the circuit turns half-open); when
 * half-open, not while the probe is out, unless it has been out for a whole cooldown (then a new
 * probe goes through).
 */
export function admitCall(state: BreakerState, now: number, options: ResolvedBreakerOptions): BreakerAdmission {
  if (state.status === 'closed') return { admitted: true, probe: false, state };
  const since = state.status === 'open' ? state.openedAt : state.probeAt;
  const retryAt = since + options.cooldownMs;
  if (now >= retryAt)
    return { admitted: true, probe: true, state: { status: 'half-open', failures: state.failures, probeAt: now } };
  return { admitted: false, probe: false, state, retryAt };
}

/**
 * The state after a call settled at `now`: a success closes the circuit and clears the count; a
 * failure adds one, opens a closed circuit that reached the threshold, and opens a half-open one
 * again (the probe failed). A failure of a call let through before the circuit opened leaves an
 * open circuit as it is (it does not extend the cooldown).
 */
export function recordCall(
  state: BreakerState,
  outcome: 'success' | 'failure',
  now: number,
  options: ResolvedBreakerOptions,
): BreakerState {
  if (outcome === 'success') return closedBreaker;
  const failures = state.failures + 1;
  if (state.status === 'closed')
    return failures >= options.failureThreshold
      ? { status: 'open', failures, openedAt: now }
      : { status: 'closed', failures };
  if (state.status === 'half-open') return { status: 'open', failures, openedAt: now };
  return { status: 'open', failures, openedAt: state.openedAt };
}

/** Why an agent was not called: its circuit is open. */
export interface BreakerSkip {
  readonly agentId: AgentId;
  readonly reason: 'circuit-open';
  /** Failures in a row that opened it. */
  readonly failures: number;
  /** When the next probe may go through, in ms of the breaker's clock. */
  readonly retryAt: number;
}

/** The circuits of a team's agents, one state per agent, with an injected clock. */
export interface CircuitBreakers {
  /** Admits a call to the agent (updating its state) or says why not. */
  admit(
    agentId: AgentId,
  ): { readonly admitted: true; readonly probe: boolean } | ({ readonly admitted: false } & BreakerSkip);
  /** Records how an admitted call settled. */
  record(agentId: AgentId, outcome: 'success' | 'failure'): void;
  /** The agent's current state. */
  state(agentId: AgentId): BreakerState;
}

/**
 * Creates the circuits of a team, all closed.
 *
 * @example
 * const breakers = createCircuitBreakers({ now: Date.now, failureThreshold: 3, cooldownMs: 30_000 });
 * if (breakers.admit('alpha').admitted) breakers.record('alpha', 'failure');
 */
export function createCircuitBreakers(options: BreakerOptions & { readonly now: () => number }): CircuitBreakers {
  const resolved = resolveBreakerOptions(options);
  const { now } = options;
  const states = new Map<AgentId, BreakerState>();
  const stateOf = (agentId: AgentId): BreakerState => states.get(agentId) ?? closedBreaker;
  return {
    admit(agentId) {
      const admission = admitCall(stateOf(agentId), now(), resolved);
      states.set(agentId, admission.state);
      if (admission.admitted) return { admitted: true, probe: admission.probe };
      return {
        admitted: false,
        agentId,
        reason: 'circuit-open',
        failures: admission.state.failures,
        retryAt: admission.retryAt ?? now(),
      };
    },
    record(agentId, outcome) {
      states.set(agentId, recordCall(stateOf(agentId), outcome, now(), resolved));
    },
    state: stateOf,
  };
}
