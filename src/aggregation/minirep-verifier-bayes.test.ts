import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentIdentity } from '../core/agent-identity.js';
import { InvalidArgumentError } from '../core/errors.js';
import type { Proposal } from '../core/proposal.js';
import type { Task } from '../core/task.js';
import { createMiniRepModel } from '../reputation/minirep.js';
import { createMiniRepAggregator } from './minirep-aggregator.js';
import { miniRepVbOptions, miniRepVgOptions } from './minirep-variants.js';
import {
  answerPosterior,
  argmaxAnswer,
  cappedSupport,
  createVerifierReliability,
  gatedAnswer,
  verdictsByAnswer,
  verifierGateOpen,
  verifierLogLikelihoodRatio,
} from './minirep-verifier-bayes.js';

const task = (id: string): Task => ({ id, kind: 'number', prompt: `question ${id}` });
const propose = (taskId: string, agentId: string, answer: string | null): Proposal => ({
  agentId,
  taskId,
  round: 0,
  text: String(answer),
  answer,
});

describe('verifierLogLikelihoodRatio', () => {
  it('is ln(sens/(1 − spec)) for an accept and ln((1 − sens)/spec) for a reject', () => {
    // ln(0.9/0.2) = ln 4.5 = 1.504077; ln(0.1/0.8) = ln 0.125 = −2.079442
    expect(verifierLogLikelihoodRatio({ sensitivity: 0.9, specificity: 0.8 }, 1)).toBeCloseTo(1.504077, 6);
    expect(verifierLogLikelihoodRatio({ sensitivity: 0.9, specificity: 0.8 }, 0)).toBeCloseTo(-2.079442, 6);
    // v = 0.5: (1.504077 − 2.079442)/2 = −0.287682
    expect(verifierLogLikelihoodRatio({ sensitivity: 0.9, specificity: 0.8 }, 0.5)).toBeCloseTo(-0.287682, 6);
    // clamped: ln(0.999/0.001) = 6.906755 → 6
    expect(verifierLogLikelihoodRatio({ sensitivity: 0.999, specificity: 0.999 }, 1)).toBe(6);
  });

  it('is 0 for every verdict of an uninformative verifier (sens = 1 − spec)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (sensitivity, verdict) => {
          expect(
            Math.abs(verifierLogLikelihoodRatio({ sensitivity, specificity: 1 - sensitivity }, verdict)),
          ).toBeLessThan(1e-12);
        },
      ),
    );
  });
});

describe('answerPosterior and argmaxAnswer', () => {
  it('reproduces a hand-computed posterior', () => {
    // exp(ln 3) / (3 + 1) = 0.75, none 0.25
    const { posterior, none } = answerPosterior(new Map([['1', Math.log(3)]]), 0);
    expect(posterior.get('1')).toBeCloseTo(0.75, 12);
    expect(none).toBeCloseTo(0.25, 12);
    // scores ln 2, ln 1, s₀ = ln 1: 2/4, 1/4, 1/4
    const two = answerPosterior(
      new Map([
        ['a', Math.log(2)],
        ['b', 0],
      ]),
      0,
    );
    expect(two.posterior.get('a')).toBeCloseTo(0.5, 12);
    expect(two.posterior.get('b')).toBeCloseTo(0.25, 12);
    expect(two.none).toBeCloseTo(0.25, 12);
  });

  it('is a probability distribution over the answers and "none"', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 3 }), fc.double({ min: -50, max: 50, noNaN: true })),
        fc.double({ min: -10, max: 10, noNaN: true }),
        (record, noneScore) => {
          const { posterior, none } = answerPosterior(new Map(Object.entries(record)), noneScore);
          let total = none;
          for (const value of posterior.values()) {
            expect(value).toBeGreaterThanOrEqual(0);
            total += value;
          }
          expect(total).toBeCloseTo(1, 9);
        },
      ),
    );
  });

  it('picks the highest score even below 0, ties to the key that sorts first', () => {
    expect(
      argmaxAnswer(
        new Map([
          ['1', -0.5],
          ['2', -1],
        ]),
      ),
    ).toBe('1');
    expect(
      argmaxAnswer(
        new Map([
          ['b', 2],
          ['a', 2],
        ]),
      ),
    ).toBe('a');
    expect(argmaxAnswer(new Map())).toBeNull();
  });

  it('keeps the argmax of the agents’ support when every LLR is 0', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom('1', '2', '3', '4'), fc.double({ min: 0, max: 20, noNaN: true }), {
          minKeys: 1,
        }),
        fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        fc.dictionary(fc.constantFrom('1', '2', '3', '4'), fc.double({ min: 0, max: 1, noNaN: true })),
        (support, sensitivity, verdicts) => {
          const scores = new Map(
            Object.entries(support).map(([key, value]) => [
              key,
              value +
                (Object.hasOwn(verdicts, key)
                  ? verifierLogLikelihoodRatio({ sensitivity, specificity: 1 - sensitivity }, verdicts[key] as number)
                  : 0),
            ]),
          );
          expect(argmaxAnswer(scores)).toBe(argmaxAnswer(new Map(Object.entries(support))));
        },
      ),
    );
  });
});

