// The ReputationModel interface and its evidence types live in core (every layer may import them);
// re-exported here so that reputation modules keep importing from their own folder.
export type * from '../core/reputation-model.js';
