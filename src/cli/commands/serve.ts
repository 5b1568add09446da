// `repute serve [team.yaml]`: the JSON API, SSE events, replay outputs and dashboard over a store,
// plus (with a team file) the OpenAI-compatible team endpoint. Parses flags, starts the server,
// prints where it listens and waits for SIGINT/SIGTERM.
import { existsSync } from 'node:fs';
import { defineCommand } from 'citty';
import { InterruptedError, NotFoundError } from '../../core/errors.js';
import { allowedEnvNames } from '../../llm/key-policy.js';
import { openStore } from '../../store/store.js';
import { isPostgresUrl } from '../../store/_postgres-url.js';
import { startServer, type RunningServer } from '../../server/start-server.js';
import { createTeamService, serveInstanceId, serveRunId, type TeamService } from '../../server/team-service.js';
import type { AnswerKind } from '../../core/answers/answer-kind.js';
import { decisionTelemetryFromEnvironment } from '../../server/otel-telemetry.js';
import { createLiveTeam, createTeamVerifier } from './_live-team.js';
import { interruptSignal } from '../_contract.js';
import { packageVersion } from '../version.js';
import { parseIntegerFlag } from './_shared.js';
import { readTeamFile } from './_team-file.js';

/** How long requests in flight may take to finish after SIGINT/SIGTERM, in ms (the CLI gives a command 10 s). */
export const SERVE_DRAIN_MS = 8_000;

