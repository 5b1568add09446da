// Child process of the shared-reputation tests (postgres-store.test.ts). Evidence is a function of
// the idempotency key, so any process can say what a key's event must hold.
//   write <url> <startAt> <prefix> <count> [dupPrefix]: records tasks <prefix>0.. (and, as a
//     redelivery, the same tasks of <dupPrefix>), folding after every fifth; prints `appended <n>`.
//   stall <url> <holder> <leaseMs> <spinMs>: takes the fold lease, folds, prints `leased <generation>`,
//     spins spinMs (the test SIGSTOPs it there, past its lease), then commits; prints the outcome.
import { createWriterModel, evidenceOf } from './_test-reputation-team.js';
import { createSharedReputation } from './shared-reputation.js';
import { openStore } from './store.js';

const [mode, url, ...rest] = process.argv.slice(2);
if (mode === 'write' && url !== undefined) {
  const [startAt, prefix = 'w', countText = '0', dupPrefix] = rest;
  while (Date.now() < Number(startAt)) {
    /* spin to the common start */
  }
  const store = openStore({ path: url });
  const shared = createSharedReputation({
    store,
    team: 'math',
    name: 'eigentrust',
    createModel: createWriterModel,
    holder: `writer-${prefix}`,
    leaseMs: 2000,
  });
  let appended = 0;
  for (let index = 0; index < Number(countText); index++) {
    for (const key of dupPrefix === undefined ? [`${prefix}${index}`] : [`${prefix}${index}`, `${dupPrefix}${index}`]) {
      const { version } = shared.current();
      if (shared.record({ key, evidence: evidenceOf(key), readVersion: version }).appended) appended += 1;
    }
    if (index % 5 === 4) shared.fold();
  }
  process.stdout.write(`appended ${appended}\n`);
  store.close();
} else if (mode === 'stall' && url !== undefined) {
  const [holder = 'stale', leaseText = '1000', spinText = '1500'] = rest;
  const store = openStore({ path: url });
  const shared = createSharedReputation({
    store,
    team: 'math',
    name: 'eigentrust',
    createModel: createWriterModel,
    holder,
    leaseMs: Number(leaseText),
  });
  const outcome = shared.fold({
    beforeCommit: () => {
      const fold = store.reputationFold({ team: 'math', name: 'eigentrust' });
      process.stdout.write(`leased ${fold?.generation}\n`);
      const until = Date.now() + Number(spinText);
      while (Date.now() < until) {
        /* the test stops the process here */
      }
    },
  });
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
  store.close();
} else {
  process.stderr.write('usage: _test-reputation-writer.ts write|stall <url> ...\n');
  process.exit(2);
}
