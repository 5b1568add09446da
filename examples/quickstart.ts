// A reputation-weighted debate in a dozen lines: a simulated team, the MiniRep aggregator, and the
// answer to "why was this agent trusted?". Run: npm run build && npx tsx examples/quickstart.ts
import {
  createDemoTeam,
  createMemoryTraceSink,
  createMiniRepAggregator,
  createMiniRepModel,
  createRng,
  createSimulationWorld,
  createTracer,
  demoTeam,
  generateTasks,
  miniRepPeerFilter,
  runDebate,
} from 'repute';

const referenced = generateTasks({ count: 30, seed: 7 });
const world = createSimulationWorld({ tasks: referenced, seed: 7 });
const team = createDemoTeam({ world, seed: 7, attacked: true }); // last three agents collude
const model = createMiniRepModel({ agents: team.map((agent) => agent.identity.id) });
const aggregator = createMiniRepAggregator({ model, k: 7 });
const sink = createMemoryTraceSink();
const tracer = createTracer({ sink });
const rng = createRng(7);
const peerFilter = miniRepPeerFilter(model); // suspicious proposals are not shown to peers in debate

let correct = 0;
for (const { task } of referenced) {
  const { decision } = await runDebate({
    team,
    task,
    rounds: 2,
    aggregator,
    reputation: model,
    peerFilter,
    rng,
    tracer,
  });
  if (world.isCorrect(task.id, decision.answer)) correct++; // grading only; no decision saw the reference
}
console.log(`team accuracy under attack: ${correct}/${referenced.length}`);
for (const member of demoTeam) {
  const why = model.explain(member.identity.id);
  console.log(`${member.identity.id.padEnd(9)} ${why.score.toFixed(2)}  ${why.summary}`);
}
console.log(`events recorded: ${sink.spans.length}`);
