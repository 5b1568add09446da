// Builds live agents from a team file: one plumbed AI SDK model per agent (cache, ledger,
// retries, concurrency, timeout from src/llm) behind the `complete` function live agents take
// (`createCompletion`, whose usage is what the ledger books: real tokens, cost, cache hits).
import type { Agent } from '../../agents/agent.js';
import type { Verifier, VerifierCalibration } from '../../aggregation/verifier.js';
import { createLiveAgent } from '../../agents/live-agent.js';
import type { AgentIdentity } from '../../core/agent-identity.js';
import { createCompletion } from '../../llm/complete.js';
import { checkApiKey, createLanguageModel } from '../../llm/create-language-model.js';
import type { LlmCallRecord } from '../../llm/ledger-middleware.js';
import { createLlmJudgeVerifier } from '../../llm/llm-judge-verifier.js';
import { createExecutionVerifier } from '../../eval/sandbox/execution-verifier.js';
import type { Store } from '../../store/store.js';
import type { TeamFile } from './_team-file.js';

/** Identities of a team file's agents (clone group = `cloneGroup` or the model id). */
export function teamIdentities(team: TeamFile): AgentIdentity[] {
  return team.agents.map((agent) => ({
    id: agent.id,
    model: agent.cloneGroup ?? agent.model,
    cost: agent.price?.perCall ?? 0,
  }));
}

/**
 * Checks that every agent's API key is in the environment, so a missing one stops the run before the
 * store is created or written (the error names the variable and the agent's field, never a key).
 */
export function checkTeamApiKeys(team: TeamFile): void {
  team.agents.forEach((agent, index) => checkApiKey(agent.provider, agent.apiKeyEnv, `agents[${index}].apiKeyEnv`));
  if (team.verifier?.type === 'llm-judge')
    checkApiKey(team.verifier.provider, team.verifier.apiKeyEnv, 'verifier.apiKeyEnv');
}

/**
 * The team file's verifier, or `undefined` without a `verifier:` section, with the id its calls
 * are booked under. An LLM judge is plumbed like an agent (cache, ledger, retries, concurrency,
 * timeout, bounded replies: `createLanguageModel` with the team's settings), so its calls are
 * cached and booked under its `id`; an execution verifier runs each `code` proposal against the
 * public tests in the task's metadata field `testsField`, in the sandbox.
 */
export function createTeamVerifier(
  team: TeamFile,
  store: Store,
  runId: string,
  { onCall }: { onCall?: (record: LlmCallRecord) => void } = {},
): { verifier: Verifier; id: string } | undefined {
  const section = team.verifier;
  if (section === undefined) return undefined;
  const created = createSectionVerifier(team, section, store, runId, onCall);
  return section.calibration === undefined
    ? created
    : { ...created, verifier: withCalibration(created.verifier, section.calibration) };
}

/** The verifier with its measured rates attached (its `verify` unchanged). */
function withCalibration(verifier: Verifier, calibration: VerifierCalibration): Verifier {
  return { name: verifier.name, calibration, verify: (request) => verifier.verify(request) };
}

function createSectionVerifier(
  team: TeamFile,
  section: NonNullable<TeamFile['verifier']>,
  store: Store,
  runId: string,
  onCall: ((record: LlmCallRecord) => void) | undefined,
): { verifier: Verifier; id: string } {
  if (section.type === 'execution') {
    const field = section.testsField;
    return {
      id: 'execution',
      verifier: createExecutionVerifier({
        name: `execution(metadata.${field})`,
        // Public tests from the task line's metadata: tests the agents could see, never the reference.
        tests: (task) => {
          const tests = task.metadata?.[field];
          return typeof tests === 'string' ? tests : undefined;
        },
        sandbox: {
          ...(section.timeoutMs === undefined ? {} : { timeoutMs: section.timeoutMs }),
          ...(section.memoryMb === undefined ? {} : { memoryMb: section.memoryMb }),
        },
        ...(section.concurrency === undefined ? {} : { concurrency: section.concurrency }),
      }),
    };
  }
  const model = createLanguageModel({
    provider: section.provider,
    model: section.model,
    ...(section.baseURL === undefined ? {} : { baseURL: section.baseURL }),
    ...(section.apiKeyEnv === undefined ? {} : { apiKeyEnv: section.apiKeyEnv }),
    ...(section.price === undefined ? {} : { price: section.price }),
    ...(section.maxConcurrency === undefined ? {} : { maxConcurrency: section.maxConcurrency }),
    ...(section.maxResponseBytes === undefined ? {} : { maxResponseBytes: section.maxResponseBytes }),
    cache: store,
    cacheMode: team.cache,
    ...(team.cacheTtlMs === undefined ? {} : { cacheTtlMs: team.cacheTtlMs }),
    ledger: store,
    context: { runId, agentId: section.id },
    timeoutMs: team.timeoutMs,
    retry: { maxRetries: team.maxRetries },
    captureContent: team.captureContent,
    ...(onCall === undefined ? {} : { onCall }),
  });
  return {
    id: section.id,
    verifier: createLlmJudgeVerifier({
      model,
      name: `llm-judge(${section.id}: ${section.model})`,
      runId,
      ...(section.system === undefined ? {} : { system: section.system }),
    }),
  };
}

/** One live agent per team member, sharing the store as cache and ledger; `onCall` sees every booked call (spans, logs). */
export function createLiveTeam(
  team: TeamFile,
  store: Store,
  runId: string,
  { onCall }: { onCall?: (record: LlmCallRecord) => void } = {},
): Agent[] {
  const identities = teamIdentities(team);
  return team.agents.map((agent, index) => {
    const model = createLanguageModel({
      provider: agent.provider,
      model: agent.model,
      ...(agent.baseURL === undefined ? {} : { baseURL: agent.baseURL }),
      ...(agent.apiKeyEnv === undefined ? {} : { apiKeyEnv: agent.apiKeyEnv }),
      ...(agent.price === undefined ? {} : { price: agent.price }),
      ...(agent.maxConcurrency === undefined ? {} : { maxConcurrency: agent.maxConcurrency }),
      ...(agent.maxResponseBytes === undefined ? {} : { maxResponseBytes: agent.maxResponseBytes }),
      cache: store,
      cacheMode: team.cache,
      ...(team.cacheTtlMs === undefined ? {} : { cacheTtlMs: team.cacheTtlMs }),
      ledger: store,
      context: { runId, agentId: agent.id },
      timeoutMs: team.timeoutMs,
      retry: { maxRetries: team.maxRetries },
      captureContent: team.captureContent,
      ...(onCall === undefined ? {} : { onCall }),
    });
    return createLiveAgent({
      identity: identities[index] as AgentIdentity,
      complete: createCompletion({ model, runId }),
    });
  });
}
