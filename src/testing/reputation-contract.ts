import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentId } from '../core/agent-identity.js';
import { InvalidArgumentError, NotFoundError, ReputeError } from '../core/errors.js';
import type { Evidence, ReputationModel, ReputationSnapshot } from '../reputation/reputation-model.js';

/** Builds a fresh model over the given agents (the contract calls it many times). */
export type ReputationModelFactory = (agents: readonly AgentId[]) => ReputationModel;

const team: readonly AgentId[] = ['a1', 'a2', 'a3', 'a4'];

/**
 * fast-check arbitrary of one well-formed evidence item about `agents` (every evidence type, every
 * observer/rater distinct from its subject so that it is valid for any model).
 */
export function evidenceArbitrary(agents: readonly AgentId[]): fc.Arbitrary<Evidence> {
  const agent = fc.constantFrom(...agents);
  const unit = fc.double({ min: 0, max: 1, noNaN: true });
  const pair = fc.tuple(agent, agent).filter(([first, second]) => first !== second);
  const taskId = fc.constantFrom('t1', 't2', 't3');
  return fc.oneof(
    fc
      .record({ taskId, subject: agent, success: fc.oneof(fc.constantFrom(0, 1), unit) })
      .map((item): Evidence => ({ type: 'outcome', ...item })),
    fc.record({ taskId, pair, success: unit }).map(
      ({ taskId: id, pair: [observer, subject], success }): Evidence => ({
        type: 'outcome',
        taskId: id,
        observer,
        subject,
        success,
      }),
    ),
    fc.record({ taskId, pair, score: fc.oneof(fc.constantFrom(0, 1), unit) }).map(
      ({ taskId: id, pair: [rater, ratee], score }): Evidence => ({
        type: 'rating',
        rating: { rater, ratee, taskId: id, score },
      }),
    ),
    fc
      .record({ taskId, subject: agent, valid: fc.boolean(), flagged: fc.boolean(), risk: unit, quality: unit })
      .map((item): Evidence => ({ type: 'behaviour', ...item })),
    fc
      .record({
        trio: fc.tuple(agent, agent, agent).filter(([observer, witness]) => observer !== witness),
        positive: fc.double({ min: 0, max: 20, noNaN: true }),
        negative: fc.double({ min: 0, max: 20, noNaN: true }),
      })
      .map(
        ({ trio: [observer, witness, subject], positive, negative }): Evidence => ({
          type: 'witness',
          observer,
          witness,
          subject,
          positive,
          negative,
        }),
      ),
  );
}

/** fast-check arbitrary of a sequence of evidence batches (1–6 batches of 0–8 items). */
export function evidenceBatchesArbitrary(agents: readonly AgentId[]): fc.Arbitrary<Evidence[][]> {
  return fc.array(fc.array(evidenceArbitrary(agents), { maxLength: 8 }), { minLength: 1, maxLength: 6 });
}

