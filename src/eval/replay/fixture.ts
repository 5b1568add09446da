import type { AgentIdentity } from '../../core/agent-identity.js';
import { createRng, deriveSeed, randomInt } from '../../core/rng.js';
import type { ProposalsDataset, ProposalsRecord, RecordedProposal } from '../proposals/format.js';

/** Options of {@link generateReplayFixture}. */
export interface ReplayFixtureOptions {
  /** Seed of every draw. @default 7 */
  seed?: number;
  /** Agents (≥ 10). @default 12 */
  agents?: number;
  /** Tasks. @default 60 */
  tasks?: number;
  /** Probability that a proposal is unparseable (`answer: null`). @default 0.03 */
  unparseableRate?: number;
  /** Tasks (every n-th) on which the last agent has no record, 0 = none. @default 7 */
  missingEvery?: number;
}

/** Known accuracy of fixture agent `index` of `count`: evenly spaced from 0.9 down to 0.3. */
export function fixtureAccuracy(index: number, count: number): number {
  return 0.9 - (0.6 * index) / Math.max(1, count - 1);
}

/**
 * A small seeded `number` dataset for tests: agents `a00`.. with accuracies {@link fixtureAccuracy},
 * two clone groups (`a01`–`a03` share model `clone-x`, `a06`–`a07` share `clone-y`; a wrong clone
 * copies its group leader's wrong answer), wrong answers drawn near the reference (so they collide),
 * some unparseable proposals, and the last agent missing from every `missingEvery`-th task.
 * Correctness comes from equivalence (no flags), so loaders and the harness exercise that path.
 *
 * @example
 * const dataset = generateReplayFixture({ seed: 7 });
 */
export function generateReplayFixture(options: ReplayFixtureOptions = {}): ProposalsDataset {
  const {
    seed = 7,
    agents: agentCount = 12,
    tasks: taskCount = 60,
    unparseableRate = 0.03,
    missingEvery = 7,
  } = options;
  const agents: AgentIdentity[] = Array.from({ length: agentCount }, (_, index) => {
    const id = `a${String(index).padStart(2, '0')}`;
    const model = index >= 1 && index <= 3 ? 'clone-x' : index >= 6 && index <= 7 ? 'clone-y' : `model-${id}`;
    return { id, model };
  });
  const leaders: Record<string, string> = { 'clone-x': 'a01', 'clone-y': 'a06' };
  const tasks: ProposalsRecord[] = [];
  for (let task = 0; task < taskCount; task++) {
    const rng = createRng(deriveSeed(seed, 'fixture', task));
    const reference = 10 + randomInt(rng, 90);
    const wrongOf = () => reference + (randomInt(rng, 2) === 0 ? -1 : 1) * (1 + randomInt(rng, 3));
    const proposals: Record<string, RecordedProposal> = {};
    const leaderAnswers = new Map<string, number>();
    agents.forEach((agent, index) => {
      if (missingEvery > 0 && index === agentCount - 1 && task % missingEvery === 0) return;
      if (rng() < unparseableRate) {
        proposals[agent.id] = { text: 'I am not sure.', answer: null };
        return;
      }
      const right = rng() < fixtureAccuracy(index, agentCount);
      let value = right ? reference : wrongOf();
      const leader = leaders[agent.model];
      if (!right && leader !== undefined) {
        // Clones repeat their leader's mistake when the leader was wrong too.
        const leaderValue = leaderAnswers.get(agent.model);
        if (leaderValue !== undefined && leaderValue !== reference) value = leaderValue;
      }
      if (leader === agent.id) leaderAnswers.set(agent.model, value);
      proposals[agent.id] = { text: `The answer is ${value}.`, answer: String(value) };
    });
    tasks.push({
      id: `t${String(task).padStart(3, '0')}`,
      kind: 'number',
      prompt: `Fixture task ${task}`,
      reference: String(reference),
      proposals,
    });
  }
  return { schemaVersion: 1, name: 'fixture', format: 'jsonl', agents, tasks, skipped: {}, correctness: 'equivalence' };
}
