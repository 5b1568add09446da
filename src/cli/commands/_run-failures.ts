// Failure accounting of `repute run`: which endpoints will receive prompts, the fail-fast budget,
// and the one-line summary per failure kind. Shared by every protocol `repute run` drives.
import { RunFailedError } from '../../core/errors.js';
import type { DebateFailure } from '../../protocols/debate/types.js';
import type { TeamFile } from './_team-file.js';

/** Where an agent's prompts go: scheme, host, port and path of its endpoint (never credentials or a query). */
export function agentEndpoint(agent: Pick<TeamFile['agents'][number], 'provider' | 'baseURL'>): string {
  if (agent.baseURL === undefined)
    return agent.provider === 'anthropic' ? 'https://api.anthropic.com/v1' : 'https://api.openai.com/v1';
  const url = new URL(agent.baseURL);
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/$/, '')}`;
}

/** The line printed before the first request: every host that will receive prompts, with its agents. */
export function describeHosts(team: TeamFile): string {
  const byHost = new Map<string, string[]>();
  for (const agent of team.agents) {
    const host = new URL(agentEndpoint(agent)).origin;
    byHost.set(host, [...(byHost.get(host) ?? []), agent.id]);
  }
  const verifier = team.verifier;
  if (verifier?.type === 'llm-judge') {
    const host = new URL(agentEndpoint(verifier)).origin;
    byHost.set(host, [...(byHost.get(host) ?? []), `${verifier.id} (verifier)`]);
  }
  return `prompts will be sent to ${[...byHost].map(([host, ids]) => `${host} (${ids.join(', ')})`).join(', ')}${team.cache === 'replay-only' ? ' (cache replay-only: only cached replies are used)' : ''}`;
}

/** A failed task as the run sees it: its method and task, and the failed acts. */
export interface FailedTask {
  readonly method: string;
  readonly taskId: string;
  readonly failures: readonly DebateFailure[];
}

/** How a failure reads in the summary: `HTTP 401`, `network error`, `timeout`, `malformed reply`, `reply cut short`. */
export function failureLabel(
  failure: Pick<DebateFailure, 'status' | 'reason'> & { readonly message?: string },
): string {
  // The size limit names itself: "malformed" would send the user looking at the endpoint's protocol.
  if (failure.reason === 'malformed' && failure.message?.includes('(maxResponseBytes)') === true)
    return 'a reply over maxResponseBytes';
  if (failure.reason === 'malformed')
    return failure.status === undefined ? 'malformed reply' : `malformed reply (HTTP ${failure.status})`;
  if (failure.reason === 'network') return 'network error (no connection)';
  if (failure.reason === 'timeout') return 'timeout';
  if (failure.reason === 'incomplete') return 'reply cut short';
  if (failure.reason === 'bad-reply') return 'bad reply (no answer, also after a repair prompt)';
  return failure.status === undefined ? 'provider error' : `HTTP ${failure.status}`;
}

/** Options of {@link createFailureBudget}. */
export interface FailureBudgetOptions {
  readonly runId: string;
  /** Failed tasks in a row, failing the same way, after which the run stops, ≥ 1. */
  readonly maxFailures: number;
  /** Endpoint of each agent id. */
  readonly endpoints: ReadonlyMap<string, string>;
}

/**
 * Counts failed tasks. `fail` throws {@link RunFailedError} once `maxFailures` tasks in a row have
 * failed the same way (same endpoints and statuses): a dead endpoint or a wrong key stops the run
 * after a few tasks instead of burning through all of them. `succeed` resets the streak.
 */
export function createFailureBudget({ runId, maxFailures, endpoints }: FailureBudgetOptions) {
  const failed: FailedTask[] = [];
  let streak = 0;
  let streakKind = '';
  const kindOf = (task: FailedTask) =>
    [
      ...new Set(
        task.failures.map(
          (failure) => `${endpoints.get(failure.agentId) ?? 'unknown endpoint'} answered ${failureLabel(failure)}`,
        ),
      ),
    ]
      .sort()
      .join('; ');
  return {
    /** Every failed task so far. */
    failed: failed as readonly FailedTask[],
    fail(task: FailedTask): void {
      failed.push(task);
      const kind = kindOf(task);
      streak = kind === streakKind ? streak + 1 : 1;
      streakKind = kind;
      if (streak >= maxFailures) {
        throw new RunFailedError({
          runId,
          failedTasks: failed.length,
          message: `stopped after ${streak} task${streak === 1 ? '' : 's'} in a row failed the same way (${kind}); run ${runId} is marked failed. Fix the endpoint or key and rerun the same command: it redoes only the failed and missing tasks (--max-failures N sets how many failures in a row stop the run)`,
        });
      }
    },
    succeed(): void {
      streak = 0;
      streakKind = '';
    },
    /** One line per failure kind: endpoint, what it answered, failed calls and tasks. */
    summaryLines(): string[] {
      const kinds = new Map<string, { calls: number; tasks: Set<string> }>();
      for (const task of failed) {
        for (const failure of task.failures) {
          const key = `${endpoints.get(failure.agentId) ?? 'unknown endpoint'} answered ${failureLabel(failure)}`;
          const entry = kinds.get(key) ?? { calls: 0, tasks: new Set<string>() };
          entry.calls += 1;
          entry.tasks.add(`${task.method}/${task.taskId}`);
          kinds.set(key, entry);
        }
      }
      const lines = [...kinds].map(
        ([key, entry]) =>
          `failed: ${key}: ${entry.calls} call${entry.calls === 1 ? '' : 's'} failed after retries, in ${entry.tasks.size} task${entry.tasks.size === 1 ? '' : 's'}`,
      );
      const bad = Object.entries(badRepliesByAgent(failed));
      if (bad.length > 0)
        lines.push(
          `bad replies per agent: ${bad.map(([agent, count]) => `${agent} ${count}`).join(', ')} (no answer of the task's kind, also after a repair prompt; each failed its task, is kept in the store's task failures and is not cached, so a rerun asks again)`,
        );
      return lines;
    },
  };
}

/** Bad replies (acts that failed with reason `bad-reply`) per agent, over the failed tasks; agents without any are left out. */
export function badRepliesByAgent(failed: readonly FailedTask[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const task of failed)
    for (const failure of task.failures)
      if (failure.reason === 'bad-reply') counts[failure.agentId] = (counts[failure.agentId] ?? 0) + 1;
  return counts;
}
