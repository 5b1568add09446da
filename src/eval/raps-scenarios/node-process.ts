// Runs one scenario agent as a RAPS node in its own process, connected to NATS:
//   node --import tsx node-process.ts --scenario adversarial --agent agent-1 --nats nats://127.0.0.1:4222 [--seed 2027] [--run-id ID] [--agent-count N] [--task-count N] [--top-k K]
// It prints `ready <agent>` once it follows its inbox and stops cleanly on SIGTERM/SIGINT.
import { parseArgs } from 'node:util';
import { createRapsScenario, rapsScenarioNames, type RapsScenarioName } from './scenarios.js';
import { serveRapsNodeOverNats } from './nats-run.js';

const { values } = parseArgs({
  options: {
    scenario: { type: 'string' },
    agent: { type: 'string' },
    nats: { type: 'string' },
    seed: { type: 'string', default: '2027' },
    'run-id': { type: 'string' },
    'agent-count': { type: 'string' },
    'task-count': { type: 'string' },
    'top-k': { type: 'string' },
    'no-witness': { type: 'boolean', default: false },
  },
});
const name = values.scenario as RapsScenarioName;
if (!rapsScenarioNames.includes(name) || !values.agent || !values.nats) {
  process.stderr.write(
    `usage: node-process --scenario ${rapsScenarioNames.join('|')} --agent <id> --nats <url> [--seed N] [--run-id ID]\n`,
  );
  process.exit(2);
}
const optional = (text: string | undefined) => (text === undefined ? undefined : Number(text));
const scenario = createRapsScenario(name, {
  seed: Number(values.seed),
  ...(values['run-id'] ? { runId: values['run-id'] } : {}),
  ...(values['agent-count'] ? { agentCount: optional(values['agent-count']) as number } : {}),
  ...(values['task-count'] ? { taskCount: optional(values['task-count']) as number } : {}),
  ...(values['top-k'] ? { topK: optional(values['top-k']) as number } : {}),
  ...(values['no-witness'] ? { witness: false } : {}),
});
const agent = scenario.agents.find((candidate) => candidate.identity.id === values.agent);
if (!agent) {
  process.stderr.write(
    `agent ${values.agent} is not in scenario ${name}; agents: ${scenario.agents.map((candidate) => candidate.identity.id).join(', ')}\n`,
  );
  process.exit(2);
}
await serveRapsNodeOverNats({ servers: values.nats, runId: scenario.runOptions.runId as string, agent });
