// Builds live agents from a team file: one plumbed AI SDK model per agent (cache, ledger,
// retries, concurrency, timeout from src/llm) behind the `complete` function live agents take.
import type { Agent } from '../../agents/agent.js';
import { createLiveAgent, type Complete } from '../../agents/live-agent.js';
import type { AgentIdentity } from '../../core/agent-identity.js';
import { llmCallOptions } from '../../llm/call-context.js';
import { createLanguageModel } from '../../llm/create-language-model.js';
import type { LanguageModelV3 } from '../../llm/language-model-types.js';
import type { Store } from '../../store/store.js';
import type { TeamFile } from './_team-file.js';

/**
 * Adapts a (plumbed) AI SDK v3 model to the `complete` function of live agents: a system and a
 * user message, temperature 0, the call tagged with run, agent, task and act for the ledger.
 */
export function completionFromModel(model: LanguageModelV3, runId: string): Complete {
  return async ({ system, prompt, signal, context }) => {
    const result = await model.doGenerate({
      prompt: [
        { role: 'system', content: system },
        { role: 'user', content: [{ type: 'text', text: prompt }] },
      ],
      temperature: 0,
      ...(signal ? { abortSignal: signal } : {}),
      ...llmCallOptions({ runId, agentId: context.agentId, act: context.act, ...(context.taskId === undefined ? {} : { taskId: context.taskId }) }),
    });
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    // The store's ledger (ledger middleware) is authoritative for cost and cache hits.
    return { text, usage: { inputTokens: result.usage.inputTokens.total ?? 0, outputTokens: result.usage.outputTokens.total ?? 0, cost: 0, cached: false } };
  };
}

/** Identities of a team file's agents (clone group = `cloneGroup` or the model id). */
export function teamIdentities(team: TeamFile): AgentIdentity[] {
  return team.agents.map((agent) => ({ id: agent.id, model: agent.cloneGroup ?? agent.model, cost: agent.price?.perCall ?? 0 }));
}

/** One live agent per team member, sharing the store as cache and ledger. */
export function createLiveTeam(team: TeamFile, store: Store, runId: string): Agent[] {
  const identities = teamIdentities(team);
  return team.agents.map((agent, index) => {
    const model = createLanguageModel({
      provider: agent.provider,
      model: agent.model,
      ...(agent.baseURL === undefined ? {} : { baseURL: agent.baseURL }),
      ...(agent.apiKeyEnv === undefined ? {} : { apiKeyEnv: agent.apiKeyEnv }),
      ...(agent.price === undefined ? {} : { price: agent.price }),
      ...(agent.maxConcurrency === undefined ? {} : { maxConcurrency: agent.maxConcurrency }),
      cache: store,
      cacheMode: team.cache,
      ledger: store,
      context: { runId, agentId: agent.id },
      timeoutMs: team.timeoutMs,
      retry: { maxRetries: team.maxRetries },
    });
    return createLiveAgent({ identity: identities[index] as AgentIdentity, complete: completionFromModel(model, runId) });
  });
}