describe('verdictsByAnswer', () => {
  it('averages the verdicts of the proposals giving each answer and skips the rest', () => {
    const verdicts = verdictsByAnswer([
      { answer: '1', verdict: 1 },
      { answer: '1', verdict: 0 },
      { answer: '2', verdict: 0 },
      { answer: null, verdict: 1 },
      { answer: '3', verdict: undefined },
    ]);
    expect([...verdicts]).toEqual([
      ['1', 0.5],
      ['2', 0],
    ]);
  });
});

describe('createVerifierReliability', () => {
  it('reproduces two hand-computed online EM steps', () => {
    const reliability = createVerifierReliability({
      priorTruePositive: 2,
      priorFalseNegative: 2,
      priorTrueNegative: 2,
      priorFalsePositive: 2,
    });
    // Beta(2, 2) priors: sens = spec = 0.5, LLR 0.
    expect(reliability.logLikelihoodRatio(1)).toBe(0);
    // Task 1: accept on π = 0.75, reject on π = 0.2:
    //   TP = 0.75, P = 0.95, TN = 0.25·0 + 0.8·1 = 0.8, N = 0.25 + 0.8 = 1.05
    //   sens = 2.75/4.95 = 0.555556, spec = 2.8/5.05 = 0.554455
    reliability.observe([
      { verdict: 1, posterior: 0.75 },
      { verdict: 0, posterior: 0.2 },
    ]);
    expect(reliability.sensitivity()).toBeCloseTo(2.75 / 4.95, 12);
    expect(reliability.specificity()).toBeCloseTo(2.8 / 5.05, 12);
    // Task 2 (λ = 0.99): accept on π = 1: TP = 0.7425 + 1, P = 0.9405 + 1, TN = 0.792, N = 1.0395
    //   sens = 3.7425/5.9405 = 0.629997, spec = 2.792/5.0395 = 0.554023
    reliability.observe([{ verdict: 1, posterior: 1 }]);
    expect(reliability.sensitivity()).toBeCloseTo(0.629997, 6);
    expect(reliability.specificity()).toBeCloseTo(0.554023, 6);
    // LLR(accept) = ln(0.629997/(1 − 0.554023)) = ln(1.412619) = 0.345444
    expect(reliability.logLikelihoodRatio(1)).toBeCloseTo(Math.log(0.629997 / 0.445977), 5);
    const copy = createVerifierReliability({
      priorTruePositive: 2,
      priorFalseNegative: 2,
      priorTrueNegative: 2,
      priorFalsePositive: 2,
    });
    copy.restore(reliability.snapshot());
    expect(copy.sensitivity()).toBe(reliability.sensitivity());
    expect(copy.specificity()).toBe(reliability.specificity());
  });

  it('starts from the default priors 16:2 (LLR ±ln 8) and learns a verifier that agrees with a confident team', () => {
    const reliability = createVerifierReliability();
    // sens = spec = 16/18: ln((16/18)/(2/18)) = ln 8 = 2.079442
    expect(reliability.logLikelihoodRatio(1)).toBeCloseTo(2.079442, 6);
    expect(reliability.logLikelihoodRatio(0)).toBeCloseTo(-2.079442, 6);
    for (let index = 0; index < 200; index++)
      reliability.observe([
        { verdict: 1, posterior: 0.99 },
        { verdict: 0, posterior: 0.01 },
      ]);
    expect(reliability.sensitivity()).toBeGreaterThan(0.97);
    expect(reliability.specificity()).toBeGreaterThan(0.97);
  });

  it('names the field of a bad option or observation', () => {
    expect(() => createVerifierReliability({ decay: 0 })).toThrow(InvalidArgumentError);
    expect(() => createVerifierReliability({ priorTruePositive: -1 })).toThrow(/priorTruePositive/);
    expect(() => createVerifierReliability({ decays: 3 } as never)).toThrow(/decays/);
    expect(() => createVerifierReliability().observe([{ verdict: 2, posterior: 0.5 }])).toThrow(/verdict/);
  });
});

