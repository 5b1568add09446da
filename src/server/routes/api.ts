// JSON API: health, teams, runs, decisions, reputation over tasks, replays.
import { Hono } from 'hono';
import { InvalidArgumentError } from '../../core/errors.js';
import type { RunRecord } from '../../store/store.js';
import type { ServerContext } from '../context.js';
import { parseInput } from '../_validate.js';
import { listReplays, readReplay } from '../replay-views.js';
import { describeRun, listDecisions, reputationSeries } from '../run-views.js';
import {
  decisionsQuery,
  replayParams,
  reputationQuery,
  runParams,
  runsQuery,
  taskParams,
  teamParams,
} from '../schemas.js';
import { describeTaskTrace } from '../trace-views.js';
import { describeTeamReputation, listTeams } from '../team-views.js';

/** Routes under `/api` (and `/health`). */
export function apiRoutes(context: ServerContext): Hono {
  const { store } = context;
  const knownTeams = () => (context.team ? [context.team.name] : []);
  const extraMethods = () => (context.team ? [context.team.method] : []);
  const app = new Hono();

  // Liveness for load-balancer probes: answered without the token, and then with no data. It reads
  // the store once (one run looked up by key), so a replica whose store connection broke (a closed
  // PostgreSQL connection answers nothing until the store is opened again) fails its probe with 503
  // and is taken out of rotation, instead of answering every request with 500.
  app.get('/health', (c) => {
    const authorized = context.authorized(c.req.header('authorization'));
    try {
      store.getRun('');
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return c.json(authorized ? { status: 'unavailable' as const, message } : { status: 'unavailable' as const }, 503);
    }
    return c.json(
      authorized
        ? { status: 'ok' as const, version: context.version, store: store.path, schemaVersion: store.schemaVersion }
        : { status: 'ok' as const },
    );
  });

  app.get('/api/teams', (c) => c.json({ teams: listTeams(store, knownTeams(), extraMethods()) }));

  app.get('/api/teams/:team/reputation', (c) => {
    const { team } = parseInput(teamParams, c.req.param(), 'path');
    return c.json(describeTeamReputation(store, team, knownTeams(), extraMethods()));
  });

  app.get('/api/runs', (c) => {
    const filter = parseInput(runsQuery, c.req.query(), 'query');
    if (filter.kind !== undefined) assertKnownRunKind(filter.kind, store.listRuns());
    const runs = store
      .listRuns({
        ...(filter.team === undefined ? {} : { team: filter.team }),
        ...(filter.kind === undefined ? {} : { kind: filter.kind }),
      })
      .reverse()
      .slice(0, filter.limit);
    return c.json({
      runs: runs.map((run) => ({
        schemaVersion: run.schemaVersion,
        id: run.id,
        kind: run.kind,
        team: run.team,
        status: run.status,
        createdAt: run.createdAt,
        updatedAt: run.updatedAt,
        tasks: new Set(store.taskResults(run.id).map((record) => record.taskId)).size,
      })),
    });
  });

  app.get('/api/runs/:id', (c) => {
    const { id } = parseInput(runParams, c.req.param(), 'path');
    return c.json(describeRun(store, id));
  });

  app.get('/api/runs/:id/decisions', (c) => {
    const { id } = parseInput(runParams, c.req.param(), 'path');
    const query = parseInput(decisionsQuery, c.req.query(), 'query');
    return c.json(
      listDecisions(store, id, {
        offset: query.offset,
        limit: query.limit,
        order: query.order,
        ...(query.method === undefined ? {} : { method: query.method }),
        ...(query.taskId === undefined ? {} : { taskId: query.taskId }),
      }),
    );
  });

  app.get('/api/runs/:id/tasks/:taskId/trace', (c) => {
    const { id, taskId } = parseInput(taskParams, c.req.param(), 'path');
    return c.json(describeTaskTrace(store, id, taskId));
  });

  app.get('/api/runs/:id/reputation', (c) => {
    const { id } = parseInput(runParams, c.req.param(), 'path');
    const { method } = parseInput(reputationQuery, c.req.query(), 'query');
    return c.json(reputationSeries(store, id, method));
  });

  app.get('/api/replays', (c) => c.json({ replays: listReplays(context.replayDir) }));

  app.get('/api/replays/:name', (c) => {
    const { name } = parseInput(replayParams, c.req.param(), 'path');
    return c.json(readReplay(context.replayDir, name));
  });

  return app;
}

/** Run kinds Repute's own sessions and the server write; a store may hold others (library callers name their own). */
const builtInRunKinds = ['run', 'serve', 'debate', 'drf', 'raps'] as const;

/** Refuses a `kind` filter that no run could match (a typo), naming it and the kinds there are. */
function assertKnownRunKind(kind: string, runs: readonly RunRecord[]): void {
  const known = [...new Set([...builtInRunKinds, ...runs.map((run) => run.kind)])];
  if (known.includes(kind)) return;
  throw new InvalidArgumentError({
    parameter: 'query.kind',
    value: kind,
    message: `unknown run kind ${JSON.stringify(kind)}; pass one of ${known.join(', ')}`,
  });
}
