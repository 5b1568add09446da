// Local test endpoint for examples/team-drf.yaml, team-raps.yaml, team-judge.yaml and (with
// --tasks examples/tasks-code.jsonl) team-exec.yaml: one OpenAI-compatible
// server on 127.0.0.1:18431 that plays a toy team by model name (toy-honest-*, toy-sloppy-*,
// toy-colluder-*; see src/testing/toy-team-endpoint.ts), answering from a task file's references.
//   npx tsx examples/toy-endpoints.ts [--port 18431] [--tasks examples/tasks-arith.jsonl]
// Stop it with Ctrl-C. It counts the requests it served, so you can check that a rerun sends none.
import { parseArgs } from 'node:util';
import { loadTasks } from '../src/tasks/load-tasks.js';
import { startToyTeamEndpoint } from '../src/testing/toy-team-endpoint.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '18431' },
    tasks: { type: 'string', default: new URL('./tasks-arith.jsonl', import.meta.url).pathname },
  },
});
const tasks = await loadTasks(values.tasks);
const endpoint = await startToyTeamEndpoint({
  port: Number(values.port),
  // Honest toy models answer the reference; for `code` tasks (examples/tasks-code.jsonl) the program
  // in the line's metadata.toySolution, which only this toy endpoint reads.
  tasks: tasks.flatMap((item) => {
    const solution = item.task.metadata?.toySolution;
    const reference = item.task.kind === 'code' && typeof solution === 'string' ? solution : item.reference;
    return reference === undefined ? [] : [{ prompt: item.task.prompt, reference }];
  }),
});
process.stdout.write(
  `toy team endpoint on ${endpoint.baseURL} (${tasks.length} tasks from ${values.tasks}); Ctrl-C to stop\n`,
);
let reported = 0;
setInterval(() => {
  if (endpoint.requestCount !== reported) {
    reported = endpoint.requestCount;
    process.stdout.write(`requests served: ${reported}\n`);
  }
}, 2000);
process.on('SIGINT', () => {
  process.stdout.write(`requests served: ${endpoint.requestCount}\n`);
  void endpoint.close().then(() => process.exit(0));
});
