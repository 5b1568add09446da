// A fourth protocol in one file, registered from outside the package: `round-robin` asks one agent
// per task, taking turns, and keeps its answer (a baseline that spends one call per task). The
// session loop of `repute run` stores each task, resumes, counts failures and shows progress; the
// protocol only says how it runs a task. Run it with the CLI after registering it:
//
//   npm run build
//   node --import tsx --import ./examples/custom-protocol.ts bin/repute.js run team-round-robin.yaml
//
// where the team file has `protocol: { type: round-robin, start: 0 }` and `methods: [round-robin]`.
import { z } from 'zod';
import { ProviderError } from 'repute/core';
import { eachTask, methodFigures, registerProtocol, type Protocol } from 'repute/protocols';

/** The team file's `protocol` block: which agent takes the first task. */
const roundRobinConfigSchema = z
  .object({ type: z.literal('round-robin'), start: z.number().int().min(0).default(0) })
  .strict();

/** What the session stores per task. */
interface RoundRobinRecord {
  readonly schemaVersion: 1;
  readonly taskId: string;
  readonly agentId: string;
  readonly answer: string | null;
  readonly correct: boolean | null;
  /** Unusable replies (no answer parsed). */
  readonly failures: number;
}

/** One agent per task, in turns; a provider failure fails the task (the session records it, a rerun redoes it). */
export const roundRobinProtocol: Protocol<z.infer<typeof roundRobinConfigSchema>, RoundRobinRecord> = {
  type: 'round-robin',
  description: 'one agent per task, taking turns (a one-call baseline)',
  configSchema: roundRobinConfigSchema,
  methods: { names: ['round-robin'], defaults: ['round-robin'] },
  checkTeam: ({ config, agentIds }) =>
    config.start < agentIds.length
      ? undefined
      : { field: 'protocol.start', message: `must name an agent position below ${agentIds.length}` },
  create({ agents, config, grade }) {
    // Turn of the next task: the start plus the tasks finished so far (resumed ones included).
    let turn = config.start;
    return {
      sessions: [
        {
          method: 'round-robin',
          open: async () => ({
            method: 'round-robin',
            restore: ({ records }) => {
              turn = config.start + records.length;
            },
            run: eachTask(async (task, signal) => {
              const agent = agents[turn % agents.length];
              if (agent === undefined) throw new Error('round-robin needs at least one agent');
              try {
                const { value } = await agent.propose({ task, ...(signal === undefined ? {} : { signal }) });
                turn += 1;
                const record: RoundRobinRecord = {
                  schemaVersion: 1,
                  taskId: task.id,
                  agentId: agent.identity.id,
                  answer: value.answer,
                  correct: grade(task.id, value.answer) ?? null,
                  failures: value.answer === null ? 1 : 0,
                };
                return { status: 'done', taskId: task.id, record };
              } catch (error) {
                // A model call that failed after its retries: the task did not happen (a rerun redoes it).
                if (!(error instanceof ProviderError)) throw error;
                return {
                  status: 'failed',
                  taskId: task.id,
                  failures: [
                    { agentId: agent.identity.id, act: 'propose', round: 0, message: error.message, kind: 'provider' },
                  ],
                };
              }
            }),
          }),
        },
      ],
      report: ({ sessions }) => ({
        methods: Object.fromEntries(
          sessions.map((session) => [
            session.method,
            {
              ...methodFigures(
                session.records,
                session.records.map((record) => record.correct),
                session.resumedTasks,
              ),
              failed: session.failed.length,
            },
          ]),
        ),
      }),
    };
  },
};

registerProtocol(roundRobinProtocol);
