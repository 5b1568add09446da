// Speed of MiniRep-IC's clone fit (src/aggregation/minirep-clone-inference.ts), as MiniRep reads it:
// one fit per task once the counts change, after 100 warm-up tasks. Per team size and form (the
// lower-quartile start, the default, fits from a cold start every task; `lowerStart: false`, the earlier
// form, warm-starts from the previous fit), the median ms per fit over 5 runs of 200 tasks, with a
// seeded team of independent agents (70 % right, wrong answers over 5 keys) and, from 10 agents on,
// a copier bloc of 3 so that the fit has something to trim.
// Run: npm run bench:clone-fit
import { createCloneInference } from '../src/aggregation/minirep-clone-inference.js';
import { createRng, deriveSeed } from '../src/core/rng.js';
import { median } from './_median.js';

const warmUp = 100;
const measured = 200;
for (const size of [10, 20, 40])
  for (const lowerStart of [true, false]) {
    const runs: number[] = [];
    for (let run = 0; run < 5; run++) {
      const rng = createRng(deriveSeed(2027, 'bench-clone-fit', size, run));
      const team = Array.from({ length: size }, (_, index) => ({ agentId: `a${index}`, group: `m${index}` }));
      const inference = createCloneInference({ lowerStart });
      let elapsed = 0;
      for (let task = 0; task < warmUp + measured; task++) {
        const own = team.map(() => (rng() < 0.7 ? 'right' : String(Math.floor(rng() * 5))));
        // a1 and a2 copy a0 90 % of the time.
        const answers = own.map((answer, index) => (index > 0 && index < 3 && rng() < 0.9 ? own[0] : answer));
        inference.observe(team.map((agent, index) => ({ ...agent, answer: answers[index] ?? null })));
        const started = performance.now();
        inference.groups(team);
        if (task >= warmUp) elapsed += performance.now() - started;
      }
      runs.push(elapsed / measured);
    }
    const form = lowerStart ? 'lower-quartile start (default)' : 'median start, warm (lowerStart: false)';
    console.log(`${String(size).padStart(2)} agents, ${form.padEnd(38)} median ${median(runs).toFixed(3)} ms per fit`);
  }
