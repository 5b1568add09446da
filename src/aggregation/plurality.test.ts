import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../core/errors.js';
import type { Proposal } from '../core/proposal.js';
import type { Task } from '../core/task.js';
import { createPluralityAggregator, createWeightedPluralityAggregator, tallyVotes } from './plurality.js';

const task: Task = { id: 't1', kind: 'number', prompt: 'What is 2 + 2?' };
const propose = (agentId: string, answer: string | null): Proposal => ({
  agentId,
  taskId: 't1',
  round: 0,
  text: answer ?? 'no idea',
  answer,
});
const agents = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id, model: `m-${id}` }));

describe('tallyVotes', () => {
  it('sums weights per answer and picks the largest', () => {
    // support(4) = 1 + 0.5 = 1.5, support(5) = 2 -> 5 wins
    const tally = tallyVotes([
      { agentId: 'a', answer: '4', weight: 1 },
      { agentId: 'b', answer: '4', weight: 0.5 },
      { agentId: 'c', answer: '5', weight: 2 },
    ]);
    expect(tally.answer).toBe('5');
    expect(tally.support).toEqual({ '4': 1.5, '5': 2 });
  });

  it('breaks exact ties by key order and never lets null win', () => {
    // '15' and '-15' tie at 1; '-' (0x2d) sorts before '1' (0x31), so '-15' wins; null has 3 votes but never wins.
    const tally = tallyVotes([
      { agentId: 'a', answer: '15', weight: 1 },
      { agentId: 'b', answer: '-15', weight: 1 },
      { agentId: 'c', answer: null, weight: 1 },
      { agentId: 'd', answer: null, weight: 1 },
      { agentId: 'e', answer: null, weight: 1 },
    ]);
    expect(tally.answer).toBe('-15');
    expect(tally.support).toEqual({ '15': 1, '-15': 1 });
  });

  it('returns null when nothing parseable carries weight', () => {
    expect(tallyVotes([{ agentId: 'a', answer: null, weight: 1 }]).answer).toBeNull();
    expect(tallyVotes([{ agentId: 'a', answer: '3', weight: 0 }]).answer).toBeNull();
    expect(tallyVotes([]).answer).toBeNull();
  });

  it('refuses negative or NaN weights naming the vote', () => {
    expect(() => tallyVotes([{ agentId: 'a', answer: '1', weight: -1 }])).toThrow(InvalidArgumentError);
    expect(() => tallyVotes([{ agentId: 'a', answer: '1', weight: Number.NaN }])).toThrow(
      /votes\[0\]\.weight|agent "a"/,
    );
  });

  it('always elects some vote answer or null, independent of vote order', () => {
    const vote = fc.record({
      answer: fc.option(fc.constantFrom('1', '2', '3', '10'), { nil: null }),
      weight: fc.double({ min: 0, max: 5, noNaN: true }),
    });
    fc.assert(
      fc.property(fc.array(vote, { maxLength: 9 }), fc.integer(), (raw, seed) => {
        const votes = raw.map((entry, index) => ({ agentId: `a${index}`, ...entry }));
        const tally = tallyVotes(votes);
        if (tally.answer !== null) expect(votes.map((entry) => entry.answer)).toContain(tally.answer);
        const shuffled = votes
          .slice()
          .sort(
            (left, right) =>
              ((left.agentId.length * 31 + seed) % 7) - ((right.agentId.length * 17 + seed) % 5) ||
              (left.agentId < right.agentId ? 1 : -1),
          );
        expect(tallyVotes(shuffled)).toEqual(tally);
      }),
    );
  });
});

