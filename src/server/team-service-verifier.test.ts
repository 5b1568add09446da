// `repute serve` with a team file's verifier: the served team asks the LLM judge about every
// proposal before the method decides (toy endpoint: an honest judge, two honest agents, three
// colluders answering 13).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLiveTeam, createTeamVerifier } from '../cli/commands/_live-team.js';
import { readTeamFile } from '../cli/commands/_team-file.js';
import { openStore } from '../store/store.js';
import { temporaryDirectory } from '../testing/_test-temporary-directory.js';
import type { OpenAICompatibleServer } from '../testing/openai-compatible-server.js';
import { startToyTeamEndpoint } from '../testing/toy-team-endpoint.js';
import { createTeamService } from './team-service.js';

let endpoint: OpenAICompatibleServer | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

/**
 * The toy team of this file on a fresh endpoint (two honest agents, three colluders answering 13,
 * an honest LLM judge with `judgeExtra` in its verifier section), its store and its verifier.
 */
async function judgedTeam(prompt: string, judgeExtra = '') {
  endpoint = await startToyTeamEndpoint({ tasks: [{ prompt, reference: '31' }] });
  const dir = temporaryDirectory('repute-serve-judge-');
  const agents = ['honest-a', 'honest-b', 'colluder-1', 'colluder-2', 'colluder-3']
    .map(
      (id) => `  - id: ${id}\n    provider: openai-compatible\n    model: toy-${id}\n    baseURL: ${endpoint?.baseURL}`,
    )
    .join('\n');
  writeFileSync(
    join(dir, 'team.yaml'),
    `name: served\ntasks: tasks.jsonl\nmaxRetries: 0\nverifier: { type: llm-judge, provider: openai-compatible, model: toy-honest-judge, baseURL: "${endpoint.baseURL}"${judgeExtra} }\nagents:\n${agents}\n`,
  );
  const file = readTeamFile(join(dir, 'team.yaml'));
  const store = openStore({ path: join(dir, 'repute.db') });
  const verifier = createTeamVerifier(file, store, 'serve');
  if (verifier === undefined) throw new Error('the team file has a verifier');
  return { file, store, verifier };
}

describe('served team with a verifier', () => {
  it('decides with the judge’s verdicts, shows them per agent and learns from them', async () => {
    const prompt = 'What is 10 * 2 + 11?';
    const { file, store, verifier } = await judgedTeam(prompt);
    const team = createTeamService({
      name: file.name,
      agents: createLiveTeam(file, store, 'serve'),
      store,
      method: 'minirep',
      kind: 'number',
      runId: 'serve',
      generateId: () => 'chat-1',
      verifier: verifier.verifier,
      verifierId: verifier.id,
    });
    const answer = await team.answer({ messages: [{ role: 'user', content: prompt }] });
    // The honest judge: "correct, 0.9" for 31, "incorrect, 0.9" for 13 → P(correct) 0.9 and 0.1.
    const verdicts = Object.fromEntries(answer.weights.map((weight) => [weight.agentId, weight.verdict]));
    expect(verdicts['honest-a']).toBeCloseTo(0.9, 12);
    expect(verdicts['colluder-3']).toBeCloseTo(0.1, 12);
    const vote = store.events('serve').find((event) => event.type === 'vote')?.data as {
      verifier?: string;
      verdicts?: Record<string, number>;
    };
    expect(vote.verifier).toBe('llm-judge(judge: toy-honest-judge)');
    expect(Object.keys(vote.verdicts ?? {})).toHaveLength(5);
    // Verifier feedback: after one request both honest agents score above every colluder, although
    // the colluders were the majority (consensus feedback would have rewarded them).
    for (const honest of ['honest-a', 'honest-b'])
      for (const colluder of ['colluder-1', 'colluder-2', 'colluder-3'])
        expect(answer.reputation[honest]).toBeGreaterThan(answer.reputation[colluder] as number);
    // The judge's calls are booked in the ledger under its id.
    expect(store.usageSummary({ by: 'agent', runId: 'serve' }).find((row) => row.key === 'judge')?.calls).toBe(5);
    store.close();
  }, 60_000);

  it('serves minirep-vg with the calibration the team file declares: the judge overrules the colluding majority', async () => {
    const prompt = 'What is 10 * 2 + 11?';
    const { file, store, verifier } = await judgedTeam(
      prompt,
      ', calibration: { sensitivity: 0.95, specificity: 0.95 }',
    );
    expect(verifier.verifier.calibration).toEqual({ sensitivity: 0.95, specificity: 0.95 });
    const serve = (method: 'minirep-vg' | 'majority', runId: string) =>
      createTeamService({
        name: `${file.name}-${method}`,
        agents: createLiveTeam(file, store, runId),
        store,
        method,
        kind: 'number',
        runId,
        generateId: () => `${runId}-1`,
        verifier: verifier.verifier,
        verifierId: verifier.id,
      }).answer({ messages: [{ role: 'user', content: prompt }] });
    // Three colluders say 13, two honest agents 31: a plain vote takes 13; the declared judge's
    // verdicts (0.9 for 31, 0.1 for 13; log-likelihood ratios ±0.8·ln(0.95/0.05)) turn minirep-vg to 31.
    expect((await serve('majority', 'serve-majority')).decision.answer).toBe('13');
    expect((await serve('minirep-vg', 'serve-vg')).decision.answer).toBe('31');
    store.close();
  }, 60_000);
});
