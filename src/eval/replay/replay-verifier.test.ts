import { describe, expect, it } from 'vitest';
import { prepareFixtureGrid } from '../../testing/_test-replay-grid.js';
import type { Proposal } from '../../core/proposal.js';
import type { Task } from '../../core/task.js';
import { createReplayJudge, measureReplayVerifier, poolAnswerStats, withJudge } from './replay-verifier.js';
import type { PreparedReplay, ReplayVerifierSettings } from './types.js';

const { prepared } = prepareFixtureGrid({ fixtureSeed: 3, seed: 1, tasks: 60 });
const simulated = (model: 'correlated' | 'independent'): ReplayVerifierSettings => ({
  kind: 'simulated',
  model,
  sensitivity: 0.85,
  specificity: 0.8,
});
const right = (task: PreparedReplay['tasks'][number], key: string | null) =>
  key !== null && task.scores[key]?.exact === 1;

/** Every parseable honest proposal of the pool, judged in condition `conditionId`. */
function verdicts(settings: ReplayVerifierSettings, conditionId: string, pool: PreparedReplay = prepared): number[] {
  const judge = createReplayJudge({ prepared: pool, settings, seed: 1, conditionId });
  const out: number[] = [];
  pool.tasks.forEach((prepTask, taskIndex) => {
    const task: Task = { id: prepTask.id, kind: prepTask.kind, prompt: prepTask.prompt };
    pool.agents.forEach((agent, position) => {
      const answer = prepTask.keys[position] ?? null;
      const proposal: Proposal = { agentId: agent.id, taskId: task.id, round: 0, text: '', answer };
      out.push(judge?.(taskIndex, task, proposal, () => right(prepTask, answer)) ?? -1);
    });
  });
  return out;
}

describe('poolAnswerStats', () => {
  it('counts the share behind each key and the share of the pool wrong on each task', () => {
    const stats = poolAnswerStats(prepared);
    const task = prepared.tasks[0] as PreparedReplay['tasks'][number];
    const n = prepared.agents.length;
    // Recount by hand from the keys: the right proposals of task 0, and the first key's copies.
    const rightCount = task.keys.filter((key) => right(task, key)).length;
    expect(stats.difficulty[0]).toBeCloseTo((n - rightCount) / n, 12);
    const first = task.keys.find((key) => key !== null) as string;
    expect(stats.shares[0]?.get(first)).toBeCloseTo(task.keys.filter((key) => key === first).length / n, 12);
  });
});

describe('createReplayJudge', () => {
  it('correlated: the same verdicts in every condition; independent: redrawn per condition', () => {
    expect(verdicts(simulated('correlated'), 'all-strong/clean')).toEqual(
      verdicts(simulated('correlated'), 'all-strong/B/RAND'),
    );
    expect(verdicts(simulated('independent'), 'all-strong/clean')).not.toEqual(
      verdicts(simulated('independent'), 'all-strong/B/RAND'),
    );
  });

  it('correlated: agents giving the same answer on a task get the same verdict', () => {
    const all = verdicts(simulated('correlated'), 'x');
    const n = prepared.agents.length;
    prepared.tasks.forEach((task, taskIndex) => {
      const byKey = new Map<string, Set<number>>();
      task.keys.forEach((key, position) => {
        if (key === null) return;
        const set = byKey.get(key) ?? new Set<number>();
        set.add(all[taskIndex * n + position] as number);
        byKey.set(key, set);
      });
      for (const set of byKey.values()) expect(set.size).toBe(1);
    });
  });

  it('judge: right exactly when the answer equals the judge’s own key, and the judge leaves the pool', () => {
    const judgeId = prepared.agents[0]?.id as string;
    const pool = withJudge(prepared, judgeId);
    expect(pool.agents.map((agent) => agent.id)).not.toContain(judgeId);
    expect(pool.agents).toHaveLength(prepared.agents.length - 1);
    const settings: ReplayVerifierSettings = { ...simulated('correlated'), kind: 'judge', judge: judgeId };
    const got = verdicts(settings, 'x', pool);
    const n = pool.agents.length;
    pool.tasks.forEach((task, taskIndex) => {
      const judgeKey = prepared.tasks[taskIndex]?.keys[0] ?? null;
      task.keys.forEach((key, position) => {
        expect(got[taskIndex * n + position]).toBe(key !== null && key === judgeKey ? 1 : 0);
      });
    });
    // Measured rates, recounted from the verdicts above.
    let wrong = 0;
    let caught = 0;
    let rightCount = 0;
    let accepted = 0;
    pool.tasks.forEach((task, taskIndex) =>
      task.keys.forEach((key, position) => {
        if (key === null) return;
        const verdict = got[taskIndex * n + position] as number;
        if (right(task, key)) {
          rightCount++;
          accepted += verdict;
        } else {
          wrong++;
          caught += 1 - verdict;
        }
      }),
    );
    const measured = measureReplayVerifier({ prepared: pool, settings, seed: 1 });
    expect(measured?.sensitivity).toBeCloseTo(caught / wrong, 12);
    expect(measured?.specificity).toBeCloseTo(accepted / rightCount, 12);
  });

  it('refuses a judge that is not in the pool, naming the agents', () => {
    expect(() => withJudge(prepared, 'nobody')).toThrow(/is not an agent of the dataset.*a00/);
  });
});
