import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer, type NatsServerProcess } from '../../transport/nats-server.js';
import { natsStreamName, type RapsNodeProcess, runRapsScenarioOverNats, spawnRapsNodeProcess } from './nats-run.js';

// What a RAPS run over NATS leaves on a server that outlives it: a private nats-server (127.0.0.1,
// random port, temporary store) stands in for the shared one of `--nats-url`.
const binary = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

describe.skipIf(!existsSync(binary))('RAPS over NATS: what a run leaves on the server', () => {
  let server: NatsServerProcess;
  const children: RapsNodeProcess[] = [];

  beforeAll(async () => {
    server = await startNatsServer({ binary });
  });

  afterAll(async () => {
    for (const child of children) await child.kill();
    await server?.dispose();
  });

  /** The server's streams, and the consumers of each, by name (sorted). */
  const serverState = async (): Promise<Map<string, string[]>> => {
    const nats = await import('nats');
    const connection = await nats.connect({ servers: server.url });
    try {
      const manager = await connection.jetstreamManager();
      const state = new Map<string, string[]>();
      for (const stream of await manager.streams.list().next()) {
        const consumers = await manager.consumers.list(stream.config.name).next();
        state.set(stream.config.name, consumers.map((consumer) => consumer.name).sort());
      }
      return state;
    } finally {
      await connection.close();
    }
  };

  it('a node process keeps its inbox consumer whether stopped with SIGTERM or SIGKILLed (a restart resumes)', async () => {
    const runId = 'node-stop';
    const start = (agentId: string) => {
      const node = spawnRapsNodeProcess({
        scenario: 'adversarial',
        parameters: { seed: 2027, taskCount: 2, runId },
        agentId,
        natsUrl: server.url,
      });
      children.push(node);
      return node;
    };
    const stopped = start('agent-1');
    const killed = start('agent-2');
    await Promise.all([stopped.ready, killed.ready]);
    // Each node follows its inbox under `node-<agent>` on the run's stream RAPS_node-stop.
    expect((await serverState()).get(natsStreamName(runId))).toEqual(['node-agent-1', 'node-agent-2']);
    await stopped.stop();
    expect(stopped.child.exitCode).toBe(0);
    await killed.kill();
    expect(killed.child.signalCode).toBe('SIGKILL');
    // Both consumers wait for a restarted process (or the run's end, or their inactive threshold).
    expect((await serverState()).get(natsStreamName(runId))).toEqual(['node-agent-1', 'node-agent-2']);
  }, 60_000);

  it('a finished run deletes its stream and consumers; an interrupted one keeps its stream', async () => {
    const isRun = (seed: number) => (name: string) => name.startsWith(`RAPS_adversarial-${seed}-`);
    const before = await serverState();
    // Finished: 5 agent processes, 2 tasks.
    const finished = await runRapsScenarioOverNats('adversarial', {
      parameters: { seed: 31, taskCount: 2 },
      natsUrl: server.url,
      replyTimeoutMs: 60_000,
    });
    expect(finished.result.decisions).toHaveLength(2);
    const after = await serverState();
    expect([...after.keys()].filter(isRun(31))).toEqual([]);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());

    // Interrupted after its first round (nodes in this process, each over NATS).
    const controller = new AbortController();
    await expect(
      runRapsScenarioOverNats('adversarial', {
        parameters: { seed: 32, taskCount: 2 },
        natsUrl: server.url,
        processes: false,
        replyTimeoutMs: 60_000,
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === 'round') controller.abort(new Error('stop after round 1'));
        },
      }),
    ).rejects.toThrow('stop after round 1');
    const interrupted = [...(await serverState())].filter(([name]) => isRun(32)(name));
    // Its stream stays (with the run's messages); its consumers are deleted as before.
    expect(interrupted).toHaveLength(1);
    expect(interrupted[0]?.[1]).toEqual([]);
  }, 120_000);
});
