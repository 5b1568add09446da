import type { AgentIdentity } from '../../core/agent-identity.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { createRng, deriveSeed, randomInt } from '../../core/rng.js';
import type { ProposalsDataset, ProposalsRecord, RecordedProposal } from '../proposals/format.js';

/** One simulated agent: how often it is right and where its wrong answers go. */
export interface SimulatedAgentProfile {
  /** Agent id. */
  readonly id: string;
  /** Clone group (the underlying model); the id when omitted. @default id */
  readonly model?: string;
  /** Probability of the right answer on a task, in [0, 1]. */
  readonly accuracy: number;
  /**
   * Probability, in [0, 1], that a wrong answer is the task's common wrong answer (the one every
   * agent with this setting shares) rather than one drawn near the reference. @default 0
   */
  readonly sharedWrong?: number;
  /** Another agent (listed earlier) whose answer this one copies with probability `rate`: a near-identical clone. @default undefined */
  readonly copies?: { readonly agent: string; readonly rate: number };
}

/** Options of {@link simulateTeamDataset}. */
export interface SimulateTeamOptions {
  /** Dataset name (for reports). */
  readonly name: string;
  /** The agents, in order (an agent copied by another comes first). */
  readonly profiles: readonly SimulatedAgentProfile[];
  /** Tasks generated, ≥ 1. */
  readonly tasks: number;
  /** Seed of every draw. */
  readonly seed: number;
}

/**
 * A seeded `number` dataset from agent profiles: per task a reference in 10..99, one common wrong
 * answer, and per agent the reference with probability `accuracy`, else the common wrong answer with
 * probability `sharedWrong`, else a wrong answer drawn 1..6 away from the reference (so independent
 * errors still collide now and then); a copying agent first repeats its model's answer with
 * probability `copies.rate`. Every proposal carries its `correct` flag. Task ids are `z00000`..
 *
 * @example
 * simulateTeamDataset({ name: 'pair', tasks: 50, seed: 1, profiles: [{ id: 'a', accuracy: 1 }, { id: 'b', accuracy: 0.8 }] });
 */
export function simulateTeamDataset({ name, profiles, tasks, seed }: SimulateTeamOptions): ProposalsDataset {
  if (!Number.isInteger(tasks) || tasks < 1)
    throw new InvalidArgumentError({
      parameter: 'tasks',
      value: tasks,
      message: `tasks must be a positive integer, got ${String(tasks)}; pass e.g. 200`,
    });
  const seen = new Set<string>();
  for (const [index, profile] of profiles.entries()) {
    for (const [key, value] of [
      ['accuracy', profile.accuracy],
      ['sharedWrong', profile.sharedWrong ?? 0],
      ['copies.rate', profile.copies?.rate ?? 0],
    ] as const) {
      if (!(value >= 0 && value <= 1))
        throw new InvalidArgumentError({
          parameter: `profiles[${index}].${key}`,
          value,
          message: `profiles[${index}].${key} must be in [0, 1], got ${value}`,
        });
    }
    if (profile.copies !== undefined && !seen.has(profile.copies.agent))
      throw new InvalidArgumentError({
        parameter: `profiles[${index}].copies.agent`,
        value: profile.copies.agent,
        message: `profiles[${index}] copies ${JSON.stringify(profile.copies.agent)}, which is not listed before it; list the copied agent first`,
      });
    seen.add(profile.id);
  }
  const agents: AgentIdentity[] = profiles.map((profile) => ({ id: profile.id, model: profile.model ?? profile.id }));
  const records: ProposalsRecord[] = [];
  for (let task = 0; task < tasks; task++) {
    const rng = createRng(deriveSeed(seed, 'simulated-team', name, task));
    const reference = 10 + randomInt(rng, 90);
    // A wrong answer 1..6 away, on either side.
    const nearWrong = () => reference + (randomInt(rng, 2) === 0 ? -1 : 1) * (1 + randomInt(rng, 6));
    const common = nearWrong();
    const answers = new Map<string, number>();
    const proposals: Record<string, RecordedProposal> = {};
    for (const profile of profiles) {
      const copied = profile.copies === undefined ? undefined : answers.get(profile.copies.agent);
      let value: number;
      if (copied !== undefined && profile.copies !== undefined && rng() < profile.copies.rate) value = copied;
      else if (rng() < profile.accuracy) value = reference;
      else value = rng() < (profile.sharedWrong ?? 0) ? common : nearWrong();
      answers.set(profile.id, value);
      proposals[profile.id] = { text: `The answer is ${value}.`, answer: String(value), correct: value === reference };
    }
    records.push({
      id: `z${String(task).padStart(5, '0')}`,
      kind: 'number',
      prompt: `Simulated task ${task}`,
      reference: String(reference),
      proposals,
    });
  }
  return { schemaVersion: 1, name, format: 'jsonl', agents, tasks: records, skipped: {}, correctness: 'flags' };
}
