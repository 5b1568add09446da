import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentIdentity } from '../core/agent-identity.js';
import type { Proposal } from '../core/proposal.js';
import { createRng } from '../core/rng.js';
import { createMiniRepModel } from '../reputation/minirep.js';
import { createMiniRepAggregator } from './minirep-aggregator.js';
import { createCloneInference, fitAgreement, wilsonLower } from './minirep-clone-inference.js';

/** Counts with seen = 99 and agree = 100·a − 0.5, so that r = (s + ½)/(n + 1) = a exactly. */
function countsOf(agreement: number[][]): { seen: number[][]; agree: number[][] } {
  return {
    seen: agreement.map((row) => row.map((_, j) => (row === agreement[j] ? 0 : 99))),
    agree: agreement.map((row) => row.map((value) => 100 * value - 0.5)),
  };
}

/** a_ij = p_i·p_j off the diagonal (the one-coin model without collisions). */
function product(accuracy: number[]): number[][] {
  return accuracy.map((left, i) => accuracy.map((right, j) => (i === j ? 0 : left * right)));
}

const settings = { minTasks: 20, margin: 0.25, z: 2 };

describe('clone inference: hand-computed values', () => {
  it('computes the Wilson lower bound', () => {
    // 9 of 10, z = 2: (0.9 + 4/20 − 2·√(0.09/10 + 4/400))/(1 + 4/10) = (1.1 − 0.2756810)/1.4 = 0.5887993
    expect(wilsonLower(9, 10, 2)).toBeCloseTo(0.5887993, 6);
    // 50 of 100, z = 0: the rate itself
    expect(wilsonLower(50, 100, 0)).toBeCloseTo(0.5, 12);
    expect(wilsonLower(0, 0, 2)).toBe(0);
  });

  it('flags a copying pair and nothing else', () => {
    // p = 0.9, 0.8, 0.7, 0.6, 0.5; agents 2 and 3 agree 0.95 instead of 0.7·0.6 = 0.42.
    const agreement = product([0.9, 0.8, 0.7, 0.6, 0.5]);
    (agreement[2] as number[])[3] = 0.95;
    (agreement[3] as number[])[2] = 0.95;
    const fit = fitAgreement(countsOf(agreement), ['a', 'b', 'c', 'd', 'e'], settings);
    expect(fit.flagged.map((pair) => [pair.left, pair.right])).toEqual([[2, 3]]);
    const [pair] = fit.flagged;
    // The trimmed fit recovers p from the other pairs: expected 0.7·0.6 = 0.42.
    expect(pair?.expected).toBeCloseTo(0.42, 6);
    expect(pair?.agreement).toBeCloseTo(94.5 / 99, 12);
    // Wilson lower bound of 94.5/99 at z = 2 minus 0.42: the excess.
    expect(pair?.excess).toBeCloseTo(wilsonLower(94.5, 99, 2) - 0.42, 6);
    // The other pairs are fitted exactly (a_ij = p_i·p_j), e.g. 0.9·0.8 = 0.72.
    expect(fit.expected[0]?.[1]).toBeCloseTo(0.72, 6);
  });

  it('does not flag two independent strong agents, nor pairs below minTasks or inside a declared group', () => {
    // Strong pair 0.95·0.9 = 0.855 agrees as independence predicts.
    expect(fitAgreement(countsOf(product([0.95, 0.9, 0.5, 0.4])), ['a', 'b', 'c', 'd'], settings).flagged).toEqual([]);
    const agreement = product([0.9, 0.8, 0.7, 0.6, 0.5]);
    (agreement[2] as number[])[3] = 0.95;
    (agreement[3] as number[])[2] = 0.95;
    // Declared clones (2 and 3 in one group) are known: never flagged.
    expect(fitAgreement(countsOf(agreement), ['a', 'b', 'c', 'c', 'e'], settings).flagged).toEqual([]);
    // 99 co-answered tasks are fewer than minTasks 100.
    expect(
      fitAgreement(countsOf(agreement), ['a', 'b', 'c', 'd', 'e'], { ...settings, minTasks: 100 }).flagged,
    ).toEqual([]);
  });

  it('the lower-quartile start finds clones who are half of their partners, which the median fit explains away', () => {
    // Agents 0..3 copy one 0.7 model (agreeing 0.92 where 0.7·0.7 = 0.49 is independence); 4, 5, 6 are
    // 0.75, 0.6, 0.45. Each clone has 3 clone partners of 6: the median fit settles on the clones as
    // accurate agents (√0.92 ≈ 0.96 each) and flags nothing.
    const agreement = product([0.7, 0.7, 0.7, 0.7, 0.75, 0.6, 0.45]);
    for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) if (i !== j) (agreement[i] as number[])[j] = 0.92;
    const groups = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    expect(fitAgreement(countsOf(agreement), groups, { ...settings, lowerStart: false }).flagged).toEqual([]);
    // The lower-quartile start leaves the clone pairs (0.92 against its fit) out, and the median
    // rounds then fit each clone's pairs with the others exactly (0.7·0.75 = 0.525, 0.42, 0.315): every
    // clone pair is flagged. (Those pairs are 4 of each other agent's 6, so they carry its median and
    // fix only x_clone + x_other: the fit of a clone pair lands near, not at, 0.7·0.7 = 0.49.)
    const fit = fitAgreement(countsOf(agreement), groups, { ...settings, lowerStart: true });
    expect(fit.flagged.map((pair) => [pair.left, pair.right])).toEqual([
      [0, 1],
      [0, 2],
      [0, 3],
      [1, 2],
      [1, 3],
      [2, 3],
    ]);
    for (const pair of fit.flagged) expect(pair.expected).toBeLessThan(0.6);
    for (let clone = 0; clone < 4; clone++)
      expect([4, 5, 6].map((other) => fit.expected[clone]?.[other])).toEqual([
        expect.closeTo(0.525, 6),
        expect.closeTo(0.42, 6),
        expect.closeTo(0.315, 6),
      ]);
  });

  it('the lower-quartile start merges half-team copiers when the groups are read after every task', () => {
    // a right 70 %; b, c, d copy a 90 % of the time, else answer as a 70 % agent; e, f, g right 75, 60,
    // 45 %. Wrong answers spread over 0..9. Read every task, as MiniRep reads it: a warm-started fit
    // would settle on the copiers as accurate agents, so the lower-quartile start fits from a cold start.
    const rng = createRng(5);
    const team = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((id) => ({ agentId: id, group: `m-${id}` }));
    const accuracy: Record<string, number> = { a: 0.7, b: 0.7, c: 0.7, d: 0.7, e: 0.75, f: 0.6, g: 0.45 };
    const withStart = createCloneInference({});
    const without = createCloneInference({ lowerStart: false });
    for (let task = 0; task < 100; task++) {
      const answers = new Map<string, string>();
      for (const { agentId } of team) {
        const own = rng() < (accuracy[agentId] ?? 0) ? 'right' : String(Math.floor(rng() * 10));
        const copies = agentId === 'b' || agentId === 'c' || agentId === 'd';
        answers.set(agentId, copies && rng() < 0.9 ? (answers.get('a') ?? own) : own);
      }
      for (const inference of [withStart, without]) {
        inference.groups(team);
        inference.observe(team.map((agent) => ({ ...agent, answer: answers.get(agent.agentId) ?? null })));
      }
    }
    const merged = (inference: typeof without) => {
      const { groupOf } = inference.groups(team);
      return team.map((agent) => groupOf.get(agent.agentId));
    };
    expect(merged(withStart)).toEqual(['m-a', 'm-a', 'm-a', 'm-a', 'm-e', 'm-f', 'm-g']);
    expect(merged(without)).toEqual(['m-a', 'm-b', 'm-c', 'm-d', 'm-e', 'm-f', 'm-g']);
    expect(() => createCloneInference({ lowerStart: 'yes' as unknown as boolean })).toThrow(
      /options\.inferClones\.lowerStart must be true or false, got "yes"/,
    );
  });

  it('infers a clone group from answers, explains it and round-trips its snapshot', () => {
    // a right 60 %, b copies a, c right 90 %, d right 70 %, e right 50 %; wrong answers spread over 0..9.
    // (A copy of a 90 % agent could not be told apart: 1.00 against 0.81 is below the margin.)
    const rng = createRng(36);
    const inference = createCloneInference({ decay: 1 });
    const team = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ agentId: id, group: `m-${id}` }));
    const accuracy: Record<string, number> = { a: 0.6, b: 0.6, c: 0.9, d: 0.7, e: 0.5 };
    for (let task = 0; task < 60; task++) {
      const answers = new Map<string, string>();
      for (const { agentId } of team) {
        const own = rng() < (accuracy[agentId] ?? 0) ? 'right' : String(Math.floor(rng() * 10));
        answers.set(agentId, agentId === 'b' ? (answers.get('a') ?? own) : own);
      }
      inference.observe(team.map((agent) => ({ ...agent, answer: answers.get(agent.agentId) ?? null })));
    }
    const { groupOf, reasons } = inference.groups(team);
    expect([...groupOf]).toEqual([
      ['a', 'm-a'],
      ['b', 'm-a'],
      ['c', 'm-c'],
      ['d', 'm-d'],
      ['e', 'm-e'],
    ]);
    expect(reasons.get('b')?.partner).toBe('a');
    expect(reasons.get('b')?.agreement).toBe(1);
    expect(reasons.get('b')?.tasks).toBe(60);
    const other = createCloneInference({ decay: 1 });
    other.restore(inference.snapshot());
    expect(other.snapshot()).toEqual(inference.snapshot());
    expect([...other.groups(team).groupOf]).toEqual([...groupOf]);
    expect(() => other.restore({ schemaVersion: 1, agents: [['a', 'm-a']], pairs: [[1, 0]] })).toThrow(
      /cloneInference/,
    );
  });

  it('caps an inferred clone in MiniRep and says why', () => {
    // a and b always agree (b copies a); c, d and e answer independently. After 30 tasks b is a's clone.
    const team: AgentIdentity[] = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id, model: `m-${id}` }));
    const model = createMiniRepModel({ agents: team.map((agent) => agent.id) });
    const aggregator = createMiniRepAggregator({ model, inferClones: { decay: 1 } });
    const rng = createRng(7);
    let last: ReturnType<typeof aggregator.aggregate> | undefined;
    for (let task = 0; task < 40; task++) {
      const answerOf = (p: number) => (rng() < p ? '1' : String(2 + Math.floor(rng() * 8)));
      const a = answerOf(0.6);
      const answers: Record<string, string> = { a, b: a, c: answerOf(0.8), d: answerOf(0.7), e: answerOf(0.6) };
      const proposals: Proposal[] = team.map((agent) => ({
        agentId: agent.id,
        taskId: `t${task}`,
        round: 0,
        text: answers[agent.id] ?? '',
        answer: answers[agent.id] ?? null,
      }));
      last = aggregator.aggregate({ task: { id: `t${task}`, kind: 'number', prompt: 'q' }, proposals, agents: team });
      model.observe(aggregator.feedback(last));
    }
    const reasonB = last?.reasons.find((reason) => reason.agentId === 'b');
    // The bloc check keeps the declared groups: a and b (2 of 5, a minority) share the wrong answers
    // c, d and e seldom hold, so they are also flagged as a coordinated bloc; an inferred group alone
    // would have hidden them from it.
    expect(reasonB?.note).toMatch(/coordinated bloc: shares answers that few others hold with a/);
    expect(reasonB?.note).toMatch(
      /inferred clone of a: agreement 1\.00 vs 0\.\d\d expected over 39 tasks \(group m-a\)/,
    );
    // Same answer, same group: the lighter of a and b counts ε = 0.1 of its weight.
    const capped = last?.reasons.filter((reason) => reason.agentId === 'a' || reason.agentId === 'b');
    expect(capped?.map((reason) => reason.components?.groupCap).sort()).toEqual([0.1, 1]);
    expect(aggregator.snapshot().cloneInference?.agents.length).toBe(5);
  });
});

