export { openStore } from './store.js';
export type {
  CreateRunInput,
  EventInput,
  EventRecord,
  OpenStoreOptions,
  RecordTaskResultInput,
  ReputationEventInput,
  ReputationEventRecord,
  ReputationFoldRecord,
  ReputationScope,
  RunRecord,
  RunStatus,
  SaveReputationInput,
  Store,
  TaskFailureRecord,
  TaskResultRecord,
  UsageEntry,
  UsageGroup,
  UsageRecord,
  UsageSummaryRow,
} from './store.js';
export { createStoreTraceSink } from './store-trace-sink.js';
export type { StoreTraceSink, StoreTraceSinkOptions } from './store-trace-sink.js';
export { createSharedReputation, foldReputation } from './shared-reputation.js';
export type {
  FoldOutcome,
  SharedReputation,
  SharedReputationOptions,
  SharedReputationState,
} from './shared-reputation.js';
