import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentIdentity } from '../../core/agent-identity.js';
import type { ReputationModel } from '../../core/reputation-model.js';
import { createDebateMethod } from '../../protocols/debate/methods.js';
import { restoreSnapshot } from '../../protocols/session.js';
import { createLoggedReputation } from '../../store/_logged-reputation.js';
import { openStore, type Store } from '../../store/store.js';
import { startOpenAICompatibleServer, type OpenAICompatibleServer } from '../../testing/openai-compatible-server.js';
import { runToExit } from '../../testing/_test-cli-run.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';
import { sumReply, writeSumTeam } from '../../testing/_test-sum-team.js';

const team = 'sum-team';
const agentIds = ['alpha', 'beta-1', 'beta-2', 'weak'];

/** A fresh `beta` model as `repute run` and `repute serve` build it, restored from `snapshot`. */
function betaModel(agents: readonly AgentIdentity[], store: Store, scope: { team: string } | { runId: string }) {
  const model = createDebateMethod('beta', { agents }).reputation as ReputationModel;
  restoreSnapshot(model, store.loadReputation({ scope, name: 'beta' }), agentIds);
  return model;
}

/**
 * What `repute serve` does with one chat request of the team (src/server/team-service.ts), minus
 * the agents: read the team's latest `beta` state from its log, apply the request's evidence (alpha
 * disagreed with the decision, weak agreed) and record the task with that evidence appended to the
 * log under the request's key, in one transaction.
 */
function serveOneRequest(path: string): void {
  const store = openStore({ path });
  try {
    const agents = store.loadTeam(team) as AgentIdentity[];
    store.ensureRun({ id: 'serve-sum-team', kind: 'serve', team, config: {} });
    const logged = createLoggedReputation({
      store,
      team,
      name: 'beta',
      runId: 'serve-sum-team',
      start: 'team',
      model: createDebateMethod('beta', { agents }).reputation as ReputationModel,
      create: () => createDebateMethod('beta', { agents }).reputation as ReputationModel,
    });
    store.transaction(() => {
      logged.sync();
      logged.model.observe([
        { type: 'outcome', taskId: 'chat-1', subject: 'alpha', success: 0 },
        { type: 'outcome', taskId: 'chat-1', subject: 'weak', success: 1 },
      ]);
      store.recordTaskResult({
        runId: 'serve-sum-team',
        method: 'beta',
        taskId: 'chat-1',
        result: { answer: '16' },
        reputationEvents: logged.events('chat-1'),
      });
    });
  } finally {
    store.close();
  }
}

let server: OpenAICompatibleServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('repute run while repute serve updates the same team', () => {
  it("keeps the server's reputation update made between two tasks, and the run's later decisions read it", async () => {
    const dir = temporaryDirectory('repute-run-serve-');
    const path = join(dir, 'repute.db');
    let served = false;
    server = await startOpenAICompatibleServer({
      script: (request) => {
        // The first call of task t2 ("What is 11 + 5?"): t1 is committed, t2 is not.
        if (!served && JSON.stringify(request.body).includes('What is 11 + 5?')) {
          served = true;
          serveOneRequest(path);
        }
        return sumReply(request);
      },
    });
    const file = writeSumTeam(dir, { baseURL: server.baseURL, tasks: 3, methods: ['beta'] });
    const result = await runToExit([file, '--reputation', 'continue', '--json']);
    expect(result.code).toBe(0);
    expect(served).toBe(true);
    const summary = JSON.parse(result.stdout);
    expect(summary.methods.beta).toEqual({ done: 3, resumed: 0, failed: 0, accuracy: 1, failures: 0 });

    const store = openStore({ path, readonly: true });
    const agents = store.loadTeam(team) as AgentIdentity[];
    const counts = (model: ReputationModel, agentId: string) => {
      const { components, evidenceCount } = model.explain(agentId);
      return { positive: components.positive, negative: components.negative, evidenceCount };
    };
    // Every task, consensus feedback gives one outcome per agent: alpha, beta-1, beta-2 agree with
    // the decided sum (success 1), weak is off by one (success 0). Beta with λ = 0.9 applies
    // r ← 0.9·r + success, s ← 0.9·s + (1 − success) per outcome. In commit order t1, server, t2, t3:
    //   alpha:  t1 (1, 0); server fail (0.9, 1); t2 (1.81, 0.9); t3 (2.629, 0.81); 4 outcomes
    //   weak:   t1 (0, 1); server ok   (1, 0.9); t2 (0.9, 1.81); t3 (0.81, 2.629); 4 outcomes
    //   beta-*: t1 (1, 0); t2 (1.9, 0); t3 (2.71, 0); 3 outcomes
    const saved = betaModel(agents, store, { team });
    expect(counts(saved, 'alpha').evidenceCount).toBe(4);
    expect(counts(saved, 'weak').evidenceCount).toBe(4);
    expect(counts(saved, 'beta-1').evidenceCount).toBe(3);
    expect(counts(saved, 'beta-2').evidenceCount).toBe(3);
    expect(counts(saved, 'alpha').positive).toBeCloseTo(2.629, 12);
    expect(counts(saved, 'alpha').negative).toBeCloseTo(0.81, 12);
    expect(counts(saved, 'weak').positive).toBeCloseTo(0.81, 12);
    expect(counts(saved, 'weak').negative).toBeCloseTo(2.629, 12);
    expect(counts(saved, 'beta-1').positive).toBeCloseTo(2.71, 12);
    expect(counts(saved, 'beta-2').negative).toBe(0);

    // The run's decisions read the team's log when they start: t2 had started (read version 1) when
    // the server appended, t3 read the server's update (version 3), so the run's own state after t3
    // is the team's. The log holds t1, the server's request, t2, t3 as seq 1..4.
    expect(betaModel(agents, store, { runId: summary.runId }).snapshot()).toEqual(saved.snapshot());
    expect(store.reputationEvents({ team, name: 'beta' }).map((event) => [event.key, event.readVersion])).toEqual([
      [`${summary.runId}/beta/t1`, 0],
      ['serve-sum-team/beta/chat-1', 1],
      [`${summary.runId}/beta/t2`, 1],
      [`${summary.runId}/beta/t3`, 3],
    ]);
    expect(
      store
        .events(summary.runId, { type: 'vote' })
        .map((event) => [event.taskId, (event.data as { readVersion?: number }).readVersion]),
    ).toEqual([
      ['t1', 0],
      ['t2', 1],
      ['t3', 3],
    ]);
    // The server's request stays recorded as its own task.
    expect(store.taskResults('serve-sum-team', 'beta').map((record) => record.taskId)).toEqual(['chat-1']);
    store.close();
  }, 60_000);
});
