// One agent of a RAPS team file as its own process on NATS (`protocol: { type: raps, transport: nats }`):
//   node [--import tsx] _raps-agent-node.js --team team.yaml --agent ID --nats URL --run-id RUN --wire-run-id WIRE
// It builds the agent's own plumbed model from the team file (same store as cache and ledger),
// follows its command inbox, prints `ready <agent>` and stops cleanly on SIGTERM/SIGINT.
import { parseArgs } from 'node:util';
import { serveRapsNodeOverNats } from '../../eval/raps-scenarios/nats-run.js';
import { openStore } from '../../store/store.js';
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
// The coordinator that spawned this process checked where each key may go (`--allow-env` included).
const team = readTeamFile(values.team, { keyDestinationsChecked: true });
const store = openStore({ path: team.store });
const agent = createLiveTeam(team, store, values['run-id']).find((candidate) => candidate.identity.id === values.agent);
if (!agent) {
  process.stderr.write(
    `agent ${values.agent} is not in ${values.team}; agents: ${team.agents.map((candidate) => candidate.id).join(', ')}\n`,
  );
  process.exit(2);
}
await serveRapsNodeOverNats({
  servers: values.nats,
  runId: values['wire-run-id'],
  agent,
  // Every key variable of the team: the process can read them all, so none may reach the wire.
  secretEnv: team.agents.flatMap((member) => (member.apiKeyEnv === undefined ? [] : [member.apiKeyEnv])),
  onStop: () => store.close(),
});
