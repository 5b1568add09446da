// One agent of a RAPS team file as its own process on NATS (`protocol: { type: raps, transport: nats }`):
//   node [--import tsx] _raps-agent-node.js --team team.yaml --agent ID --nats URL --run-id RUN --wire-run-id WIRE
// It builds the agent's own plumbed model from the team file (same store as cache and ledger),
// follows its command inbox, prints `ready <agent>` and stops cleanly on SIGTERM/SIGINT.
import { parseArgs } from 'node:util';
import { natsStreamName } from '../../eval/raps-scenarios/nats-run.js';
import { startRapsNode } from '../../protocols/pubsub/node.js';
import { openStore } from '../../store/store.js';
import { connectNatsTransport } from '../../transport/nats-transport.js';
import { createLiveTeam } from './_live-team.js';
import { readTeamFile } from './_team-file.js';

const { values } = parseArgs({
  options: {
    team: { type: 'string' },
    agent: { type: 'string' },
    nats: { type: 'string' },
    'run-id': { type: 'string' },
    'wire-run-id': { type: 'string' },
  },
});
if (!values.team || !values.agent || !values.nats || !values['run-id'] || !values['wire-run-id']) {
  process.stderr.write(
    'usage: _raps-agent-node --team <team.yaml> --agent <id> --nats <url> --run-id <run> --wire-run-id <wire>\n',
  );
  process.exit(2);
}
const team = readTeamFile(values.team);
const store = openStore({ path: team.store });
const agent = createLiveTeam(team, store, values['run-id']).find((candidate) => candidate.identity.id === values.agent);
if (!agent) {
  process.stderr.write(
    `agent ${values.agent} is not in ${values.team}; agents: ${team.agents.map((candidate) => candidate.id).join(', ')}\n`,
  );
  process.exit(2);
}
const wireRunId = values['wire-run-id'];
const transport = await connectNatsTransport({
  servers: values.nats,
  stream: natsStreamName(wireRunId),
  subjects: [`raps.${wireRunId}.>`],
  name: `raps-node-${agent.identity.id}`,
});
const node = await startRapsNode({
  transport,
  runId: wireRunId,
  agent,
  onError: (error) => process.stderr.write(`${agent.identity.id}: ${error.message}\n`),
});
process.stdout.write(`ready ${agent.identity.id}\n`);
const shutdown = async () => {
  await node.stop();
  await transport.close();
  store.close();
  process.exit(0);
};
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());
