// Issue 36: the three small live teams through `repute run` against a local endpoint whose models
// are right with fixed per-model rates. MiniRep must not lose to a plain vote on any of them.
import { afterEach, describe, expect, it } from 'vitest';
import { accuracyReply } from '../../testing/_test-accuracy-team.js';
import { startOpenAICompatibleServer, type OpenAICompatibleServer } from '../../testing/openai-compatible-server.js';
import { runJson } from '../../testing/_test-cli-run.js';
import { temporaryDirectory } from '../../testing/_test-temporary-directory.js';
import { writeSumTeam } from '../../testing/_test-sum-team.js';

let server: OpenAICompatibleServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('repute run: MiniRep on small teams (issue 36)', () => {
  // The 4-agent team also runs our variants, named in the team file's methods like any method.
  it.each([
    [
      '4 agents: right 100%, 80%, 35%, 0%',
      ['right', 'good', 'weak', 'wrong'],
      ['minirep-lo', 'minirep-ds', 'minirep-rt', 'minirep-es', 'minirep-ic', 'minirep-rt-ic-es', 'minirep-ds-ic-es'],
    ],
    [
      '3 agents: right 100%, 80%, 0%',
      ['right', 'good', 'wrong'],
      ['minirep-rt', 'minirep-es', 'minirep-ic', 'minirep-rt-ic-es'],
    ],
    [
      '3 agents: right 100%, 80%, 35%',
      ['right', 'good', 'weak'],
      ['minirep-rt', 'minirep-es', 'minirep-ic', 'minirep-rt-ic-es'],
    ],
  ])(
    '%s: minirep is at least as accurate as majority',
    async (_, agents, variants) => {
      server = await startOpenAICompatibleServer({ script: (request) => accuracyReply(request) });
      const dir = temporaryDirectory('repute-small-team-');
      const methods = ['majority', 'minirep', ...variants];
      const team = writeSumTeam(dir, { baseURL: server.baseURL, tasks: 40, agents, methods });
      const summary = await runJson(team, '--run-id', 'small', '--reputation', 'fresh');
      expect(summary.status).toBe('completed');
      const majority = summary.methods.majority.accuracy as number;
      const miniRep = summary.methods.minirep.accuracy as number;
      // The always-right agent alone gets 100%; a plain vote loses only where the others outvote it.
      expect(majority).toBeGreaterThan(0.5);
      expect(miniRep).toBeGreaterThanOrEqual(majority);
      // MiniRep-RT (ours) keeps the paper's weights and changes only what consensus feedback scores.
      if (variants.includes('minirep-rt'))
        expect(summary.methods['minirep-rt'].accuracy as number).toBeGreaterThanOrEqual(majority);
      // MiniRep-ES (ours) shrinks history towards a plain vote while the evidence separating agents is weak.
      if (variants.includes('minirep-es'))
        expect(summary.methods['minirep-es'].accuracy as number).toBeGreaterThanOrEqual(majority);
      // MiniRep-IC (ours) merges agents that agree beyond independence into one clone group.
      if (variants.includes('minirep-ic'))
        expect(summary.methods['minirep-ic'].accuracy as number).toBeGreaterThanOrEqual(majority);
      // The three together.
      if (variants.includes('minirep-rt-ic-es'))
        expect(summary.methods['minirep-rt-ic-es'].accuracy as number).toBeGreaterThanOrEqual(majority);
      // MiniRep-DS+IC+ES: usable from the team file; on the 3-agent team with an always-wrong member it
      // is below the vote (29 of 40 against 32, as MiniRep-DS alone: docs/minirep.md), so it is listed here only.
      if (variants.includes('minirep-ds-ic-es'))
        expect(summary.methods['minirep-ds-ic-es'].accuracy as number).toBeGreaterThanOrEqual(majority);
    },
    120_000,
  );
});