describe('shared-error floor (capConsensus)', () => {
  it('reproduces hand-computed floored supports', () => {
    // −ln(e^(−ln 3) + e^(−ln 3)) = −ln(2/3) = ln 1.5 = 0.405465
    expect(cappedSupport(Math.log(3), Math.log(3))).toBeCloseTo(0.405465, 6);
    // s = 0, C = ln 4: −ln(1 + 1/4) = −0.223144
    expect(cappedSupport(0, Math.log(4))).toBeCloseTo(-0.223144, 6);
    // s = 20 ≫ C = 3: 3 − ln(1 + e^(−17)) = 2.99999996
    expect(cappedSupport(20, 3)).toBeCloseTo(3 - 4.14e-8, 9);
  });

  it('is increasing in the support and below both the support and the cap', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -20, max: 20, noNaN: true }),
        fc.double({ min: 0.001, max: 5, noNaN: true }),
        fc.double({ min: -5, max: 10, noNaN: true }),
        (support, step, cap) => {
          const value = cappedSupport(support, cap);
          expect(value).toBeLessThanOrEqual(Math.min(support, cap));
          expect(cappedSupport(support + step, cap)).toBeGreaterThan(value);
        },
      ),
    );
  });

  it('learns the team precision r and the cap C = ln(r/((1 − r)·q)) by hand-computed steps', () => {
    const reliability = createVerifierReliability();
    // Prior 8:2: r = 0.8, C = ln(0.8/(0.2·0.15)) = ln 26.6667 = 3.283414
    expect(reliability.teamPrecision()).toBeCloseTo(0.8, 12);
    expect(reliability.consensusCap()).toBeCloseTo(3.283414, 6);
    // π(top) = 0.5: R = 0.5, T = 1, r = 8.5/11 = 0.772727, C = ln(0.772727/(0.227273·0.15)) = 3.120895
    reliability.observeTeam(0.5);
    expect(reliability.teamPrecision()).toBeCloseTo(0.772727, 6);
    expect(reliability.consensusCap()).toBeCloseTo(3.120895, 6);
    // λ = 0.99, π(top) = 1: R = 0.495 + 1, T = 0.99 + 1, r = 9.495/11.99 = 0.791910, C = 3.233597
    reliability.observeTeam(1);
    expect(reliability.teamPrecision()).toBeCloseTo(0.79191, 5);
    expect(reliability.consensusCap()).toBeCloseTo(3.233597, 6);
    const copy = createVerifierReliability();
    copy.restore(reliability.snapshot());
    expect(copy.consensusCap()).toBe(reliability.consensusCap());
    expect(() => reliability.observeTeam(1.5)).toThrow(/posteriorOfTop/);
    expect(() => createVerifierReliability({ capConsensus: 'yes' } as never)).toThrow(/capConsensus/);
    expect(() => createVerifierReliability({ collision: 1 })).toThrow(/collision/);
  });

  it('lets a reliable verifier overturn a four-group consensus that plain naive Bayes keeps', () => {
    const five: AgentIdentity[] = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id, model: id.toUpperCase() }));
    const votes = [
      propose('t1', 'a', '1'),
      propose('t1', 'b', '1'),
      propose('t1', 'c', '1'),
      propose('t1', 'd', '1'),
      propose('t1', 'e', '2'),
    ];
    const judged = { a: 0, b: 0, c: 0, d: 0, e: 1 };
    // LLR = ±ln 8 = ±2.079442; each vote weighs in [1.686329, 1.897120] (as above).
    // Naive Bayes (the default, capConsensus: false): score(1) ≥ 4·1.686329 − 2.079442 = 4.665874 > score(2) ≤ 1.897120 + 2.079442 = 3.976562.
    const naive = createMiniRepAggregator({
      model: createMiniRepModel({ agents: five.map((agent) => agent.id) }),
      ...miniRepVbOptions,
    });
    expect(naive.aggregate({ task: task('t1'), proposals: votes, agents: five, verdicts: judged }).answer).toBe('1');
    // Floored at C = 3.283414: score(1) < 3.283414 − 2.079442 = 1.203972, score(2) ≥ −ln(e^(−1.686329) +
    // e^(−3.283414)) + 2.079442 = 1.501938 + 2.079442 = 3.581380.
    const floored = createMiniRepAggregator({
      model: createMiniRepModel({ agents: five.map((agent) => agent.id) }),
      ...miniRepVbOptions,
      verifierReliability: { capConsensus: true },
    });
    expect(floored.aggregate({ task: task('t1'), proposals: votes, agents: five, verdicts: judged }).answer).toBe('2');
  });
});

