import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evidenceArbitrary, runReputationModelContract } from '../testing/reputation-contract.js';
import { createReputationModel, reputationModelNames } from './registry.js';
import type { Evidence, ReputationModel, ReputationSnapshot } from './reputation-model.js';

// Every registered model, so a model added to the registry is covered automatically.
for (const name of reputationModelNames) {
  runReputationModelContract(name, (agents) => createReputationModel(name, { agents }));
}

// Non-default parameters take other code paths (printed DRF rules, restricted pre-trust, no forgetting).
runReputationModelContract('drf', (agents) =>
  createReputationModel('drf', { agents, variant: 'printed', beta: 1, w0: 0.7 }),
);
runReputationModelContract('eigentrust', (agents) =>
  createReputationModel('eigentrust', { agents, preTrusted: agents.slice(0, 1), alpha: 0.5 }),
);
runReputationModelContract('beta', (agents) =>
  createReputationModel('beta', { agents, lambda: 1, delta: 0.5, omega: 1 }),
);

// Snapshot mid-run, bit for bit: teams of 2–12, evidence batches with agents added in between, a
// snapshot at a random point restored through JSON into a fresh model, then the rest of the run.
// Scores, weights (all and a subset) and every explain() must equal the uninterrupted model's, and
// the same history must give the same snapshot JSON. The DRF variant with β = 1 and ÷ w0 found the
// rounding that left a reputation at −1.1e-16, which restore then refused.
describe('snapshot at a random point of a run (property)', () => {
  const ids = ['a1', 'a2', 'b', '10', '2', 'Z', 'x-y', 'm@p', 'c3', 'd', 'e', 'f'];
  const factories: Array<[string, (agents: readonly string[]) => ReputationModel]> = [
    ...reputationModelNames.map((name): [string, (agents: readonly string[]) => ReputationModel] => [
      name,
      (agents) => createReputationModel(name, { agents }),
    ]),
    ['beta shared', (agents) => createReputationModel('beta', { agents, lambda: 1, witnessCredibility: 'shared' })],
    [
      'drf β 1 ÷ w0',
      (agents) =>
        createReputationModel('drf', { agents, beta: 1, w0: 0.2, decayNormalization: 'w0', variant: 'printed' }),
    ],
    [
      'drf β 1 ÷ w0 corrected',
      (agents) => createReputationModel('drf', { agents, beta: 1, w0: 0.2, decayNormalization: 'w0' }),
    ],
    [
      'eigentrust pre-trusted',
      (agents) => createReputationModel('eigentrust', { agents, preTrusted: agents.slice(0, 1) }),
    ],
  ];
  const run = fc.integer({ min: 2, max: 12 }).chain((size) => {
    const team = ids.slice(0, size);
    const step = fc.oneof(
      { weight: 6, arbitrary: fc.array(evidenceArbitrary(team), { maxLength: 8 }) },
      { weight: 1, arbitrary: fc.constant('add' as const) },
    );
    return fc.record({ team: fc.constant(team), steps: fc.array(step, { minLength: 1, maxLength: 8 }), cut: fc.nat() });
  });
  const apply = (model: ReputationModel, steps: ReadonlyArray<Evidence[] | 'add'>, added: { count: number }) => {
    for (const step of steps) {
      if (step === 'add') model.addAgent(`new${added.count++}`);
      else model.observe(step);
    }
  };
  const observed = (model: ReputationModel) => {
    const agents = model.agentIds();
    return {
      agents,
      scores: model.scores(),
      weights: model.weights(),
      subset: model.weights(agents.slice(1)),
      explain: agents.map((agentId) => model.explain(agentId)),
    };
  };

  it.each(factories)('%s', (_name, factory) => {
    fc.assert(
      fc.property(run, ({ team, steps, cut }) => {
        const at = cut % (steps.length + 1);
        const original = factory(team);
        const addedOriginal = { count: 0 };
        apply(original, steps.slice(0, at), addedOriginal);
        const json = JSON.stringify(original.snapshot());
        const twin = factory(team);
        apply(twin, steps.slice(0, at), { count: 0 });
        expect(JSON.stringify(twin.snapshot())).toBe(json);
        const copy = factory(['z']);
        copy.restore(JSON.parse(json) as ReputationSnapshot);
        expect(observed(copy)).toStrictEqual(observed(original));
        const addedCopy = { count: addedOriginal.count };
        apply(original, steps.slice(at), addedOriginal);
        apply(copy, steps.slice(at), addedCopy);
        expect(observed(copy)).toStrictEqual(observed(original));
        expect(JSON.stringify(copy.snapshot())).toBe(JSON.stringify(original.snapshot()));
      }),
      { numRuns: 40, seed: 20274 },
    );
  });
});
