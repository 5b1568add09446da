// Internal test helper: a sum team (`writeSumTeam`) of scripted models served over HTTP by the team
// endpoint on a file store, with an OpenAI client pointed at it. Shared by the team endpoint's tests.
import { join } from 'node:path';
import OpenAI from 'openai';
import { createLiveTeam } from '../cli/commands/_live-team.js';
import { readTeamFile } from '../cli/commands/_team-file.js';
import type { ReputationModel } from '../core/reputation-model.js';
import { defaultServeMethod } from '../protocols/debate/methods.js';
import { createReputationModel } from '../reputation/registry.js';
import { startServer, type RunningServer } from '../server/start-server.js';
import { createTeamService, type TeamService, type TeamServiceOptions } from '../server/team-service.js';
import { openStore, type Store } from '../store/store.js';
import {
  startOpenAICompatibleServer,
  type OpenAICompatibleServer,
  type ServerScript,
} from './openai-compatible-server.js';
import { writeSumTeam } from './_test-sum-team.js';
import { temporaryDirectory } from './_test-temporary-directory.js';

/** A served sum team: the scripted provider, the store, the service, the HTTP server and a client. */
export interface ServedSumTeam {
  readonly client: OpenAI;
  readonly provider: OpenAICompatibleServer;
  readonly store: Store;
  readonly team: TeamService;
  readonly server: RunningServer;
  /** The served method's reputation model as stored now (the `minirep` model every MiniRep method keeps). */
  servedModel(): ReputationModel;
}

/**
 * Serves the sum team `sum-team` (agents `agents`, replies from `script`) with `service`'s options
 * (kind `number`, run `serve`, task ids `chat-1`, `chat-2`, …); everything opened is pushed onto
 * `closers`, which the test closes in reverse order.
 */
export async function serveSumTeam(
  closers: Array<() => Promise<void> | void>,
  {
    script,
    agents,
    cache = false,
    service = {},
    clock,
  }: {
    script: ServerScript;
    agents?: readonly string[];
    cache?: boolean;
    service?: Partial<TeamServiceOptions>;
    clock?: { now(): number };
  },
): Promise<ServedSumTeam> {
  const provider = await startOpenAICompatibleServer({ script });
  closers.push(() => provider.close());
  const dir = temporaryDirectory('repute-served-');
  const file = readTeamFile(
    writeSumTeam(dir, { baseURL: provider.baseURL, tasks: 1, cache, ...(agents === undefined ? {} : { agents }) }),
  );
  const store = openStore({ path: join(dir, 'repute.db') });
  closers.push(() => store.close());
  let counter = 0;
  const team = createTeamService({
    name: file.name,
    agents: createLiveTeam(file, store, 'serve'),
    store,
    kind: 'number',
    runId: 'serve',
    generateId: () => `chat-${++counter}`,
    ...service,
  });
  closers.push(() => team.idle());
  const server = await startServer({ store, team, port: 0, ...(clock === undefined ? {} : { clock }) });
  closers.push(() => server.close());
  const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  const servedModel = () => {
    const model = createReputationModel('minirep', { agents: store.loadTeam(file.name) ?? [] });
    const snapshot = store.loadReputation({ scope: { team: file.name }, name: service.method ?? defaultServeMethod });
    if (snapshot !== undefined) model.restore(snapshot);
    return model;
  };
  return { client, provider, store, team, server, servedModel };
}