describe('MiniRep-VB (verifierEvidence: likelihood)', () => {
  const agents: AgentIdentity[] = [
    { id: 'a', model: 'A' },
    { id: 'b', model: 'B' },
    { id: 'c', model: 'C' },
  ];
  const proposals = [propose('t1', 'a', '1'), propose('t1', 'b', '1'), propose('t1', 'c', '2')];
  const verdicts = { a: 0, b: 0, c: 1 };

  it('lets a reliable verifier overturn a two-to-one vote that the paper’s rule keeps', () => {
    // Default priors 16:2: sens = spec = 8/9 before any task, LLR(accept) = ln 8 = 2.079442, LLR(reject)
    // = −2.079442. Each agent's vote weighs at most ln(0.5/(0.5·0.15)) = 1.897120 (p = 0.5), and at least
    // 1.897120·8/9 = 1.686329 (κ_ds = 8, Q ≥ 0): score(1) ≤ 2·1.897120 − 2.079442 = 1.714798 and
    // score(2) ≥ 1.686329 + 2.079442 = 3.765771.
    const reliable = createMiniRepAggregator({
      model: createMiniRepModel({ agents: agents.map((agent) => agent.id) }),
      ...miniRepVbOptions,
    });
    expect(reliable.aggregate({ task: task('t1'), proposals, agents, verdicts }).answer).toBe('2');
    const paper = createMiniRepAggregator({ model: createMiniRepModel({ agents: agents.map((agent) => agent.id) }) });
    expect(paper.aggregate({ task: task('t1'), proposals, agents, verdicts }).answer).toBe('1');
    // Priors 2:2 (0.5/0.5) make the verifier uninformative on the first task: the vote stands.
    const fresh = createMiniRepAggregator({
      model: createMiniRepModel({ agents: agents.map((agent) => agent.id) }),
      ...miniRepVbOptions,
      verifierReliability: { priorTruePositive: 2, priorFalseNegative: 2, priorTrueNegative: 2, priorFalsePositive: 2 },
    });
    expect(fresh.aggregate({ task: task('t1'), proposals, agents, verdicts }).answer).toBe('1');
  });

  it('decides exactly as minirep on tasks without verdicts', () => {
    const team: AgentIdentity[] = ['a', 'b', 'c', 'd', 'e'].map((id, index) => ({ id, model: `m${index % 3}` }));
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom('1', '2', '3', null), { minLength: 5, maxLength: 5 }), {
          minLength: 1,
          maxLength: 12,
        }),
        (answers) => {
          const vbModel = createMiniRepModel({ agents: team.map((agent) => agent.id) });
          const plainModel = createMiniRepModel({ agents: team.map((agent) => agent.id) });
          const paper = createMiniRepAggregator({ model: plainModel });
          const vb = createMiniRepAggregator({ model: vbModel, ...miniRepVbOptions });
          answers.forEach((row, index) => {
            const id = `t${index}`;
            const taskProposals = row.map((answer, at) => propose(id, team[at]?.id as string, answer));
            const left = paper.aggregate({ task: task(id), proposals: taskProposals, agents: team });
            const right = vb.aggregate({ task: task(id), proposals: taskProposals, agents: team });
            expect(right).toEqual(left);
            plainModel.observe(paper.feedback(left));
            vbModel.observe(vb.feedback(right));
          });
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('MiniRep-VG (verifierGate)', () => {
  it('opens the gate when Δ = LLR(accept) − LLR(reject) ≥ margin · C (hand-computed)', () => {
    // C = ln(0.8/(0.2·0.15)) = ln 26.666667 = 3.283414; 2C = 6.566828.
    const cap = Math.log(0.8 / (0.2 * 0.15));
    expect(cap).toBeCloseTo(3.283414, 6);
    // A declared 0.99/0.95 judge: Δ = ln(0.99/0.05) − ln(0.01/0.95) = 2.985682 + 4.553877 = 7.539559 ≥ 6.566828.
    const strong = { acceptRatio: Math.log(0.99 / 0.05), rejectRatio: Math.log(0.01 / 0.95) };
    expect(strong.acceptRatio - strong.rejectRatio).toBeCloseTo(7.539559, 6);
    expect(verifierGateOpen({ ...strong, cap, margin: 2 })).toBe(true);
    // A declared 0.94/0.57 judge: Δ = ln(0.94/0.43) − ln(0.06/0.57) = 0.782095 + 2.251292 = 3.033386 < 6.566828.
    const mid = { acceptRatio: Math.log(0.94 / 0.43), rejectRatio: Math.log(0.06 / 0.57) };
    expect(mid.acceptRatio - mid.rejectRatio).toBeCloseTo(3.033386, 6);
    expect(verifierGateOpen({ ...mid, cap, margin: 2 })).toBe(false);
    // …but it is open at margin 0.9 (3.033386 ≥ 2.955073).
    expect(verifierGateOpen({ ...mid, cap, margin: 0.9 })).toBe(true);
  });

  it('picks the best-scoring accepted answer, an unbacked one scoring its LLR alone, and null when none is accepted', () => {
    const llr = (verdict: number) => (verdict >= 0.5 ? 2 : -3);
    // Accepted: '2' (score 1) and '3' (no pooled support: LLR 2); '1' (score 5) is rejected.
    expect(
      gatedAnswer(
        new Map([
          ['1', 5],
          ['2', 1],
        ]),
        new Map([
          ['1', 0],
          ['2', 1],
          ['3', 1],
        ]),
        llr,
      ),
    ).toBe('3');
    // '2' at 2.5 beats the unbacked '3' at 2.
    expect(
      gatedAnswer(
        new Map([
          ['1', 5],
          ['2', 2.5],
        ]),
        new Map([
          ['1', 0],
          ['2', 1],
          ['3', 1],
        ]),
        llr,
      ),
    ).toBe('2');
    // Ties to the key that sorts first.
    expect(
      gatedAnswer(
        new Map([['2', 2]]),
        new Map([
          ['2', 1],
          ['10', 1],
        ]),
        llr,
      ),
    ).toBe('10');
    expect(
      gatedAnswer(
        new Map([['1', 5]]),
        new Map([
          ['1', 0],
          ['2', 0.4],
        ]),
        llr,
      ),
    ).toBeNull();
  });

  const seven: AgentIdentity[] = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((id) => ({ id, model: id.toUpperCase() }));
  const votes = seven.map((agent) => propose('t1', agent.id, agent.id === 'g' ? '2' : '1'));
  const judged = { a: 0, b: 0, c: 0, d: 0, e: 0, f: 0, g: 1 };
  const fresh = (options: object) =>
    createMiniRepAggregator({ model: createMiniRepModel({ agents: seven.map((agent) => agent.id) }), ...options });

  it('lets a decisive declared judge overrule a six-group consensus that MiniRep-VB keeps (hand-computed)', () => {
    const declared = { sensitivity: 0.99, specificity: 0.95 };
    // Before any task: sens = 990/1000, spec = 950/1000, LLR(accept) = 2.985682, LLR(reject) = −4.553877;
    // r = 8/10, C = 3.283414; Δ = 7.539559 ≥ 2C = 6.566828: the gate is open.
    // MiniRep-VB with the same rates: each vote weighs in [1.686329, 1.897120] (above), so
    // score(1) ≥ 6·1.686329 − 4.553877 = 5.564097 > score(2) ≤ 1.897120 + 2.985682 = 4.882802: '1'.
    const vb = fresh({ ...miniRepVbOptions, verifierReliability: miniRepVgOptions(declared).verifierReliability });
    expect(vb.aggregate({ task: task('t1'), proposals: votes, agents: seven, verdicts: judged }).answer).toBe('1');
    // MiniRep-VG: the only accepted answer, '2'.
    const vg = fresh(miniRepVgOptions(declared));
    expect(vg.aggregate({ task: task('t1'), proposals: votes, agents: seven, verdicts: judged }).answer).toBe('2');
    // A mid-quality declared judge (0.94/0.57, Δ = 3.033386 < 6.566828): the gate stays shut, MiniRep-VB's '1'.
    const mid = fresh(miniRepVgOptions({ sensitivity: 0.94, specificity: 0.57 }));
    expect(mid.aggregate({ task: task('t1'), proposals: votes, agents: seven, verdicts: judged }).answer).toBe('1');
    // Without a declared calibration (learnt rates, priors 16:2: Δ = 2·ln 8 = 4.158883 < 6.566828): shut too.
    const learnt = fresh(miniRepVgOptions());
    expect(learnt.aggregate({ task: task('t1'), proposals: votes, agents: seven, verdicts: judged }).answer).toBe('1');
  });

  it('falls back to MiniRep-VB’s answer when the open gate finds no accepted answer', () => {
    const vg = fresh(miniRepVgOptions({ sensitivity: 0.99, specificity: 0.95 }));
    const vb = fresh({
      ...miniRepVbOptions,
      verifierReliability: miniRepVgOptions({ sensitivity: 0.99, specificity: 0.95 }).verifierReliability,
    });
    const none = { a: 0, b: 0, c: 0, d: 0, e: 0, f: 0, g: 0 };
    const left = vg.aggregate({ task: task('t1'), proposals: votes, agents: seven, verdicts: none });
    expect(left.answer).toBe('1');
    expect(left).toEqual(vb.aggregate({ task: task('t1'), proposals: votes, agents: seven, verdicts: none }));
  });

  it('rejects a gate without the likelihood evidence and a bad margin', () => {
    expect(() => fresh({ verifierGate: { margin: 2 } })).toThrow(/verifierEvidence 'likelihood'/);
    expect(() => fresh({ ...miniRepVbOptions, verifierGate: { margin: -1 } })).toThrow(InvalidArgumentError);
    expect(() => fresh({ ...miniRepVbOptions, verifierGate: { margn: 2 } })).toThrow(/margn/);
  });

  it('decides exactly as minirep and minirep-vb on tasks without verdicts, declared calibration or not', () => {
    const team: AgentIdentity[] = ['a', 'b', 'c', 'd', 'e'].map((id, index) => ({ id, model: `m${index % 3}` }));
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom('1', '2', '3', null), { minLength: 5, maxLength: 5 }), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.boolean(),
        (answers, declare) => {
          const ids = team.map((agent) => agent.id);
          const models = [
            createMiniRepModel({ agents: ids }),
            createMiniRepModel({ agents: ids }),
            createMiniRepModel({ agents: ids }),
          ];
          const aggregators = [
            createMiniRepAggregator({ model: models[0] as never }),
            createMiniRepAggregator({ model: models[1] as never, ...miniRepVbOptions }),
            createMiniRepAggregator({
              model: models[2] as never,
              ...miniRepVgOptions(declare ? { sensitivity: 0.99, specificity: 0.95 } : undefined),
            }),
          ];
          answers.forEach((row, index) => {
            const id = `t${index}`;
            const taskProposals = row.map((answer, at) => propose(id, team[at]?.id as string, answer));
            const decisions = aggregators.map((aggregator) =>
              aggregator.aggregate({ task: task(id), proposals: taskProposals, agents: team }),
            );
            expect(decisions[2]).toEqual(decisions[0]);
            expect(decisions[1]).toEqual(decisions[0]);
            decisions.forEach((decision, at) => models[at]?.observe(aggregators[at]?.feedback(decision) ?? []));
          });
        },
      ),
      { numRuns: 60 },
    );
  });
});
