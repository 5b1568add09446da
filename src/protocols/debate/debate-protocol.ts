// The debate protocol as a registered part (`protocol: { type: debate, rounds }` in a team file): one
// persisted session per listed method (majority, minirep, ...), each a debate of `rounds` rounds
// after Propose per task.
import { z } from 'zod';
import type { ReputationModel } from '../../reputation/reputation-model.js';
import { methodFigures, type Protocol } from '../protocol.js';
import {
  allDebateMethodNames,
  createDebateMethod,
  type DebateMethodName,
  verifierOnlyDebateMethodNames,
} from './methods.js';
import { createDebateSessionRunner, type DebateTaskRecord } from './run-debate-session.js';

/** The `protocol` block of a debate team file. */
export const debateTeamConfigSchema = z
  .object({
    type: z.literal('debate'),
    /** Debate rounds after Propose. */
    rounds: z.number().int().min(0).max(20).default(1),
  })
  .strict();

/** A validated debate `protocol` block. */
export type DebateTeamConfig = z.infer<typeof debateTeamConfigSchema>;

/** Debate (and MiniRep) over a live team: every listed method runs its own session on the same tasks. */
export const debateProtocol: Protocol<DebateTeamConfig, DebateTaskRecord> = {
  type: 'debate',
  description: 'debate rounds after Propose, one session per method (majority, minirep, ...)',
  configSchema: debateTeamConfigSchema,
  methods: {
    names: allDebateMethodNames,
    defaults: ['majority', 'minirep'],
    verifierOnly: verifierOnlyDebateMethodNames,
  },
  usesVerifier: true,
  runConfig: ({ team, agents, config, methods, k, seed, reputation, tasks, verifier }) => ({
    team,
    agents: agents.map(({ id, provider, model, baseURL }) => ({ id, provider, model, baseURL })),
    rounds: config.rounds,
    methods,
    k: k ?? null,
    seed,
    reputation,
    tasks,
    // Only with a verifier, so the run ids of team files without one stay as they were.
    ...(verifier === undefined ? {} : { verifier }),
  }),
  workers: true,
  create({ agents, config, methods, k, seed, runId, team, reputationStart, grade, verifier, verifierId }) {
    const identities = agents.map((agent) => agent.identity);
    return {
      sessions: methods.map((name) => {
        const createMethod = () =>
          createDebateMethod(name as DebateMethodName, {
            agents: identities,
            ...(k === undefined ? {} : { k }),
            ...(verifier?.calibration === undefined ? {} : { verifierCalibration: verifier.calibration }),
          });
        const method = createMethod();
        return {
          method: name,
          // A fresh method of the same name has a model of the same kind.
          reputation: method.reputation
            ? { model: method.reputation, create: () => createMethod().reputation as ReputationModel }
            : null,
          open: async ({ reputation }) =>
            createDebateSessionRunner({
              runId,
              team,
              agents,
              method: reputation ? { ...method, reputation } : method,
              rounds: config.rounds,
              seed,
              grade,
              reputationStart,
              // The live agents book their calls in the store's ledger themselves.
              recordUsage: false,
              ...(verifier === undefined ? {} : { verifier }),
              ...(verifierId === undefined ? {} : { verifierId }),
            }),
        };
      }),
      report: ({ sessions }) => ({
        methods: Object.fromEntries(
          sessions.map((session) => {
            const figures = methodFigures(
              session.records,
              session.records.map((record) => record.correct),
              session.resumedTasks,
            );
            return [
              session.method,
              {
                done: figures.done,
                resumed: figures.resumed,
                failed: session.failed.length,
                accuracy: figures.accuracy,
                failures: figures.failures,
              },
            ];
          }),
        ),
      }),
    };
  },
};
