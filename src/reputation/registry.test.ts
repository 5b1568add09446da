import { describe, expect, it } from 'vitest';
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