/** Evidence batches every model must refuse, each with one bad item after good ones. */
export function badEvidenceCases(
  agents: readonly AgentId[],
): Array<{ label: string; item: Evidence; error: typeof InvalidArgumentError | typeof NotFoundError }> {
  const [first = 'a1', second = 'a2', third = 'a3'] = agents;
  const bad = (item: unknown): Evidence => item as Evidence;
  return [
    {
      label: 'NaN success',
      item: { type: 'outcome', taskId: 't9', subject: first, success: Number.NaN },
      error: InvalidArgumentError,
    },
    {
      label: 'success above 1',
      item: { type: 'outcome', taskId: 't9', subject: first, success: 1.5 },
      error: InvalidArgumentError,
    },
    {
      label: 'negative success',
      item: { type: 'outcome', taskId: 't9', subject: first, success: -0.1 },
      error: InvalidArgumentError,
    },
    {
      label: 'unknown outcome subject',
      item: { type: 'outcome', taskId: 't9', subject: 'nobody', success: 1 },
      error: NotFoundError,
    },
    {
      label: 'unknown outcome observer',
      item: { type: 'outcome', taskId: 't9', subject: first, observer: 'nobody', success: 1 },
      error: NotFoundError,
    },
    {
      label: 'rating above 1',
      item: { type: 'rating', rating: { rater: first, ratee: second, taskId: 't9', score: 1.2 } },
      error: InvalidArgumentError,
    },
    {
      label: 'negative rating',
      item: { type: 'rating', rating: { rater: first, ratee: second, taskId: 't9', score: -0.5 } },
      error: InvalidArgumentError,
    },
    {
      label: 'NaN rating',
      item: { type: 'rating', rating: { rater: first, ratee: second, taskId: 't9', score: Number.NaN } },
      error: InvalidArgumentError,
    },
    {
      label: 'unknown ratee',
      item: { type: 'rating', rating: { rater: first, ratee: 'nobody', taskId: 't9', score: 1 } },
      error: NotFoundError,
    },
    {
      label: 'negative witness count',
      item: { type: 'witness', observer: first, witness: second, subject: third, positive: -1, negative: 0 },
      error: InvalidArgumentError,
    },
    {
      label: 'NaN witness count',
      item: { type: 'witness', observer: first, witness: second, subject: third, positive: 1, negative: Number.NaN },
      error: InvalidArgumentError,
    },
    {
      label: 'unknown witness',
      item: { type: 'witness', observer: first, witness: 'nobody', subject: third, positive: 1, negative: 1 },
      error: NotFoundError,
    },
    {
      label: 'risk above 1',
      item: { type: 'behaviour', taskId: 't9', subject: first, valid: true, flagged: false, risk: 2, quality: 1 },
      error: InvalidArgumentError,
    },
    {
      label: 'unknown behaviour subject',
      item: { type: 'behaviour', taskId: 't9', subject: 'nobody', valid: true, flagged: false, risk: 0, quality: 1 },
      error: NotFoundError,
    },
    { label: 'unknown evidence type', item: bad({ type: 'gossip', subject: first }), error: InvalidArgumentError },
  ];
}

/** A fixed, varied batch of valid evidence used to move a model away from its prior. */
export function sampleEvidence(agents: readonly AgentId[]): Evidence[] {
  const [first = 'a1', second = 'a2', third = 'a3'] = agents;
  return [
    { type: 'outcome', taskId: 't1', subject: first, success: 1 },
    { type: 'outcome', taskId: 't1', subject: second, success: 0 },
    { type: 'outcome', taskId: 't1', subject: third, success: 0.75, observer: first },
    { type: 'rating', rating: { rater: first, ratee: second, taskId: 't1', score: 0.2 } },
    { type: 'rating', rating: { rater: second, ratee: first, taskId: 't1', score: 0.9 } },
    { type: 'rating', rating: { rater: third, ratee: first, taskId: 't1', score: 1 } },
    { type: 'behaviour', taskId: 't1', subject: second, valid: true, flagged: true, risk: 0.8, quality: 0.1 },
    { type: 'behaviour', taskId: 't1', subject: first, valid: true, flagged: false, risk: 0, quality: 1 },
    { type: 'witness', observer: third, witness: first, subject: second, positive: 1, negative: 4 },
  ];
}

function expectScoresAndWeightsInRange(model: ReputationModel): void {
  const ids = model.agentIds();
  const scores = model.scores();
  expect(Object.keys(scores).sort()).toEqual([...ids].sort());
  for (const agentId of ids) {
    const score = model.score(agentId);
    expect(Number.isFinite(score)).toBe(true);
    expect(score).toBeGreaterThanOrEqual(0);
    expect(score).toBeLessThanOrEqual(1);
    expect(scores[agentId]).toBe(score);
    expect(model.explain(agentId).score).toBe(score);
  }
  for (const subset of [undefined, ids.slice(0, 2), ids.slice(1)]) {
    const weights = model.weights(subset);
    const covered = subset ?? ids;
    expect(Object.keys(weights).sort()).toEqual([...covered].sort());
    let total = 0;
    for (const agentId of covered) {
      const weight = weights[agentId]!;
      expect(Number.isFinite(weight)).toBe(true);
      expect(weight).toBeGreaterThanOrEqual(0);
      total += weight;
    }
    expect(total).toBeCloseTo(1, 12);
  }
}

