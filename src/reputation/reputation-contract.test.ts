import { runReputationModelContract } from '../testing/reputation-contract.js';
import { createReputationModel, reputationModelNames } from './registry.js';

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
