// In-test fakes for the DRF protocol: scripted agents, a tiny weighted-mean reputation model and a
// greedy selector. They implement the real interfaces so the protocol is tested against contracts.
import type { Acted, ActUsage, Agent } from '../../../agents/agent.js';
import type { AgentId } from '../../../core/agent-identity.js';
import { InternalError, NotFoundError, ProviderError } from '../../../core/errors.js';
import type { Evidence, ReputationModel, ReputationSnapshot } from '../../../reputation/reputation-model.js';
import type { Selector } from '../../../selection/selector.js';

const usage = (cost = 0): ActUsage => ({ inputTokens: 0, outputTokens: 0, cost, cached: false });

/** A scripted agent: answers from a task → answer map, rates 1 when the peer's answer equals its own. */
export function scriptedAgent(
  id: string,
  answers: Record<string, string | null>,
  options: { cost?: number; spend?: number; failPropose?: boolean; rateAs?: (ratee: AgentId) => number } = {},
): Agent & { calls: string[] } {
  const calls: string[] = [];
  const agent: Agent & { calls: string[] } = {
    identity: { id, model: `model-${id}`, ...(options.cost === undefined ? {} : { cost: options.cost }) },
    kind: 'simulated',
    calls,
    async propose({ task }) {
      calls.push(`propose:${task.id}`);
      if (options.failPropose) throw new ProviderError({ provider: 'scripted', attempts: 1, message: `${id} is down` });
      return {
        value: {
          agentId: id,
          taskId: task.id,
          round: 0,
          text: String(answers[task.id]),
          answer: answers[task.id] ?? null,
        },
        usage: usage(options.spend),
      };
    },
    async revise() {
      throw new InternalError(`DRF never revises, but revise() was called on ${id}; rounds must only propose and rate`);
    },
    async rate({ task, proposal, own }) {
      calls.push(`rate:${task.id}:${proposal.agentId}`);
      const score = options.rateAs
        ? options.rateAs(proposal.agentId)
        : proposal.answer !== null && proposal.answer === own?.answer
          ? 1
          : 0;
      return {
        value: { rater: id, ratee: proposal.agentId, taskId: task.id, score },
        usage: usage(options.spend),
      } satisfies Acted<unknown>;
    },
    async audit() {
      return { value: { reliable: true, reason: '' }, usage: usage() };
    },
    async refineSubscription({ current }) {
      return { value: current, usage: usage() };
    },
  };
  return agent;
}

/**
 * Reputation = 0.5·old + 0.5·p, where p is Eq. 6's reputation-weighted mean of received ratings
 * (weights = the raters' scores before the batch). Agents without ratings keep their score.
 */
export function fakeReputation(
  initial: Record<AgentId, number> = {},
  prior = 0.5,
): ReputationModel & { batches: Evidence[][] } {
  const scores = new Map<AgentId, number>(Object.entries(initial));
  const batches: Evidence[][] = [];
  const get = (agentId: AgentId) => {
    const value = scores.get(agentId);
    if (value === undefined) throw new NotFoundError({ entity: 'agent', id: agentId });
    return value;
  };
  return {
    name: 'fake',
    batches,
    agentIds: () => [...scores.keys()],
    addAgent(agentId) {
      if (!scores.has(agentId)) scores.set(agentId, prior);
    },
    observe(evidence) {
      batches.push([...evidence]);
      const sums = new Map<AgentId, { numerator: number; denominator: number }>();
      for (const item of evidence) {
        if (item.type !== 'rating') continue;
        const weight = get(item.rating.rater);
        const entry = sums.get(item.rating.ratee) ?? { numerator: 0, denominator: 0 };
        entry.numerator += weight * item.rating.score;
        entry.denominator += weight;
        sums.set(item.rating.ratee, entry);
      }
      for (const [ratee, { numerator, denominator }] of sums)
        scores.set(ratee, 0.5 * get(ratee) + 0.5 * (denominator > 0 ? numerator / denominator : 0));
    },
    score: get,
    scores: () => Object.fromEntries(scores),
    weights(agentIds) {
      const ids = agentIds ?? [...scores.keys()];
      const total = ids.reduce((sum, agentId) => sum + get(agentId), 0);
      return Object.fromEntries(ids.map((agentId) => [agentId, total > 0 ? get(agentId) / total : 1 / ids.length]));
    },
    explain: (agentId) => ({ agentId, score: get(agentId), components: {}, evidenceCount: 0, summary: '' }),
    snapshot: (): ReputationSnapshot => ({
      schemaVersion: 1,
      model: 'fake',
      agents: [...scores.keys()],
      state: Object.fromEntries(scores),
    }),
    restore(snapshot) {
      scores.clear();
      for (const [agentId, value] of Object.entries(snapshot.state as Record<string, number>))
        scores.set(agentId, value);
    },
  };
}

/** Greedy selector: highest reputation − cost first, ties by pool order; records what it was offered. */
export function greedySelector(): Selector & { offered: AgentId[][] } {
  const offered: AgentId[][] = [];
  return {
    name: 'greedy',
    offered,
    select({ pool, reputation, k }) {
      offered.push(pool.map((identity) => identity.id));
      const ranked = pool
        .map((identity, index) => ({ identity, index, score: (reputation[identity.id] ?? 0) - (identity.cost ?? 0) }))
        .sort((left, right) => right.score - left.score || left.index - right.index);
      return {
        selected: ranked.slice(0, k).map(({ identity }) => identity.id),
        excluded: [],
        reasons: ranked.map(({ identity, score }) => ({
          agentId: identity.id,
          weight: score,
          components: { reputation: reputation[identity.id] ?? 0, cost: identity.cost ?? 0 },
        })),
      };
    },
  };
}

/**
 * A minimal UCB with cost for tests: untried agents first (pool order), then
 * S_i = δ·r_i ∓ (1−δ)·c_i + sqrt(2·ln t / n_i), `printed` adding the cost. Counts selections.
 */
export function fakeUcbSelector(delta: number, variant: 'corrected' | 'printed' = 'corrected'): Selector {
  const counts = new Map<AgentId, number>();
  let total = 0;
  return {
    name: 'fake-ucb',
    select({ pool, reputation, k }) {
      const sign = variant === 'printed' ? 1 : -1;
      const scored = pool.map((identity, index) => {
        const n = counts.get(identity.id) ?? 0;
        const bonus = n === 0 ? Number.POSITIVE_INFINITY : Math.sqrt((2 * Math.log(Math.max(1, total))) / n);
        return {
          identity,
          index,
          score: delta * (reputation[identity.id] ?? 0) + sign * (1 - delta) * (identity.cost ?? 0) + bonus,
        };
      });
      scored.sort((left, right) => right.score - left.score || left.index - right.index);
      const selected = scored.slice(0, k).map(({ identity }) => identity.id);
      for (const agentId of selected) counts.set(agentId, (counts.get(agentId) ?? 0) + 1);
      total += 1;
      return {
        selected,
        excluded: [],
        reasons: scored.map(({ identity, score }) => ({ agentId: identity.id, weight: score })),
      };
    },
  };
}

/** Uniform random k for tests. */
export function fakeRandomSelector(): Selector {
  return {
    name: 'fake-random',
    select({ pool, k, rng }) {
      const ids = pool.map((identity) => identity.id);
      for (let index = ids.length - 1; index > 0; index--) {
        const other = Math.floor(rng() * (index + 1));
        [ids[index], ids[other]] = [ids[other] as string, ids[index] as string];
      }
      return { selected: ids.slice(0, k), excluded: [], reasons: [] };
    },
  };
}
