import type { AgentId } from './agent-identity.js';
import type { TaskId } from './task.js';

/** One agent's answer to a task in one round (round 0 = the initial proposal). */
export interface Proposal {
  readonly agentId: AgentId;
  readonly taskId: TaskId;
  /** 0 for Propose, 1.. for debate rounds. */
  readonly round: number;
  /** Raw text the agent produced (may be the bare answer for replayed data). */
  readonly text: string;
  /** Canonical answer key from the task kind's extractor, or `null` when unparseable. */
  readonly answer: string | null;
}
