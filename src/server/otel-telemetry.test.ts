// The OpenTelemetry export of a served decision, received by a local OTLP/HTTP receiver that decodes
// what it gets (OTLP JSON, as @opentelemetry/exporter-trace-otlp-http sends it): span names,
// parent-child links, token attributes and the verdict events of a 3-agent request.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLiveTeam } from '../cli/commands/_live-team.js';
import { readTeamFile } from '../cli/commands/_team-file.js';
import { openStore } from '../store/store.js';
import { startOpenAICompatibleServer } from '../testing/openai-compatible-server.js';
import { sumReply, writeSumTeam } from '../testing/_test-sum-team.js';
import { temporaryDirectory } from '../testing/_test-temporary-directory.js';
import { runToExit } from '../testing/_test-cli-run.js';
import { decisionTelemetryFromEnvironment } from './otel-telemetry.js';
import { startServer } from './start-server.js';
import { createTeamService } from './team-service.js';

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  vi.unstubAllEnvs();
});

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values: OtlpValue[] };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: OtlpValue }>;
  events?: Array<{ name: string; attributes: Array<{ key: string; value: OtlpValue }> }>;
}

/** A minimal OTLP/HTTP receiver: records the spans of every POST /v1/traces (JSON body). */
async function startReceiver() {
  const spans: OtlpSpan[] = [];
  const contentTypes: string[] = [];
  const read = (request: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => resolve(body));
    });
  const server = createServer(async (request, response) => {
    const body = await read(request);
    if (request.method === 'POST' && request.url === '/v1/traces') {
      contentTypes.push(String(request.headers['content-type']));
      const decoded = JSON.parse(body) as {
        resourceSpans: Array<{ scopeSpans: Array<{ scope: { name: string }; spans: OtlpSpan[] }> }>;
      };
      for (const resource of decoded.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const attribute = (span: OtlpSpan | { attributes: OtlpSpan['attributes'] }, key: string) => {
  const value = span.attributes.find((entry) => entry.key === key)?.value;
  if (value === undefined) return undefined;
  if (value.intValue !== undefined) return Number(value.intValue);
  return (
    value.stringValue ??
    value.doubleValue ??
    value.boolValue ??
    value.arrayValue?.values.map((item) => item.stringValue)
  );
};

describe('OpenTelemetry export of a served decision', () => {
  it('sends invoke_workflow > invoke_agent > chat spans with token usage and verdicts to OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    const receiver = await startReceiver();
    closers.push(receiver.close);
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', receiver.url);
    vi.stubEnv('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', '');
    const telemetry = decisionTelemetryFromEnvironment();
    expect(telemetry).toBeDefined();
    closers.push(() => telemetry?.shutdown());

    const provider = await startOpenAICompatibleServer({ script: (request) => sumReply(request) });
    closers.push(() => provider.close());
    const dir = temporaryDirectory('repute-otel-');
    const file = readTeamFile(
      writeSumTeam(dir, { baseURL: provider.baseURL, tasks: 1, agents: ['alpha', 'beta-1', 'weak'] }),
    );
    const store = openStore({ path: join(dir, 'repute.db') });
    closers.push(() => store.close());
    const team = createTeamService({
      name: file.name,
      agents: createLiveTeam(file, store, 'serve', { onCall: telemetry!.onCall }),
      store,
      kind: 'number',
      runId: 'serve',
      generateId: () => 'chat-1',
    });
    const server = await startServer({ store, team, port: 0, telemetry: telemetry! });
    closers.push(() => server.close());
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const { response } = await client.chat.completions
      .create({ model: 'team:sum-team', messages: [{ role: 'user', content: 'What is 20 + 22?' }] })
      .withResponse();
    const traceId = response.headers.get('x-repute-trace-id');
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(response.headers.get('traceparent')).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    await telemetry!.flush();

    expect(receiver.contentTypes[0]).toMatch(/application\/json/);
    const spans = receiver.spans.filter((span) => span.traceId === traceId);
    // 1 workflow + 3 agents + 3 model calls (one propose call each; minirep rates nothing).
    expect(spans.map((span) => span.name).sort()).toEqual([
      'chat alpha-model',
      'chat beta-model',
      'chat weak-model',
      'invoke_agent alpha',
      'invoke_agent beta-1',
      'invoke_agent weak',
      'invoke_workflow team:sum-team',
    ]);
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const workflow = spans.find((span) => span.name.startsWith('invoke_workflow'))!;
    expect(workflow.parentSpanId ?? '').toBe('');
    expect(response.headers.get('traceparent')).toBe(`00-${traceId}-${workflow.spanId}-01`);
    expect(attribute(workflow, 'gen_ai.operation.name')).toBe('invoke_workflow');
    expect(attribute(workflow, 'repute.decision.answer')).toBe('42');
    // 3 calls × 10 prompt / 5 completion tokens from the test server.
    expect(attribute(workflow, 'gen_ai.usage.input_tokens')).toBe(30);
    expect(attribute(workflow, 'gen_ai.usage.output_tokens')).toBe(15);
    for (const agentId of ['alpha', 'beta-1', 'weak']) {
      const agent = spans.find((span) => span.name === `invoke_agent ${agentId}`)!;
      expect(agent.parentSpanId).toBe(workflow.spanId);
      expect(attribute(agent, 'gen_ai.operation.name')).toBe('invoke_agent');
      expect(attribute(agent, 'gen_ai.agent.name')).toBe(agentId);
      const chats = spans.filter((span) => span.parentSpanId === agent.spanId);
      expect(chats).toHaveLength(1);
      const chat = chats[0]!;
      expect(chat.kind).toBe(3); // SPAN_KIND_CLIENT
      expect(attribute(chat, 'gen_ai.operation.name')).toBe('chat');
      expect(attribute(chat, 'gen_ai.request.model')).toBe(agentId === 'beta-1' ? 'beta-model' : `${agentId}-model`);
      expect(attribute(chat, 'gen_ai.usage.input_tokens')).toBe(10);
      expect(attribute(chat, 'gen_ai.usage.output_tokens')).toBe(5);
      // The verdict: weak said 43 against the team's 42.
      const verdict = agent.events?.find((event) => event.name === 'gen_ai.evaluation.result');
      expect(verdict).toBeDefined();
      expect(attribute(verdict!, 'gen_ai.evaluation.name')).toBe('repute.consensus');
      expect(attribute(verdict!, 'gen_ai.evaluation.score.label')).toBe(agentId === 'weak' ? 'disagreed' : 'agreed');
      expect(attribute(verdict!, 'gen_ai.evaluation.score.value')).toBe(agentId === 'weak' ? 0 : 1);
      expect(byId.get(chat.parentSpanId!)).toBe(agent);
    }
    // No prompt or reply text leaves the process.
    expect(JSON.stringify(spans)).not.toContain('What is 20 + 22');
  });

  it('exports every task of a repute run the same way (one trace per task and method)', async () => {
    const receiver = await startReceiver();
    closers.push(receiver.close);
    const provider = await startOpenAICompatibleServer({ script: (request) => sumReply(request) });
    closers.push(() => provider.close());
    const dir = temporaryDirectory('repute-otel-run-');
    const file = writeSumTeam(dir, {
      baseURL: provider.baseURL,
      tasks: 2,
      agents: ['alpha', 'beta-1', 'weak'],
      methods: ['majority'],
    });
    const result = await runToExit([file, '--json'], {
      ...process.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
    });
    expect(result.code, result.stderr).toBe(0);
    const workflows = receiver.spans.filter((span) => span.name === 'invoke_workflow team:sum-team');
    // t1: 10 + 3 = 13, t2: 11 + 5 = 16 (weak says one more).
    expect(
      workflows.map((span) => [attribute(span, 'repute.task_id'), attribute(span, 'repute.decision.answer')]).sort(),
    ).toEqual([
      ['t1', '13'],
      ['t2', '16'],
    ]);
    for (const workflow of workflows) {
      expect(workflow.parentSpanId ?? '').toBe('');
      expect(attribute(workflow, 'repute.method')).toBe('majority');
      const spans = receiver.spans.filter((span) => span.traceId === workflow.traceId);
      // 1 workflow + 3 agents + 6 model calls (debate rounds: 1, so propose and revise per agent).
      expect(spans).toHaveLength(10);
      // 6 calls × 10 prompt / 5 completion tokens from the test server.
      expect(attribute(workflow, 'gen_ai.usage.input_tokens')).toBe(60);
      expect(attribute(workflow, 'gen_ai.usage.output_tokens')).toBe(30);
      for (const agentId of ['alpha', 'beta-1', 'weak']) {
        const agent = spans.find((span) => span.name === `invoke_agent ${agentId}`)!;
        expect(agent.parentSpanId).toBe(workflow.spanId);
        const chats = spans.filter((span) => span.parentSpanId === agent.spanId);
        expect(chats.map((chat) => attribute(chat, 'repute.act')).sort()).toEqual(['propose', 'revise']);
        for (const chat of chats) expect(attribute(chat, 'gen_ai.usage.input_tokens')).toBe(10);
        const verdict = agent.events?.find((event) => event.name === 'gen_ai.evaluation.result');
        expect(attribute(verdict!, 'gen_ai.evaluation.score.label')).toBe(agentId === 'weak' ? 'disagreed' : 'agreed');
      }
    }
  });

  it('is off without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
    expect(decisionTelemetryFromEnvironment({})).toBeUndefined();
    expect(decisionTelemetryFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBeUndefined();
  });
});
