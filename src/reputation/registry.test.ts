import { describe, expect, it } from 'vitest';
import { validateTeam } from '../core/agent-identity.js';
import { InvalidArgumentError } from '../core/errors.js';
import { createReputationModel, isReputationModelName, reputationModelNames } from './registry.js';

describe('reputation model registry', () => {
  it('lists the built-in models and creates each by name', () => {
    expect(reputationModelNames).toEqual(expect.arrayContaining(['beta', 'eigentrust', 'drf', 'single-metric']));
    for (const name of reputationModelNames) {
      const model = createReputationModel(name, { agents: ['a1', 'a2'] });
      expect(model.name).toBe(name);
      expect(isReputationModelName(name)).toBe(true);
    }
  });

  it('accepts agent identities as well as ids', () => {
    const model = createReputationModel('beta', { agents: [{ id: 'a1', model: 'm' }, 'a2'] });
    expect(model.agentIds()).toEqual(['a1', 'a2']);
  });

  it('passes model options through', () => {
    // λ = 0.5: r = 0.5·0 + 1 = 1 → then 0.5·1 + 1 = 1.5, E = 2.5 / 3.5 = 0.714285...
    const model = createReputationModel('beta', { agents: ['a1'], lambda: 0.5 });
    model.observe([
      { type: 'outcome', taskId: 't', subject: 'a1', success: 1 },
      { type: 'outcome', taskId: 't', subject: 'a1', success: 1 },
    ]);
    expect(model.score('a1')).toBeCloseTo(2.5 / 3.5, 15);
  });

  it("refuses agent ids that name Object.prototype's properties, naming the field", () => {
    // Scores and weights are records keyed by agent id: "__proto__" would not be stored, "constructor"
    // would read the inherited function where the agent has no entry.
    for (const name of reputationModelNames)
      for (const id of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
        expect(() => createReputationModel(name, { agents: ['b', id] }), `${name} ${id}`).toThrow(
          expect.objectContaining({ parameter: 'agents[1]', value: id }),
        );
      }
    const model = createReputationModel('beta', { agents: ['b'] });
    expect(() => model.addAgent('__proto__')).toThrow(/is the name of a property every JavaScript object inherits/);
    expect(() => validateTeam([{ id: 'valueOf', model: 'm' }])).toThrow(
      expect.objectContaining({ parameter: 'agents[0].id', value: 'valueOf' }),
    );
    // Names that merely contain them are fine.
    expect(createReputationModel('beta', { agents: ['__proto__x', 'my-constructor'] }).agentIds()).toHaveLength(2);
  });

  it('refuses unknown names and empty teams', () => {
    expect(() => createReputationModel('trust-me' as 'beta', { agents: ['a1'] })).toThrow(
      expect.objectContaining({ parameter: 'name', value: 'trust-me' }),
    );
    expect(isReputationModelName('constructor')).toBe(false);
    for (const name of reputationModelNames) {
      expect(() => createReputationModel(name, { agents: [] })).toThrow(InvalidArgumentError);
    }
  });
});
