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

  it('never lets a witness report about itself or about the observer', () => {
    // b holds first-hand counts about a (the observer), about itself and about c; a hears from b. Only the
    // report about c is made: b's one reliable audit of c, (1, 0).
    const order = ['a', 'b', 'c'];
    const model = createBetaModel({ agents: order });
    model.observe([
      { type: 'outcome', taskId: 't', observer: 'b', subject: 'a', success: 0 },
      { type: 'outcome', taskId: 't', observer: 'b', subject: 'b', success: 1 },
      { type: 'outcome', taskId: 't', observer: 'b', subject: 'c', success: 1 },
    ]);
    expect(witnessReports({ model, order, heardFrom: new Map([['a', new Set(['a', 'b'])]]) })).toEqual([
      { type: 'witness', observer: 'a', witness: 'b', subject: 'c', positive: 1, negative: 0 },
    ]);
  });

  it('decays first-hand evidence per audit, not per round, and merges reports without decay (hand-computed)', () => {
    // λ = 0.8, ω = 0.5. a audits b: reliable, unreliable, reliable.
    //   (1, 0) -> (0.8, 1) -> (0.8·0.8 + 1, 0.8·1) = (1.64, 0.8): E = 2.64 / 4.44.
    // Then c reports (2, 0) about b: E_w = 3/4, Var_w = 3·1 / (16·5) = 0.0375; E_l = 2.64/4.44 = 0.594595,
    // Var_l = 2.64·1.8 / (4.44²·5.44) = 4.752 / 107.241984 = 0.044311; D = 0.155405 / sqrt(0.081811) = 0.155405 / 0.286027 = 0.54333 < 1.5:
    // merged, (1.64 + 0.5·2, 0.8) = (2.64, 0.8), E = 3.64 / 5.44; no λ on the merge.
    const model = createBetaModel({ agents: ['a', 'b', 'c'], lambda: 0.8, omega: 0.5 });
    const audit = (reliable: boolean, messageId: string) => ({
      auditor: 'a',
      subject: 'b',
      reliable,
      messageId,
      reason: '',
    });
    for (const [index, reliable] of [true, false, true].entries())
      model.observe(auditEvidence([audit(reliable, `m${index}`)], 't', ['a', 'b', 'c']));
    expect(model.counts('a', 'b').positive).toBeCloseTo(1.64, 12);
    expect(model.counts('a', 'b').negative).toBeCloseTo(0.8, 12);
    expect(model.belief('a', 'b').expectation).toBeCloseTo(2.64 / 4.44, 12);
    const report = { type: 'witness' as const, observer: 'a', witness: 'c', subject: 'b', positive: 2, negative: 0 };
    expect(model.assessWitness(report).deviation).toBeCloseTo(0.54333, 4);
    model.observe([report]);
    expect(model.belief('a', 'b').expectation).toBeCloseTo(3.64 / 5.44, 12);
  });

  it('RAPS base: three colluding witnesses starve a peer the observer never audited, not one it audited once', () => {
    // x, y, z each audited h three times as unreliable: s = 1 + 0.9 + 0.81 = 2.71, E_w = 1 / 4.71. o holds no
    // evidence about h (E = 1/2, Var = 1/12) and hears from x, y, z (trust_of prior 1/2 >= τ). Reports in roster
    // order, each checked against o's belief after the previous merges (ω = 0.3, s += 0.813 each):
    //   D1 = |1/4.71 − 1/2| / sqrt(3.71 / (4.71²·5.71) + 1/12) = 0.857249 -> merged, s = 0.813
    //   D2 = 0.478921 (E_l = 1/2.813) -> merged, s = 1.626;  D3 = 0.235788 (E_l = 1/3.626) -> merged, s = 2.439
    // E_o[h] = 1 / 4.439 = 0.225276 < τ = 0.4: h is filtered from o without o ever hearing it.
    const order = ['o', 'h', 'x', 'y', 'z'];
    const slander = (observer: string) =>
      [0, 1, 2].map(() => ({ type: 'outcome' as const, taskId: 't', observer, subject: 'h', success: 0 }));
    const setUp = () => {
      const model = createBetaModel({ agents: order });
      const firstHand = createBetaModel({ agents: order });
      for (const colluder of ['x', 'y', 'z']) {
        model.observe(slander(colluder));
        firstHand.observe(slander(colluder));
      }
      return { model, firstHand };
    };
    const heardFrom = new Map([['o', new Set(['x', 'y', 'z'])]]);
    const { model, firstHand } = setUp();
    const reports = witnessReports({ model, order, heardFrom, firstHand });
    const deviations = reports.map((report) => {
      const { deviation } = model.assessWitness(report);
      model.observe([report]);
      return deviation;
    });
    expect(deviations).toEqual([expect.closeTo(0.857249, 5), expect.closeTo(0.478921, 5), expect.closeTo(0.235788, 5)]);
    expect(model.counts('o', 'h').negative).toBeCloseTo(2.439, 12);
    expect(model.belief('o', 'h').expectation).toBeCloseTo(1 / 4.439, 12);
    expect(model.isTrusted('o', 'h')).toBe(false);
    // One reliable audit of h by o first: E_l = 2/3, Var_l = 2 / (9·4) = 1/18; each report then deviates by
    // D = |1/4.71 − 2/3| / sqrt(0.029289 + 1/18) = 0.454353 / 0.291281 = 1.559848 >= δ = 1.5: all refused.
    const audited = setUp();
    audited.model.observe([{ type: 'outcome', taskId: 't', observer: 'o', subject: 'h', success: 1 }]);
    for (const report of witnessReports({ model: audited.model, order, heardFrom, firstHand: audited.firstHand })) {
      const check = audited.model.assessWitness(report);
      expect(check.deviation).toBeCloseTo(1.559848, 5);
      expect(check.accepted).toBe(false);
      audited.model.observe([report]);
    }
    expect(audited.model.belief('o', 'h').expectation).toBeCloseTo(2 / 3, 12);
  });

  it('with witnessSubjectMinDirectEvidence (ours) takes no report about a peer the observer never audited itself', () => {
    // The colluders of the test above: x, y, z each hold s = 2.71 about h; o holds no evidence about h.
    const order = ['o', 'h', 'x', 'y', 'z'];
    const model = createBetaModel({ agents: order });
    const firstHand = createBetaModel({ agents: order });
    for (const colluder of ['x', 'y', 'z']) {
      const slander = [0, 1, 2].map(() => ({
        type: 'outcome' as const,
        taskId: 't',
        observer: colluder,
        subject: 'h',
        success: 0,
      }));
      model.observe(slander);
      firstHand.observe(slander);
    }
    const heardFrom = new Map([['o', new Set(['x', 'y', 'z'])]]);
    const reported = new Map<string, string>();
    const gated = () => witnessReports({ model, order, heardFrom, firstHand, reported, subjectMinDirectEvidence: 1 });
    // o's first-hand r + s about h is 0 < 1: no report about h is asked for, so E_o[h] stays at the prior 1/2.
    expect(gated()).toEqual([]);
    expect(model.belief('o', 'h').expectation).toBeCloseTo(1 / 2, 12);
    // Nor is the withheld report remembered as made: once o audited h (one reliable verdict, r + s = 1 >= 1),
    // all three come, and the deviation test refuses each (D = 1.559848 >= 1.5, computed in the test above).
    const audit = [{ type: 'outcome' as const, taskId: 't', observer: 'o', subject: 'h', success: 1 }];
    model.observe(audit);
    firstHand.observe(audit);
    const reports = gated();
    // s_w = 1 + 0.9 + 0.81 = 2.71 from each colluder.
    expect(reports.map((report) => [report.witness, report.subject, report.negative])).toEqual(
      ['x', 'y', 'z'].map((witness) => [witness, 'h', expect.closeTo(2.71, 12)]),
    );
    for (const report of reports) expect(model.assessWitness(report).accepted).toBe(false);
  });
});
