// OpenTelemetry export of served decisions, following the GenAI semantic conventions
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/, Development status): one
// `invoke_workflow team:<name>` span per request, one `invoke_agent <agent>` span per agent asked,
// one `chat <model>` span per model call with `gen_ai.usage.*` tokens, and one
// `gen_ai.evaluation.result` event per agent verdict. Spans are built after the decision from the
// ledger's call records (real start and end), so nothing here sits on the request's path.
import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BatchSpanProcessor, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import type { LlmCallRecord } from '../llm/ledger-middleware.js';
import type { TeamAnswer } from './team-service.js';

/** What one exported decision returns: W3C ids of its root span. */
export interface ExportedDecision {
  /** 32 hex digits. */
  readonly traceId: string;
  /** 16 hex digits: the `invoke_workflow` span. */
  readonly spanId: string;
}

/** Exports served decisions as spans; `createApp({ telemetry })` uses it, `repute serve` builds it from the environment. */
export interface DecisionTelemetry {
  /** Wire into every agent model's plumbing (`onCall`): collects the calls of each task until its decision is exported. */
  readonly onCall: (record: LlmCallRecord) => void;
  /** Exports one decision and the calls collected for its task; `startedAt`/`endedAt` in ms since the epoch. */
  exportDecision(input: {
    answer: TeamAnswer;
    startedAt: number;
    endedAt: number;
    /**
     * Keep the trace so calls of the task that end later (late answers) join it; `false` when the
     * same task id comes again for another method (`repute run`), whose calls must start a trace of
     * their own. @default true
     */
    keepForLate?: boolean;
  }): ExportedDecision;
  /** Sends what is buffered. */
  flush(): Promise<void>;
  /** Sends what is buffered and stops. */
  shutdown(): Promise<void>;
}

/** Options of {@link createDecisionTelemetry}. */
export interface DecisionTelemetryOptions {
  /** Where spans go; e.g. `new OTLPTraceExporter({ url })`. */
  readonly exporter: SpanExporter;
  /** Most tasks whose calls are held while waiting for their decision (oldest dropped first). @default 1000 */
  readonly maxPendingTasks?: number;
}

/** Scope name of the spans. */
export const telemetryScope = 'repute.serve';

/**
 * Builds the span export of served decisions over any span exporter (batched).
 *
 * @example
 * const telemetry = createDecisionTelemetry({ exporter: new OTLPTraceExporter({ url: 'http://127.0.0.1:4318/v1/traces' }) });
 */
