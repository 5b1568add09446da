import { describe, expect, it } from 'vitest';
import { createBetaModel } from '../../reputation/beta.js';
import { auditEvidence, peerReputation, witnessReports } from './watchdog.js';

describe('watchdog', () => {
  it('turns audits into decayed Beta evidence (hand-computed, lambda = 0.9)', () => {
    const model = createBetaModel({ agents: ['a', 'b', 'c'], lambda: 0.9 });
    const audit = (auditor: string, subject: string, reliable: boolean, messageId: string) => ({
      auditor,
      subject,
      reliable,
      messageId,
      reason: '',
    });
    model.observe(auditEvidence([audit('a', 'b', true, 'm1'), audit('a', 'c', false, 'm2')], 't1', ['a', 'b', 'c']));
    // a about b: r = 1, s = 0 -> E = 2/3; a about c: r = 0, s = 1 -> E = 1/3.
    expect(model.belief('a', 'b').expectation).toBeCloseTo(2 / 3, 12);
    expect(model.belief('a', 'c').expectation).toBeCloseTo(1 / 3, 12);
    model.observe(auditEvidence([audit('a', 'b', true, 'm3')], 't2', ['a', 'b', 'c']));
    // r = 0.9 * 1 + 1 = 1.9, s = 0.9 * 0 + 0 = 0 -> E = 2.9 / 3.9.
    expect(model.belief('a', 'b').expectation).toBeCloseTo(2.9 / 3.9, 12);
    expect(model.isTrusted('a', 'c')).toBe(false);
  });

  it('orders audits canonically, so arrival order does not change beliefs', () => {
    const audits = [
      { auditor: 'b', subject: 'a', reliable: false, messageId: 'm2', reason: '' },
      { auditor: 'a', subject: 'c', reliable: true, messageId: 'm9', reason: '' },
      { auditor: 'a', subject: 'c', reliable: false, messageId: 'm1', reason: '' },
    ];
    const forward = auditEvidence(audits, 't', ['a', 'b', 'c']);
    const backward = auditEvidence(audits.slice().reverse(), 't', ['a', 'b', 'c']);
    expect(backward).toEqual(forward);
    expect(forward.map((item) => `${item.observer}>${item.subject}:${item.success}`)).toEqual([
      'a>c:0',
      'a>c:1',
      'b>a:0',
    ]);
  });

  it('merges a consistent witness report with discount omega and updates trust in the witness', () => {
    const model = createBetaModel({
      agents: ['a', 'b', 'c'],
      lambda: 0.9,
      delta: 1.5,
      omega: 0.3,
      witnessCredibility: 'shared',
    });
    const order = ['a', 'b', 'c'];
    // a: one reliable audit of b, one unreliable of c. b: two unreliable audits of c -> (0, 1.9).
    model.observe([
      { type: 'outcome', taskId: 't', observer: 'a', subject: 'b', success: 1 },
      { type: 'outcome', taskId: 't', observer: 'a', subject: 'c', success: 0 },
      { type: 'outcome', taskId: 't', observer: 'b', subject: 'c', success: 0 },
      { type: 'outcome', taskId: 't', observer: 'b', subject: 'c', success: 0 },
    ]);
    const reports = witnessReports({ model, order, heardFrom: new Map([['a', new Set(['b'])]]) });
    expect(reports).toEqual([
      { type: 'witness', observer: 'a', witness: 'b', subject: 'c', positive: 0, negative: expect.closeTo(1.9, 12) },
    ]);
    // E_l = 1/3, Var_l = 2 / (9 * 4) = 1/18; E_w = 1 / 3.9, Var_w = 2.9 / (3.9^2 * 4.9).
    // D = |1/3.9 - 1/3| / sqrt(1/18 + 2.9/74.529) = 0.076923 / 0.307355 = 0.25028 < 1.5: accepted.
    expect(model.assessWitness(reports[0]!).deviation).toBeCloseTo(0.076923 / 0.307355, 4);
    model.observe(reports);
    // Merge: s = 1 + 0.3 * 1.9 = 1.57 -> E_a[c] = 1 / 3.57; trust in b: r = 0.9 * 1 + 1 = 1.9 -> 2.9 / 3.9.
    expect(model.belief('a', 'c').expectation).toBeCloseTo(1 / 3.57, 12);
    expect(model.belief('a', 'b').expectation).toBeCloseTo(2.9 / 3.9, 12);
  });

  it('with separate credibility, the accepted report raises trust_of(a, b) and leaves reputation_of(a, b) alone', () => {
    // Same evidence as above. Merge: E_a[c] = 1 / 3.57 as before; trust_of(a, b): (0.9·0 + 1, 0) = (1, 0) → 2/3;
    // reputation_of(a, b) stays (1, 0) from a's one reliable audit → 2/3 (not 2.9/3.9).
    const model = createBetaModel({ agents: ['a', 'b', 'c'], lambda: 0.9, delta: 1.5, omega: 0.3 });
    model.observe([
      { type: 'outcome', taskId: 't', observer: 'a', subject: 'b', success: 1 },
      { type: 'outcome', taskId: 't', observer: 'a', subject: 'c', success: 0 },
      { type: 'outcome', taskId: 't', observer: 'b', subject: 'c', success: 0 },
      { type: 'outcome', taskId: 't', observer: 'b', subject: 'c', success: 0 },
    ]);
    model.observe(witnessReports({ model, order: ['a', 'b', 'c'], heardFrom: new Map([['a', new Set(['b'])]]) }));
    expect(model.belief('a', 'c').expectation).toBeCloseTo(1 / 3.57, 12);
    expect(model.trustOf('a', 'b').expectation).toBeCloseTo(2 / 3, 12);
    expect(model.reputationOf('a', 'b').expectation).toBeCloseTo(2 / 3, 12);
  });

  it('asks only trusted witnesses, at most maxWitnesses, and inverts a lying witness', () => {
    const evidence = [
      { type: 'outcome' as const, taskId: 't', observer: 'a', subject: 'd', success: 0 }, // a distrusts d's work (E = 1/3)
      { type: 'outcome' as const, taskId: 't', observer: 'b', subject: 'c', success: 1 },
      { type: 'outcome' as const, taskId: 't', observer: 'd', subject: 'c', success: 1 },
    ];
    const heardFrom = new Map([['a', new Set(['b', 'd'])]]);
    // separate credibility (default): d's bad work says nothing about its testimony, trust_of(a, d) = 0.5 ≥ τ
    const separate = createBetaModel({ agents: ['a', 'b', 'c', 'd'] });
    separate.observe(evidence);
    expect(
      witnessReports({ model: separate, order: ['a', 'b', 'c', 'd'], heardFrom }).map((report) => report.witness),
    ).toEqual(['b', 'd']);
    // one refused report from d: trust_of(a, d) = (0, 1), E = 1/3 < τ → no longer asked
    separate.observe([{ type: 'witness', observer: 'a', witness: 'd', subject: 'b', positive: 0, negative: 20 }]);
    expect(separate.isCredible('a', 'd')).toBe(false);
    expect(
      witnessReports({ model: separate, order: ['a', 'b', 'c', 'd'], heardFrom }).map((report) => report.witness),
    ).toEqual(['b']);
    // shared belief (the old behaviour): a's distrust of d's work keeps d from testifying
    const model = createBetaModel({ agents: ['a', 'b', 'c', 'd'], witnessCredibility: 'shared' });
    model.observe(evidence);
    expect(witnessReports({ model, order: ['a', 'b', 'c', 'd'], heardFrom }).map((report) => report.witness)).toEqual([
      'b',
    ]);
    expect(witnessReports({ model, order: ['a', 'b', 'c', 'd'], heardFrom, maxWitnesses: 0 })).toEqual([]);
    const inverted = witnessReports({ model, order: ['a', 'b', 'c', 'd'], heardFrom, behaviour: { b: 'inverted' } });
    expect(inverted[0]).toMatchObject({ witness: 'b', subject: 'c', positive: 0, negative: 1 });
  });

  it('reports first-hand counts only, and repeats a report only after new evidence', () => {
    const model = createBetaModel({ agents: ['a', 'b', 'c'] });
    const firstHand = createBetaModel({ agents: ['a', 'b', 'c'] });
    const audit = { type: 'outcome' as const, taskId: 't', observer: 'b', subject: 'c', success: 0 };
    model.observe([audit]);
    firstHand.observe([audit]);
    // b also merged a second-hand report about c into its main belief: (0, 1) -> (0, 1 + 0.3 * 5).
    model.observe([{ type: 'witness', observer: 'b', witness: 'a', subject: 'c', positive: 0, negative: 5 }]);
    expect(model.counts('b', 'c').negative).toBeCloseTo(2.5, 12);
    const reported = new Map<string, string>();
    const heardFrom = new Map([['a', new Set(['b'])]]);
    const first = witnessReports({ model, order: ['a', 'b', 'c'], heardFrom, firstHand, reported });
    expect(first).toEqual([{ type: 'witness', observer: 'a', witness: 'b', subject: 'c', positive: 0, negative: 1 }]);
    expect(witnessReports({ model, order: ['a', 'b', 'c'], heardFrom, firstHand, reported })).toEqual([]);
    firstHand.observe([{ ...audit, success: 1 }]);
    // New evidence: (0.9 * 0 + 1, 0.9 * 1 + 0) = (1, 0.9).
    expect(witnessReports({ model, order: ['a', 'b', 'c'], heardFrom, firstHand, reported })).toEqual([
      { type: 'witness', observer: 'a', witness: 'b', subject: 'c', positive: 1, negative: expect.closeTo(0.9, 12) },
    ]);
  });

  it('computes peer reputation as the mean of the other agents beliefs', () => {
    const model = createBetaModel({ agents: ['a', 'b', 'c'] });
    model.observe([{ type: 'outcome', taskId: 't', observer: 'a', subject: 'c', success: 1 }]);
    // rep(c) = (E_a[c] + E_b[c]) / 2 = (2/3 + 1/2) / 2 = 7/12.
    expect(peerReputation(model, ['a', 'b', 'c'])).toEqual({ a: 0.5, b: 0.5, c: expect.closeTo(7 / 12, 12) });
  });

  it('computes the informed team view over observers holding evidence only (ours)', () => {
    const model = createBetaModel({ agents: ['a', 'b', 'c'] });
    model.observe([{ type: 'outcome', taskId: 't', observer: 'a', subject: 'c', success: 0 }]);
    // All observers: rep(c) = (E_a[c] + E_b[c]) / 2 = (1/3 + 1/2) / 2 = 5/12 >= tau = 0.4.
    expect(peerReputation(model, ['a', 'b', 'c']).c).toBeCloseTo(5 / 12, 12);
    // Informed: only a holds evidence about c -> rep(c) = 1/3 < 0.4; nobody about a or b -> 0.5.
    expect(peerReputation(model, ['a', 'b', 'c'], { informedOnly: true })).toEqual({
      a: 0.5,
      b: 0.5,
      c: expect.closeTo(1 / 3, 12),
    });
  });

  it('consults a witness only after enough first-hand evidence about it (ours, minDirectEvidence)', () => {
    const order = ['a', 'b', 'c', 'd'];
    const model = createBetaModel({ agents: order });
    const firstHand = createBetaModel({ agents: order });
    const both = (evidence: Parameters<typeof model.observe>[0]) => {
      model.observe(evidence);
      firstHand.observe(evidence);
    };
    both([
      { type: 'outcome', taskId: 't', observer: 'b', subject: 'c', success: 0 },
      { type: 'outcome', taskId: 't', observer: 'd', subject: 'c', success: 1 },
    ]);
    // d is trusted by a only through accepted reports (main model), not by any audit of a's.
    model.observe([{ type: 'outcome', taskId: 't', observer: 'a', subject: 'd', success: 1 }]);
    const heardFrom = new Map([['a', new Set(['b', 'd'])]]);
    const ask = () =>
      witnessReports({ model, order, heardFrom, firstHand, minDirectEvidence: 2, tau: 0.4 }).map(
        (report) => report.witness,
      );
    const auditB = { type: 'outcome' as const, taskId: 't', observer: 'a', subject: 'b', success: 1 };
    both([auditB]);
    // a's first-hand evidence about b: r = 1 < 2 -> b is not asked; d has none -> not asked.
    expect(ask()).toEqual([]);
    both([auditB]);
    // r = 0.9 * 1 + 1 = 1.9 < 2: still not asked (two audits are not enough at lambda = 0.9).
    expect(ask()).toEqual([]);
    both([auditB]);
    // r = 0.9 * 1.9 + 1 = 2.71 >= 2 and E = 3.71 / 4.71 >= 0.4 -> b is asked; d still is not.
    expect(ask()).toEqual(['b']);
    // Without the gate both are asked (the RAPS base).
    expect(witnessReports({ model, order, heardFrom, firstHand }).map((report) => report.witness)).toEqual(['b', 'd']);
  });

  it('keeps a witness out whose first-hand belief is below tau despite enough evidence (ours)', () => {
    const order = ['a', 'b', 'c'];
    const model = createBetaModel({ agents: order });
    const firstHand = createBetaModel({ agents: order });
    firstHand.observe([
      { type: 'outcome', taskId: 't', observer: 'a', subject: 'b', success: 0 },
      { type: 'outcome', taskId: 't', observer: 'a', subject: 'b', success: 0 },
      { type: 'outcome', taskId: 't', observer: 'a', subject: 'b', success: 1 },
      { type: 'outcome', taskId: 't', observer: 'b', subject: 'c', success: 1 },
    ]);
    // a about b first-hand: s = 1, then 0.9 * 1 + 1 = 1.9, then r = 1, s = 0.9 * 1.9 = 1.71 -> r + s = 2.71 >= 2, E = 2 / 4.71 = 0.4246 >= 0.4: asked.
    const reportsAt = (tau: number) =>
      witnessReports({
        model,
        order,
        heardFrom: new Map([['a', new Set(['b'])]]),
        firstHand,
        minDirectEvidence: 2,
        tau,
      });
    expect(reportsAt(0.4).map((report) => report.witness)).toEqual(['b']);
    // With tau = 0.45 the same belief (0.4246) is below tau: not asked.
    expect(reportsAt(0.45)).toEqual([]);
  });
});
