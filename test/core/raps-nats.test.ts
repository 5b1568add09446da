import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRapsScenario,
  runRapsScenario,
  spawnRapsNodeProcess,
  natsStreamName,
  type RapsNodeProcess,
} from '../../src/eval/raps-scenarios/index.js';
import type { RapsEvent } from '../../src/protocols/pubsub/index.js';
import { encodeWire, rapsSubjects } from '../../src/protocols/pubsub/wire.js';
import { connectNatsTransport, startNatsServer, type NatsServerProcess } from '../../src/transport/index.js';

// The same RAPS scenario across processes: nats-server on 127.0.0.1 (random port, JetStream on a
// temporary store), five agent nodes as child processes, the coordinator here.
const binary = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
const parameters = { seed: 2027, taskCount: 4 };

describe.skipIf(!existsSync(binary))('RAPS over NATS across processes', () => {
  let server: NatsServerProcess;
  let second: NatsServerProcess;
  const children: RapsNodeProcess[] = [];

  beforeAll(async () => {
    server = await startNatsServer({ binary });
    second = await startNatsServer({ binary });
  });

  afterAll(async () => {
    for (const child of children) await child.kill();
    await server?.dispose();
    await second?.dispose();
  });

  // Message ids (and so the simulated audits) derive from the run id: every run uses the same one,
  // each NATS run on its own server.
  const runId = 'xproc';
  const startNodes = async (url: string): Promise<Map<string, RapsNodeProcess>> => {
    const scenario = createRapsScenario('adversarial', { ...parameters, runId });
    const nodes = new Map<string, RapsNodeProcess>();
    for (const agent of scenario.agents) {
      const node = spawnRapsNodeProcess({
        scenario: 'adversarial',
        parameters: { ...parameters, runId },
        agentId: agent.identity.id,
        natsUrl: url,
      });
      children.push(node);
      nodes.set(agent.identity.id, node);
    }
    await Promise.all([...nodes.values()].map((node) => node.ready));
    return nodes;
  };

  it('gives the in-process outcome, and loses nothing through a crashed node, a server restart and malformed messages', async () => {
    const baseline = await runRapsScenario('adversarial', { ...parameters, runId });
    expect(baseline.result.decisions).toHaveLength(4);

    // 1. Plain cross-process run.
    const runA = runId;
    const nodesA = await startNodes(server.url);
    const transportA = await connectNatsTransport({
      servers: server.url,
      stream: natsStreamName(runA),
      subjects: [`raps.${runA}.>`],
      name: 'coordinator',
    });
    const plain = await runRapsScenario('adversarial', {
      ...parameters,
      runId: runA,
      transport: transportA,
      hostAgents: false,
      replyTimeoutMs: 60_000,
    });
    await transportA.close();
    for (const node of nodesA.values()) await node.stop();
    expect(plain.result.decisions).toEqual(baseline.result.decisions);
    expect(plain.result.beliefs).toEqual(baseline.result.beliefs);
    expect(plain.result.totals).toEqual(baseline.result.totals);

    // 2. Faults mid-run: SIGKILL one node and restart it, restart nats-server, inject malformed messages.
    const runB = runId;
    const nodesB = await startNodes(second.url);
    const transportB = await connectNatsTransport({
      servers: second.url,
      stream: natsStreamName(runB),
      subjects: [`raps.${runB}.>`],
      name: 'coordinator',
      ackWaitMs: 1000,
    });
    const faults: Promise<void>[] = [];
    const log: string[] = [];
    // The run awaits the promise returned for a round event, so each fault completes between rounds.
    const onEvent = async (event: RapsEvent) => {
      if (event.type !== 'round') return;
      log.push(`round ${event.globalRound}`);
      if (event.globalRound === 1) {
        faults.push(
          (async () => {
            await nodesB.get('agent-2')?.kill();
            log.push('killed agent-2');
            await new Promise((resolve) => setTimeout(resolve, 300));
            const restarted = spawnRapsNodeProcess({
              scenario: 'adversarial',
              parameters: { ...parameters, runId: runB },
              agentId: 'agent-2',
              natsUrl: second.url,
            });
            children.push(restarted);
            await restarted.ready;
            log.push('restarted agent-2');
          })(),
        );
      }
      if (event.globalRound === 3) {
        faults.push(
          (async () => {
            const subjects = rapsSubjects(runB);
            await transportB.publish(subjects.publications, new TextEncoder().encode('{"schemaVersion":1,"id":'), {
              id: 'malformed-1',
            });
            await transportB.publish(subjects.reports, encodeWire({ schemaVersion: 7, kind: 'audited' }), {
              id: 'malformed-2',
            });
            await second.restart();
            log.push('restarted nats-server');
          })(),
        );
      }
      await Promise.all(faults);
    };
    const faulted = await runRapsScenario('adversarial', {
      ...parameters,
      runId: runB,
      transport: transportB,
      hostAgents: false,
      onEvent,
      replyTimeoutMs: 60_000,
    });
    await Promise.all(faults);
    await transportB.close();
    // Both faults happened while rounds were still to come.
    const faultsOnly = log.filter((entry) => !entry.startsWith('round'));
    expect(faultsOnly).toEqual(['killed agent-2', 'restarted agent-2', 'restarted nats-server']);
    expect(log.indexOf('killed agent-2')).toBeLessThan(log.indexOf(`round ${faulted.result.rounds.length}`));
    expect(log.indexOf('restarted nats-server')).toBeLessThan(log.indexOf(`round ${faulted.result.rounds.length}`));
    expect(faulted.result.decisions).toEqual(baseline.result.decisions);
    expect(faulted.result.beliefs).toEqual(baseline.result.beliefs);
    expect(faulted.result.totals.malformed).toBe(2);
    expect({ ...faulted.result.totals, malformed: 0, duplicates: 0 }).toEqual({
      ...baseline.result.totals,
      duplicates: 0,
    });
  }, 180_000);
});