export function createDecisionTelemetry(options: DecisionTelemetryOptions): DecisionTelemetry {
  const { exporter, maxPendingTasks = 1000 } = options;
  const provider = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter })] });
  const tracer = provider.getTracer(telemetryScope);
  const pending = new Map<string, LlmCallRecord[]>();
  // Calls that end after their decision was exported (late answers) join its trace.
  const exported = new Map<string, { context: Context; agents: Map<string, Context> }>();
  const remember = <V>(map: Map<string, V>, key: string, value: V) => {
    map.set(key, value);
    if (map.size > maxPendingTasks) map.delete(map.keys().next().value as string);
  };

  const chatSpan = (record: LlmCallRecord, parent: Context) => {
    const attributes: Attributes = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': record.provider,
      'gen_ai.request.model': record.model ?? 'unknown',
      'gen_ai.usage.input_tokens': record.inputTokens,
      'gen_ai.usage.output_tokens': record.outputTokens,
      'repute.act': record.act ?? 'unknown',
      'repute.cost': record.cost,
      'repute.cached': record.cached,
      'repute.usage_reported': record.usageReported,
      'repute.attempts': record.attempts,
    };
    const span = tracer.startSpan(
      `chat ${record.model ?? 'unknown'}`,
      { kind: SpanKind.CLIENT, startTime: record.startedAt, attributes },
      parent,
    );
    if (record.status === 'failed') {
      span.setAttribute('error.type', 'provider');
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end(record.endedAt);
  };

  return {
    onCall(record) {
      if (record.taskId === null) return;
      const done = exported.get(record.taskId);
      if (done !== undefined) {
        chatSpan(record, done.agents.get(record.agentId ?? '') ?? done.context);
        return;
      }
      const list = pending.get(record.taskId);
      if (list) list.push(record);
      else remember(pending, record.taskId, [record]);
    },

    exportDecision({ answer, startedAt, endedAt, keepForLate = true }) {
      const calls = pending.get(answer.taskId) ?? [];
      pending.delete(answer.taskId);
      const sum = (records: readonly LlmCallRecord[], key: 'inputTokens' | 'outputTokens') =>
        records.reduce((total, record) => total + record[key], 0);
      const workflow = tracer.startSpan(
        `invoke_workflow team:${answer.team}`,
        {
          kind: SpanKind.INTERNAL,
          root: true,
          startTime: startedAt,
          attributes: {
            'gen_ai.operation.name': 'invoke_workflow',
            'gen_ai.agent.name': `team:${answer.team}`,
            'gen_ai.workflow.name': `team:${answer.team}`,
            'gen_ai.response.id': `chatcmpl-${answer.taskId}`,
            'gen_ai.usage.input_tokens': answer.usage.inputTokens,
            'gen_ai.usage.output_tokens': answer.usage.outputTokens,
            'repute.task_id': answer.taskId,
            'repute.method': answer.method,
            'repute.kind': answer.kind,
            'repute.decision.answer': answer.decision.answer ?? '',
            'repute.winner': answer.winner ?? '',
            'repute.degraded': answer.degraded.map((entry) => entry.agentId),
          },
        },
        ROOT_CONTEXT,
      );
      const workflowContext = trace.setSpan(ROOT_CONTEXT, workflow);
      const agents = new Map<string, Context>();
      const failed = new Map(answer.degraded.map((entry) => [entry.agentId, entry.message]));
      for (const weight of answer.weights) {
        const own = calls.filter((record) => record.agentId === weight.agentId);
        const agentStart = own.length === 0 ? startedAt : Math.min(...own.map((record) => record.startedAt));
        const agentEnd = own.length === 0 ? endedAt : Math.max(...own.map((record) => record.endedAt));
        const span: Span = tracer.startSpan(
          `invoke_agent ${weight.agentId}`,
          {
            kind: SpanKind.INTERNAL,
            startTime: agentStart,
            attributes: {
              'gen_ai.operation.name': 'invoke_agent',
              'gen_ai.agent.name': weight.agentId,
              'gen_ai.agent.id': weight.agentId,
              'gen_ai.usage.input_tokens': sum(own, 'inputTokens'),
              'gen_ai.usage.output_tokens': sum(own, 'outputTokens'),
              'repute.weight': weight.weight,
              'repute.answer': weight.answer ?? '',
              'repute.reputation': answer.reputation[weight.agentId] ?? 0,
            },
          },
          workflowContext,
        );
        const agentContext = trace.setSpan(workflowContext, span);
        agents.set(weight.agentId, agentContext);
        for (const record of own) chatSpan(record, agentContext);
        // The verdict: did the agent give the answer the team decided? (consensus, before any feedback)
        const agreed = weight.answer !== null && weight.answer === answer.decision.answer;
        span.addEvent(
          'gen_ai.evaluation.result',
          {
            'gen_ai.evaluation.name': 'repute.consensus',
            'gen_ai.evaluation.score.value': agreed ? 1 : 0,
            'gen_ai.evaluation.score.label': weight.answer === null ? 'no_answer' : agreed ? 'agreed' : 'disagreed',
            'gen_ai.evaluation.explanation': weight.note ?? `weight ${weight.weight}`,
            'gen_ai.response.id': `chatcmpl-${answer.taskId}`,
          },
          agentEnd,
        );
        const failure = failed.get(weight.agentId);
        if (failure !== undefined) {
          span.setAttribute('error.type', 'agent_failed');
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end(agentEnd);
      }
      workflow.end(endedAt);
      if (keepForLate) remember(exported, answer.taskId, { context: workflowContext, agents });
      const { traceId, spanId } = workflow.spanContext();
      return { traceId, spanId };
    },

    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/**
 * The OTLP/HTTP span export when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`)
 * is set in `env`, else `undefined`. The exporter reads the endpoint, headers and timeout from the
 * standard OTEL_* variables.
 */
export function decisionTelemetryFromEnvironment(
  env: Readonly<Record<string, string | undefined>> = process.env,
): DecisionTelemetry | undefined {
  const set = (value: string | undefined) => value !== undefined && value.trim() !== '';
  if (!set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) && !set(env.OTEL_EXPORTER_OTLP_ENDPOINT)) return undefined;
  return createDecisionTelemetry({ exporter: new OTLPTraceExporter() });
}
