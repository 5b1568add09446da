// Internal test helper: local OpenAI-compatible servers and in-memory stores that a test file
// closes in one `afterEach`. Not re-exported from the `repute/testing` barrel.
import { openStore, type Store } from '../store/store.js';
import {
  startOpenAICompatibleServer,
  type OpenAICompatibleServer,
  type ServerScript,
} from './openai-compatible-server.js';

/** Servers and stores opened by one test file, all closed by `closeAll`. */
export interface TestResources {
  /** Starts a local OpenAI-compatible server that replays `script`. */
  serve(script: ServerScript): Promise<OpenAICompatibleServer>;
  /** Opens an in-memory store whose clock always reads 0 ms. */
  memoryStore(): Store;
  /** Closes every server and store opened since the last call. */
  closeAll(): Promise<void>;
}

/**
 * Creates a tracker for the servers and stores a test file opens.
 *
 * @example
 * const resources = createTestResources();
 * afterEach(resources.closeAll);
 * const server = await resources.serve([{ text: '42' }]);
 */
export function createTestResources(): TestResources {
  const servers: OpenAICompatibleServer[] = [];
  const stores: Store[] = [];
  return {
    async serve(script) {
      const server = await startOpenAICompatibleServer({ script });
      servers.push(server);
      return server;
    },
    memoryStore() {
      const store = openStore({ path: ':memory:', now: () => 0 });
      stores.push(store);
      return store;
    },
    async closeAll() {
      await Promise.all(servers.splice(0).map((server) => server.close()));
      for (const store of stores.splice(0)) store.close();
    },
  };
}
