// OpenTelemetry export of `repute run` tasks: the same spans as a served decision (one
// `invoke_workflow team:<name>` per task and method, `invoke_agent` per agent, `chat` per model call,
// verdict events), built after each task from what the run stored (its `vote`, `proposal`,
// `reputation-update` and `task` events) and the ledger's call records. Protocol-agnostic: a task
// without a `vote` event exports nothing.
import type { SpanData } from '../core/trace.js';
import type { LlmCallRecord } from '../llm/ledger-middleware.js';
import type { Store } from '../store/store.js';
import type { DecisionTelemetry, ExportedDecision } from './otel-telemetry.js';
import type { TeamAnswer } from './team-service.js';

/** Exports the tasks of one run as spans. */
export interface RunTelemetry {
  /** Wire into every agent model's plumbing (`onCall`). */
  readonly onCall: (record: LlmCallRecord) => void;
  /** Exports one finished task of a method (call it after the task is stored); `undefined` when it has no vote. */
  exportTask(input: { method: string; taskId: string }): ExportedDecision | undefined;
  /** Sends what is buffered and stops. */
  shutdown(): Promise<void>;
}

type Of<T extends SpanData['type']> = Extract<SpanData, { type: T }>;

/**
 * Builds the span export of a run's tasks over a {@link DecisionTelemetry}.
 *
 * @example
 * const telemetry = decisionTelemetryFromEnvironment();
 * const runTelemetry = telemetry && createRunTelemetry({ telemetry, store, runId, team: 'local-team', kinds });
 */
export function createRunTelemetry({
  telemetry,
  store,
  runId,
  team,
  kinds,
}: {
  telemetry: DecisionTelemetry;
  store: Pick<Store, 'events'>;
  runId: string;
  /** Team name (the workflow's name). */
  team: string;
  /** Answer kind per task id. */
  kinds: ReadonlyMap<string, string>;
}): RunTelemetry {
  // Tokens of the calls of each task not exported yet (a task id repeats once per method).
  const tokens = new Map<string, { input: number; output: number }>();
  return {
    onCall(record) {
      telemetry.onCall(record);
      if (record.taskId === null) return;
      const sum = tokens.get(record.taskId) ?? { input: 0, output: 0 };
      tokens.set(record.taskId, { input: sum.input + record.inputTokens, output: sum.output + record.outputTokens });
    },
    exportTask({ method, taskId }) {
      const events = store.events(runId, { method, taskId });
      const vote = events.filter((event) => event.type === 'vote').at(-1);
      if (vote === undefined) return undefined;
      const decided = vote.data as Of<'vote'>;
      // Each agent's last proposal (the final round) and whether its act failed.
      const last = new Map<string, { answer: string | null; round: number; error: string | null }>();
      for (const event of events) {
        if (event.type !== 'proposal') continue;
        const proposal = event.data as Of<'proposal'>;
        if (proposal.late === true) continue;
        const seen = last.get(proposal.agentId);
        if (seen === undefined || proposal.round >= seen.round)
          last.set(proposal.agentId, { answer: proposal.answer, round: proposal.round, error: event.error });
      }
      const reasons = new Map(decided.reasons.map((reason) => [reason.agentId, reason]));
      const agentIds = [...new Set([...decided.reasons.map((reason) => reason.agentId), ...last.keys()])];
      const weights = agentIds.map((agentId) => {
        const reason = reasons.get(agentId);
        return {
          agentId,
          weight: reason?.weight ?? 0,
          components: reason?.components ?? {},
          note: reason?.note ?? null,
          answer: last.get(agentId)?.answer ?? null,
        };
      });
      const winner =
        decided.answer === null
          ? null
          : (weights
              .filter((weight) => weight.answer === decided.answer)
              .sort((left, right) => right.weight - left.weight)[0]?.agentId ?? null);
      const update = events.filter((event) => event.type === 'reputation-update').at(-1);
      const span = events.find((event) => event.type === 'task');
      const used = tokens.get(taskId) ?? { input: 0, output: 0 };
      tokens.delete(taskId);
      const answer: TeamAnswer = {
        schemaVersion: 1,
        team,
        method,
        kind: (kinds.get(taskId) ?? 'exact') as TeamAnswer['kind'],
        taskId,
        decision: { answer: decided.answer, support: decided.support },
        weights,
        winner,
        content: '',
        degraded: [...last.entries()]
          .filter(([, proposal]) => proposal.error !== null)
          .map(([agentId, proposal]) => ({ agentId, message: proposal.error as string })),
        skipped: [],
        repeated: [],
        reputation: update === undefined ? {} : (update.data as Of<'reputation-update'>).after,
        usage: { inputTokens: used.input, outputTokens: used.output },
      };
      const endedAt = span?.endedAt ?? vote.endedAt ?? Date.now();
      return telemetry.exportDecision({
        answer,
        startedAt: span?.startedAt ?? vote.startedAt ?? endedAt,
        endedAt,
        keepForLate: false,
      });
    },
    shutdown: () => telemetry.shutdown(),
  };
}
