// Child process for the SIGKILL test in store.test.ts: works through tasks t0..t{n-1} of one run,
// skipping those already recorded, writing each task's result with its events, reputation snapshot
// and ledger entries in one transaction and printing `done <taskId>` after each commit. The test
// kills it mid-run.
import { openStore } from './store.js';

const [path, countText, delayText] = process.argv.slice(2);
if (path === undefined || countText === undefined) {
  process.stderr.write('usage: _sigkill-worker.ts <db path> <task count> [delay ms]\n');
  process.exit(2);
}
const count = Number(countText);
const delay = Number(delayText ?? '0');
const store = openStore({ path });
const { run } = store.ensureRun({ id: 'run-kill', kind: 'test', config: { count } });
const done = new Set(store.completedTaskIds(run.id, 'm'));
process.stdout.write(`resumed ${done.size}\n`);
for (let index = 0; index < count; index++) {
  const taskId = `t${index}`;
  if (done.has(taskId)) continue;
  // Busy-wait so the kill can land anywhere, including inside the write below.
  const until = Date.now() + delay;
  while (Date.now() < until) {
    /* spin */
  }
  store.recordTaskResult({
    runId: run.id,
    method: 'm',
    taskId,
    result: { index, padding: 'x'.repeat(2000) },
    events: [
      { type: 'task', taskId },
      { type: 'proposal', taskId, round: 0, agentId: 'a1', answer: String(index) },
      { type: 'vote', taskId, answer: String(index), support: { [String(index)]: 1 }, reasons: [] },
    ],
    // The state after this task: a resumed run must continue from the last finished task's.
    reputation: [
      {
        scope: { runId: run.id },
        name: 'm',
        snapshot: { schemaVersion: 1, model: 'count', agents: ['a1'], state: { done: index + 1 } },
      },
    ],
    usage: [
      {
        runId: run.id,
        agentId: 'a1',
        taskId,
        act: 'propose',
        inputTokens: 10,
        outputTokens: 2,
        cost: 0.001,
        cached: false,
      },
    ],
  });
  process.stdout.write(`done ${taskId}\n`);
}
store.setRunStatus(run.id, 'completed');
store.close();
process.stdout.write('finished\n');
