export { runZoo, seedInterval, zooMethodNames, zooSizes } from './run-zoo.js';
export type { ZooInterval, ZooOptions, ZooRow, ZooSummary } from './run-zoo.js';
export { simulateTeamDataset } from './simulated-team.js';
export type { SimulateTeamOptions, SimulatedAgentProfile } from './simulated-team.js';
export {
  buildRecordedTeam,
  issueTeams,
  recordedShapeNames,
  simulatedProfiles,
  simulatedShapeNames,
} from './zoo-teams.js';
export type { RecordedShapeName, SimulatedShapeName } from './zoo-teams.js';
export { formatZooTable, summariseZoo, zooTeamLabel } from './summarise-zoo.js';
export type { ZooHeadline } from './summarise-zoo.js';
export { formatZooHtml } from './report-zoo-html.js';
export { writeZooOutputs } from './write-zoo-outputs.js';
