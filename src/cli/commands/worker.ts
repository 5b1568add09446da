// `repute worker <team.yaml>`: takes a run's tasks from its JetStream queue and decides them into the
// shared store, on this machine or another one. Start it with the same team file and flags as the
// `repute run --workers N` that publishes the run (it derives the same run id); it stops once that
// run is no longer running, or on Ctrl-C / SIGTERM (a task in progress is then redelivered).
import { defineCommand } from 'citty';
import { openStore } from '../../store/store.js';
import { interruptSignal } from '../_contract.js';
import { createProtocolRun, prepareRun, withGradeEvents } from './_run-setup.js';
import { assertDistributable, connectTaskQueue, parseQueueFlags, queueArgs, runNamingArgs } from './_task-queue.js';
import { runTaskWorker } from './_task-worker.js';

export default defineCommand({
  meta: {
    name: 'worker',
    description:
      "Decide a run's tasks from its NATS JetStream queue into the shared store (start it with the team file and flags of the `repute run --workers` that publishes them)",
  },
  args: {
    team: { type: 'positional', description: 'Team file (YAML) of the run', required: true },
    ...runNamingArgs,
    ...queueArgs,
  },
  async run({ args }) {
    const setup = await prepareRun(args);
    const { team, protocol, methods, tasks, runId } = setup;
    const queue = parseQueueFlags(args, team.timeoutMs);
    assertDistributable(protocol.type, protocol.workers);
    const signal = interruptSignal();
    const store = openStore({ path: team.store });
    const transport = await connectTaskQueue(queue, `repute-worker-${process.pid}`);
    try {
      const run = createProtocolRun({
        team,
        protocol,
        methods,
        runId,
        reputationStart: setup.reputationStart === 'fresh' ? 'prior' : 'team',
        store,
        grader: setup.grader,
      });
      const summary = await runTaskWorker({
        store,
        writer: withGradeEvents(store, setup.grader),
        transport,
        runId,
        team: team.name,
        agentIds: team.agents.map((agent) => agent.id),
        reputationStart: setup.reputationStart === 'fresh' ? 'prior' : 'team',
        sessions: run.sessions,
        tasks: new Map(tasks.map((item) => [item.task.id, item.task])),
        signal,
        done: runFinished(store, runId, signal),
        onTask: (event) => {
          if (event.kind === 'failed')
            process.stderr.write(
              `worker ${process.pid}: ${event.method}/${event.taskId} failed: ${event.failure.failures[0]?.message ?? ''}\n`,
            );
        },
      });
      process.stderr.write(
        `worker ${process.pid}: run ${runId}: decided ${summary.decided}, skipped ${summary.skipped}\n`,
      );
    } finally {
      await transport.close();
      store.close();
    }
  },
});

/** Resolves once the run, after having been seen running, is running no more (its coordinator finished). */
async function runFinished(store: ReturnType<typeof openStore>, runId: string, signal: AbortSignal): Promise<void> {
  let seenRunning = false;
  while (!signal.aborted) {
    const status = store.getRun(runId)?.status;
    if (status === 'running') seenRunning = true;
    else if (seenRunning) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
