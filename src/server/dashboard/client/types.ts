// Shapes of the JSON API as the dashboard reads them (see src/server/schemas.ts).

export interface UsageTotals {
  calls: number;
  cachedCalls: number;
  inputTokens: number;
  outputTokens: number;
  cost: number;
  /** Calls booked as failed after the provider may have billed them. */
  failedCalls: number;
  /** Calls whose usage the provider did not report: tokens and cost are lower bounds. */
  unreportedUsageCalls: number;
}
export interface MethodView {
  name: string;
  tasks: number;
  graded: number;
  correct: number;
  accuracy: number | null;
  failures: number;
  usage: UsageTotals;
}
export interface RunView {
  id: string;
  kind: string;
  team: string | null;
  status: string;
  createdAt: number;
  updatedAt: number;
  methods: MethodView[];
  usage: UsageTotals;
}
export interface RunListItem {
  id: string;
  kind: string;
  team: string | null;
  status: string;
  createdAt: number;
  updatedAt: number;
  tasks: number;
}
export interface AgentWeight {
  agentId: string;
  weight: number;
  components: Record<string, number>;
  note: string | null;
  answer: string | null;
  reputationBefore: number | null;
  reputationAfter: number | null;
  selected: boolean;
  selectionNote: string | null;
}
export interface MethodDecision {
  answer: string | null;
  correct: boolean | null;
  support: Record<string, number>;
  failures: number;
  /** Version of the team's reputation log the decision read; null when not recorded. */
  readVersion: number | null;
  weights: AgentWeight[];
}
export interface DecisionPage {
  runId: string;
  total: number;
  offset: number;
  limit: number;
  tasks: Array<{ taskId: string; index: number; methods: Record<string, MethodDecision> }>;
}
export interface ReputationSeries {
  runId: string;
  methods: Array<{ name: string; agents: string[]; taskIds: string[]; scores: Record<string, Array<number | null>> }>;
}
export interface ReplayListing {
  name: string;
  dataset: string | null;
  methods: string[];
}
export interface ReplayView {
  name: string;
  summary: Record<string, unknown>;
  conditions: Array<Record<string, string | number | null>>;
  byAttack: { attacks: string[]; methods: Record<string, Array<number | null>> };
}
export interface TeamSummary {
  name: string;
  agents: string[];
  runs: number;
  methods: string[];
}
export interface TeamReputation {
  team: string;
  methods: Array<{
    name: string;
    model: string;
    agents: Array<{
      agentId: string;
      score: number;
      components: Record<string, number>;
      evidenceCount: number;
      summary: string;
    }>;
  }>;
}
export interface TraceCall {
  agentId: string | null;
  act: string | null;
  model: string | null;
  startedAt: number | null;
  endedAt: number | null;
  inputTokens: number;
  outputTokens: number;
  cost: number;
  cached: boolean;
  status: 'ok' | 'failed';
  messages: Array<{ role: string; content: string }> | null;
  completion: string | null;
}
export interface TaskTrace {
  runId: string;
  taskId: string;
  startedAt: number | null;
  endedAt: number | null;
  calls: TraceCall[];
  usage: { inputTokens: number; outputTokens: number; cost: number };
  methods: Record<string, MethodDecision>;
}
