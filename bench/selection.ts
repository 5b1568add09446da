// Selector speed (median us per select() call) and a printed UCB trace on a small pool.
// Run: npm run bench:selection
import { createRng, deriveSeed } from '../src/core/rng.js';
import { createSelector, createUcbSelector, selectorNames } from '../src/selection/index.js';

function median(values: number[]): number {
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

// Speed: pool of 40 agents (the size of the ZeroEval MATH team), k = 5.
const rng = createRng(deriveSeed(2027, 'bench-selection'));
const pool = Array.from({ length: 40 }, (_, index) => ({
  id: `agent-${String(index).padStart(2, '0')}`,
  model: `m${index % 7}`,
  cost: Math.round(rng() * 1000) / 100,
}));
const reputation = Object.fromEntries(pool.map((agent) => [agent.id, rng()]));
for (const name of selectorNames) {
  const selector = createSelector(name);
  const runs: number[] = [];
  // Warm-up so that the first selector measured does not pay for JIT compilation.
  for (let call = 0; call < 2000; call++) selector.select({ pool, reputation, k: 5, rng });
  for (let run = 0; run < 7; run++) {
    const calls = 2000;
    const started = performance.now();
    for (let call = 0; call < calls; call++) selector.select({ pool, reputation, k: 5, rng });
    runs.push(((performance.now() - started) * 1000) / calls);
  }
  console.log(`${name.padEnd(8)} pool 40, k 5: median ${median(runs).toFixed(2)} us/select over 7 runs of 2000 calls`);
}

// Trace: the hand-worked example of docs/selection.md (costs 1, 2, 4, 0; reputations 0.9, 0.6, 0.1, 0.5; k = 2).
const example = [
  { id: 'a', model: 'm1', cost: 1 },
  { id: 'b', model: 'm2', cost: 2 },
  { id: 'c', model: 'm3', cost: 4 },
  { id: 'd', model: 'm4', cost: 0 },
];
const exampleReputation = { a: 0.9, b: 0.6, c: 0.1, d: 0.5 };
for (const variant of ['corrected', 'printed'] as const) {
  const selector = createUcbSelector({ variant });
  console.log(`\nUCB (${variant}), delta 0.7, exploration 1, threshold 0.2, k = 2:`);
  for (let round = 1; round <= 4; round++) {
    const selection = selector.select({ pool: example, reputation: exampleReputation, k: 2, rng });
    const scores = selection.reasons
      .map(
        (reason) =>
          `${reason.agentId}=${reason.components?.count === 0 && !selection.excluded.includes(reason.agentId) ? 'inf' : Number(reason.weight.toFixed(4))}`,
      )
      .join(' ');
    console.log(
      `  t=${round}: selected ${selection.selected.join(',')}  excluded ${selection.excluded.join(',') || '-'}  scores ${scores}`,
    );
  }
  console.log(`  snapshot ${JSON.stringify(selector.snapshot())}`);
}