export default defineCommand({
  meta: {
    name: 'serve',
    description:
      'Serve the store as a JSON API with a dashboard (and, with a team file, an OpenAI-compatible team endpoint)',
  },
  args: {
    team: {
      type: 'positional',
      description: 'Team file (YAML) whose store and team to serve, see examples/team.yaml',
      required: false,
    },
    store: {
      type: 'string',
      description: "SQLite store file or postgres:// URL (default: the team file's store, else repute.db)",
      valueHint: 'FILE',
    },
    port: { type: 'string', description: 'TCP port (0 = any free port)', default: '8787', valueHint: 'N' },
    host: {
      type: 'string',
      description: 'Interface to bind; other than loopback requires --token',
      default: '127.0.0.1',
      valueHint: 'HOST',
    },
    'replay-dir': {
      type: 'string',
      description: 'Folder whose sub-folders hold repute replay outputs',
      valueHint: 'DIR',
    },
    token: {
      type: 'string',
      description: 'Bearer token required on every request (or set REPUTE_SERVE_TOKEN)',
      valueHint: 'TOKEN',
    },
    'allow-env': {
      type: 'string',
      description:
        "Comma-separated key variables the team file may send to its endpoints (also REPUTE_ALLOW_ENV); without it only a provider's own key goes, to its official host",
      valueHint: 'NAMES',
    },
    cors: { type: 'string', description: 'Allow this browser origin (CORS is off by default)', valueHint: 'ORIGIN' },
    'access-log': {
      type: 'boolean',
      description: 'One line per request on stderr (no content, no secrets); --no-access-log turns it off',
      default: true,
    },
  },
  async run({ args }) {
    const port = parseIntegerFlag('port', args.port, 8787, 0, 65_535);
    const team =
      args.team === undefined ? undefined : readTeamFile(args.team, { allowEnv: allowedEnvNames(args['allow-env']) });
    const storePath = args.store ?? team?.store ?? 'repute.db';
    const token = args.token ?? process.env.REPUTE_SERVE_TOKEN;
    // Without a team the server only reads: a store that does not exist is a typo, not a new store.
    if (team === undefined && storePath !== ':memory:' && !isPostgresUrl(storePath) && !existsSync(storePath)) {
      throw new NotFoundError({
        entity: 'store',
        id: storePath,
        message: `no store at ${storePath}; pass --store <the .db file repute run wrote>, or serve a team (repute serve <team.yaml>) to start one`,
      });
    }
    const replayDir = args['replay-dir'];
    if (replayDir !== undefined && !existsSync(replayDir)) {
      throw new NotFoundError({
        entity: 'replay folder',
        id: replayDir,
        message: `no folder at ${replayDir}; pass --replay-dir <the folder holding repute replay --out outputs>`,
      });
    }
    // Without a team the server only reads: a read-only store file is fine then.
    const store = openStore({ path: storePath, readonly: team === undefined });
    let server: RunningServer;
    // Spans of served decisions when OTEL_EXPORTER_OTLP_ENDPOINT is set (GenAI semantic conventions).
    const telemetry = team === undefined ? undefined : decisionTelemetryFromEnvironment();
    // The run of the served team, marked interrupted when the server stops.
    let servedRunId: string | undefined;
    // Its late answers (after a quorum or deadline) are recorded before the store closes.
    let servedTeam: TeamService | undefined;
    try {
      let served: TeamService | undefined;
      if (team !== undefined) {
        const method = team.serve.method;
        const runId = serveRunId({
          name: team.name,
          method,
          agents: team.agents.map((agent) => agent.id),
          ...(team.k === undefined ? {} : { k: team.k }),
          seed: team.seed,
          instance: serveInstanceId(),
        });
        servedRunId = runId;
        const verifier = createTeamVerifier(
          team,
          store,
          runId,
          telemetry === undefined ? {} : { onCall: telemetry.onCall },
        );
        served = createTeamService({
          ...(verifier === undefined ? {} : { verifier: verifier.verifier, verifierId: verifier.id }),
          name: team.name,
          agents: createLiveTeam(team, store, runId, telemetry === undefined ? {} : { onCall: telemetry.onCall }),
          store,
          method,
          kind: team.serve.kind as AnswerKind,
          runId,
          seed: team.seed,
          ...(team.k === undefined ? {} : { k: team.k }),
          ...(team.serve.deadlineMs === undefined ? {} : { deadlineMs: team.serve.deadlineMs }),
          ...(team.serve.quorum === undefined ? {} : { quorum: team.serve.quorum }),
          breaker: team.serve.breaker,
        });
      }
      servedTeam = served;
      server = await startServer({
        store,
        port,
        host: args.host,
        version: packageVersion(),
        ...(served === undefined ? {} : { team: served }),
        ...(replayDir === undefined ? {} : { replayDir }),
        ...(telemetry === undefined ? {} : { telemetry }),
        ...(token === undefined || token === '' ? {} : { token }),
        ...(args.cors === undefined ? {} : { cors: args.cors }),
        ...(args['access-log'] === false ? {} : { accessLog: (line: string) => process.stderr.write(`${line}\n`) }),
      });
    } catch (error) {
      store.close();
      throw error;
    }
    // Runs until Ctrl-C or SIGTERM; the CLI contract then exits 130 or 143. Watched before the URL is
    // printed, so a signal sent as soon as the URL appears is handled too.
    const signal = interruptSignal();
    process.stderr.write(`repute serve: store ${store.path}${team ? `, team ${team.name}` : ''}\n`);
    // No trailing '/': `$URL/api/runs` must be a path the server serves.
    process.stdout.write(`${server.url}\n`);
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    // In-flight requests (a team answer mid-debate) finish, up to a deadline inside the CLI's wind-down.
    const { finished, dropped } = await server.drain(SERVE_DRAIN_MS);
    if (servedTeam !== undefined) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        servedTeam.idle(),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, SERVE_DRAIN_MS);
        }),
      ]);
      clearTimeout(timer);
    }
    await telemetry?.shutdown().catch((error: unknown) => {
      process.stderr.write(
        `repute serve: could not send the last spans (${error instanceof Error ? error.message : String(error)})\n`,
      );
    });
    // The team's stored snapshot (the dashboard's) becomes the fold of every replica's events so far.
    await servedTeam?.foldReputation?.(0);
    if (servedRunId !== undefined) store.setRunStatus(servedRunId, 'interrupted');
    store.close();
    const name = signal.reason instanceof InterruptedError ? signal.reason.signal : 'SIGTERM';
    throw new InterruptedError({
      signal: name,
      message: `interrupted by ${name}; stopped serving after draining: ${finished} request${finished === 1 ? '' : 's'} in flight finished${dropped > 0 ? `, ${dropped} dropped at the ${SERVE_DRAIN_MS / 1000} s deadline` : ''}; start the command again to serve`,
    });
  },
});
