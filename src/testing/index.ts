export { createMemoryTraceSink } from '../core/trace.js';
export * from './reputation-contract.js';
export { ScriptedModel } from './scripted-model.js';
export type { ScriptedModelOptions, ScriptedReply } from './scripted-model.js';
export { startOpenAICompatibleServer } from './openai-compatible-server.js';
export type {
  OpenAICompatibleServer,
  OpenAICompatibleServerOptions,
  RecordedRequest,
  ServerScript,
  ServerStep,
  ScriptedUsage,
} from './openai-compatible-server.js';
export { generateReplayFixture, fixtureAccuracy } from '../eval/replay/fixture.js';
export type { ReplayFixtureOptions } from '../eval/replay/fixture.js';
export { startToyTeamEndpoint, toyBehaviour, toyReply } from './toy-team-endpoint.js';
export type { ToyBehaviour, ToyTask, ToyTeamEndpointOptions } from './toy-team-endpoint.js';