describe('clone inference: properties', () => {
  const answer = fc.option(fc.constantFrom('1', '2', '3'), { nil: null, freq: 8 });

  it('relabelling the agents permutes the inferred groups', () => {
    let merged = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 6 }).chain((size) =>
          fc.tuple(
            fc.array(fc.array(answer, { minLength: size, maxLength: size }), { minLength: 25, maxLength: 45 }),
            // Agent i copies agent copyOf[i] when that is an earlier agent (a clone), else answers itself.
            fc.array(fc.integer({ min: -3, max: size - 1 }), { minLength: size, maxLength: size }),
          ),
        ),
        ([tasks, copyOf]) => {
          const size = copyOf.length;
          const ids = Array.from({ length: size }, (_, index) => `a${index}`);
          // A relabelling that reverses the ids' order (and so any tie-break by id).
          const renamed = ids.map((_, index) => `z${size - index}`);
          const answerOf = (row: (string | null)[], index: number): string | null => {
            const source = copyOf[index] ?? -1;
            return source >= 0 && source < index ? answerOf(row, source) : (row[index] ?? null);
          };
          const run = (names: string[]) => {
            const inference = createCloneInference({ minTasks: 10, margin: 0.2 });
            for (const row of tasks)
              inference.observe(
                names.map((agentId, index) => ({ agentId, group: agentId, answer: answerOf(row, index) })),
              );
            return inference.groups(names.map((agentId) => ({ agentId, group: agentId }))).groupOf;
          };
          const original = run(ids);
          const relabelled = run(renamed);
          // Same partition: i and j share a group in one run iff they do in the other.
          for (let i = 0; i < size; i++)
            for (let j = 0; j < size; j++)
              expect(original.get(ids[i] as string) === original.get(ids[j] as string)).toBe(
                relabelled.get(renamed[i] as string) === relabelled.get(renamed[j] as string),
              );
          if (new Set(original.values()).size < size) merged++;
        },
      ),
      { numRuns: 60, seed: 36 },
    );
    // The property is not vacuous: some runs merged agents.
    expect(merged).toBeGreaterThan(5);
  });

  it('lowerStart flags nothing and fits a_ij = p_i·p_j exactly when agents are independent', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0.35, max: 0.95, noNaN: true }), { minLength: 3, maxLength: 12 }), (p) => {
        const fit = fitAgreement(
          countsOf(product(p)),
          p.map((_, index) => `m${index}`),
          { ...settings, lowerStart: true },
        );
        expect(fit.flagged).toEqual([]);
        for (let i = 0; i < p.length; i++)
          for (let j = 0; j < p.length; j++)
            if (i !== j) expect(fit.expected[i]?.[j]).toBeCloseTo((p[i] as number) * (p[j] as number), 4);
      }),
      { numRuns: 100, seed: 36 },
    );
  });

  it('with too few tasks to flag anything, decisions equal plain MiniRep', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 3, max: 8 })
          .chain((size) =>
            fc.array(fc.array(answer, { minLength: size, maxLength: size }), { minLength: 1, maxLength: 19 }),
          ),
        (tasks) => {
          const size = tasks[0]?.length ?? 0;
          const team: AgentIdentity[] = Array.from({ length: size }, (_, index) => ({
            id: `a${index}`,
            model: `m${index}`,
          }));
          const run = (inferClones: boolean) => {
            const model = createMiniRepModel({ agents: team.map((agent) => agent.id) });
            const aggregator = createMiniRepAggregator({ model, ...(inferClones ? { inferClones: {} } : {}) });
            return tasks.map((row, task) => {
              const proposals: Proposal[] = team.map((agent, index) => ({
                agentId: agent.id,
                taskId: `t${task}`,
                round: 0,
                text: String(row[index]),
                answer: row[index] ?? null,
              }));
              const decision = aggregator.aggregate({
                task: { id: `t${task}`, kind: 'number', prompt: 'q' },
                proposals,
                agents: team,
              });
              model.observe(aggregator.feedback(decision));
              return decision;
            });
          };
          // Fewer than minTasks = 20 tasks: no pair can be flagged, so the decisions are the same.
          expect(run(true)).toEqual(run(false));
        },
      ),
      { numRuns: 100, seed: 36 },
    );
  });
});