/**
 * The shared contract every `ReputationModel` passes (the way hono runs one router suite against
 * every router): scores in [0, 1]; weights ≥ 0 summing to 1 over random evidence sequences;
 * unknown ids refused with `NotFoundError`; a batch with one bad item changes nothing; snapshots
 * restore exactly, also after a JSON round trip; `addAgent` registers new agents.
 *
 * @example
 * runReputationModelContract('beta', (agents) => createReputationModel('beta', { agents }));
 */
export function runReputationModelContract(name: string, factory: ReputationModelFactory): void {
  describe(`ReputationModel contract: ${name}`, () => {
    it('reports its registry name and its agents in registration order', () => {
      const model = factory(team);
      expect(model.name).toBe(name);
      expect(model.agentIds()).toEqual(team);
    });

    it('refuses an empty team and duplicate agent ids with InvalidArgumentError', () => {
      expect(() => factory([])).toThrow(InvalidArgumentError);
      expect(() => factory(['a1', 'a1'])).toThrow(InvalidArgumentError);
    });

    it('starts with scores in [0, 1] and weights that sum to 1', () => {
      expectScoresAndWeightsInRange(factory(team));
    });

    it('keeps scores in [0, 1] and weights >= 0 summing to 1 over random evidence sequences', () => {
      fc.assert(
        fc.property(evidenceBatchesArbitrary(team), (batches) => {
          const model = factory(team);
          for (const batch of batches) model.observe(batch);
          expectScoresAndWeightsInRange(model);
        }),
        { numRuns: 60, seed: 20270 },
      );
    });

    it('accepts an empty batch without changing anything', () => {
      const model = factory(team);
      model.observe(sampleEvidence(team));
      const before = JSON.stringify(model.snapshot());
      model.observe([]);
      expect(JSON.stringify(model.snapshot())).toBe(before);
    });

    it('refuses unknown agent ids with NotFoundError', () => {
      const model = factory(team);
      expect(() => model.score('nobody')).toThrow(NotFoundError);
      expect(() => model.explain('nobody')).toThrow(NotFoundError);
      expect(() => model.weights(['a1', 'nobody'])).toThrow(NotFoundError);
      expect(() => model.observe([{ type: 'outcome', taskId: 't1', subject: 'nobody', success: 1 }])).toThrow(
        NotFoundError,
      );
    });

    it('refuses an empty or repeated id list in weights()', () => {
      const model = factory(team);
      expect(() => model.weights([])).toThrow(InvalidArgumentError);
      expect(() => model.weights(['a1', 'a1'])).toThrow(InvalidArgumentError);
    });

    for (const { label, item, error } of badEvidenceCases(team)) {
      it(`refuses a batch with one bad item (${label}) and changes nothing`, () => {
        const model = factory(team);
        model.observe(sampleEvidence(team));
        const before = JSON.stringify(model.snapshot());
        const scoresBefore = model.scores();
        let thrown: unknown;
        try {
          model.observe([...sampleEvidence(team), item]);
        } catch (caught) {
          thrown = caught;
        }
        expect(thrown).toBeInstanceOf(error);
        expect(thrown).toBeInstanceOf(ReputeError);
        expect(JSON.stringify(model.snapshot())).toBe(before);
        expect(model.scores()).toEqual(scoresBefore);
      });
    }

    it('names the field and the value in an evidence error', () => {
      const model = factory(team);
      let thrown: unknown;
      try {
        model.observe([
          { type: 'outcome', taskId: 't1', subject: 'a1', success: 1 },
          { type: 'outcome', taskId: 't1', subject: 'a2', success: 7 },
        ]);
      } catch (caught) {
        thrown = caught;
      }
      expect(thrown).toBeInstanceOf(InvalidArgumentError);
      const error = thrown as InvalidArgumentError;
      expect(error.parameter).toBe('evidence[1].success');
      expect(error.value).toBe(7);
      expect(error.message).toContain('evidence[1].success');
      expect(error.message).toContain('7');
    });

    it('snapshots with schemaVersion 1 and its model name, detached from later updates', () => {
      const model = factory(team);
      model.observe(sampleEvidence(team));
      const snapshot = model.snapshot();
      expect(snapshot.schemaVersion).toBe(1);
      expect(snapshot.model).toBe(name);
      expect(snapshot.agents).toEqual(team);
      const frozen = JSON.stringify(snapshot);
      model.observe(sampleEvidence(team));
      expect(JSON.stringify(snapshot)).toBe(frozen);
    });

    it('restores a snapshot into a fresh model with exactly the same scores and future', () => {
      fc.assert(
        fc.property(evidenceBatchesArbitrary(team), evidenceBatchesArbitrary(team), (past, future) => {
          const original = factory(team);
          for (const batch of past) original.observe(batch);
          const copy = factory(['z1']);
          copy.restore(original.snapshot());
          expect(copy.agentIds()).toEqual(original.agentIds());
          expect(copy.scores()).toEqual(original.scores());
          expect(copy.weights()).toEqual(original.weights());
          for (const batch of future) {
            original.observe(batch);
            copy.observe(batch);
          }
          expect(copy.scores()).toEqual(original.scores());
        }),
        { numRuns: 40, seed: 20271 },
      );
    });

    it('restores a snapshot after a JSON round trip', () => {
      const original = factory(team);
      original.observe(sampleEvidence(team));
      original.observe(sampleEvidence(team).reverse());
      const snapshot = original.snapshot();
      const parsed = JSON.parse(JSON.stringify(snapshot)) as ReputationSnapshot;
      expect(parsed).toEqual(snapshot);
      const copy = factory(team);
      copy.restore(parsed);
      expect(copy.scores()).toEqual(original.scores());
      expect(copy.snapshot()).toEqual(snapshot);
      for (const agentId of team) expect(copy.explain(agentId)).toEqual(original.explain(agentId));
    });

    it('refuses snapshots of another model or schema version and keeps its state', () => {
      const model = factory(team);
      model.observe(sampleEvidence(team));
      const before = JSON.stringify(model.snapshot());
      const snapshot = model.snapshot();
      expect(() => model.restore({ ...snapshot, model: `${name}-other` })).toThrow(InvalidArgumentError);
      expect(() => model.restore({ ...snapshot, schemaVersion: 2 } as unknown as ReputationSnapshot)).toThrow(
        InvalidArgumentError,
      );
      expect(() => model.restore({ ...snapshot, agents: [] })).toThrow(InvalidArgumentError);
      expect(() => model.restore({ ...snapshot, state: null })).toThrow(InvalidArgumentError);
      expect(JSON.stringify(model.snapshot())).toBe(before);
    });

    it('adds agents with an in-range score and refuses duplicates', () => {
      const model = factory(team);
      model.observe(sampleEvidence(team));
      model.addAgent('a5');
      expect(model.agentIds()).toEqual([...team, 'a5']);
      expect(() => model.addAgent('a5')).toThrow(InvalidArgumentError);
      expect(() => model.addAgent('')).toThrow(InvalidArgumentError);
      expectScoresAndWeightsInRange(model);
      model.observe([
        { type: 'outcome', taskId: 't2', subject: 'a5', success: 1 },
        { type: 'rating', rating: { rater: 'a1', ratee: 'a5', taskId: 't2', score: 1 } },
      ]);
      expectScoresAndWeightsInRange(model);
      const copy = factory(team);
      copy.restore(model.snapshot());
      expect(copy.agentIds()).toEqual([...team, 'a5']);
      expect(copy.scores()).toEqual(model.scores());
    });

    it('explains every score with finite components', () => {
      const model = factory(team);
      model.observe(sampleEvidence(team));
      for (const agentId of team) {
        const explanation = model.explain(agentId);
        expect(explanation.agentId).toBe(agentId);
        expect(explanation.evidenceCount).toBeGreaterThanOrEqual(0);
        expect(explanation.summary.length).toBeGreaterThan(0);
        for (const value of Object.values(explanation.components)) expect(Number.isFinite(value)).toBe(true);
      }
    });
  });
}