describe('plurality aggregators', () => {
  it('plurality counts one vote per parseable proposal and ignores weights', () => {
    const decision = createPluralityAggregator().aggregate({
      task,
      agents,
      proposals: [propose('a', '4'), propose('b', '4'), propose('c', '5'), propose('d', null), propose('e', null)],
      weights: { c: 100 },
    });
    expect(decision.answer).toBe('4');
    expect(decision.support).toEqual({ '4': 2, '5': 1 });
    expect(decision.reasons.find((reason) => reason.agentId === 'd')?.weight).toBe(0);
  });

  it('weighted plurality follows the input weights, missing agents weigh 0', () => {
    // support(4) = 0.2 + 0 (b missing) = 0.2, support(5) = 0.3 -> 5
    const decision = createWeightedPluralityAggregator().aggregate({
      task,
      agents,
      proposals: [propose('a', '4'), propose('b', '4'), propose('c', '5')],
      weights: { a: 0.2, c: 0.3 },
    });
    expect(decision.answer).toBe('5');
    expect(decision.support['4']).toBeCloseTo(0.2, 12);
    expect(decision.support['5']).toBeCloseTo(0.3, 12);
  });

  it('weighted plurality falls back to one vote each when all weights are 0', () => {
    const decision = createWeightedPluralityAggregator().aggregate({
      task,
      agents,
      proposals: [propose('a', '4'), propose('b', '4'), propose('c', '5')],
      weights: { a: 0, b: 0, c: 0 },
    });
    expect(decision.answer).toBe('4');
    expect(decision.reasons[0]?.note).toMatch(/fell back/);
  });

  it('refuses proposals of another task and duplicate agents', () => {
    const aggregator = createPluralityAggregator();
    expect(() => aggregator.aggregate({ task, agents, proposals: [{ ...propose('a', '4'), taskId: 't2' }] })).toThrow(
      /task "t2"/,
    );
    expect(() => aggregator.aggregate({ task, agents, proposals: [propose('a', '4'), propose('a', '5')] })).toThrow(
      InvalidArgumentError,
    );
    expect(() =>
      createWeightedPluralityAggregator().aggregate({
        task,
        agents,
        proposals: [propose('a', '4')],
        weights: { a: -1 },
      }),
    ).toThrow(/input\.weights\.a|weight of agent "a"/);
  });

  it('names the first repeated agent, in short lists (pair by pair) and long ones (a set) alike', () => {
    const aggregator = createPluralityAggregator();
    for (const size of [5, 16, 17, 40]) {
      // Agents p0 … p(size−2), then p1 again: the repeat is the last proposal.
      const proposals = Array.from({ length: size - 1 }, (_, index) => propose(`p${index}`, '4'));
      proposals.push(propose('p1', '5'));
      const many = proposals.map((proposal) => ({ id: proposal.agentId, model: 'm' }));
      let thrown: unknown;
      try {
        aggregator.aggregate({ task, agents: many, proposals });
      } catch (error) {
        thrown = error;
      }
      expect(thrown, `size ${size}`).toBeInstanceOf(InvalidArgumentError);
      expect((thrown as InvalidArgumentError).parameter, `size ${size}`).toBe(`input.proposals[${size - 1}].agentId`);
      expect((thrown as Error).message).toMatch(/agent "p1" has more than one final proposal/);
      expect(aggregator.aggregate({ task, agents: many, proposals: proposals.slice(0, -1) }).answer).toBe('4');
    }
  });

  it('decides bit for bit as the sort-then-tally definition, on repeated and reordered teams (property)', () => {
    // Second method: the definition written out (sort the votes by agent id, sum support per key in
    // that order, pick the largest positive support with ties to the first key in sorted order), as
    // plurality.ts computed it before it remembered the agent order between calls.
    const reference = (proposals: readonly Proposal[], weightOf: (agentId: string) => number, note: string) => {
      const ordered = proposals
        .map((proposal) => ({ agentId: proposal.agentId, answer: proposal.answer, weight: weightOf(proposal.agentId) }))
        .sort((left, right) => (left.agentId < right.agentId ? -1 : left.agentId > right.agentId ? 1 : 0));
      const support: Record<string, number> = {};
      for (const vote of ordered)
        if (vote.answer !== null) support[vote.answer] = (support[vote.answer] ?? 0) + vote.weight;
      let answer: string | null = null;
      let best = 0;
      for (const key of Object.keys(support).sort()) {
        if ((support[key] as number) > best) {
          answer = key;
          best = support[key] as number;
        }
      }
      const reasons = ordered.map((vote) => ({
        agentId: vote.agentId,
        weight: vote.answer === null ? 0 : vote.weight,
        components: { input: vote.weight, valid: vote.answer === null ? 0 : 1 },
        note: vote.answer === null ? 'unparseable answer: no vote' : note,
      }));
      return { taskId: 't1', answer, support, reasons };
    };
    const ids = ['q', 'b', 'zz', 'a', 'c2', 'c10', 'B'];
    const round = fc.record({
      order: fc.shuffledSubarray(ids, { minLength: 1 }),
      answers: fc.array(fc.option(fc.constantFrom('1', '2', '-3', '10', 'x', '01', '1.5'), { nil: null }), {
        minLength: ids.length,
        maxLength: ids.length,
      }),
      weights: fc.array(fc.constantFrom(0, 0.1, 0.2, 0.3, 1 / 3, 0.7), {
        minLength: ids.length,
        maxLength: ids.length,
      }),
      repeat: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(round, { minLength: 1, maxLength: 8 }), (rounds) => {
        const plain = createPluralityAggregator();
        const weighted = createWeightedPluralityAggregator();
        let previous: string[] | undefined;
        for (const { order, answers, weights, repeat } of rounds) {
          const team = repeat && previous !== undefined ? previous : order;
          previous = team;
          const proposals = team.map((id) => propose(id, answers[ids.indexOf(id)] ?? null));
          const weightRecord = Object.fromEntries(team.map((id) => [id, weights[ids.indexOf(id)] as number]));
          const input = { task, proposals, agents: team.map((id) => ({ id, model: id })) };
          const one = plain.aggregate(input);
          expect(one).toStrictEqual(reference(proposals, () => 1, 'one vote'));
          // support: false leaves only the support record out.
          expect(plain.aggregate({ ...input, support: false })).toStrictEqual({ ...one, support: {} });
          expect(Object.keys(one.support)).toEqual(Object.keys(reference(proposals, () => 1, 'one vote').support));
          const total = proposals.reduce(
            (sum, proposal) => sum + (proposal.answer === null ? 0 : (weightRecord[proposal.agentId] as number)),
            0,
          );
          const expected =
            total === 0
              ? reference(proposals, () => 1, 'all weights 0: fell back to one vote each')
              : reference(proposals, (id) => weightRecord[id] as number, 'input weight');
          const decided = weighted.aggregate({ ...input, weights: weightRecord });
          expect(decided).toStrictEqual(expected);
          expect(weighted.aggregate({ ...input, weights: weightRecord, support: false })).toStrictEqual({
            ...expected,
            support: {},
          });
          expect(Object.keys(decided.support)).toEqual(Object.keys(expected.support));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('answer keys named like Object.prototype members', () => {
  // Keys are answers, and an answer can be any text: "constructor" must be counted like "4", and
  // "__proto__" stored as an own key (a plain assignment would call the inherited setter and drop it).
  const keys = ['constructor', 'toString', '__proto__'] as const;

  it('tallyVotes counts them as keys', () => {
    for (const key of keys) {
      const tally = tallyVotes([
        { agentId: 'a', answer: key, weight: 1 },
        { agentId: 'b', answer: key, weight: 0.5 },
        { agentId: 'c', answer: '4', weight: 1 },
      ]);
      // support(key) = 1 + 0.5 = 1.5 > support(4) = 1
      expect(tally.answer, key).toBe(key);
      expect(Object.hasOwn(tally.support, key), key).toBe(true);
      expect(tally.support[key], key).toBe(1.5);
      expect(tally.support['4'], key).toBe(1);
    }
  });

  it('the plurality aggregators put them in the support record as own keys', () => {
    for (const key of keys) {
      const proposals = [propose('a', key), propose('b', key), propose('c', '4')];
      const decision = createPluralityAggregator().aggregate({ task, proposals, agents });
      expect(decision.answer, key).toBe(key);
      expect(Object.keys(decision.support).sort(), key).toEqual(['4', key].sort());
      expect(decision.support[key], key).toBe(2);
      const weighted = createWeightedPluralityAggregator().aggregate({
        task,
        proposals,
        agents,
        weights: { a: 0.25, b: 0.25, c: 0.75 },
      });
      // support(key) = 0.25 + 0.25 = 0.5 < support(4) = 0.75
      expect(weighted.answer, key).toBe('4');
      expect(weighted.support[key], key).toBe(0.5);
    }
  });
});

describe('weights of agents named like Object.prototype members', () => {
  it('an agent without an own weight weighs 0, even named constructor', () => {
    // support(x) = 0 (constructor has no weight of its own), support(y) = 0.4 -> y
    const decision = createWeightedPluralityAggregator().aggregate({
      task,
      agents: [
        { id: 'constructor', model: 'm1' },
        { id: 'b', model: 'm2' },
      ],
      proposals: [propose('constructor', 'x'), propose('b', 'y')],
      weights: { b: 0.4 },
    });
    expect(decision.answer).toBe('y');
    expect(decision.support).toEqual({ x: 0, y: 0.4 });
    expect(decision.reasons.find((reason) => reason.agentId === 'constructor')?.note).toBe('no input weight: 0');
  });
});
