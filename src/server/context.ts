// What every route reads: the store, the clock and the server's settings.
import type { DecisionTelemetry } from './otel-telemetry.js';
import type { TeamService } from './team-service.js';
import type { Store } from '../store/store.js';

export type { ServedTeam } from './team-service.js';

/** The server's clock, in milliseconds (inject a fixed one in tests). */
export interface ServerClock {
  /** Current time in milliseconds since the epoch. */
  now(): number;
}

/** Options of {@link createApp}. */
export interface CreateAppOptions {
  /** The store `repute run` writes (WAL: runs written by another process show up live). */
  readonly store: Store;
  /** Clock for response timestamps. @default { now: Date.now } */
  readonly clock?: ServerClock;
  /** The team behind `/v1/chat/completions` (`createTeamService`), or none. @default none */
  readonly team?: TeamService;
  /** Folder whose sub-folders hold replay outputs (summary.json, conditions.csv). @default none */
  readonly replayDir?: string;
  /** Bearer token required on every route; compared in constant time. Without one, only requests addressed to a loopback host name (localhost, 127.x.x.x, [::1]) are answered, a guard against DNS rebinding. @default none */
  readonly token?: string;
  /** Origin allowed by CORS; CORS headers are off unless given. @default none */
  readonly cors?: string;
  /** Largest accepted request body, in bytes. @default 1_048_576 */
  readonly bodyLimit?: number;
  /** Folder with the built dashboard (app.js, app.css); `/` answers 503 when missing. @default the package's dist/server/dashboard */
  readonly assetsDir?: string;
  /** How often the SSE endpoint polls the store for new events, in ms. @default 250 */
  readonly pollMs?: number;
  /** Package version reported by `/health`. @default '0.0.0' */
  readonly version?: string;
  /**
   * Receives one line per answered request: time, method, path (no query), status, duration and,
   * for a served decision, its task id. Never a body, a query string or a header. @default none
   */
  readonly accessLog?: (line: string) => void;
  /**
   * Exports each served decision as OpenTelemetry spans (GenAI semantic conventions); its trace id
   * is returned in the `traceparent` and `x-repute-trace-id` response headers. @default none
   */
  readonly telemetry?: DecisionTelemetry;
}

/** Resolved settings shared by the route modules. */
export interface ServerContext {
  readonly store: Store;
  readonly clock: ServerClock;
  readonly team: TeamService | undefined;
  readonly replayDir: string | undefined;
  readonly assetsDir: string | undefined;
  readonly pollMs: number;
  readonly version: string;
  readonly telemetry: DecisionTelemetry | undefined;
  /** Whether an `Authorization` header carries the server's token (always true when none is set). */
  authorized(header: string | undefined): boolean;
}
