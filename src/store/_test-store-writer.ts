// Child process of the PostgreSQL concurrency tests: waits until the wall-clock time `startAt` (so
// several children start at once), opens the store at `url` (migrating it if new) and then, with
// `tasks` > 0, records tasks `<prefix>0..` of run `r` with one event and one ledger entry each, or
// with `rmw` as the fifth argument, adds 1 to a counter `tasks` times by reading and saving a team
// snapshot in its own store.transaction (a read-modify-write). Prints `open <schemaVersion>` and `done <count>`.

import { openStore } from './store.js';

const [url, startAtText, prefix = 'w', tasksText = '0'] = process.argv.slice(2);
if (url === undefined || startAtText === undefined) {
  process.stderr.write('usage: _test-store-writer.ts <url> <startAt ms> [task prefix] [tasks]\n');
  process.exit(2);
}
while (Date.now() < Number(startAtText)) {
  /* spin to the common start */
}
const store = openStore({ path: url });
process.stdout.write(`open ${store.schemaVersion}\n`);
const tasks = Number(tasksText);
if (process.argv[6] === 'rmw') {
  for (let index = 0; index < tasks; index++) {
    store.transaction(() => {
      const scope = { team: 'counter' };
      const count = (store.loadReputation({ scope, name: 'n' })?.state as number | undefined) ?? 0;
      store.saveReputation({
        scope,
        name: 'n',
        snapshot: { schemaVersion: 1, model: 'count', agents: [], state: count + 1 },
      });
    });
  }
} else if (tasks > 0) {
  store.ensureRun({ id: 'r', kind: 'test', config: null });
  for (let index = 0; index < tasks; index++) {
    const taskId = `${prefix}${index}`;
    store.recordTaskResult({
      runId: 'r',
      method: 'm',
      taskId,
      result: index,
      events: [{ type: 'task', taskId }],
      usage: [{ runId: 'r', taskId, inputTokens: 1, outputTokens: 2, cost: 0.25, cached: false }],
    });
  }
}
process.stdout.write(`done ${tasks}\n`);
store.close();
